"""The move log as a transaction writes it: its moves wait until it commits, then go out by
one call of one INSERT built once (`store.pending`; executemany for several), so a Joker played
with its sum, or a burst of computer moves after a person's, is one call on SQLite as on
PostgreSQL (the ORM inserts rows one by one there when it wants their ids back). Nothing in the
transaction needs a move's id; whoever reads the log in the same transaction writes the waiting
moves first (`write_kept`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import insert
from sqlalchemy.orm import Session

from .models import Move
from .pending import peek, pending

_MOVES: Any = Move.__table__  # type: ignore[attr-defined]
#: A transaction's moves go out with a statement built (and so compiled) once.
_ONE = insert(_MOVES)


@dataclass
class LoggedMoves:
    """The moves a transaction logged, in order."""

    rows: list[dict[str, Any]] = field(default_factory=list)

    def copy(self) -> LoggedMoves:
        return LoggedMoves(list(self.rows))

    def write(self, session: Session) -> None:
        rows = self.rows
        session.execute(_ONE, rows[0] if len(rows) == 1 else rows)


def add(
    session: Session,
    *,
    game_id: int,
    seq: int,
    seat: int | None,
    code: str,
    source: str,
    at: datetime,
    events: str | None = None,
) -> None:
    """Log a move (written when the transaction commits)."""
    row = {"game_id": game_id, "seq": seq, "seat": seat, "code": code, "source": source, "at": at}
    row["events"] = events
    held = pending(session)
    if held.moves is None:
        held.moves = LoggedMoves()
    held.moves.rows.append(row)


def write_kept(session: Session) -> None:
    """Write the moves this transaction logged, before it reads the log."""
    held = peek(session)
    moves = None if held is None else held.moves
    if held is not None and moves is not None:
        held.moves = None
        moves.write(session)
