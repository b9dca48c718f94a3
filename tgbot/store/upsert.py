"""INSERT ... ON CONFLICT for the session's database, with SQLAlchemy's dialect package imported
on first use.

A process talks to one database, and importing both dialects up front cost memory for the one
it never uses: SQLAlchemy's postgresql package about 2.2 MB in a SQLite process, sqlite's about
0.6 MB in a PostgreSQL one.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any, TypeVar

from sqlalchemy.orm import Session

from .db import is_postgres

T = TypeVar("T")

#: A dialect's ``insert`` (its statement has ``on_conflict_do_update``/``_do_nothing``).
Insert = Callable[..., Any]


def dialect_of(session: Session) -> str:
    return "postgresql" if is_postgres(session) else "sqlite"


@cache
def insert_for(dialect: str) -> Insert:
    if dialect == "postgresql":
        from sqlalchemy.dialects.postgresql import insert as pg_insert

        return pg_insert
    from sqlalchemy.dialects.sqlite import insert as sqlite_insert

    return sqlite_insert


def built_once(build: Callable[[Insert], T]) -> Callable[[Session], T]:
    """``build(insert)`` for the session's dialect, built on first use and kept: a hot statement
    is still built once per process, not on every call."""
    per_dialect = cache(lambda dialect: build(insert_for(dialect)))

    def statement(session: Session) -> T:
        return per_dialect(dialect_of(session))

    return statement
