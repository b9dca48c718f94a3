"""Translations: compiled gettext catalogs, loaded with the standard library.

The catalogs are `locales/<lang>/LC_MESSAGES/messages.po` (Babel); the package build compiles them
to `messages.mo` next to them (setup.py, `build_catalogs`: a wheel carries them, an editable
install compiles them in place) and only the `.mo` files are read here, by `gettext.translation`:
the plural rule is the catalog's own `Plural-Forms`. Untranslated and fuzzy entries are not in
a compiled catalog, so they are English, like a language without a catalog (logged once).

Usage in code (Babel extracts these with the keywords in babel.cfg, and the comments just above
them that start with ``NOTE:``, for translators):

    _(lang, "Your turn, {name}!", name=player)
    _n(lang, "{n} card", "{n} cards", n)
    _p(lang, "move played", "wins a [T!] card")   # one English text, two meanings (msgctxt)
    M_("text")   # mark a string for extraction; translate later with _(lang, text)
"""

from __future__ import annotations

import gettext
import logging
from functools import cache
from pathlib import Path
from typing import Any

LOCALES_DIR = Path(__file__).parent / "locales"
DOMAIN = "messages"
log = logging.getLogger(__name__)
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


def read_catalog(lang: str) -> gettext.NullTranslations:
    """A supported language's compiled catalog (English: none, the msgids are English), read
    from its file and held by the caller alone. `gettext.translation` would keep every catalog it
    opens for the process's life, including those read once for the command menus."""
    if lang == DEFAULT_LANGUAGE:
        return gettext.NullTranslations()
    found = gettext.find(DOMAIN, LOCALES_DIR, [lang])  # where gettext.translation looks
    if found is None:
        log.warning(
            "no compiled catalog %s/%s/LC_MESSAGES/%s.mo: %s is English (build the package, or "
            "pybabel compile -d tgbot/locales -D %s)",
            LOCALES_DIR,
            lang,
            DOMAIN,
            lang,
            DOMAIN,
        )
        return gettext.NullTranslations()
    with open(found, "rb") as compiled:
        return gettext.GNUTranslations(compiled)


@cache
def translations(lang: str) -> gettext.NullTranslations:
    """The catalog the bot speaks a language with, read once (the groups that use it)."""
    return read_catalog(lang)


def _(lang: str, message: str, **fmt: Any) -> str:
    text = translations(normalize(lang)).gettext(message)
    return text.format(**fmt) if fmt else text


def _n(lang: str, singular: str, plural: str, n: int, **fmt: Any) -> str:
    text = translations(normalize(lang)).ngettext(singular, plural, n)
    return text.format(n=n, **fmt)


def _p(lang: str, context: str, message: str, **fmt: Any) -> str:
    """A text English words alike in places another language may not (a move offered, a move
    played): `context` tells them apart for translators (gettext's msgctxt)."""
    text = translations(normalize(lang)).pgettext(context, message)
    return text.format(**fmt) if fmt else text


def M_(message: str) -> str:
    """Mark a string for extraction without translating it here."""
    return message
