"""Cards and [T!] cards as text: colour emoji plus value, translated names."""

from __future__ import annotations

import unicodedata
from html import escape

from engine.cards import COLOUR_OF, VALUE, TKind

from ..i18n import M_, _

COLOUR_EMOJI = {"R": "🟥", "O": "🟧", "Y": "🟨", "G": "🟩", "B": "🟦", "P": "🟪"}
COLOUR_NAMES = {
    "R": M_("red"),
    "O": M_("orange"),
    "Y": M_("yellow"),
    "G": M_("green"),
    "B": M_("blue"),
    "P": M_("purple"),
}

#: Each kind of [T!] card as the bot shows it (the kinds: `engine.cards.TKind`).
T_EMOJI: dict[TKind, str] = {TKind.THIEF: "🥷", TKind.JOKER: "🃏", TKind.SHIFTER: "🔀", TKind.BOMB: "💣"}
T_NAMES: dict[TKind, str] = {
    TKind.THIEF: M_("Thief"),
    TKind.JOKER: M_("Joker"),
    TKind.SHIFTER: M_("Shifter"),
    TKind.BOMB: M_("Bomb"),
}
HIDDEN_CARD = "🂠"


def card(card_id: str) -> str:
    return f"{COLOUR_EMOJI[COLOUR_OF[card_id]]}{VALUE[card_id]}"


def cards(card_ids: list[str] | tuple[str, ...], empty: str = "—") -> str:
    return " ".join(card(c) for c in card_ids) if card_ids else empty


def t_name(lang: str, kind: str) -> str:
    return _(lang, T_NAMES[TKind(kind)])


def t_label(lang: str, kind: str) -> str:
    return f"{T_EMOJI[TKind(kind)]} {t_name(lang, kind)}"


def t_list(lang: str, kinds: list[str] | tuple[str, ...]) -> str:
    """'🃏 Joker ×2, 🥷 Thief' — grouped so long holdings stay short."""
    counts: dict[str, int] = {}
    for k in kinds:
        counts[k] = counts.get(k, 0) + 1
    parts = [t_label(lang, k) + (f" ×{n}" if n > 1 else "") for k, n in counts.items()]
    return ", ".join(parts)


def name(text: str, limit: int = 24) -> str:
    """A player name, shortened and HTML-escaped for message text."""
    text = " ".join(text.split()) or "?"
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return escape(text)


def plain_name(text: str, limit: int = 24) -> str:
    """A player name for popups and keys (no HTML)."""
    text = " ".join(text.split()) or "?"
    return text if len(text) <= limit else text[: limit - 1] + "…"


def width(text: str) -> int:
    """Columns a text takes on a key (see `_char_width`)."""
    return sum(_char_width(c) for c in unicodedata.normalize("NFC", text))


def _char_width(char: str) -> int:
    """Counted as a phone's key needs it, erring wide: every code point takes a column (a
    Devanagari vowel sign too), emoji and wide characters two; only the joiners of an emoji none."""
    if char == "\u200d" or "\ufe00" <= char <= "\ufe0f":
        return 0
    if unicodedata.category(char) == "So" or unicodedata.east_asian_width(char) in ("W", "F"):
        return 2
    return 1


def fit(text: str, columns: int) -> str:
    """A name for a key, cut to `columns` display columns (with '…')."""
    text = " ".join(text.split()) or "?"
    if width(text) <= columns:
        return text
    out, used = "", 0
    for char in unicodedata.normalize("NFC", text):
        if used + _char_width(char) > columns - 1:
            break
        out += char
        used += _char_width(char)
    return out + "…"


def mention(user_id: int | None, text: str) -> str:
    if user_id is None:
        return f"<b>{name(text)}</b>"
    return f'<a href="tg://user?id={user_id}">{name(text)}</a>'
