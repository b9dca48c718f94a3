"""The stats services without Telegram: same transaction as the final move, what counts, what does not."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

import engine
from engine.actions import Discard, Sum
from engine.ai import choose_action
from tests.pg import pg_engine, pg_url  # noqa: F401  (fixtures)
from tests.statements import recorded
from tgbot import callbacks as cb
from tgbot.game_settings import GameSettings
from tgbot.render.chart import (
    ChartTexts,
    cumulative,
    drawable,
    from_spec,
    reading_order,
    score_chart_png,
    spec,
)
from tgbot.services import history, lobby, lobby_keys, moves, play, record, stats, table_control
from tgbot.services.call import KeyService
from tgbot.services.context import load_game
from tgbot.services.env import Env
from tgbot.services.moves import MoveOutcome
from tgbot.services.origins import Command, Tap
from tgbot.services.people import Person
from tgbot.services.tables import presenter_of
from tgbot.store import stats as stat_rows
from tgbot.store.db import create_all, make_engine, session_scope
from tgbot.store.models import ComputerStats, Game, Move, PlayerStats, PracticeStats

NOW = datetime(2026, 1, 1, 12, 0)
CHAT = -100
ANA, BEN = Person(1, "Ana"), Person(2, "Ben")
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


def env(seed: int = 5) -> Env:
    return Env(now=NOW, new_seed=lambda: seed)


def tap(person: Person) -> Tap:
    """A key in the group, on a message the test does not track."""
    return Tap(person, CHAT, None, private=False)


def new_game(db: Engine, seed: int = 5, computer: str | None = None, goal: int = 20) -> int:
    """Ana and Ben (or Ana and a computer) at a started game with a low goal, through the lobby's
    services as its keys call them."""
    with session_scope(db) as session:
        created = lobby.newgame(session, env(seed), Command(ANA, CHAT, chat_title="Friends"))
        game_id = created.game_id
        assert game_id is not None
        game = session.get(Game, game_id)
        assert game is not None
        game.settings = GameSettings(target=goal).to_json()
        session.add(game)
    with session_scope(db) as session:
        if computer:
            answer = lobby_keys.add_computer(session, env(seed), tap(ANA), cb.AddComputer(game_id, computer))
            assert answer.text == "A computer player joined."
        else:
            assert lobby_keys.join(session, env(seed), tap(BEN), cb.Join(game_id)).text.startswith(
                "You're in!"
            )
    with session_scope(db) as session:
        assert not lobby_keys.start_game(session, env(seed), tap(ANA), cb.Start(game_id)).alert
    with Session(db) as session:
        game = session.get(Game, game_id)
        assert game is not None and game.status == "playing" and game.seed == seed
    return game_id


def person_of(user_id: int) -> Person:
    return {ANA.id: ANA, BEN.id: BEN}[user_id]


def play_until_last_move(db: Engine, game_id: int) -> tuple[Person, int, Sum | Discard]:
    """Play Normal's moves until the next one ends the game; who plays it, at which version, what."""
    for _ in range(2000):
        with session_scope(db) as session:
            ctx = load_game(session, game_id, lock=True)
            assert ctx is not None
            state = ctx.state
            assert state is not None and not state.is_over
            seat = ctx.seats[state.current]
            assert seat.user_id is not None
            action = choose_action(state, state.current, "normal", seed=1)
            if isinstance(action, (Sum, Discard)) and engine.apply(state, state.current, action)[0].is_over:
                return person_of(seat.user_id), ctx.game.version, action
            result = moves.play(session, env(), ctx, seat, action)
            presenter_of(ctx).report(session, env(), result)
    raise AssertionError("the game never came near its end")


def compose(db: Engine, game_id: int, person: Person, version: int, action: Sum | Discard) -> None:
    """The draft of the final move, key by key, each tap in its own transaction."""
    taps: list[tuple[KeyService[Any], cb.Callback]] = [
        (play.pick_hand, cb.PickHand(game_id, version, action.hand))
    ]
    if isinstance(action, Sum):
        taps += [(play.pick_table, cb.PickTable(game_id, version, position)) for position in action.table]
    for service, key in taps:
        with session_scope(db) as session:
            answer = service(session, env(), tap(person), key)
            assert not answer.alert, answer.text


def final_tap(db: Engine, game_id: int, person: Person, version: int, action: Sum | Discard) -> str:
    """Claim or discard the draft: the transaction that ends the game."""
    with session_scope(db) as session:
        if isinstance(action, Sum):
            return play.claim(session, env(), tap(person), cb.Claim(game_id, version)).text
        return play.discard(session, env(), tap(person), cb.Discard(game_id, version)).text


def stats_rows(db: Engine) -> list[PlayerStats]:
    with Session(db) as session:
        return list(session.exec(select(PlayerStats)).all())


def move_count(db: Engine, game_id: int) -> int:
    with Session(db) as session:
        return len(session.exec(select(Move).where(Move.game_id == game_id)).all())


def test_the_final_move_and_the_stats_commit_together(db: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    game_id = new_game(db)
    person, version, action = play_until_last_move(db, game_id)
    compose(db, game_id, person, version, action)
    moves_before = move_count(db, game_id)

    # A failure while writing the stats (the players' rows, after the computers' had their turn):
    # the final move is not committed either.
    original = stat_rows.add_all
    calls: list[int] = []

    def second_write_fails(*args: object, **kwargs: object) -> None:
        calls.append(1)
        if len(calls) == 2:
            raise RuntimeError("database went away")
        original(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(stat_rows, "add_all", second_write_fails)
    with pytest.raises(RuntimeError):
        final_tap(db, game_id, person, version, action)
    assert len(calls) == 2
    assert stats_rows(db) == [] and move_count(db, game_id) == moves_before
    with Session(db) as session:
        game = session.get(Game, game_id)
        assert game is not None and game.status == "playing" and game.version == version

    # A failure after the final move (anything later in the same transaction, here writing what
    # the group will read): nothing is kept.
    monkeypatch.setattr(stat_rows, "add_all", original)

    def fails(*args: object, **kwargs: object) -> None:
        raise RuntimeError("crash after the move")

    monkeypatch.setattr(record, "report", fails)
    with pytest.raises(RuntimeError):
        final_tap(db, game_id, person, version, action)
    assert stats_rows(db) == [] and move_count(db, game_id) == moves_before

    # Without failures: the move, the finished game and the stats, once. The draft survived the
    # failed attempts (they were rolled back), so the same tap plays it now.
    monkeypatch.undo()
    assert final_tap(db, game_id, person, version, action) == "Done!"
    with Session(db) as session:
        game = session.get(Game, game_id)
        assert game is not None and game.status == "finished" and game.version == version + 1
        assert game.state is not None
        state = engine.GameState.from_json(json.loads(game.state))
    assert state.is_over
    rows = {r.user_id: r for r in stats_rows(db)}
    assert set(rows) == {1, 2}
    for seat, user_id in enumerate((1, 2)):
        row = rows[user_id]
        assert (row.games, row.wins) == (1, int(seat in state.winners))
        assert (row.rounds, row.points) == (len(state.round_points), state.totals[seat])
    assert move_count(db, game_id) == moves_before + 1
    # a second tap of the same key is refused: the stats are not counted twice
    assert final_tap(db, game_id, person, version, action) == "This game is over."
    assert [(r.user_id, r.games) for r in stats_rows(db)] == [(1, 1), (2, 1)]


def test_abandoned_games_count_as_played_without_a_winner_and_cancelled_ones_do_not(db: Engine) -> None:
    game_id = new_game(db, computer="hard", goal=300)
    with session_scope(db) as session:
        replied = table_control.leave(session, env(), Command(ANA, CHAT))
    assert replied.outcome == "left"
    with Session(db) as session:
        game = session.get(Game, game_id)
        assert game is not None and game.status == "abandoned"
        person = session.exec(select(PlayerStats)).one()
        computer = session.exec(select(ComputerStats)).one()
    assert (person.user_id, person.games, person.wins) == (1, 1, 0)
    assert (computer.level, computer.games, computer.wins) == ("hard", 1, 0)

    cancelled = new_game(db, seed=9)
    with session_scope(db) as session:
        table_control.cancel(session, env(), Command(ANA, CHAT))
        game = session.get(Game, cancelled)
        assert game is not None and game.status == "cancelled"
        assert not stats.record_game_end(session, game, None, NOW)
    with Session(db) as session:
        assert [(r.user_id, r.games) for r in session.exec(select(PlayerStats)).all()] == [(1, 1)]
        entries = history.recent_games(session, CHAT)
    assert [(e.game_id, e.played_out, e.winners, e.downloadable) for e in entries] == [
        (game_id, False, [], False)
    ]


def test_stats_follow_a_group_that_became_a_supergroup(db: Engine) -> None:
    with session_scope(db) as session:
        stat_rows.add_to(session, PlayerStats, {"chat_id": CHAT, "user_id": 1}, {"games": 2, "wins": 1}, NOW)
        stat_rows.add_to(session, PlayerStats, {"chat_id": -200, "user_id": 1}, {"games": 1, "wins": 1}, NOW)
        stat_rows.add_to(session, ComputerStats, {"chat_id": CHAT, "level": "easy"}, {"games": 3}, NOW)
    for _ in range(2):  # Telegram reports a migration twice
        with session_scope(db) as session:
            stats.migrate_chat_stats(session, CHAT, -200, NOW)
    with Session(db) as session:
        people = session.exec(select(PlayerStats)).all()
        computers = session.exec(select(ComputerStats)).all()
    assert [(p.chat_id, p.user_id, p.games, p.wins) for p in people] == [(-200, 1, 3, 2)]
    assert [(c.chat_id, c.level, c.games) for c in computers] == [(-200, "easy", 3)]


def test_a_game_ends_with_one_stats_statement_per_table_two_computers_of_a_level_adding_up(
    db: Engine,
) -> None:
    """No statement per seat; two seats of one row (two Easy computers) count twice, as they
    did when each seat had its own upsert."""
    seats = {(CHAT, 1): {"games": 1, "wins": 1}, (CHAT, 2): {"games": 1, "wins": 0}}
    computers: stats.Sums = {}
    for _seat in range(2):
        stats._sum_into(computers, (CHAT, "easy"), {"games": 1, "wins": 0})
    with session_scope(db) as session:
        stat_rows.add_to(session, PlayerStats, {"chat_id": CHAT, "user_id": 1}, {"games": 4, "wins": 2}, NOW)
    with recorded(db) as statements, session_scope(db) as session:
        stat_rows.add_all(session, PlayerStats, ("chat_id", "user_id"), seats, NOW)
        stat_rows.add_all(session, ComputerStats, ("chat_id", "level"), computers, NOW)
    assert len([s for s in statements if s.startswith("INSERT")]) == 2, statements
    with Session(db) as session:
        people = session.exec(select(PlayerStats).order_by(PlayerStats.user_id)).all()  # type: ignore[arg-type]
        machines = session.exec(select(ComputerStats)).all()
    assert [(p.user_id, p.games, p.wins) for p in people] == [(1, 5, 3), (2, 1, 0)]
    assert [(c.level, c.games) for c in machines] == [("easy", 2)]


def practice_table(db: Engine, seed: int, levels: tuple[str, ...]) -> int:
    """Ana's practice table in her chat with the bot (its id is hers), with these computers."""
    here = Tap(ANA, ANA.id, None, private=True)
    with session_scope(db) as session:
        game_id = lobby.newgame(session, env(seed), Command(ANA, ANA.id, private=True)).game_id
        assert game_id is not None
        game = session.get(Game, game_id)
        assert game is not None
        game.settings = GameSettings(target=20).to_json()
    for level in levels:
        with session_scope(db) as session:
            assert lobby_keys.add_computer(session, env(seed), here, cb.AddComputer(game_id, level)).text
    with session_scope(db) as session:
        assert not lobby_keys.start_game(session, env(seed), here, cb.Start(game_id)).alert
    return game_id


def practice_rows(db: Engine) -> list[tuple[int, str, int, int]]:
    with Session(db) as session:
        rows = session.exec(select(PracticeStats)).all()
    return sorted((r.user_id, r.level, r.games, r.wins) for r in rows)


def test_practice_counts_per_computer_level_and_in_no_groups_stats(db: Engine) -> None:
    """A practice game counts once for each level at its table (two Easy computers: one game
    against Easy), a win when its person won; it enters neither a person's nor a computer's
    group stats."""
    finished = practice_table(db, 5, ("easy", "easy", "hard"))
    for _ in range(2000):
        with session_scope(db) as session:
            ctx = load_game(session, finished, lock=True)
            assert ctx is not None and ctx.state is not None
            if ctx.state.is_over:
                break
            seat = ctx.seats[ctx.state.current]
            action = choose_action(ctx.state, seat.seat, "normal", seed=1)
            presenter_of(ctx).report(session, env(), moves.play(session, env(), ctx, seat, action))
    with Session(db) as session:
        game = session.get(Game, finished)
        assert game is not None and game.status == "finished" and game.state is not None
        won = int(0 in engine.GameState.from_json(json.loads(game.state)).winners)
    assert practice_rows(db) == [(ANA.id, "easy", 1, won), (ANA.id, "hard", 1, won)]
    practice_table(db, 6, ("hard",))
    with session_scope(db) as session:
        assert table_control.leave(session, env(), Command(ANA, ANA.id, private=True)).outcome == "left"
    assert practice_rows(db) == [(ANA.id, "easy", 1, won), (ANA.id, "hard", 2, won)]
    with Session(db) as session:
        assert (
            session.exec(select(PlayerStats)).all() == [] and session.exec(select(ComputerStats)).all() == []
        )
        lines = stats.practice_lines(session, ANA.id)
    assert [(line.level, line.games, line.wins) for line in lines] == [("easy", 1, won), ("hard", 2, won)]


def test_download_callback_data_is_strict() -> None:
    assert cb.Download(12345).data == "dl:12345"
    assert cb.Download.parse("dl:12345") == cb.Download(12345)
    assert cb.Download.parse(f"dl:{cb.MAX_GAME_ID}") == cb.Download(cb.MAX_GAME_ID)
    for forged in ("dl:", "dl:x1", "dl:1:2", "dl:-1", "dl:0", f"dl:{cb.MAX_GAME_ID + 1}", "dl:" + "9" * 13):
        with pytest.raises(cb.BadCallback):
            cb.Download.parse(forged)


def _outcome(events: list[object]) -> MoveOutcome:
    state = engine.new_game(engine.GameConfig(players=2), 1)
    return MoveOutcome(0, "D0", "ai", state, state, events)  # type: ignore[arg-type]


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


def test_the_chart_waits_in_the_outbox_as_a_spec_and_is_drawn_from_it() -> None:
    """The score chart is queued as JSON (drawn by the sender, never on a tap): the spec round-trips."""
    texts = ChartTexts("Puntos por partida", "Partida", "Puntos", "Meta 60")
    english = ChartTexts("Scores per round", "Round", "Points", "Goal 60")
    data = json.loads(json.dumps(spec(texts, english, ["Ana", "Ben"], [[25, 3], [10, 30]], 60, [0])))
    png = from_spec(data)
    assert png.startswith(PNG)
    assert png == score_chart_png(["Ana", "Ben"], [[25, 3], [10, 30]], 60, texts, winners=[0])


def test_the_goal_label_never_covers_a_data_point() -> None:
    """Scores that end right at the goal, in the last round (where the old label sat): the label is
    drawn in the right margin, outside the plot, so no line or marker can be under it."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.text import Annotation

    from tgbot.render.chart import score_figure

    texts = ChartTexts("Scores per round", "Round", "Points", "Goal 60")
    rounds = [[20, 20, 10], [20, 20, 25], [20, 20, 25]]  # two players finish exactly on 60
    figure = score_figure(["Ana", "Ben", "Cai"], rounds, 60, texts, winners=[0, 1])
    canvas = FigureCanvasAgg(figure)
    canvas.draw()
    renderer = canvas.get_renderer()
    axes = figure.axes[0]
    goal = next(a for a in axes.texts if isinstance(a, Annotation) and a.get_text() == "Goal 60")
    label = goal.get_window_extent(renderer)
    plot = axes.get_window_extent(renderer)
    assert label.x0 >= plot.x1  # right of the plot area
    points = [axes.transData.transform(xy) for line in axes.get_lines() for xy in line.get_xydata()]
    assert not any(label.contains(x, y) for x, y in points)
