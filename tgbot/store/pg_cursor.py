"""The PostgreSQL driver's cursor, with a `description` that costs nothing until it is read.

psycopg builds its `description` anew on every statement: a `Column` object per column, each
decoding the column's name and looking its type up. SQLAlchemy asks for it after every statement
but reads it only the first time a compiled statement runs (to map the columns; the mapping is
cached with the statement); afterwards it only asks whether there is one (rows or not). So the
bot's statements paid for a list of objects nobody read: 6–7 µs a statement on a quiet machine,
about 1 % of a PostgreSQL tap (decisions.md B25). Here the
description is a view on the driver's result, whose entries are made only when asked for.

Imported only by a PostgreSQL engine (`db.make_engine`): a SQLite bot never loads psycopg.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any, overload

import psycopg
from psycopg.pq import ExecStatus

__all__ = ["Description", "LeanCursor"]

#: Result statuses that carry rows even with no columns (psycopg's own test, for ``SELECT ;``).
_ROWS = frozenset({ExecStatus.TUPLES_OK, ExecStatus.SINGLE_TUPLE, ExecStatus.TUPLES_CHUNK})

#: One column as DB-API 2.0 describes it: name and type code; the sizes are not known here.
Entry = tuple[str, int, None, None, None, None, None]


class Description(Sequence[Entry]):
    """A result's columns as the DB-API's 7-tuples (name, type OID, then None), made on access.

    It holds the driver's result, not the cursor's state: read after the cursor has run another
    statement, it still describes the statement it came from, as psycopg's list does."""

    __slots__ = ("_connection", "_result")

    def __init__(self, result: Any, connection: psycopg.Connection[Any]) -> None:
        self._result = result
        self._connection = connection  # its encoding, looked up only when a name is read

    def __len__(self) -> int:
        return int(self._result.nfields)

    @overload
    def __getitem__(self, index: int) -> Entry: ...

    @overload
    def __getitem__(self, index: slice) -> list[Entry]: ...

    def __getitem__(self, index: int | slice) -> Entry | list[Entry]:
        count = len(self)
        if isinstance(index, slice):
            return list(self._entries(range(*index.indices(count))))
        position = index + count if index < 0 else index
        if not 0 <= position < count:
            raise IndexError("column index out of range")
        return next(self._entries((position,)))

    def __iter__(self) -> Iterator[Entry]:
        # what SQLAlchemy does on a statement's first run: every entry, one encoding lookup
        return self._entries(range(len(self)))

    def _entries(self, positions: Iterable[int]) -> Iterator[Entry]:
        result, encoding = self._result, self._connection.info.encoding
        for position in positions:
            name = result.fname(position)
            # a COPY result's columns have no names: psycopg calls them so
            text = name.decode(encoding) if name else f"column_{position + 1}"
            yield (text, int(result.ftype(position)), None, None, None, None, None)


class LeanCursor(psycopg.Cursor[Any]):
    """psycopg's cursor with the lazy `Description` (the connection's ``cursor_factory``)."""

    @property
    def description(self) -> Description | None:  # type: ignore[override]
        result = self.pgresult
        if result is None or not (result.nfields or result.status in _ROWS):
            return None
        return Description(result, self.connection)
