"""The move log as a transaction writes it: its moves wait until it commits, then go out by
one call of one INSERT built once (`store.pending`; executemany for several), so a Joker played
with its sum, or a burst of computer moves after a person's, is one call on SQLite as on
PostgreSQL (the ORM inserts rows one by one there when it wants their ids back). Nothing in the
transaction needs a move's id; whoever reads the log in the same transaction writes the waiting
moves first (`write_kept`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import insert
from sqlalchemy.orm import Session
from sqlmodel import Session as ModelSession
from sqlmodel import col, select

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


def between(session: ModelSession, game_id: int, after: int, before: int) -> Sequence[Move]:
    """The game's logged moves after version `after` and before `before`, in order (this
    transaction's own among them)."""
    write_kept(session)
    return session.exec(
        select(Move)
        .where(Move.game_id == game_id, col(Move.seq) > after, col(Move.seq) < before)
        .order_by(col(Move.seq))
    ).all()


def engine_moves(session: ModelSession, game_id: int) -> list[Move]:
    """The engine moves of a game's log, in order (the `start:<seed>` entry left out; this
    transaction's own among them)."""
    write_kept(session)
    query = select(Move).where(Move.game_id == game_id, col(Move.seat).is_not(None)).order_by(col(Move.seq))
    return list(session.exec(query).all())
