"""Engine and session set-up for SQLite (default) and PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import event, text
from sqlalchemy.engine import Engine
from sqlmodel import Session, SQLModel, create_engine


def make_engine(url: str, echo: bool = False) -> Engine:
    """Create a SQLAlchemy engine tuned for the bot's short transactions."""
    if url.startswith("sqlite"):
        engine = create_engine(url, echo=echo, connect_args={"check_same_thread": False, "timeout": 30})

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
            cursor = dbapi_conn.cursor()
            if ":memory:" not in url:
                cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.close()

        return engine
    return create_engine(
        url,
        echo=echo,
        pool_pre_ping=True,
        pool_size=10,
        max_overflow=10,
        # Fail fast when the server is down (health checks, start-up) instead of hanging.
        connect_args={"connect_timeout": 10},
    )


def ping(engine: Engine) -> None:
    """Raise unless the database answers a trivial query."""
    with engine.connect() as connection:
        connection.execute(text("SELECT 1"))


def create_all(engine: Engine) -> None:
    """Create tables directly, for tests; the bot migrates instead (tgbot.migrations.upgrade)."""
    from . import models  # noqa: F401  (registers the tables)

    SQLModel.metadata.create_all(engine)


@contextmanager
def session_scope(engine: Engine) -> Iterator[Session]:
    """One transaction: commit on success, roll back on any error."""
    with Session(engine, expire_on_commit=False) as session:
        try:
            yield session
            session.commit()
        except BaseException:
            session.rollback()
            raise
