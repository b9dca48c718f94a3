"""The outbox's queue: what the services want shown, kept until a sender has shown it (DESIGN §6).

Services call `put` inside the transaction that decided what to show (a move, a lobby change),
so the state change and its messages commit together or not at all. What a transaction puts
waits in it (`store.pending`) until it commits, then goes out in one call, however many chats a
move speaks to (the next board, the keys off the old one, the mover's closed panel, the next
player's panel). Every other function here writes what waits first (`write_pending`), so a
transaction always reads its own rows.

A surface has one wanted content at a time: `put` replaces the content of a row still waiting
for that surface instead of queueing another (the table has one row per chat and surface: the
upsert's conflict target), so a burst of lobby edits becomes one edit and a board not yet shown
takes the next board's content. `tgbot.delivery` reads a chat's rows back in (priority, id)
order (`next_row`) and records what it delivered (`delivered`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, case, delete, update
from sqlalchemy import select as sa_select
from sqlalchemy.orm import Session as AnySession
from sqlmodel import Session, col

from ..db import after_commit
from ..models import OutboxRow
from ..pending import peek, pending
from ..surfaces import KeysOff, Surface
from ..upsert import built_once
from .payload import Message, Payload, Priority
from .shown import SHOWN, Shown, forget_chat, shown_message

# The statements every tap and every write runs, built once with bound parameters: building a
# statement (and its cache key) anew each time cost more CPU than running it.
_WAITING = (
    sa_select(col(OutboxRow.id))
    .where(col(OutboxRow.chat_id) == bindparam("chat_id"), col(OutboxRow.surface) == bindparam("surface"))
    .with_for_update()
)
# The next row comes with the message that shows its surface now (if any): a sender needs both
# to decide between an edit and a post, and nearly every row has a surface. The shown message
# comes as its values (`Shown`), as `shown_message` gives it.
_NEXT = (
    sa_select(OutboxRow, SHOWN.c.message_id, SHOWN.c.digest)
    .join(
        SHOWN,
        (SHOWN.c.chat_id == col(OutboxRow.chat_id)) & (SHOWN.c.surface == col(OutboxRow.surface)),
        isouter=True,
    )
    .where(col(OutboxRow.chat_id) == bindparam("chat_id"))
    .order_by(col(OutboxRow.priority), col(OutboxRow.id))
    .limit(1)
)
# A delivered row is deleted with a plain DELETE on the table: the ORM's bulk DELETE (which
# looks for the row among the session's objects to expire it) cost as much CPU as a tap's whole
# game read, and the sender holds no object of the row it is deleting.
_OUTBOX: Any = OutboxRow.__table__  # type: ignore[attr-defined]
_STILL_WAITING = sa_select(_OUTBOX.c.id).where(
    _OUTBOX.c.id == bindparam("row_id"), _OUTBOX.c.rev == bindparam("rev")
)
_DELIVERED = delete(_OUTBOX).where(_OUTBOX.c.id == bindparam("row_id"), _OUTBOX.c.rev == bindparam("rev"))
_WITH_ROWS = sa_select(_OUTBOX.c.chat_id).distinct().limit(bindparam("limit"))
_DEMOTE = (
    update(_OUTBOX)
    .where(_OUTBOX.c.chat_id == bindparam("b_chat"), _OUTBOX.c.surface == bindparam("b_surface"))
    .values(payload=bindparam("b_payload"), priority=bindparam("b_priority"), rev=_OUTBOX.c.rev + 1)
)


def _replacing(statement: Any) -> Any:
    """A surface's row: inserted, or its waiting row takes the new content (its place in the
    queue kept, the more urgent priority, one more revision so a sender that is delivering the
    older content leaves the newer one queued)."""
    table = _OUTBOX.c
    new = statement.excluded
    return statement.on_conflict_do_update(
        index_elements=["chat_id", "surface"],
        set_={
            "payload": new.payload,
            "priority": case((new.priority < table.priority, new.priority), else_=table.priority),
            "rev": table.rev + 1,
        },
    )


#: A transaction's rows go out with a statement built once per process: building one anew cost
#: more CPU than running it.
_ONE = built_once(lambda insert: _replacing(insert(_OUTBOX)))


@dataclass
class QueuedRows:
    """The rows a transaction has put and not written yet, in the order they were put (their
    ids, and so the order a chat's rows of one priority are sent in, follow it). A second put
    for a surface replaces the content of the first, as the upsert does a waiting row's."""

    rows: list[dict[str, Any]] = field(default_factory=list)
    #: (chat, surface) -> its row's index in `rows`
    surfaces: dict[tuple[int, Surface], int] = field(default_factory=dict)

    def add(self, message: Message, now: datetime) -> None:
        row = {
            "chat_id": message.chat_id,
            "surface": message.surface,
            "priority": int(message.priority),
            "payload": message.payload.to_json(),
            "rev": 0,
            "attempts": 0,
            "game_id": message.game_id,
            "created_at": now,
        }
        if message.surface is None:
            self.rows.append(row)
            return
        key = (message.chat_id, message.surface)
        at = self.surfaces.get(key)
        if at is None:
            self.surfaces[key] = len(self.rows)
            self.rows.append(row)
            return
        earlier = self.rows[at]  # (replaced, not changed: a savepoint's copy keeps the old one)
        priority = min(earlier["priority"], row["priority"])
        self.rows[at] = {**earlier, "payload": row["payload"], "priority": priority}

    def waiting(self, chat_id: int, surface: Surface) -> bool:
        return (chat_id, surface) in self.surfaces

    def forget(self, chat_id: int, surface: Surface) -> None:
        at = self.surfaces.pop((chat_id, surface), None)
        if at is None:
            return
        del self.rows[at]
        self.surfaces = {key: i - (i > at) for key, i in self.surfaces.items()}

    def copy(self) -> QueuedRows:
        return QueuedRows(list(self.rows), dict(self.surfaces))

    def write(self, session: AnySession) -> None:
        """One call: the INSERT that replaces the content of a surface's waiting row, for all
        the rows (executemany, in the order put). A row without a surface never conflicts (NULLs
        are distinct in the unique index), so it is simply inserted. The statement is the one
        built once per process, so SQLAlchemy compiles it once: a multi-row VALUES list was a new
        statement for every transaction that put two rows or more (a move's report, board, old
        keys and panels), compiled anew each time (1-3 ms of CPU, more than running it)."""
        rows = self.rows
        if rows:
            session.execute(_ONE(session), rows[0] if len(rows) == 1 else rows)


def put(session: Session, message: Message, now: datetime) -> None:
    """Queue `message`; for a surface, replace the content of its row that is still waiting.

    The replaced row keeps its place in the queue and the more urgent of the two priorities.
    Nothing is written yet: the transaction's rows go out together when it commits.
    """
    after_commit(session).wrote(message.chat_id, int(message.priority))
    held = pending(session)
    if held.outbox is None:
        held.outbox = QueuedRows()
    held.outbox.add(message, now)


def replace_waiting(session: Session, message: Message) -> bool:
    """A row still waiting for `message`'s surface takes its content and its priority, even a
    lower one (`put` keeps the more urgent): a live board's edit still waiting when the next board
    took its place is an old post's now, and must not go before the new board. False, and nothing
    queued, when no row waits for that surface."""
    assert message.surface is not None
    write_pending(session)
    params = {"b_chat": message.chat_id, "b_surface": message.surface, "b_payload": message.payload.to_json()}
    changed = session.execute(_DEMOTE, {**params, "b_priority": int(message.priority)})
    if not changed.rowcount:  # type: ignore[attr-defined]
        return False
    after_commit(session).wrote(message.chat_id, int(message.priority))
    return True


def _queued(session: AnySession) -> QueuedRows | None:
    """What the transaction has put and not written yet, if anything."""
    held = peek(session)
    return None if held is None else held.outbox


def write_pending(session: AnySession) -> None:
    """Write what the transaction has put, before reading or changing the table."""
    held = peek(session)
    rows = None if held is None else held.outbox
    if held is not None and rows is not None:
        held.outbox = None
        rows.write(session)


def _waiting(session: Session, chat_id: int, surface: Surface) -> bool:
    """A row still waits for a surface: one this transaction put, else one in the table (locked,
    so a sender cannot deliver it before this transaction ends)."""
    queued = _queued(session)
    if queued is not None and queued.waiting(chat_id, surface):
        return True
    found = session.execute(_WAITING, {"chat_id": chat_id, "surface": surface})
    return found.first() is not None


def discard_surface(session: Session, chat_id: int, surface: Surface) -> None:
    """Forget a waiting content of a surface (its game was cancelled before it was shown)."""
    queued = _queued(session)
    if queued is not None:
        queued.forget(chat_id, surface)
    session.execute(
        delete(OutboxRow).where(col(OutboxRow.chat_id) == chat_id, col(OutboxRow.surface) == surface)
    )


def drop_keys(
    session: Session,
    chat_id: int,
    message_id: int,
    now: datetime,
    *,
    game_id: int | None = None,
    first: bool = False,
) -> None:
    """Take the keys off a message that is no longer live, last of all (when the chat's budget
    allows). Asked again for the same message (a stale tap, then the next board), it is queued
    once, and never again once its keys are gone. `first`: the caller knows it is the first time
    (the board the game just left), so that is not looked up."""
    surface = KeysOff(message_id)
    if not first:
        if shown_message(session, chat_id, surface) is not None:
            return  # taken already
        if _waiting(session, chat_id, surface):
            return
    payload = Payload(message_id=message_id, keys_only=True)
    put(session, Message(chat_id, payload, surface, Priority.CLEANUP, game_id), now)


# --- the sender's side ------------------------------------------------------------------------


def chats_with_rows(session: Session, limit: int = 500) -> list[int]:
    """Chats that have something waiting (the safety net after a restart or another instance)."""
    write_pending(session)
    return list(session.execute(_WITH_ROWS, {"limit": limit}).scalars())


def next_row(session: Session, chat_id: int) -> tuple[OutboxRow, Shown | None] | None:
    """The chat's most urgent row, the oldest first among equals, with the message that shows
    its surface now (None: not shown yet, or a row without a surface)."""
    write_pending(session)
    found = session.execute(_NEXT, {"chat_id": chat_id}).first()
    if found is None:
        return None
    row, message_id, digest = found
    shown = None if message_id is None or row.surface is None else Shown(row.surface, message_id, digest)
    return row, shown


def delivered(session: Session, row_id: int, rev: int) -> bool:
    """Drop a delivered row, unless a newer content replaced it meanwhile (then it stays queued)."""
    write_pending(session)
    result = session.execute(_DELIVERED, {"row_id": row_id, "rev": rev})
    return bool(result.rowcount)  # type: ignore[attr-defined]


def still_waiting(session: Session, row_id: int, rev: int) -> bool:
    """The row is still queued with the content of revision `rev` (not delivered by another
    instance, not replaced by a newer content)."""
    write_pending(session)
    found = session.execute(_STILL_WAITING, {"row_id": row_id, "rev": rev})
    return found.first() is not None


def drop(session: Session, row_id: int) -> None:
    write_pending(session)
    session.execute(delete(OutboxRow).where(col(OutboxRow.id) == row_id))


def drop_chat(session: Session, chat_id: int) -> int:
    """Everything waiting for a chat the bot can no longer write to."""
    write_pending(session)
    result = session.execute(delete(OutboxRow).where(col(OutboxRow.chat_id) == chat_id))
    return int(result.rowcount)  # type: ignore[attr-defined]


def note_attempt(session: Session, row_id: int) -> None:
    write_pending(session)
    session.execute(
        update(OutboxRow).where(col(OutboxRow.id) == row_id).values(attempts=col(OutboxRow.attempts) + 1)
    )


def move_chat(session: Session, old_id: int, new_id: int) -> None:
    """A group became a supergroup: its waiting rows go to the new id; its shown messages stay
    behind (they cannot be edited from the new chat), so surfaces are posted anew there."""
    write_pending(session)
    session.execute(update(OutboxRow).where(col(OutboxRow.chat_id) == old_id).values(chat_id=new_id))
    forget_chat(session, old_id)
    after_commit(session).wrote(new_id, Priority.TURN)
