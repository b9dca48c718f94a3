"""The /rules pages with their Next/Back keys, the language picker and the welcome's key."""

from __future__ import annotations

from .. import callbacks as cb
from ..i18n import LANGUAGES, _
from ..texts import RULES_PAGES
from .keys import Keyboard, button, link, rows_of


def rules_page(lang: str, page: int) -> tuple[str, Keyboard | None]:
    page = max(0, min(page, len(RULES_PAGES) - 1))
    text = _(lang, RULES_PAGES[page]) + f"\n\n<i>{page + 1}/{len(RULES_PAGES)}</i>"
    keys = []
    if page > 0:
        keys.append(button(_(lang, "⬅️ Back"), cb.Rules(page - 1, lang)))
    if page < len(RULES_PAGES) - 1:
        keys.append(button(_(lang, "Next ➡️"), cb.Rules(page + 1, lang)))
    return text, [keys] if keys else None


def language_keyboard() -> Keyboard:
    return rows_of([button(label, cb.Language(code)) for code, label in LANGUAGES.items()], 2)


def welcome_keys(lang: str, bot_username: str) -> Keyboard:
    return [[link(_(lang, "➕ Add to a group"), f"https://t.me/{bot_username}?startgroup=tweak")]]
