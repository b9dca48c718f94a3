"""Talking to Telegram, with its expected failures handled (DESIGN §5).

* "message is not modified" is success.
* A message that can no longer be edited (deleted by an admin, too old) makes
  the caller post a fresh one instead.
* A blocked private chat reports `Blocked`, so the caller clears the can-DM
  flag and falls back to the group.
* Flood control (429) is retried by PTB's AIORateLimiter before it gets here.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from telegram import Bot, InlineKeyboardMarkup, InputFile, Message
from telegram.constants import ParseMode
from telegram.error import BadRequest, ChatMigrated, Forbidden, TelegramError

from .render.limits import POPUP_LIMIT

log = logging.getLogger(__name__)

NOT_MODIFIED = "message is not modified"
EDIT_GONE = (
    "message to edit not found",
    "message can't be edited",
    "message_id_invalid",
    "message to delete not found",
)
REPLY_GONE = "message to be replied not found"


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


@dataclass
class SendResult:
    """What became of a send; `message_id` is None whenever nothing was sent, whatever the reason."""

    message_id: int | None = None
    blocked: bool = False
    migrated_to: int | None = None
    reply_missing: bool = False  # `reply_to` is gone (deleted): nothing was sent


async def send(
    bot: Bot,
    chat_id: int,
    text: str,
    markup: InlineKeyboardMarkup | None = None,
    thread_id: int | None = None,
    reply_to: int | None = None,
) -> SendResult:
    """Send; with `reply_to`, only as a reply to that message (`reply_missing` when it is gone)."""
    try:
        message: Message = await bot.send_message(
            chat_id,
            text,
            parse_mode=ParseMode.HTML,
            reply_markup=markup,
            message_thread_id=thread_id,
            disable_web_page_preview=True,
            reply_to_message_id=reply_to,
        )
    except Forbidden:
        return SendResult(blocked=True)
    except ChatMigrated as exc:
        return SendResult(migrated_to=exc.new_chat_id)
    except TelegramError as exc:
        if isinstance(exc, BadRequest) and reply_to is not None and REPLY_GONE in exc.message.lower():
            return SendResult(reply_missing=True)
        log.warning("send_message to %s failed: %s", chat_id, exc)
        return SendResult()
    return SendResult(message_id=message.message_id)


async def edit(
    bot: Bot,
    chat_id: int,
    message_id: int,
    text: str,
    markup: InlineKeyboardMarkup | None = None,
) -> bool:
    """Edit a message; False when it is gone or cannot be edited any more."""
    try:
        await bot.edit_message_text(
            text,
            chat_id=chat_id,
            message_id=message_id,
            parse_mode=ParseMode.HTML,
            reply_markup=markup,
            disable_web_page_preview=True,
        )
    except BadRequest as exc:
        if NOT_MODIFIED in exc.message.lower():
            return True
        if any(reason in exc.message.lower() for reason in EDIT_GONE):
            return False
        log.warning("edit_message_text %s/%s failed: %s", chat_id, message_id, exc)
        return False
    except Forbidden:
        return False
    except TelegramError as exc:
        log.warning("edit_message_text %s/%s failed: %s", chat_id, message_id, exc)
        return False
    return True


async def drop_keyboard(bot: Bot, chat_id: int, message_id: int) -> bool:
    try:
        await bot.edit_message_reply_markup(chat_id=chat_id, message_id=message_id, reply_markup=None)
    except BadRequest as exc:
        return NOT_MODIFIED in exc.message.lower()
    except TelegramError:
        return False
    return True


async def answer(bot: Bot, query_id: str, text: str = "", alert: bool = False) -> None:
    """Answer a callback query; the popup is clipped, since Telegram rejects a longer one outright."""
    try:
        await bot.answer_callback_query(query_id, text=clip_popup(text) or None, show_alert=alert)
    except TelegramError as exc:  # an old query can no longer be answered; nothing to do
        log.debug("answer_callback_query failed: %s", exc)


async def send_file(
    bot: Bot,
    chat_id: int,
    kind: str,
    data: bytes,
    filename: str,
    caption: str | None = None,
    thread_id: int | None = None,
) -> SendResult:
    """sendPhoto (`kind="photo"`) or sendDocument with an in-memory file; never raises."""
    upload = InputFile(data, filename=filename)
    try:
        if kind == "photo":
            message: Message = await bot.send_photo(
                chat_id, upload, caption=caption, parse_mode=ParseMode.HTML, message_thread_id=thread_id
            )
        else:
            message = await bot.send_document(
                chat_id, upload, caption=caption, parse_mode=ParseMode.HTML, message_thread_id=thread_id
            )
    except Forbidden:
        return SendResult(blocked=True)
    except ChatMigrated as exc:
        return SendResult(migrated_to=exc.new_chat_id)
    except TelegramError as exc:  # e.g. media not allowed in this group: the text already went out
        log.warning("send %s to %s failed: %s", kind, chat_id, exc)
        return SendResult()
    return SendResult(message_id=message.message_id)
