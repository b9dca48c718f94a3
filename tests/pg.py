"""PostgreSQL for tests: a fresh, private database per test on a real server.

Reuse it from any test module::

    from tests.pg import pg_engine, pg_url  # noqa: F401  (pytest fixtures)

    def test_something(pg_url: str) -> None:        # a SQLAlchemy URL, tables not created
        ...

    def test_other(pg_engine: Engine) -> None:      # tgbot's engine over it, tables created
        ...

or by hand (threads, several databases, benchmarks)::

    name, url = create_database()        # skips/fails like the fixtures when there is no server
    try:
        ...
    finally:
        drop_database(name)

    with fresh_database() as url:        # the same as a context manager
        ...

* Server: ``$TWEAKBOT_TEST_PG_URL``, default ``postgresql+psycopg://postgres@127.0.0.1:5432/test``
  (trust auth). Only the server and credentials are taken from it: every test gets its own database
  ``tweakbot_test_<random hex>``, created with psycopg in autocommit mode and dropped afterwards
  (``DROP DATABASE ... WITH (FORCE)``), so tests and other helpers sharing the server never see
  each other's tables.
* Unreachable server: the test is **skipped** when the environment variable ``CI`` is unset (or
  empty), and **fails** when ``CI`` is set (``CI=true`` on CI services), so a missing database on CI
  can never pass silently.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache

import psycopg
import pytest
from sqlalchemy.engine import Engine, make_url

DEFAULT_PG_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
PREFIX = "tweakbot_test_"


def server_url() -> str:
    return os.environ.get("TWEAKBOT_TEST_PG_URL") or DEFAULT_PG_URL


def _conninfo(url: str) -> str:
    """A SQLAlchemy URL as a libpq URI for psycopg."""
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


def _with_database(url: str, database: str) -> str:
    return make_url(url).set(database=database).render_as_string(hide_password=False)


@cache
def unreachable_reason() -> str | None:
    """None when the server answers; else why not (checked once per process)."""
    try:
        with psycopg.connect(_conninfo(server_url()), connect_timeout=3) as conn:
            conn.execute("SELECT 1")
    except psycopg.Error as exc:
        return f"PostgreSQL at {make_url(server_url()).render_as_string()} is unreachable: {exc}".strip()
    return None


def require_server() -> None:
    """Skip (locally) or fail (under CI) when there is no server."""
    reason = unreachable_reason()
    if reason is None:
        return
    if os.environ.get("CI"):
        pytest.fail(f"{reason} (CI is set, so PostgreSQL tests must run)")
    pytest.skip(reason)


def create_database() -> tuple[str, str]:
    """Create `tweakbot_test_<random>` and return (its name, its SQLAlchemy URL).

    Skips or fails like the fixtures when there is no server; pair it with `drop_database(name)`.
    """
    require_server()
    name = PREFIX + secrets.token_hex(6)
    with psycopg.connect(_conninfo(server_url()), autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return name, _with_database(server_url(), name)


def drop_database(name: str) -> None:
    """Drop a database made by `create_database`, closing any connection still open to it."""
    if not name.startswith(PREFIX):
        raise ValueError(f"refusing to drop {name!r}: not a test database")
    with psycopg.connect(_conninfo(server_url()), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@contextmanager
def fresh_database() -> Iterator[str]:
    """Create `tweakbot_test_<random>` on the server, yield its SQLAlchemy URL, drop it afterwards."""
    name, url = create_database()
    try:
        yield url
    finally:
        drop_database(name)


@pytest.fixture
def pg_url() -> Iterator[str]:
    """The URL of a fresh, empty PostgreSQL database for this test (dropped afterwards)."""
    with fresh_database() as url:
        yield url


@pytest.fixture
def pg_engine(pg_url: str) -> Iterator[Engine]:
    """tgbot's engine over a fresh PostgreSQL database, with the tables created."""
    from tgbot.store.db import create_all, make_engine

    engine = make_engine(pg_url)
    create_all(engine)
    try:
        yield engine
    finally:
        engine.dispose()
