"""What SQL an engine ran: the tests that count statements read them the way a server sees them."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Engine


@contextmanager
def recorded(engine: Engine) -> Iterator[list[str]]:
    """Every statement `engine` runs inside the block, in order, its `BEGIN` left out.

    The `BEGIN` is left out because the SQLite dialect of this project sends its own
    `BEGIN IMMEDIATE` as a statement and PostgreSQL's driver does not: counting it would
    make the same work cost one more statement on SQLite.
    """
    seen: list[str] = []

    def record(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        if not statement.lstrip().upper().startswith("BEGIN"):
            seen.append(statement)

    event.listen(engine, "before_cursor_execute", record)
    try:
        yield seen
    finally:
        event.remove(engine, "before_cursor_execute", record)
