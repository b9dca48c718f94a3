"""The stats services without Telegram: same transaction as the final move, what counts, what does not."""

from __future__ import annotations

import io
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

import engine
from engine.ai import choose_action
from engine.events import GameEnded, RoundEnded, Summed
from tests.pg import pg_engine, pg_url  # noqa: F401  (fixtures)
from tgbot import callbacks as cb
from tgbot.presenter import split_at_round_ends
from tgbot.render.chart import ChartTexts, cumulative, drawable, reading_order, score_chart_png
from tgbot.services import games, history, stats
from tgbot.services.games import MoveOutcome, TgUser
from tgbot.services.settings import GameSettings
from tgbot.store.db import create_all, make_engine, session_scope
from tgbot.store.models import ComputerStats, Game, Move, PlayerStats

NOW = datetime(2026, 1, 1, 12, 0)
CHAT = -100
ANA, BEN = TgUser(1, "Ana"), TgUser(2, "Ben")
PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(params=["sqlite", "postgresql"])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Engine]:
    """The same checks on SQLite and PostgreSQL (the stats upsert is dialect-specific)."""
    if request.param == "postgresql":
        pg: Engine = request.getfixturevalue("pg_engine")
        yield pg
        return
    engine_ = make_engine(f"sqlite:///{tmp_path / 'stats.sqlite3'}")
    create_all(engine_)
    yield engine_
    engine_.dispose()


def new_game(db: Engine, seed: int = 5, computer: str | None = None, goal: int = 20) -> int:
    """Ana and Ben (or Ana and a computer) at a started game with a low goal."""
    with session_scope(db) as session:
        games.upsert_chat(session, CHAT, "Friends", NOW)
        game = games.create_lobby(session, CHAT, None, ANA, "en", NOW, "casual", 3600)
        assert game.id is not None
        game.settings = GameSettings(target=goal).to_json()
        if computer:
            games.lobby_add_ai(session, game.id, computer, NOW)
        else:
            games.lobby_join(session, game.id, BEN, NOW)
        games.start_game(session, game.id, ANA.id, False, NOW, seed)
        return game.id


def play_until_last_move(db: Engine, game_id: int) -> tuple[int, int, str]:
    """Play greedy moves until the next one ends the game; that move (user, version, code)."""
    for _ in range(2000):
        with session_scope(db) as session:
            ctx = games.load_context(session, game_id)
            state = ctx.state
            assert state is not None and not state.is_over
            seat = ctx.seats[state.current]
            assert seat.user_id is not None
            code = engine.encode(choose_action(state, state.current, "greedy", seed=1))
            version = ctx.game.version
            if engine.apply(state, state.current, code)[0].is_over:
                return seat.user_id, version, code
            games.play(session, game_id, version, seat.user_id, code, NOW)
    raise AssertionError("the game never came near its end")


def stats_rows(db: Engine) -> list[PlayerStats]:
    with Session(db) as session:
        return list(session.exec(select(PlayerStats)).all())


def move_count(db: Engine, game_id: int) -> int:
    with Session(db) as session:
        return len(session.exec(select(Move).where(Move.game_id == game_id)).all())


def test_the_final_move_and_the_stats_commit_together(db: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    game_id = new_game(db)
    user, version, code = play_until_last_move(db, game_id)
    moves = move_count(db, game_id)

    # A failure while writing the stats (after the first row): the final move is not committed either.
    original = stats._upsert_add
    calls: list[int] = []

    def second_write_fails(*args: object, **kwargs: object) -> None:
        calls.append(1)
        if len(calls) == 2:
            raise RuntimeError("database went away")
        original(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(stats, "_upsert_add", second_write_fails)
    with pytest.raises(RuntimeError), session_scope(db) as session:
        games.play(session, game_id, version, user, code, NOW)
    assert len(calls) == 2
    assert stats_rows(db) == [] and move_count(db, game_id) == moves
    with Session(db) as session:
        game = session.get(Game, game_id)
        assert game is not None and game.status == "playing" and game.version == version

    # A failure after the final move (anything later in the same transaction): nothing is kept.
    monkeypatch.setattr(stats, "_upsert_add", original)

    def fails(*args: object, **kwargs: object) -> None:
        raise RuntimeError("crash after the move")

    monkeypatch.setattr(games, "_touch_player", fails)
    with pytest.raises(RuntimeError), session_scope(db) as session:
        games.play(session, game_id, version, user, code, NOW)
    assert stats_rows(db) == [] and move_count(db, game_id) == moves

    # Without failures: the move, the finished game and the stats, once.
    monkeypatch.undo()
    with session_scope(db) as session:
        result = games.play(session, game_id, version, user, code, NOW)
    assert result.ended
    state = result.ctx.state
    assert state is not None and state.is_over
    rows = {r.user_id: r for r in stats_rows(db)}
    assert set(rows) == {1, 2}
    for seat, user_id in enumerate((1, 2)):
        row = rows[user_id]
        assert (row.games, row.wins) == (1, int(seat in state.winners))
        assert (row.rounds, row.points) == (len(state.round_points), state.totals[seat])
    assert move_count(db, game_id) == moves + 1


def test_abandoned_games_count_as_played_without_a_winner_and_cancelled_ones_do_not(db: Engine) -> None:
    game_id = new_game(db, computer="hard", goal=300)
    with session_scope(db) as session:
        result = games.leave_game(session, game_id, ANA.id, NOW)
    assert result.abandoned
    with Session(db) as session:
        person = session.exec(select(PlayerStats)).one()
        computer = session.exec(select(ComputerStats)).one()
    assert (person.user_id, person.games, person.wins) == (1, 1, 0)
    assert (computer.level, computer.games, computer.wins) == ("hard", 1, 0)

    cancelled = new_game(db, seed=9)
    with session_scope(db) as session:
        games.cancel_game(session, cancelled, ANA.id, False, NOW)
        assert not stats.record_game_end(session, games.load_context(session, cancelled).game, None, NOW)
    with Session(db) as session:
        assert [(r.user_id, r.games) for r in session.exec(select(PlayerStats)).all()] == [(1, 1)]
        entries = history.recent_games(session, CHAT)
    assert [(e.game_id, e.status, e.winners, e.downloadable) for e in entries] == [
        (game_id, "abandoned", [], False)
    ]


def test_stats_follow_a_group_that_became_a_supergroup(db: Engine) -> None:
    with session_scope(db) as session:
        stats._upsert_add(session, PlayerStats, {"chat_id": CHAT, "user_id": 1}, {"games": 2, "wins": 1}, NOW)
        stats._upsert_add(session, PlayerStats, {"chat_id": -200, "user_id": 1}, {"games": 1, "wins": 1}, NOW)
        stats._upsert_add(session, ComputerStats, {"chat_id": CHAT, "level": "easy"}, {"games": 3}, NOW)
    for _ in range(2):  # Telegram reports a migration twice
        with session_scope(db) as session:
            stats.migrate_chat_stats(session, CHAT, -200, NOW)
    with Session(db) as session:
        people = session.exec(select(PlayerStats)).all()
        computers = session.exec(select(ComputerStats)).all()
    assert [(p.chat_id, p.user_id, p.games, p.wins) for p in people] == [(-200, 1, 3, 2)]
    assert [(c.chat_id, c.level, c.games) for c in computers] == [(-200, "easy", 3)]


def test_download_callback_data_is_strict() -> None:
    assert cb.decode(cb.download(12345)) == cb.Callback("download", game_id=12345)
    for forged in ("dl:", "dl:x1", "dl:1:2", "dl:-1", "dl:" + "9" * 13):
        with pytest.raises(cb.BadCallback):
            cb.decode(forged)


def _outcome(events: list[object]) -> MoveOutcome:
    state = engine.new_game(engine.GameConfig(players=2), 1)
    return MoveOutcome(0, "D0", "ai", state, state, events)  # type: ignore[arg-type]


def test_a_burst_is_cut_after_each_round_end() -> None:
    move = Summed(0, "R1a", ("O1a",), 2, False, None)
    ended = RoundEnded(1, (3, 4), (3, 4), ())
    a, b, c, d = (
        _outcome([move]),
        _outcome([move, ended]),
        _outcome([move]),
        _outcome([GameEnded((1,), (3, 4))]),
    )
    assert split_at_round_ends([a, b, c, d]) == [[a, b], [c, d]]
    assert split_at_round_ends([a, c]) == [[a, c]]
    assert split_at_round_ends([b]) == [[b]]
    assert split_at_round_ends([]) == [[]]


def test_the_score_chart_is_a_phone_sized_png() -> None:
    from PIL import Image

    texts = ChartTexts("Scores per round", "Round", "Points", "Goal 60")
    names = ["Ana", "Bot Hard", "🎉🎉", "林さん", "Zoë", "A very long player name indeed"]
    rounds = [[10, 20, 5, 0, 7, 9], [30, 25, 10, 3, 9, 12]]
    png = score_chart_png(names, rounds, 60, texts, winners=[0])
    assert png.startswith(PNG)
    image = Image.open(io.BytesIO(png))
    assert 800 <= image.width <= 1280 and image.height <= 1280
    assert cumulative(rounds, 2) == [[0, 10, 40], [0, 20, 45]]
    assert reading_order(5, 2) == [0, 2, 4, 1, 3]  # the legend's rows read in ranking order
    assert drawable("🎉🎉", "#3") == "#3"
    assert drawable("Zoë 🎉", "#5") == "Zoë"
    one_round = score_chart_png(["Ana", "Ben"], [[25, 3]], 20, texts, winners=[0])
    assert one_round.startswith(PNG)
