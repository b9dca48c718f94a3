"""Translations: gettext catalogs (Babel .po files) loaded straight from source.

Loading the .po files at start-up (instead of compiled .mo files) means a fresh
install has working translations with no compile step; `pybabel compile` is
still available for translators who want to check their files.

Usage in code (Babel extracts these with the keywords in babel.cfg):

    _(lang, "Your turn, {name}!", name=player)
    _n(lang, "{n} card", "{n} cards", n)
    M_("text")   # mark a string for extraction; translate later with _(lang, text)
"""

from __future__ import annotations

import gettext
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

LOCALES_DIR = Path(__file__).parent / "locales"
DOMAIN = "messages"
DEFAULT_LANGUAGE = "en"

#: Supported languages, each with its own name (used on the /language keys).
LANGUAGES: dict[str, str] = {
    "en": "English",
    "es": "Español",
    "id": "Bahasa Indonesia",
    "ja": "日本語",
    "vi": "Tiếng Việt",
    "hi": "हिन्दी",
}


def normalize(code: str | None) -> str:
    """Map a Telegram language_code ('pt-br', 'ES', None) to a supported language."""
    if not code:
        return DEFAULT_LANGUAGE
    base = code.lower().replace("_", "-").split("-")[0]
    return base if base in LANGUAGES else DEFAULT_LANGUAGE


@cache
def _load(lang: str) -> tuple[dict[str | tuple[str, str], tuple[str, ...]], Callable[[int], int]]:
    """msgid (or (singular, plural)) -> translated forms, and the file's plural formula."""
    path = LOCALES_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.po"
    if lang == DEFAULT_LANGUAGE or not path.exists():
        return {}, _english_plural
    from babel.messages.pofile import read_po

    with path.open("rb") as fh:
        catalog = read_po(fh, locale=lang)
    table: dict[str | tuple[str, str], tuple[str, ...]] = {}
    for message in catalog:
        if not message.id or message.fuzzy:
            continue
        if isinstance(message.id, (tuple, list)):
            raw = message.string if isinstance(message.string, (tuple, list)) else (message.string,)
            forms = tuple(str(f) for f in raw if f)
            if forms and len(forms) == len(raw):
                table[(message.id[0], message.id[1])] = forms
        elif message.string:
            table[message.id] = (str(message.string),)
    plural = gettext.c2py(catalog.plural_expr)  # type: ignore[attr-defined]
    return table, plural


def _english_plural(n: int) -> int:
    return 0 if n == 1 else 1


def _(lang: str, message: str, **fmt: Any) -> str:
    forms = _load(normalize(lang))[0].get(message)
    text = forms[0] if forms else message
    return text.format(**fmt) if fmt else text


def _n(lang: str, singular: str, plural: str, n: int, **fmt: Any) -> str:
    lang = normalize(lang)
    table, rule = _load(lang)
    forms = table.get((singular, plural))
    if forms:
        index = min(rule(n), len(forms) - 1)
        text = forms[index]
    else:
        text = singular if n == 1 else plural
    return text.format(n=n, **fmt)


def M_(message: str) -> str:
    """Mark a string for extraction without translating it here."""
    return message
