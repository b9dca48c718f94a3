"""The PostgreSQL driver as the bot sets it up (`store.db.make_engine`, `store.db.Database`):
read-only work outside a transaction, which cuts what a statement costs the process
(decisions.md B25) and must not change how its transactions hold."""

from __future__ import annotations

import asyncio

import psycopg
import pytest
from psycopg.pq import TransactionStatus
from sqlalchemy import text
from sqlalchemy.engine import Engine
from sqlmodel import Session

from tests.pg import pg_engine, pg_url  # noqa: F401  (fixtures)
from tgbot.store.db import Database


def _status(session: Session) -> TransactionStatus:
    dbapi = session.connection().connection.dbapi_connection
    assert isinstance(dbapi, psycopg.Connection)
    return dbapi.info.transaction_status


def test_read_only_work_runs_outside_a_transaction_and_writes_still_in_one(
    pg_engine: Engine,  # noqa: F811
) -> None:
    with pg_engine.begin() as conn:
        conn.exec_driver_sql("CREATE TABLE marks (name TEXT)")
    db = Database(pg_engine, workers=1)

    def read(session: Session) -> tuple[TransactionStatus, int]:
        count = session.execute(text("SELECT count(*) FROM marks")).scalar_one()
        return _status(session), count

    def write_then_fail(session: Session) -> None:
        session.execute(text("INSERT INTO marks VALUES ('lost')"))
        assert _status(session) == TransactionStatus.INTRANS
        raise RuntimeError("the work fails after its write")

    async def scenario() -> None:
        status, count = await db.run(read, read_only=True)
        assert (status, count) == (TransactionStatus.IDLE, 0)  # no BEGIN was sent
        # the same thread and pooled connection next: a write is a transaction again, and
        # rolled back whole when its work fails
        with pytest.raises(RuntimeError):
            await db.run(write_then_fail)
        status, count = await db.run(read, read_only=True)
        assert (status, count) == (TransactionStatus.IDLE, 0)

    try:
        asyncio.run(scenario())
    finally:
        db.shutdown(wait=True)
