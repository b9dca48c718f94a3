"""The fast paths behave like the plain ones: batched sweeps, the language cache, plain keyboards.

Speed itself is measured by benchmarks/ (never asserted here); these tests pin down that the
shortcuts taken for it change nothing a player or the database could notice.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path

import pytest
import sqlalchemy
from sqlalchemy import text
from telegram import InlineKeyboardMarkup

import engine
from engine.ai import choose_action
from tgbot.render import board
from tgbot.services import games, languages, sweep
from tgbot.services.context import GameContext, SeatInfo
from tgbot.services.games import TgUser
from tgbot.services.settings import GameSettings
from tgbot.store.core import detached_game
from tgbot.store.db import create_all, make_engine, session_scope

T0 = datetime(2026, 5, 1, 8, 0)
TABLES = ("games", "game_players", "player_stats", "computer_stats")


def _engine(path: Path) -> sqlalchemy.engine.Engine:
    db = make_engine(f"sqlite:///{path}")
    create_all(db)
    return db


def _games(db: sqlalchemy.engine.Engine, seed: int) -> list[int]:
    """Started games with computers, idle players and a low goal, all due at once later."""
    rnd = random.Random(seed)
    ids = []
    for g in range(12):
        with session_scope(db) as session:
            chat = -500 - g
            games.upsert_chat(session, chat, f"Group {g}", T0)
            game = games.create_lobby(session, chat, None, TgUser(1, "Ana"), "en", T0, "live", 3600)
            assert game.id is not None
            for seat in range(1, 2 + g % 3):
                if rnd.random() < 0.4:
                    games.lobby_add_ai(session, game.id, rnd.choice(["easy", "normal", "hard"]), T0)
                else:
                    games.lobby_join(session, game.id, TgUser(10 * g + seat + 1, f"P{seat}"), T0)
            games.lobby_setting(session, game.id, "t", "-", T0)
            games.lobby_setting(session, game.id, "t", "-", T0)
            games.start_game(session, game.id, 1, False, T0, 100 + g)
        with session_scope(db) as session:
            games.run_autoplay(session, game.id, T0)
        if g % 3 == 0:  # missed a turn already: the next idle move makes the player away
            with db.begin() as conn:
                conn.execute(text("UPDATE game_players SET timeouts = 1 WHERE game_id = :g"), {"g": game.id})
        ids.append(game.id)
    return ids


def _rows(db: sqlalchemy.engine.Engine) -> dict[str, list[tuple[object, ...]]]:
    with db.connect() as conn:
        found = {
            t: [tuple(r) for r in conn.execute(text(f"SELECT * FROM {t} ORDER BY 1, 2"))] for t in TABLES
        }
        # the move log's own ids follow the order of inserts (a batch writes them together)
        found["moves"] = sorted(tuple(r)[1:] for r in conn.execute(text("SELECT * FROM moves")))
    return found


@pytest.mark.parametrize("seed", [1, 2])
def test_a_batched_sweep_writes_what_game_by_game_sweeps_write(tmp_path: Path, seed: int) -> None:
    one, many = _engine(tmp_path / "one.sqlite3"), _engine(tmp_path / "many.sqlite3")
    ids = _games(one, seed)
    assert _games(many, seed) == ids
    now = T0
    for _ in range(6):  # deadlines, away players, computers replying, games ending
        now += timedelta(minutes=5)
        alone = sweep.SweepReport()
        for game_id in ids:
            sweep.sweep_game(one, game_id, now, None, alone)
        together = sweep.SweepReport()
        for report in sweep.sweep_many(many, ids, now, None).values():
            together.merge(report)
        assert together.examined == alone.examined
        assert together.marked_away == alone.marked_away
        assert [
            (r.ctx.game_id, [o.code for o in r.outcomes], r.ended, r.abandoned) for r, _ in together.plays
        ] == [(r.ctx.game_id, [o.code for o in r.outcomes], r.ended, r.abandoned) for r, _ in alone.plays]
        assert _rows(many) == _rows(one)
    assert any(row[3] != "playing" for row in _rows(one)["games"])  # some games ended meanwhile


def test_a_failing_game_rolls_the_whole_batch_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = _engine(tmp_path / "batch.sqlite3")
    ids = _games(db, 3)
    before = _rows(db)
    real = sweep._handle

    def failing(session: object, game: object, *args: object) -> None:
        if getattr(game, "id", None) == ids[5]:
            raise RuntimeError("boom")
        real(session, game, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(sweep, "_handle", failing)
    with pytest.raises(RuntimeError):
        sweep.sweep_many(db, ids, T0 + timedelta(minutes=5), None)
    assert _rows(db) == before  # nothing of the batch stays: its games are swept one by one next


@pytest.fixture
def db(tmp_path: Path) -> Iterator[sqlalchemy.engine.Engine]:
    engine_ = _engine(tmp_path / "lang.sqlite3")
    yield engine_
    engine_.dispose()


def test_the_language_cache_forgets_a_user_whose_row_is_written(db: sqlalchemy.engine.Engine) -> None:
    assert languages.stored(db, 7) is None  # no row yet
    with session_scope(db) as session:
        games.upsert_user(session, TgUser(7, "Ana", language_code="es"), T0)
    assert languages.stored(db, 7) == (None, "es")
    with session_scope(db) as session:  # /language goes through upsert_user
        user = games.upsert_user(session, TgUser(7, "Ana", language_code="es"), T0)
        user.language = "ja"
        session.add(user)
    assert languages.stored(db, 7) == ("ja", "es")
    with pytest.raises(RuntimeError), session_scope(db) as session:  # rolled back: nothing changes
        user = games.upsert_user(session, TgUser(7, "Ana"), T0)
        user.language = "vi"
        session.add(user)
        session.flush()
        raise RuntimeError("crash")
    assert languages.stored(db, 7) == ("ja", "es")


def test_plain_keyboards_serialise_like_ptb() -> None:
    game = detached_game({"id": 4242, "version": 17, "chat_id": -100, "language": "en", "status": "playing"})
    checked = 0
    for seed in range(12):
        state = engine.new_game(GameSettings().engine_config(2 + seed % 4), seed)
        seats = [
            SeatInfo(i, 100 + i, f"P{i}", None, False, False, True, "en", None) for i in range(state.players)
        ]
        for step in range(40):
            if state.is_over:
                break
            ctx = GameContext(game, seats, state, GameSettings(face_down=seed % 3 == 0), "Group")
            drafts = (board.Draft(), board.Draft(0, 1), board.Draft(None, 3), board.Draft(menu="any"))
            for surface, viewer in ((board.GROUP, None), (board.PRIVATE, state.current)):
                for draft in drafts:
                    keys = board.keyboard("en", ctx, draft, surface, viewer, "tweak_test_bot")
                    plain = InlineKeyboardMarkup(keys.inline_keyboard)
                    assert keys.to_dict() == plain.to_dict()
                    assert keys == plain
                    checked += 1
            action = choose_action(state, state.current, "greedy", seed=step)
            state, _events = engine.apply(state, state.current, action)
    assert checked > 1000
