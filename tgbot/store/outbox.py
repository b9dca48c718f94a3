"""The outbox: what the services want shown, kept until a sender has shown it (DESIGN §6).

Services call `put` inside the transaction that decided what to show (a move, a lobby change),
so the state change and its messages commit together or not at all. `tgbot.delivery` reads the
rows back per chat (`next_row`) and records what it delivered (`delivered`).

What a transaction puts is kept in the session until it commits (`store.kept`), then written in
one statement, however many chats a move speaks to (the next board, the keys off the old one,
the mover's closed panel, the next player's panel). Every other function here writes what is
kept first (`write_pending`), so a transaction always reads its own rows.

A *surface* is a message the bot keeps up to date (`store.surfaces`: a game's board, its lobby,
a player's panel, an old message's keys being taken off...). A surface has one wanted
content at a time: `put` replaces the content of a row still waiting for that surface instead of
queueing another (the table has one row per chat and surface: the upsert's conflict target), so
a burst of draft previews becomes one edit and an unsent preview simply gives way to the move
report.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from datetime import datetime
from enum import IntEnum
from typing import Any, NamedTuple

from sqlalchemy import bindparam, case, delete, or_, update
from sqlalchemy import select as sa_select
from sqlalchemy.orm import Session as AnySession
from sqlmodel import Session, col

from . import kept
from .db import after_commit
from .models import DeliveryChat, OutboxRow, ShownMessage
from .surfaces import KeysOff, Surface, surface_of, text_of
from .upsert import built_once

Keyboard = list[list[dict[str, str]]]

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
_SHOWN: Any = ShownMessage.__table__  # type: ignore[attr-defined]
_NEXT = (
    sa_select(OutboxRow, _SHOWN.c.message_id, _SHOWN.c.digest)
    .join(
        _SHOWN,
        (_SHOWN.c.chat_id == col(OutboxRow.chat_id)) & (_SHOWN.c.surface == col(OutboxRow.surface)),
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
# Reads and writes the ORM would only wrap: statements on the tables (a statement of the models'
# attributes goes through the ORM's execution even when it loads no object).
_SHOWN_ONE = sa_select(_SHOWN.c.message_id, _SHOWN.c.digest).where(
    _SHOWN.c.chat_id == bindparam("chat_id"), _SHOWN.c.surface == bindparam("surface")
)
_CHATS: Any = DeliveryChat.__table__  # type: ignore[attr-defined]
_RELEASE = (
    update(_CHATS)
    .where(_CHATS.c.chat_id == bindparam("chat"), _CHATS.c.holder == bindparam("me"))
    .values(holder=None, lease_until=0.0)
)
_WITH_ROWS = sa_select(_OUTBOX.c.chat_id).distinct().limit(bindparam("limit"))
# A chat's delivery row (`ChatDelivery`): read, created, taken and written back.
_DELIVERY = (
    _CHATS.c.chat_id,
    _CHATS.c.holder,
    _CHATS.c.lease_until,
    _CHATS.c.paused_until,
    _CHATS.c.recent,
    _CHATS.c.last_message_id,
)
_CHAT = sa_select(*_DELIVERY).where(_CHATS.c.chat_id == bindparam("chat"))
_CHAT_LOCKED = _CHAT.with_for_update()
# Taking a free chat (or one whose lease ran out, or this holder's own) is one UPDATE that says
# whether it took it: the row comes back only when the condition held.
_TAKE = (
    update(_CHATS)
    .where(
        _CHATS.c.chat_id == bindparam("chat"),
        or_(
            _CHATS.c.holder.is_(None),
            _CHATS.c.holder == bindparam("me"),
            _CHATS.c.lease_until <= bindparam("now"),
        ),
    )
    .values(holder=bindparam("me"), lease_until=bindparam("until"))
    .returning(*_DELIVERY)
)
# (Keyed by the table's columns: this `paused_until` is a chat's pause after a 429, which the
# check that only `game_clock` writes a game's clock columns, by name, must not mistake.)
#: `_SAVE_CHAT`'s parameter for each of those columns, in `_DELIVERY`'s order.
_SAVE_KEYS = tuple(f"b_{column.name}" for column in _DELIVERY[1:])
_SAVE_CHAT = (
    update(_CHATS)
    .where(_CHATS.c.chat_id == bindparam("b_chat"))
    .values({column: bindparam(key) for column, key in zip(_DELIVERY[1:], _SAVE_KEYS, strict=True)})
)
_NEW_CHAT = built_once(
    lambda insert: insert(_CHATS)
    .values({_CHATS.c.chat_id: bindparam("chat"), **_saved(ChatDelivery(0))})
    .on_conflict_do_nothing()
)


def _remember(insert: Any) -> Any:
    statement = insert(_SHOWN)
    return statement.on_conflict_do_update(
        index_elements=["chat_id", "surface"],
        set_={"message_id": statement.excluded.message_id, "digest": statement.excluded.digest},
    )


#: What a surface shows now, in one upsert (not a read, then an insert or update at commit).
_REMEMBER = built_once(_remember)


class Priority(IntEnum):
    """A chat's rows go in (priority, id) order, lower first. The last two bands are cosmetic:
    sent only while the group has budget to spare (`delivery.budget`), so nothing a player waits
    for ever queues behind them."""

    BOARD = 0  # the game's record, in order: the next board, round summaries, final standings
    TURN = 1  # replies to a person, reminders, notices of the game
    INFO = 2  # private panels, the score chart
    COSMETIC = 3  # lobby edits, draft previews in a private panel
    CLEANUP = 4  # keys taken off messages that are no longer live


_FLAGS = ("notify", "edit_only", "keys_only", "bottom", "fresh")


@dataclass(frozen=True)
class Payload:
    """What a row asks its sender to show, stored as JSON in `outbox.payload`. Only `text` and
    the fields that are set are written, in this order, so rows stay small and keep the form older
    versions of the bot wrote; reading ignores what it does not know, so a row written by another
    version still loads.

    `keys`: the inline keyboard. `message_id`: edit exactly this message (one a key was tapped
    on). `reply_to`: a surface the new message answers (a reminder under the board). `media`: a
    file instead of text ({"kind": "photo"|"document", "filename", "data" (base64) or "chart"}).
    `edit_only`: change the surface's message if it is shown, never post it (taking the keys off
    an old board). `keys_only`: change only the keys (none: take them off). `bottom`: the surface
    should be the chat's last bot message, so an older one is replaced by a new post rather than
    edited out of sight (a private panel). `fresh`: post the surface anew even if it is shown (a
    reminder that should notify); the old message loses its keys. `fallback`: where to say it
    instead when the chat refuses the bot (a private reminder that becomes a group mention).
    """

    text: str = ""
    keys: Keyboard | None = None
    thread_id: int | None = None
    message_id: int | None = None
    reply_to: Surface | None = None
    media: dict[str, Any] | None = None
    notify: bool = False
    edit_only: bool = False
    keys_only: bool = False
    bottom: bool = False
    fresh: bool = False
    fallback: Fallback | None = None

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"text": self.text}
        for name in ("keys", "thread_id", "message_id", "reply_to", "media"):
            value = getattr(self, name)
            if value is not None:
                data[name] = text_of(value) if name == "reply_to" else value
        for flag in _FLAGS:
            if getattr(self, flag):
                data[flag] = True
        if self.fallback is not None:
            data["fallback"] = self.fallback.to_dict()
        return data

    def to_json(self) -> str:
        """Compact JSON, emoji and every script kept as they are."""
        return json.dumps(self.to_dict(), ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Payload:
        message_id = data.get("message_id")
        fallback = data.get("fallback")
        reply_to = data.get("reply_to")
        return cls(
            text=str(data.get("text", "")),
            keys=data.get("keys"),
            thread_id=data.get("thread_id"),
            message_id=int(message_id) if message_id is not None else None,
            reply_to=surface_of(reply_to) if reply_to else None,
            media=data.get("media"),
            fallback=Fallback.from_dict(fallback) if fallback else None,
            **{flag: bool(data.get(flag)) for flag in _FLAGS},
        )

    @classmethod
    def from_json(cls, text: str) -> Payload:
        return cls.from_dict(json.loads(text))


@dataclass(frozen=True)
class Fallback:
    """Where a message goes instead when its chat refuses the bot (a private reminder that
    becomes a mention in the group): stored inside its row's payload."""

    chat_id: int
    surface: Surface | None
    payload: Payload

    def to_dict(self) -> dict[str, Any]:
        surface = None if self.surface is None else text_of(self.surface)
        return {"chat_id": self.chat_id, "surface": surface, **self.payload.to_dict()}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Fallback:
        surface = data.get("surface")
        return cls(int(data["chat_id"]), surface_of(surface) if surface else None, Payload.from_dict(data))


@dataclass(frozen=True)
class Message:
    """One thing to show in a chat: what (`payload`), and where it goes.

    `surface`: the message is kept up to date (edited) instead of posted anew each time; None for
    a new message. `priority`: its place in the chat's queue. `game_id`: the game it is about
    (what the senders tell the services about it concerns that game).
    """

    chat_id: int
    payload: Payload
    surface: Surface | None = None
    priority: Priority = Priority.TURN
    game_id: int | None = None

    def as_fallback(self) -> Fallback:
        """This message as where another goes instead, when that one's chat refuses the bot."""
        return Fallback(self.chat_id, self.surface, self.payload)


def put(session: Session, message: Message, now: datetime) -> None:
    """Queue `message`; for a surface, replace the content of its row that is still waiting.

    The replaced row keeps its place in the queue and the more urgent of the two priorities.
    Nothing is written yet: the transaction's rows go out together when it commits.
    """
    after_commit(session).wrote(message.chat_id, int(message.priority))
    kept.kept(session, _PENDING, _Pending).add(message, now)


@dataclass
class _Pending:
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

    def copy(self) -> _Pending:
        return _Pending(list(self.rows), dict(self.surfaces))

    def write(self, session: AnySession) -> None:
        """One call: the INSERT that replaces the content of a surface's waiting row, for all
        the rows (executemany, in the order put). A row without a surface never conflicts (NULLs
        are distinct in the unique index), so it is simply inserted. The statement is the one
        built once per process, so SQLAlchemy compiles it once: a multi-row VALUES list was a new
        statement for every transaction that put two rows or more (a move's report, board, old
        keys and panels), compiled anew each time (1-3 ms of CPU, more than running it)."""
        rows = self.rows
        session.execute(_ONE(session), rows[0] if len(rows) == 1 else rows)


_PENDING = "outbox"


def _pending(session: AnySession) -> _Pending | None:
    """What the transaction has put and not written yet, if anything."""
    found = kept.peek(session, _PENDING)
    assert found is None or isinstance(found, _Pending)
    return found


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


def write_pending(session: AnySession) -> None:
    """Write what the transaction has put, before reading or changing the table."""
    kept.write(session, _PENDING)


def _waiting(session: Session, chat_id: int, surface: Surface) -> bool:
    """A row still waits for a surface: one this transaction put, else one in the table (locked,
    so a sender cannot deliver it before this transaction ends)."""
    pending = _pending(session)
    if pending is not None and pending.waiting(chat_id, surface):
        return True
    found = session.execute(_WAITING, {"chat_id": chat_id, "surface": surface})
    return found.first() is not None


def discard_surface(session: Session, chat_id: int, surface: Surface) -> None:
    """Forget a waiting content of a surface (its game was cancelled before it was shown)."""
    pending = _pending(session)
    if pending is not None:
        pending.forget(chat_id, surface)
    session.execute(
        delete(OutboxRow).where(col(OutboxRow.chat_id) == chat_id, col(OutboxRow.surface) == surface)
    )


# --- the sender's side ------------------------------------------------------------------------


def chats_with_rows(session: Session, limit: int = 500) -> list[int]:
    """Chats that have something waiting (the safety net after a restart or another instance)."""
    write_pending(session)
    return list(session.execute(_WITH_ROWS, {"limit": limit}).scalars())


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


class Shown(NamedTuple):
    """A message that shows a surface now, and a digest of what it shows (to skip no-op edits)."""

    surface: Surface
    message_id: int
    digest: str


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


_HELD = "tweakbot.outbox.shown"


def shown_message(session: Session, chat_id: int, surface: Surface) -> Shown | None:
    """The message that shows a surface now, if any. What was found is kept for the rest of the
    transaction (a refused tap asks whether the board is on its way, then which message is
    live), and what the transaction writes of it (`remember_shown`, `forget_shown`) changes
    what is kept."""
    held: dict[tuple[int, Surface], Shown] = session.info.setdefault(_HELD, {})
    found = held.get((chat_id, surface))
    if found is not None:
        return found
    row = session.execute(_SHOWN_ONE, {"chat_id": chat_id, "surface": surface}).first()
    if row is None:
        return None
    found = held[(chat_id, surface)] = Shown(surface, row[0], row[1])
    return found


def remember_shown(session: Session, chat_id: int, surface: Surface, message_id: int, digest: str) -> None:
    """One upsert."""
    values = {"chat_id": chat_id, "surface": surface, "message_id": message_id, "digest": digest}
    session.execute(_REMEMBER(session), values)
    held = session.info.get(_HELD)
    if held is not None:
        held[(chat_id, surface)] = Shown(surface, message_id, digest)


def forget_shown(session: Session, chat_id: int, surface: Surface) -> None:
    session.execute(
        delete(ShownMessage).where(col(ShownMessage.chat_id) == chat_id, col(ShownMessage.surface) == surface)
    )
    session.info.get(_HELD, {}).pop((chat_id, surface), None)


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
    session.execute(delete(ShownMessage).where(col(ShownMessage.chat_id) == old_id))
    session.info.pop(_HELD, None)
    after_commit(session).wrote(new_id, Priority.TURN)


# --- leases and budget (shared by every instance) ----------------------------------------------


@dataclass
class ChatDelivery:
    """A chat's delivery row (`models.DeliveryChat`) as a sender's transaction holds it: read
    once, changed in place, and written back with one UPDATE when the transaction commits (only
    if something changed). Plain values, not an ORM object: the unit of work that wrote the
    object, and the object's loading, cost a sender more CPU than its statements."""

    chat_id: int
    holder: str | None = None
    lease_until: float = 0.0
    paused_until: float = 0.0
    recent: str = "[]"  # send times of the last minute, JSON
    last_message_id: int | None = None

    def values(self) -> tuple[Any, ...]:
        return (self.holder, self.lease_until, self.paused_until, self.recent, self.last_message_id)


def _saved(chat: ChatDelivery) -> dict[Any, Any]:
    """The chat's values by column (those `_DELIVERY` reads after the id, in its order)."""
    return dict(zip(_DELIVERY[1:], chat.values(), strict=True))


class _HeldChats:
    """The delivery rows a transaction read, each with its values as read (`kept`)."""

    def __init__(self, chats: dict[int, tuple[ChatDelivery, tuple[Any, ...]]] | None = None) -> None:
        self.chats = chats or {}

    def hold(self, row: Any) -> ChatDelivery:
        chat = ChatDelivery(*row)
        self.chats[chat.chat_id] = (chat, chat.values())
        return chat

    def copy(self) -> _HeldChats:
        return _HeldChats({k: (replace(chat), read) for k, (chat, read) in self.chats.items()})

    def write(self, session: AnySession) -> None:
        changed = [
            {"b_chat": chat.chat_id, **dict(zip(_SAVE_KEYS, chat.values(), strict=True))}
            for chat, read in self.chats.values()
            if chat.values() != read
        ]
        if changed:
            session.execute(_SAVE_CHAT, changed[0] if len(changed) == 1 else changed)


_CHATS_HELD = "delivery_chats"


def _held(session: Session) -> _HeldChats:
    return kept.kept(session, _CHATS_HELD, _HeldChats)


def delivery_chat(session: Session, chat_id: int, *, lock: bool = False) -> ChatDelivery:
    """The chat's delivery row, created on first use (two instances creating it at once both
    succeed: ``ON CONFLICT DO NOTHING`` waits for the other insert), read once per transaction:
    asked again, the transaction gets the same `ChatDelivery`, with its changes."""
    held = _held(session)
    found = held.chats.get(chat_id)
    if found is not None:
        return found[0]
    query = _CHAT_LOCKED if lock else _CHAT
    row = session.execute(query, {"chat": chat_id}).first()
    if row is None:
        session.execute(_NEW_CHAT(session), {"chat": chat_id})
        row = session.execute(query, {"chat": chat_id}).first()
        assert row is not None
    return held.hold(row)


def take(session: Session, chat_id: int, holder: str, now: float, seconds: float) -> ChatDelivery | None:
    """`claim` for a transaction that changes nothing else of the chat's row: the lease in one
    statement when the row exists and is free, as it is for nearly every burst a sender starts."""
    params = {"chat": chat_id, "me": holder, "now": now, "until": now + seconds}
    taken = session.execute(_TAKE, params).first()
    if taken is None:
        return claim(session, chat_id, holder, now, seconds)
    return _held(session).hold(taken)


def claim(session: Session, chat_id: int, holder: str, now: float, seconds: float) -> ChatDelivery | None:
    """Take the chat for `seconds` unless another live instance holds it; the row when taken.
    The row is locked and read first, so what the transaction changes of it next (the budget,
    the last message id) goes out with the lease in one UPDATE at the end."""
    row = delivery_chat(session, chat_id, lock=True)
    if row.holder not in (None, holder) and row.lease_until > now:
        return None
    row.holder, row.lease_until = holder, now + seconds
    return row


def release_all(session: Session, holder: str) -> None:
    """Every chat `holder` sends to is free again (it stops): another instance, or this one
    restarted, sends at once instead of waiting for the leases to run out."""
    session.execute(
        update(DeliveryChat).where(col(DeliveryChat.holder) == holder).values(holder=None, lease_until=0.0)
    )


def release(session: Session, chat_id: int, holder: str) -> None:
    """Let the chat go (the caller holds no object of its row: a statement on the table)."""
    session.execute(_RELEASE, {"chat": chat_id, "me": holder})
