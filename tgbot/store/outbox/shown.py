"""Which message shows each surface now (`shown_messages`), with a digest of what it shows, so an
edit to the same content is skipped. Which board is live is decided in the game's own
transaction (`games.board_no`), never in a process's memory.

A transaction reads what shows a surface once: what it read, and what it wrote since, is held
for the rest of it (`store.pending`; a refused tap asks whether the board is on its way, then
which message is live).
"""

from __future__ import annotations

from typing import Any, NamedTuple

from sqlalchemy import bindparam, delete
from sqlalchemy import select as sa_select
from sqlmodel import Session, col

from ..models import ShownMessage
from ..pending import peek, pending
from ..surfaces import Surface
from ..upsert import built_once

SHOWN: Any = ShownMessage.__table__  # type: ignore[attr-defined]
# Reads and writes the ORM would only wrap: statements on the table (a statement of the model's
# attributes goes through the ORM's execution even when it loads no object).
_SHOWN_ONE = sa_select(SHOWN.c.message_id, SHOWN.c.digest).where(
    SHOWN.c.chat_id == bindparam("chat_id"), SHOWN.c.surface == bindparam("surface")
)


def _remember(insert: Any) -> Any:
    statement = insert(SHOWN)
    return statement.on_conflict_do_update(
        index_elements=["chat_id", "surface"],
        set_={"message_id": statement.excluded.message_id, "digest": statement.excluded.digest},
    )


#: What a surface shows now, in one upsert (not a read, then an insert or update at commit).
_REMEMBER = built_once(_remember)


class Shown(NamedTuple):
    """A message that shows a surface now, and a digest of what it shows (to skip no-op edits).

    A message in the surface's chat, by its id: the only kind the bot shows today. A surface
    shown by a message posted through inline mode (in a chat without the bot, known by its
    inline_message_id) would be shown by a second kind beside this one."""

    surface: Surface
    message_id: int
    digest: str


def shown_message(session: Session, chat_id: int, surface: Surface) -> Shown | None:
    """The message that shows a surface now, if any (read once per transaction)."""
    held = pending(session).shown
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
    held = peek(session)
    if held is not None:
        held.shown[(chat_id, surface)] = Shown(surface, message_id, digest)


def forget_shown(session: Session, chat_id: int, surface: Surface) -> None:
    session.execute(
        delete(ShownMessage).where(col(ShownMessage.chat_id) == chat_id, col(ShownMessage.surface) == surface)
    )
    held = peek(session)
    if held is not None:
        held.shown.pop((chat_id, surface), None)


def forget_chat(session: Session, chat_id: int) -> None:
    """A group became a supergroup: its messages cannot be edited from the new chat, so its
    surfaces are posted anew there."""
    session.execute(delete(ShownMessage).where(col(ShownMessage.chat_id) == chat_id))
    held = peek(session)
    if held is not None:
        held.shown.clear()
