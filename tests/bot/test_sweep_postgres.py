"""The sweep on PostgreSQL: the bot end to end, FOR UPDATE SKIP LOCKED, and compare-and-set.

Runs against the local server (see tests/pg.py): skipped when it is unreachable and CI is unset,
failing under CI.
"""

from __future__ import annotations

import threading
import time
from datetime import datetime, timedelta

import pytest
from sqlalchemy import text
from sqlalchemy.engine import Engine
from sqlalchemy.orm.exc import StaleDataError
from sqlmodel import Session, col, select

from tests.bot.conftest import running_bot
from tests.bot.helpers import game_row, moves_of, texts
from tests.bot.pacing_support import (
    discard_first_card,
    env_at,
    service_game,
    start_table,
    sweep_at,
    tap_by,
    to_move,
    user_to_move,
    waiting_texts,
)
from tests.pg import pg_engine, pg_url  # noqa: F401  (fixtures)
from tests.statements import recorded
from tgbot import callbacks as cb
from tgbot.services import moves, play, sweep
from tgbot.services.context import load_game
from tgbot.store.db import session_scope
from tgbot.store.models import Game, Move

T0 = datetime(2026, 1, 1, 12, 0, 0)
MIN = timedelta(minutes=1)
STALE = "This board is out of date: the live one is at the bottom of the chat."


def new_game(db: Engine, chat_id: int = -100) -> int:
    return service_game(db, chat_id, "live", T0)


def sources(db: Engine, game_id: int) -> list[str]:
    with Session(db) as session:
        query = select(Move).where(Move.game_id == game_id).order_by(col(Move.seq))
        return [m.source for m in session.exec(query).all()]


def locked(session: Session, game_id: int) -> Game:
    """Hold the game's row lock in `session`, as a tap or another instance's sweep does."""
    ctx = load_game(session, game_id, lock=True)
    assert ctx is not None
    return ctx.game


async def test_the_bot_on_postgresql_reminds_and_plays_at_the_deadline(pg_url: str) -> None:  # noqa: F811
    async with running_bot(pg_url) as rig:
        assert rig.deps.db.engine.dialect.name == "postgresql"
        table = await start_table(rig, pace="live")
        idle = to_move(rig, table)
        start = rig.clock.now()
        calls = await sweep_at(rig, start + MIN)
        assert texts(calls) == [
            f'⏳ <a href="tg://user?id={idle.id}">{idle.first_name}</a>, it\'s your turn!'
        ]
        version = game_row(rig, table.game_id).version
        calls = await sweep_at(rig, start + 3 * MIN)
        assert game_row(rig, table.game_id).version == version + 1
        assert moves_of(rig, table.game_id)[-1].source == "idle"
        assert any(f"⏰ {idle.first_name} was idle:" in t for t in texts(calls))


def test_a_held_game_is_skipped_not_waited_for(pg_engine: Engine) -> None:  # noqa: F811
    game_id = new_game(pg_engine)
    due = T0 + MIN
    with Session(pg_engine) as first:
        locked(first, game_id)  # row locked FOR UPDATE
        started = time.perf_counter()
        with session_scope(pg_engine) as session:
            report = sweep.sweep_batch(session, env_at(due), [game_id])  # SKIP LOCKED
        assert time.perf_counter() - started < 2
        assert (report.examined, report.reminders) == (0, 0)
        first.commit()
    with session_scope(pg_engine) as session:
        report = sweep.sweep_batch(session, env_at(due), [game_id])
    assert (report.examined, report.reminders) == (1, 1)


def test_the_sweep_query_says_for_update_skip_locked(pg_engine: Engine) -> None:  # noqa: F811
    game_id = new_game(pg_engine)
    with recorded(pg_engine) as statements, Session(pg_engine) as session:
        sweep.sweep_batch(session, env_at(T0 + MIN), [game_id])
        session.rollback()
    assert any("FOR UPDATE SKIP LOCKED" in s for s in statements), statements


def test_a_tap_waiting_behind_the_sweep_is_refused_as_stale(pg_engine: Engine) -> None:  # noqa: F811
    game_id = new_game(pg_engine)
    deadline = T0 + 3 * MIN
    user = user_to_move(pg_engine, game_id)
    with Session(pg_engine) as session:
        game = session.get(Game, game_id)
        assert game is not None
        version, chat_id = game.version, game.chat_id
    with session_scope(pg_engine) as session:  # the player picked a card before the deadline
        play.pick_hand(
            session, env_at(deadline - MIN), tap_by(user, chat_id), cb.PickHand(game_id, version, 0)
        )
    outcome: dict[str, object] = {}

    def tap() -> None:
        try:
            with session_scope(pg_engine) as session:
                answer = play.discard(
                    session, env_at(deadline), tap_by(user, chat_id), cb.Discard(game_id, version)
                )
            outcome["result"] = answer.text
        except BaseException as exc:  # reported by the assertion below
            outcome["result"] = repr(exc)

    with Session(pg_engine) as sweeper:
        report = sweep.sweep_batch(sweeper, env_at(deadline), [game_id])  # claimed and played
        assert report.idle_moves == 1
        thread = threading.Thread(target=tap)
        thread.start()
        # wait (bounded) until the tap is blocked on the row the sweep holds
        with pg_engine.connect() as watcher:
            for _ in range(500):
                waiting = watcher.execute(
                    text(
                        "SELECT count(*) FROM pg_stat_activity "
                        "WHERE datname = current_database() AND wait_event_type = 'Lock'"
                    )
                ).scalar_one()
                watcher.rollback()  # pg_stat_activity is a snapshot per transaction: take a fresh one
                if waiting:
                    break
                time.sleep(0.01)
            assert waiting == 1, "the tap should be waiting for the sweep's row lock"
        sweeper.commit()
    thread.join(10)
    assert not thread.is_alive()
    assert outcome["result"] == STALE
    assert sources(pg_engine, game_id) == ["system", "idle"]


def test_compare_and_set_on_postgresql(pg_engine: Engine) -> None:  # noqa: F811
    game_id = new_game(pg_engine)
    with Session(pg_engine) as a, Session(pg_engine) as b:
        seen_a, seen_b = load_game(a, game_id), load_game(b, game_id)
        assert seen_a is not None and seen_b is not None
        assert seen_a.current is not None and seen_b.current is not None
        version = seen_a.game.version
        moves.play(a, env_at(T0), seen_a, seen_a.current, "D0")
        a.commit()
        # b still holds the game as it read it (same version, same turn): only the UPDATE's
        # "WHERE version = <read>" can refuse it
        assert seen_b.game.version == version
        moves.play(b, env_at(T0), seen_b, seen_b.current, "D1")  # applied in memory
        with pytest.raises(StaleDataError):
            b.flush()
        b.rollback()
    assert sources(pg_engine, game_id) == ["system", "player"]


def test_a_batch_leaves_out_games_another_instance_holds(pg_engine: Engine) -> None:  # noqa: F811
    held, free = new_game(pg_engine, chat_id=-101), new_game(pg_engine, chat_id=-102)
    due = T0 + MIN
    before = {g: len(waiting_texts(pg_engine, c)) for g, c in ((held, -101), (free, -102))}
    with Session(pg_engine) as other:
        locked(other, held)
        with session_scope(pg_engine) as session:
            report = sweep.sweep_batch(session, env_at(due), [held, free])
        assert (report.examined, report.reminders) == (1, 1)
        assert len(waiting_texts(pg_engine, -102)) == before[free] + 1  # the free game's reminder
        other.commit()
    assert len(waiting_texts(pg_engine, -101)) == before[held]
    with session_scope(pg_engine) as session:
        report = sweep.sweep_batch(session, env_at(due), [held, free])
    assert (report.examined, report.reminders) == (1, 1)  # the held game, now free
    assert len(waiting_texts(pg_engine, -101)) == before[held] + 1


def test_a_tap_that_lands_first_leaves_the_sweep_nothing_to_do(pg_engine: Engine) -> None:  # noqa: F811
    game_id = new_game(pg_engine)
    deadline = T0 + 3 * MIN
    assert discard_first_card(pg_engine, game_id, deadline).text == "Done!"
    with session_scope(pg_engine) as session:
        report = sweep.sweep_batch(session, env_at(deadline), [game_id])
    assert (report.examined, report.idle_moves) == (0, 0)
    assert sources(pg_engine, game_id) == ["system", "player"]
