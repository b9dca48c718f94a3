"""One outbox row to Telegram and back, with Telegram's expected answers sorted (DESIGN §5).

Nothing here decides what to do about an answer: `deliver` turns every response into an
`Outcome` the sender acts on. "Message is not modified" is success; a message that can no longer
be edited is `Gone` (the sender posts it anew); 429 is `Flood` with Telegram's `retry_after`;
403 is `Blocked`; a group that became a supergroup is `Migrated`.
"""

from __future__ import annotations

import base64
import logging
from dataclasses import dataclass
from datetime import timedelta
from enum import StrEnum
from typing import Any

from telegram import Bot, InlineKeyboardMarkup, InputFile, Message
from telegram.error import BadRequest, ChatMigrated, Forbidden, NetworkError, RetryAfter, TelegramError

from ..render.limits import POPUP_LIMIT
from ..store.outbox import MediaKind, Payload
from .webhook_replies import WebhookReplies

log = logging.getLogger("tweakbot.delivery")

NOT_MODIFIED = "message is not modified"
EDIT_GONE = (
    "message to edit not found",
    "message can't be edited",
    "message_id_invalid",
    "message to delete not found",
)
REPLY_GONE = "message to be replied not found"
THREAD_GONE = ("message thread not found", "topic_closed", "topic_deleted")


class OutcomeKind(StrEnum):
    """What became of one call (the values label the delivery metrics)."""

    SENT = "sent"  # a new message: message_id
    EDITED = "edited"  # changed in place (or already so)
    GONE = "gone"  # the message to edit is gone or frozen
    REPLY_MISSING = "reply_missing"  # the message to answer is gone
    THREAD_MISSING = "thread_missing"  # the forum topic is gone or closed
    FLOOD = "flood"  # 429: retry_after
    BLOCKED = "blocked"  # 403
    MIGRATED = "migrated"  # the group is a supergroup now: new_chat_id
    NETWORK = "network"  # try again later
    REFUSED = "refused"  # a 400 that will not change by retrying (logged)


@dataclass(frozen=True)
class Outcome:
    kind: OutcomeKind
    message_id: int | None = None
    retry_after: float = 0.0
    new_chat_id: int | None = None
    detail: str = ""


def keyboard(keys: list[list[dict[str, str]]] | None, bot: Bot) -> InlineKeyboardMarkup | None:
    if not keys:
        return None
    markup = InlineKeyboardMarkup.de_json({"inline_keyboard": keys}, bot)
    assert markup is not None
    return markup


async def deliver(
    bot: Bot,
    chat_id: int,
    payload: Payload,
    *,
    edit_id: int | None = None,
    reply_id: int | None = None,
    media_bytes: bytes | None = None,
) -> Outcome:
    """Send (or, with `edit_id`, edit) what one outbox row holds."""
    try:
        return await _call(bot, chat_id, payload, edit_id, reply_id, media_bytes)
    except RetryAfter as exc:
        return Outcome(OutcomeKind.FLOOD, retry_after=retry_seconds(exc))
    except ChatMigrated as exc:
        return Outcome(OutcomeKind.MIGRATED, new_chat_id=exc.new_chat_id)
    except Forbidden as exc:
        return Outcome(OutcomeKind.BLOCKED, detail=exc.message)
    except BadRequest as exc:
        return _bad_request(exc, chat_id, edit_id, reply_id, payload.inline_id is not None)
    except NetworkError as exc:  # TimedOut included
        return Outcome(OutcomeKind.NETWORK, detail=type(exc).__name__)
    except TelegramError as exc:
        log.warning("Telegram refused a call to %s: %s", chat_id, exc)
        return Outcome(OutcomeKind.REFUSED, detail=str(exc))


async def say(bot: Bot, chat_id: int, text: str, thread_id: int | None = None) -> Outcome:
    """A message sent without the outbox: only for when the database (and so the outbox) is down."""
    return await deliver(bot, chat_id, Payload(text=text, thread_id=thread_id))


def _bad_request(
    exc: BadRequest, chat_id: int, edit_id: int | None, reply_id: int | None, inline: bool = False
) -> Outcome:
    text = exc.message.lower()
    if NOT_MODIFIED in text:
        return Outcome(OutcomeKind.EDITED, message_id=edit_id)
    if (edit_id is not None or inline) and any(reason in text for reason in EDIT_GONE):
        return Outcome(OutcomeKind.GONE)
    if reply_id is not None and REPLY_GONE in text:
        return Outcome(OutcomeKind.REPLY_MISSING)
    if any(reason in text for reason in THREAD_GONE):
        return Outcome(OutcomeKind.THREAD_MISSING)
    log.warning("Telegram refused a message to %s: %s", chat_id, exc.message)
    return Outcome(OutcomeKind.REFUSED, detail=exc.message)


async def _call(
    bot: Bot,
    chat_id: int,
    payload: Payload,
    edit_id: int | None,
    reply_id: int | None,
    media_bytes: bytes | None,
) -> Outcome:
    markup = keyboard(payload.keys, bot)
    text = payload.text
    media = payload.media
    if payload.inline_id is not None:
        # A message posted via the bot in a chat it is not in: edited by its inline id, which
        # Telegram answers with True, not the message.
        if payload.keys_only:
            await bot.edit_message_reply_markup(inline_message_id=payload.inline_id, reply_markup=markup)
        else:
            await bot.edit_message_text(text, inline_message_id=payload.inline_id, reply_markup=markup)
        return Outcome(OutcomeKind.EDITED)
    if edit_id is not None:
        if media is not None:
            await bot.edit_message_caption(
                chat_id=chat_id, message_id=edit_id, caption=text, reply_markup=markup
            )
        elif payload.keys_only:
            await bot.edit_message_reply_markup(chat_id=chat_id, message_id=edit_id, reply_markup=markup)
        else:
            await bot.edit_message_text(text, chat_id=chat_id, message_id=edit_id, reply_markup=markup)
        return Outcome(OutcomeKind.EDITED, message_id=edit_id)
    silent = not payload.notify
    thread = payload.thread_id
    sent: Message
    if media is not None:
        data = media_bytes if media_bytes is not None else base64.b64decode(media.data or "")
        upload = InputFile(data, filename=media.filename)
        common: dict[str, Any] = {
            "caption": text or None,
            "message_thread_id": thread,
            "disable_notification": silent,
            "reply_markup": markup,
        }
        if media.kind is MediaKind.PHOTO:
            sent = await bot.send_photo(chat_id, upload, **common)
        else:
            sent = await bot.send_document(chat_id, upload, **common)
    else:
        sent = await bot.send_message(
            chat_id,
            text,
            reply_markup=markup,
            message_thread_id=thread,
            disable_notification=silent,
            reply_to_message_id=reply_id,
        )
    return Outcome(OutcomeKind.SENT, message_id=sent.message_id)


def clip_popup(text: str, limit: int = POPUP_LIMIT) -> str:
    """Shorten a popup to Telegram's limit (emoji count twice), ending with '…' when cut."""
    if len(text.encode("utf-16-le")) // 2 <= limit:
        return text
    out: list[str] = []
    used = 0
    for char in text:
        width = len(char.encode("utf-16-le")) // 2
        if used + width > limit - 1:
            break
        out.append(char)
        used += width
    return "".join(out) + "…"


def retry_seconds(error: RetryAfter) -> float:
    """How long Telegram asked the bot to wait. PTB 22 gives `retry_after` in whole seconds (an
    int) and PTB 23 as a `timedelta` (22 too, where the operator opted in with PTB_TIMEDELTA):
    either reads the same here."""
    wait = error.retry_after
    return wait.total_seconds() if isinstance(wait, timedelta) else float(wait)


async def answer(
    bot: Bot,
    query_id: str,
    text: str = "",
    alert: bool = False,
    *,
    replies: WebhookReplies | None = None,
    url: str | None = None,
) -> bool:
    """Answer a callback query (free: no chat budget); False when Telegram refused it (too old).
    `url`: a link to the bot the tapper's app opens (with no `text`: an app shows a text instead).

    In webhook mode the answer usually goes back in the webhook request's response (`replies`,
    the bot's `WebhookReplies`), which costs no call; it is then taken as accepted, since
    Telegram says nothing back about it."""
    popup = clip_popup(text)
    if replies is not None:
        params: dict[str, Any] = {"show_alert": alert}
        if popup:
            params["text"] = popup
        if url:
            params["url"] = url
        if replies.offer(query_id, params):
            return True
    try:
        await bot.answer_callback_query(query_id, text=popup or None, show_alert=alert, url=url or None)
    except TelegramError as exc:
        log.debug("answer_callback_query failed: %s", exc)
        return False
    return True
