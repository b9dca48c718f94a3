"""What a sender records of one call to Telegram, in the transaction that then reads its chat's
next row: the row delivered or dropped, the message that shows its surface, the chat's budget
spent, and what the services must hear of (`ChatTrouble`: a group that refused the bot, a
blocked private chat, a migrated group, a board gone or shown)."""

from __future__ import annotations

import json
import logging
from dataclasses import replace
from typing import Protocol

from sqlmodel import Session

from ..store import outbox
from ..store.models import OutboxRow
from ..store.outbox import Fallback, Message, Payload
from ..store.surfaces import Surface
from ..time_source import Clock
from . import budget
from . import telegram_io as io
from .plan import Plan
from .telegram_io import OutcomeKind

log = logging.getLogger("tweakbot.delivery")


class ChatTrouble(Protocol):
    """The services' side of what Telegram told a sender (each runs in one transaction)."""

    def bot_removed(self, session: Session, chat_id: int) -> None: ...

    def private_blocked(self, session: Session, user_id: int) -> None: ...

    def migrated(self, session: Session, old_id: int, new_id: int) -> None: ...

    def surface_lost(self, session: Session, chat_id: int, surface: Surface) -> None: ...

    def inline_gone(self, session: Session, game_id: int, inline_id: str, held: str | None) -> None:
        """A message of a game in a chat the bot is not in was deleted: it cannot show the game
        any more (a person brings the board back from the inline list); what it `held` (an
        older board's record) is the live board's to show now."""
        ...

    def surface_shown(self, session: Session, chat_id: int, surface: Surface) -> None:
        """A board or panel reached the chat (or Telegram refused it for good): a turn it shows
        may start its clock now, never before its player can see it."""
        ...


def spent(chat: outbox.ChatDelivery, now: float) -> None:
    """One more write in the chat's last minute."""
    chat.recent = json.dumps([round(t, 3) for t in budget.prune(json.loads(chat.recent), now)] + [now])


def finish(
    session: Session,
    chat_id: int,
    row: OutboxRow,
    outcome: io.Outcome,
    plan: Plan,
    payload: Payload,
    now: float,
    trouble: ChatTrouble,
    clock: Clock,
) -> None:
    """Record what one call did, in one transaction."""
    assert row.id is not None
    chat = outbox.delivery_chat(session, chat_id)
    spent(chat, now)
    kind = outcome.kind
    if (
        row.surface is not None
        and kind in (OutcomeKind.SENT, OutcomeKind.EDITED, OutcomeKind.REFUSED)
        and not payload.keys_only
    ):
        # First, while nothing of the outbox is locked yet: the game row comes before the outbox
        # in every transaction that takes both (taps take the game, then its outbox rows).
        trouble.surface_shown(session, chat_id, row.surface)
    if kind in (OutcomeKind.SENT, OutcomeKind.EDITED):
        if row.surface is not None and outcome.message_id is not None:
            outbox.remember_shown(session, chat_id, row.surface, outcome.message_id, plan.digest)
        if kind == OutcomeKind.SENT and outcome.message_id is not None:
            chat.last_message_id = max(chat.last_message_id or 0, outcome.message_id)
        outbox.delivered(session, row.id, row.rev)
        if plan.replaces is not None:
            # the older message of the surface, posted again below: its keys go when budget allows
            outbox.drop_keys(session, chat_id, plan.replaces, clock.now(), game_id=row.game_id)
    elif kind == OutcomeKind.GONE and payload.inline_id is not None:
        if row.game_id is not None:  # (the game before the outbox, as every transaction takes them)
            trouble.inline_gone(session, row.game_id, payload.inline_id, payload.held)
        outbox.drop(session, row.id)  # deleted by a person: the game goes on without it
    elif kind == OutcomeKind.GONE:
        if row.surface is not None and not payload.message_id:
            outbox.forget_shown(session, chat_id, row.surface)  # posted anew on the next round
            if payload.edit_only:
                outbox.drop(session, row.id)
        else:
            outbox.drop(session, row.id)
    elif kind == OutcomeKind.REPLY_MISSING:
        lost = payload.reply_to
        if lost:
            outbox.forget_shown(session, chat_id, lost)
            trouble.surface_lost(session, chat_id, lost)
    elif kind == OutcomeKind.THREAD_MISSING:
        if payload.thread_id is not None:
            log.warning("chat %s: the forum topic is gone; the game goes on in the general topic", chat_id)
            stored = session.get(OutboxRow, row.id)
            if stored is not None:
                stored.payload = replace(payload, thread_id=None).to_json()
                session.add(stored)
        else:
            outbox.drop(session, row.id)
    else:  # REFUSED: retrying would fail the same way
        log.error("chat %s: dropped an undeliverable message (%s)", chat_id, outcome.detail)
        outbox.drop(session, row.id)


def attempted(session: Session, chat_id: int, row: OutboxRow, now: float) -> None:
    """The call did not reach Telegram (the network): the row stays, its budget is spent."""
    assert row.id is not None
    outbox.note_attempt(session, row.id)
    spent(outbox.delivery_chat(session, chat_id), now)


def paused(session: Session, chat_id: int, until: float) -> None:
    """A 429: the chat waits, on every instance."""
    chat = outbox.delivery_chat(session, chat_id)
    chat.paused_until = max(chat.paused_until, until)


def blocked(
    session: Session, chat_id: int, row: OutboxRow, payload: Payload, trouble: ChatTrouble, clock: Clock
) -> None:
    """The chat refuses the bot: nothing waiting for it can be delivered (a private message's
    fallback goes to the group instead)."""
    if budget.is_private(chat_id):
        trouble.private_blocked(session, chat_id)
        fallback = payload.fallback
        if fallback is not None:
            outbox.put(session, _message_from(fallback, row.game_id), clock.now())
    else:
        trouble.bot_removed(session, chat_id)
    dropped = outbox.drop_chat(session, chat_id)
    log.info("chat %s refuses the bot: %d waiting messages dropped", chat_id, dropped)


def _message_from(fallback: Fallback, game_id: int | None) -> Message:
    return Message(fallback.chat_id, fallback.payload, fallback.surface, game_id=game_id)
