"""What a transaction holds until it commits: the outbox rows it put, the moves it logged, the
chats' delivery rows it changed (written then, each kind by one call), and the shown messages
it looked up (read once).

Why not the ORM's unit of work: an outbox row replaces a surface's waiting content (INSERT ...
ON CONFLICT DO UPDATE, which the unit of work cannot say), and a tap that queues four messages
or plays two moves sends one call for them, one executemany of a statement built once per
process (decisions.md B38 has the figures: statements per tap and the CPU of compiling a new
statement every time).

It lives where SQLAlchemy keeps a session's own state (`Session.info`), and is written by one
`before_commit` listener, before the unit of work flushes the ORM's objects. Like the unit of
work, it follows the transaction: rolled back, or its session closed without a commit, it is
dropped; a savepoint rolled back restores what was held when the savepoint began (a copy taken
then). A module that reads its own table in the same transaction writes its rows first
(`outbox.write_pending`, `move_log.write_kept`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from sqlalchemy import event
from sqlalchemy.orm import Session, SessionTransaction

if TYPE_CHECKING:
    from .move_log import LoggedMoves
    from .outbox.chats import HeldChats
    from .outbox.queue import QueuedRows
    from .outbox.shown import Shown
    from .surfaces import Surface

_INFO = "tweakbot.pending"
_SAVEPOINTS = "tweakbot.pending.savepoints"


@dataclass
class Pending:
    """One transaction's: each kind begun by its module on first use."""

    moves: LoggedMoves | None = None  # store.move_log
    outbox: QueuedRows | None = None  # store.outbox.queue
    chats: HeldChats | None = None  # store.outbox.chats
    #: What the transaction read or wrote of `shown_messages` (store.outbox.shown).
    shown: dict[tuple[int, Surface], Shown] = field(default_factory=dict)

    def write(self, session: Session) -> None:
        """Write what waits (the moves, then the outbox's rows, then the chats' rows)."""
        moves, rows = self.moves, self.outbox
        self.moves = self.outbox = None
        if moves is not None:
            moves.write(session)
        if rows is not None:
            rows.write(session)
        if self.chats is not None:
            self.chats.write(session)

    def copy(self) -> Pending:
        """What a savepoint goes back to (later changes to this one leave it alone)."""
        return replace(
            self,
            moves=None if self.moves is None else self.moves.copy(),
            outbox=None if self.outbox is None else self.outbox.copy(),
            chats=None if self.chats is None else self.chats.copy(),
            shown=dict(self.shown),
        )


def pending(session: Session) -> Pending:
    """The transaction's; a transaction is begun if none has, so that its end is this one's too."""
    found = session.info.get(_INFO)
    if found is None:
        if not session.in_transaction():
            session.begin()
        found = session.info[_INFO] = Pending()
    return found  # type: ignore[no-any-return]


def peek(session: Session) -> Pending | None:
    """The transaction's, if it holds anything."""
    return session.info.get(_INFO)


@event.listens_for(Session, "before_commit")
def _write(session: Session) -> None:
    """At the commit (not a savepoint's release: the transaction goes on)."""
    found = session.info.get(_INFO)
    if found is not None and not session.in_nested_transaction():
        found.write(session)


@event.listens_for(Session, "after_transaction_create")
def _savepoint_begins(session: Session, transaction: SessionTransaction) -> None:
    found = session.info.get(_INFO)
    if transaction.nested and found is not None:
        session.info.setdefault(_SAVEPOINTS, {})[transaction] = found.copy()


@event.listens_for(Session, "after_soft_rollback")
def _rolled_back(session: Session, previous_transaction: SessionTransaction) -> None:
    if previous_transaction.nested:
        before = session.info.get(_SAVEPOINTS, {}).pop(previous_transaction, None)
        if before is not None:
            session.info[_INFO] = before
        else:  # nothing was held when it began
            session.info.pop(_INFO, None)


@event.listens_for(Session, "after_transaction_end")
def _ended(session: Session, transaction: SessionTransaction) -> None:
    """The transaction is over, committed or not: what it held goes with it."""
    if transaction.parent is None:
        session.info.pop(_INFO, None)
        session.info.pop(_SAVEPOINTS, None)
