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
from sqlmodel import Session, col, select

from tests.bot.conftest import running_bot
from tests.bot.helpers import game_row, moves_of, texts
from tests.bot.pacing_support import start_table, sweep_at, to_move
from tests.pg import pg_engine, pg_url  # noqa: F401  (fixtures)
from tgbot.services import games, sweep
from tgbot.services.errors import ServiceError
from tgbot.services.games import TgUser
from tgbot.store.db import session_scope
from tgbot.store.models import Game, Move

T0 = datetime(2026, 1, 1, 12, 0, 0)
MIN = timedelta(minutes=1)


def new_game(db: Engine, chat_id: int = -100) -> int:
    with session_scope(db) as session:
        game = games.create_lobby(session, chat_id, None, TgUser(1, "Ana"), "en", T0, "live", 86400)
        assert game.id is not None
        games.lobby_join(session, game.id, TgUser(2, "Ben"), T0)
        games.start_game(session, game.id, 1, False, T0, seed=7)
        return game.id


def sources(db: Engine, game_id: int) -> list[str]:
    with Session(db) as session:
        query = select(Move).where(Move.game_id == game_id).order_by(col(Move.seq))
        return [m.source for m in session.exec(query).all()]


async def test_the_bot_on_postgresql_reminds_and_plays_at_the_deadline(pg_url: str) -> None:  # noqa: F811
    async with running_bot(pg_url) as rig:
        assert rig.deps.db.dialect.name == "postgresql"
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


def test_a_claimed_game_is_skipped_not_waited_for(pg_engine: Engine) -> None:  # noqa: F811
    game_id = new_game(pg_engine)
    due = T0 + MIN
    with Session(pg_engine) as first:
        assert sweep._claim(first, game_id, due) is not None  # row locked FOR UPDATE
        started = time.perf_counter()
        report = sweep.SweepReport()
        assert sweep.sweep_game(pg_engine, game_id, due, None, report) is False  # SKIP LOCKED
        assert time.perf_counter() - started < 2
        assert report.reminders == []
        first.commit()
    report = sweep.SweepReport()
    assert sweep.sweep_game(pg_engine, game_id, due, None, report) is True
    assert len(report.reminders) == 1


def test_the_claim_query_says_for_update_skip_locked(pg_engine: Engine) -> None:  # noqa: F811
    game_id = new_game(pg_engine)
    statements: list[str] = []
    from sqlalchemy import event

    def record(_conn: object, _cursor: object, statement: str, *_args: object) -> None:
        statements.append(statement)

    event.listen(pg_engine, "before_cursor_execute", record)
    try:
        with Session(pg_engine) as session:
            sweep._claim(session, game_id, T0 + MIN)
    finally:
        event.remove(pg_engine, "before_cursor_execute", record)
    assert any("FOR UPDATE SKIP LOCKED" in s for s in statements), statements


def test_a_tap_waiting_behind_the_sweep_loses_the_compare_and_set(pg_engine: Engine) -> None:  # noqa: F811
    game_id = new_game(pg_engine)
    deadline = T0 + 3 * MIN
    with Session(pg_engine) as session:
        ctx = games.load_context(session, game_id)
        assert ctx.current is not None and ctx.current.user_id is not None
        user, version = ctx.current.user_id, ctx.game.version
    outcome: dict[str, object] = {}

    def tap() -> None:
        try:
            with session_scope(pg_engine) as session:
                games.play(session, game_id, version, user, "D0", deadline)
            outcome["result"] = "applied"
        except ServiceError as exc:
            outcome["result"] = exc.reason
        except BaseException as exc:  # reported by the assertion below
            outcome["result"] = repr(exc)

    with Session(pg_engine) as sweeper:
        game = sweep._claim(sweeper, game_id, deadline)
        assert game is not None
        thread = threading.Thread(target=tap)
        thread.start()
        # wait (bounded) until the tap's UPDATE is blocked on the row the sweep holds
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
        sweep._handle(sweeper, game, deadline, None, sweep.SweepReport())
        sweeper.commit()
    thread.join(10)
    assert not thread.is_alive()
    assert outcome["result"] == "stale"
    assert sources(pg_engine, game_id) == ["system", "idle"]


def test_compare_and_set_on_postgresql(pg_engine: Engine) -> None:  # noqa: F811
    game_id = new_game(pg_engine)
    with Session(pg_engine) as a, Session(pg_engine) as b:
        game_a, game_b = a.get(Game, game_id), b.get(Game, game_id)
        assert game_a is not None and game_b is not None
        ctx = games.load_context(a, game_id, game_a)
        assert ctx.current is not None and ctx.current.user_id is not None
        version = game_a.version
        games.play(a, game_id, version, ctx.current.user_id, "D0", T0)
        a.commit()
        # b still holds the row as it read it (same version, same turn): only the UPDATE's
        # "WHERE version = <read>" can refuse it
        assert game_b.version == version
        with pytest.raises(ServiceError) as refused:
            games.play(b, game_id, version, ctx.current.user_id, "D1", T0)
        assert refused.value.reason == "stale"
        b.rollback()
    assert sources(pg_engine, game_id) == ["system", "player"]


def test_remind_many_leaves_out_games_another_instance_holds(pg_engine: Engine) -> None:  # noqa: F811
    held, free = new_game(pg_engine, chat_id=-101), new_game(pg_engine, chat_id=-102)
    due = T0 + MIN
    with Session(pg_engine) as other:
        assert sweep._claim(other, held, due) is not None
        report = sweep.SweepReport()
        assert sweep.remind_many(pg_engine, [held, free], due, None, report) == []
        assert [r.game_id for r in report.reminders] == [free]
        other.commit()
    report = sweep.SweepReport()
    assert sweep.remind_many(pg_engine, [held, free], due, None, report) == []
    assert [r.game_id for r in report.reminders] == [held]
