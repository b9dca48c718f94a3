"""Rows a transaction keeps in its session and writes only when it commits, one call per kind
(the outbox's rows, the move log's): a tap that queues four messages or plays two moves still
sends one INSERT for them (executemany of a statement built once, so SQLAlchemy compiles it once
per process; a multi-row VALUES list was compiled anew for every transaction).

On SQLite the ORM inserts rows one by one when it needs their ids back (SQLite's RETURNING
gives no order SQLAlchemy can match to a batch), so these rows, whose ids nobody in the
transaction needs, are written with a plain INSERT instead.

What is kept follows the transaction: written by its commit (a `before_commit` listener on
every session), forgotten when it rolls back or its session closes, and a savepoint rolled back
forgets exactly what was kept inside it. A module that reads its own kind of rows back in the
same transaction writes them first (`write`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, TypeVar

from sqlalchemy import event
from sqlalchemy.orm import Session, SessionTransaction

_KEPT = "tweakbot.kept"  # name -> what is kept, in the order first used
_SAVEPOINTS = "tweakbot.kept.savepoints"  # savepoint -> copies of what was kept when it began


class Kept(Protocol):
    """One kind of rows waiting for the commit."""

    def copy(self) -> Kept:
        """A copy a savepoint can go back to (later changes to the original leave it alone)."""
        ...

    def write(self, session: Session) -> None:
        """Write the rows (the transaction goes on; nothing is kept after)."""
        ...


K = TypeVar("K", bound=Kept)


def kept(session: Session, name: str, new: Callable[[], K]) -> K:
    """The transaction's rows of kind `name`, begun with `new()`; a transaction is begun if
    none has, so that its end is theirs too."""
    found = session.info.get(_KEPT)
    if found is None:
        found = session.info[_KEPT] = {}
    rows = found.get(name)
    if rows is None:
        if not session.in_transaction():
            session.begin()
        rows = found[name] = new()
    return rows  # type: ignore[no-any-return]


def peek(session: Session, name: str) -> Kept | None:
    """What is kept of kind `name`, without starting any."""
    found = session.info.get(_KEPT)
    return None if found is None else found.get(name)


def write(session: Session, name: str) -> None:
    """Write what is kept of kind `name` now (its module is about to read its table)."""
    found = session.info.get(_KEPT)
    rows = None if found is None else found.pop(name, None)
    if rows is not None:
        rows.write(session)


@event.listens_for(Session, "before_commit")
def _before_commit(session: Session) -> None:
    found = session.info.get(_KEPT)
    while found:
        name = next(iter(found))
        write(session, name)


@event.listens_for(Session, "after_transaction_create")
def _savepoint_begins(session: Session, transaction: SessionTransaction) -> None:
    if transaction.nested:
        found = session.info.get(_KEPT) or {}
        copies = {name: rows.copy() for name, rows in found.items()}
        session.info.setdefault(_SAVEPOINTS, {})[transaction] = copies


@event.listens_for(Session, "after_soft_rollback")
def _rolled_back(session: Session, previous_transaction: SessionTransaction) -> None:
    before = session.info.get(_SAVEPOINTS, {}).pop(previous_transaction, None)
    if before is not None:
        session.info[_KEPT] = before


@event.listens_for(Session, "after_transaction_end")
def _ended(session: Session, transaction: SessionTransaction) -> None:
    """A transaction that ends without its commit (rolled back, or its session closed) takes
    what it kept with it."""
    if transaction.parent is None:
        session.info.pop(_KEPT, None)
        session.info.pop(_SAVEPOINTS, None)
