"""/rules pages with Next/Back keys."""

from __future__ import annotations

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Update

from .. import callbacks as cb
from .. import telegram_io as io
from ..i18n import _
from ..texts import RULES_PAGES


def rules_page(lang: str, page: int) -> tuple[str, InlineKeyboardMarkup | None]:
    page = max(0, min(page, len(RULES_PAGES) - 1))
    text = _(lang, RULES_PAGES[page]) + f"\n\n<i>{page + 1}/{len(RULES_PAGES)}</i>"
    keys = []
    if page > 0:
        keys.append(InlineKeyboardButton(_(lang, "⬅️ Back"), callback_data=cb.rules(page - 1, lang)))
    if page < len(RULES_PAGES) - 1:
        keys.append(InlineKeyboardButton(_(lang, "Next ➡️"), callback_data=cb.rules(page + 1, lang)))
    return text, InlineKeyboardMarkup([keys]) if keys else None


async def send_rules_page(update: Update, lang: str, page: int) -> None:
    chat = update.effective_chat
    if chat is None:
        return
    message = update.effective_message
    thread = message.message_thread_id if message is not None and message.is_topic_message else None
    text, markup = rules_page(lang, page)
    await io.send(update.get_bot(), chat.id, text, markup, thread)
