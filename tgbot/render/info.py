"""The /rules pages with their Next/Back keys, the language picker and its words, the private
/start welcome and its key, /help, and the answer to words that are no command."""

from __future__ import annotations

from .. import callbacks as cb
from ..i18n import LANGUAGES, _
from ..texts import ANYWHERE_HELP, HELP_TEXT, RULES_PAGES, WELCOME_TEXT
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


def welcome(lang: str, bot_username: str) -> str:
    """The private /start: what the bot is, and where to play."""
    return _(lang, WELCOME_TEXT, bot_name=bot_username)


def help_text(lang: str, bot_username: str, inline: bool) -> str:
    """The help, with games in any chat when the bot has inline mode (they need it)."""
    text = _(lang, HELP_TEXT)
    return text + "\n\n" + _(lang, ANYWHERE_HELP, bot=bot_username) if inline else text


def only_commands(lang: str) -> str:
    """Words in the bot's private chat that are no command."""
    return _(
        lang,
        "I only understand commands and keys. /help lists them; /newgame here starts a practice game.",
    )


def language_prompt(lang: str, private: bool) -> str:
    """Over the language keys: a person's own language in private, a group's games' in a group."""
    if private:
        return _(lang, "Choose your language for private messages and popups:")
    return _(lang, "Choose the language of this group's games:")


def language_chosen(code: str) -> str:
    """The language just chosen, said in it."""
    return _(code, "Language: {name}", name=LANGUAGES[code])
