"""The chats' delivery rows (`delivery_chats`), shared by every instance: which sender holds a
chat (its lease), the chat's recent sends (its budget), a 429's pause, the last message it
posted.

A sender's transaction holds its chat's row as plain values (`ChatDelivery`): read once, changed
in place, written back with one UPDATE when the transaction commits, only if something changed
(`store.pending`). Not an ORM object: the unit of work that wrote the object, and the object's
loading, cost a sender more CPU than its statements.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from sqlalchemy import bindparam, or_, update
from sqlalchemy import select as sa_select
from sqlalchemy.orm import Session as AnySession
from sqlmodel import Session, col

from ..models import DeliveryChat
from ..pending import pending
from ..upsert import built_once

_CHATS: Any = DeliveryChat.__table__  # type: ignore[attr-defined]
_RELEASE = (
    update(_CHATS)
    .where(_CHATS.c.chat_id == bindparam("chat"), _CHATS.c.holder == bindparam("me"))
    .values(holder=None, lease_until=0.0)
)
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


@dataclass
class ChatDelivery:
    """A chat's delivery row (`models.DeliveryChat`) as a sender's transaction holds it."""

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


_NEW_CHAT = built_once(
    lambda insert: (
        insert(_CHATS)
        .values({_CHATS.c.chat_id: bindparam("chat"), **_saved(ChatDelivery(0))})
        .on_conflict_do_nothing()
    )
)


@dataclass
class HeldChats:
    """The delivery rows a transaction read: chat -> the row, and its values as read."""

    chats: dict[int, tuple[ChatDelivery, tuple[Any, ...]]] = field(default_factory=dict)

    def hold(self, row: Any) -> ChatDelivery:
        chat = ChatDelivery(*row)
        self.chats[chat.chat_id] = (chat, chat.values())
        return chat

    def copy(self) -> HeldChats:
        return HeldChats({k: (replace(chat), read) for k, (chat, read) in self.chats.items()})

    def write(self, session: AnySession) -> None:
        """One UPDATE for the rows that changed (executemany for several)."""
        changed = [
            {"b_chat": chat.chat_id, **dict(zip(_SAVE_KEYS, chat.values(), strict=True))}
            for chat, read in self.chats.values()
            if chat.values() != read
        ]
        if changed:
            session.execute(_SAVE_CHAT, changed[0] if len(changed) == 1 else changed)
        self.chats = {k: (chat, chat.values()) for k, (chat, _read) in self.chats.items()}


def _held(session: Session) -> HeldChats:
    held = pending(session)
    if held.chats is None:
        held.chats = HeldChats()
    return held.chats


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
