"""The PostgreSQL driver as the bot sets it up (`store.db.make_engine`, `store.pg_cursor`):
a cursor whose description is made only when read, and read-only work outside a transaction.

Both cut what a statement costs the process (decisions.md B25);
neither may change what the bot reads or how its transactions hold."""

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
from tgbot.store.pg_cursor import Description, LeanCursor

QUERY = "SELECT 1 AS one, 'x'::text AS word, now() AS at, NULL::jsonb AS doc, 2.5::float8 AS half"


def _raw(engine: Engine) -> psycopg.Connection[object]:
    connection = engine.raw_connection().dbapi_connection
    assert isinstance(connection, psycopg.Connection)
    return connection


def test_the_engine_describes_results_as_psycopg_does(pg_engine: Engine) -> None:  # noqa: F811
    connection = _raw(pg_engine)
    try:
        lean = connection.cursor()
        assert isinstance(lean, LeanCursor)
        plain = psycopg.Cursor(connection)  # the driver's own, on the same connection
        lean.execute(QUERY)
        plain.execute(QUERY)
        described, expected = lean.description, plain.description
        assert isinstance(described, Description) and expected is not None
        assert len(described) == len(expected) == 5
        assert [(d[0], d[1]) for d in described] == [(c.name, c.type_code) for c in expected]
        assert described[-1] == ("half", expected[-1].type_code, None, None, None, None, None)
        assert [d[0] for d in described[1:3]] == ["word", "at"]
        with pytest.raises(IndexError):
            described[5]
        with pytest.raises(IndexError):
            described[-6]
        # what a later statement cannot change: the description of the one it came from
        lean.execute("SELECT 7 AS seven")
        assert described[0][0] == "one" and [d[0] for d in lean.description or []] == ["seven"]
        # no rows, no description; rows of no columns, an empty one (as psycopg's)
        lean.execute("SET application_name = 'tweakbot test'")
        plain.execute("SET application_name = 'tweakbot test'")
        assert lean.description is None and plain.description is None
        lean.execute("SELECT")
        assert lean.description is not None and len(lean.description) == 0
    finally:
        connection.rollback()
        connection.close()


def test_sqlalchemy_maps_the_columns_by_name(pg_engine: Engine) -> None:  # noqa: F811
    """The description is what SQLAlchemy maps a result's columns by, on the first run of a
    statement: the values land under their names, the second run (mapping cached) as well."""
    with pg_engine.connect() as conn:
        for _ in range(2):
            row = conn.execute(text(QUERY)).mappings().one()
            assert (row["one"], row["word"], row["doc"], row["half"]) == (1, "x", None, 2.5)


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
