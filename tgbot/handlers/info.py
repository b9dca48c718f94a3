"""/rules pages with Next/Back keys."""

from __future__ import annotations

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from .. import callbacks as cb
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
