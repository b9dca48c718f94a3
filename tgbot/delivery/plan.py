"""One row's delivery, planned: what a sender read of its chat in one transaction (`Batch`), and
whether the row is a post, an edit or nothing to do, decided from what the chat shows now
(`plan`)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field

from sqlmodel import Session

from ..store import outbox
from ..store.models import OutboxRow
from ..store.outbox import Payload
from ..store.surfaces import Surface


def digest(payload: Payload) -> str:
    """What a surface shows, in a few bytes: an edit to the same content is skipped. The first
    letter says whether it has keys ("k"), so a message without any is never asked to lose them
    (Telegram would answer "message is not modified")."""
    shown = json.dumps([payload.text, payload.keys], ensure_ascii=False, sort_keys=True)
    mark = "k" if payload.keys else "n"
    return mark + hashlib.blake2b(shown.encode(), digest_size=12).hexdigest()


def has_keys(shown_digest: str) -> bool:
    """The shown content had keys (a digest from before the mark counts as having them)."""
    return not shown_digest.startswith("n")


@dataclass
class Batch:
    """What a sender read about its chat in one transaction."""

    row: OutboxRow | None  # the next row to send: only it is sent before the next read
    chat: outbox.ChatDelivery
    payload: Payload = field(default_factory=Payload)  # the row's, decoded
    shown: dict[Surface, tuple[int, str]] = field(default_factory=dict)  # surface -> (message id, digest)


def next_batch(session: Session, chat: outbox.ChatDelivery) -> Batch:
    """The chat's next row and what the chat shows of the surfaces it concerns; with no row left,
    the chat is let go in the same transaction. That is safe against a row queued meanwhile: the
    chat's row is locked before the queue is read, so another instance's sender that wants the
    chat waits for this commit and then finds it free, and this process's wake reaches the
    sender before it ends (`ChatSender._loop`)."""
    chat_id = chat.chat_id
    found = outbox.next_row(session, chat_id)
    if found is None:
        batch = Batch(None, chat)
        chat.holder, chat.lease_until = None, 0.0
    else:
        row, shown = found
        batch = Batch(row, chat, Payload.from_json(row.payload))
        reply_to = batch.payload.reply_to
        replied = (
            outbox.shown_message(session, chat_id, reply_to) if reply_to and reply_to != row.surface else None
        )
        for known in (shown, replied):
            if known is not None:
                batch.shown[known.surface] = (known.message_id, known.digest)
    return batch


@dataclass
class Plan:
    edit_id: int | None = None
    reply_id: int | None = None
    skip: bool = False  # nothing to do (already shows it, or an edit of a message never shown)
    digest: str = ""
    replaces: int | None = None  # an older message of the surface this post supersedes


def plan(row: OutboxRow, payload: Payload, batch: Batch) -> Plan:
    """Post or edit, and what to answer: decided from what the chat shows now."""
    found = Plan(digest=digest(payload))
    if payload.message_id is not None:
        found.edit_id = payload.message_id
        return found
    if payload.inline_id is not None:
        return found  # a message posted via the bot: always an edit by its id (`telegram_io`)
    reply_to = payload.reply_to
    if reply_to and reply_to in batch.shown:
        found.reply_id = batch.shown[reply_to][0]
    surface = row.surface
    if surface is None:
        return found
    shown = batch.shown.get(surface)
    if shown is None:
        found.skip = payload.edit_only
        return found
    message_id, shown_digest = shown
    last = batch.chat.last_message_id
    behind = payload.bottom and last is not None and message_id < last
    if (behind or payload.fresh) and not payload.edit_only:
        # post it at the bottom; the old one loses its keys, if it has any
        found.replaces = message_id if has_keys(shown_digest) else None
        return found
    if shown_digest == found.digest:
        found.skip = True
        return found
    found.edit_id = message_id
    return found
