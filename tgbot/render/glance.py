"""The turn at a glance, where the player to move looks when the group board is out of date: the
👀 My hand popup and the first line of the 🎯 Play list (the table plays without sum hints).

The group board is drawn once a turn (one group message a turn), so after a Thief, Shifter or Bomb
picked from the list, or a Joker played alone, it still shows the table and target from before
the card. These glances are worked out from the seat's own view at each look: the live table and
target (with the Joker's change), and what the [T!] card of this turn put on the table. A view
holds no other player's hand, so neither can show one.

Both have size limits. A popup takes 200 characters (UTF-16 units). An inline result shows its
title on one line and its description on two (Telegram for iOS; three on Android), cut short with
"…" past that. So a table too long to list card by card is told by value ("Table (20 cards by
value): 1×4 2×3 …"): every card counted, none cut or left out, which is all a sum needs (colour
only scores). Each text is the first of its forms, fullest first, that fits; the last form fits
every worst case in every language (tests/bot/test_glance_limits.py).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence

from engine import View
from engine.cards import VALUE, TKind
from engine.state import PLAYING

from ..i18n import _, _n
from .cards import T_EMOJI, card, cards, t_label, t_list, width
from .limits import POPUP_LIMIT, utf16_length

#: What a phone shows of an inline result's description, in display columns (`cards.width`, an
#: emoji two): two lines of about 40 (Telegram for iOS cuts it there; Android at three). A title
#: gets one line, cut at its end: the target comes first in it (`inline.how_to_type`).
DESCRIPTION_COLUMNS = 80


def first_fitting(forms: Sequence[str], fits: Callable[[str], bool]) -> str:
    """The first form that fits, else the last (the shortest, held to the limits by the tests)."""
    return next((text for text in forms if fits(text)), forms[-1])


def in_popup(text: str) -> bool:
    return utf16_length(text) <= POPUP_LIMIT


def in_description(text: str) -> bool:
    return width(text) <= DESCRIPTION_COLUMNS


# --- the parts ------------------------------------------------------------------------------------


def table_in_full(lang: str, table: Sequence[str]) -> str:
    """'Table: 🟦3 🟩5 🟥1', as the board says it."""
    empty = _(lang, "(empty)")  # not nested in the call below: Babel would not extract it
    return _(lang, "Table: {cards}", cards=cards(tuple(table), empty=empty))


def table_by_value(lang: str, table: Sequence[str]) -> str:
    """'Table (20 cards by value): 1×4 2×3 3×5 4×2 5×3 6×3': each value with its number of cards,
    at most six groups whatever the table."""
    counts = Counter(VALUE[c] for c in table)
    groups = " ".join(f"{value}×{n}" for value, n in sorted(counts.items()))
    return _n(
        lang,
        "Table ({n} card by value): {groups}",
        "Table ({n} cards by value): {groups}",
        len(table),
        groups=groups,
    )


def table_forms(lang: str, table: Sequence[str]) -> tuple[str, str]:
    """The table card by card, and by value (an empty table is short either way: '(empty)')."""
    full = table_in_full(lang, table)
    return full, table_by_value(lang, table) if table else full


def joker_mark(v: View) -> str:
    """'🃏+1': the Joker played this turn, as a change of the target."""
    return f"{T_EMOJI[TKind.JOKER]}{v.joker:+d}"


def target_text(lang: str, v: View) -> str:
    """'🎯 Target 9', or with a Joker played this turn '🎯 Target 10 (🃏+1)'."""
    if v.joker:
        return _(lang, "🎯 Target {target} ({joker})", target=v.target, joker=joker_mark(v))
    return _(lang, "🎯 Target {target}", target=v.target)


def t_news(lang: str, v: View) -> str | None:
    """What the [T!] card played this turn put on the table (None: none played, or a Joker, which
    the target tells).

    Every card an effect moves goes onto the table (RULES §4.0 C4), and the engine puts it at the
    end (`engine.game._play_t`); nothing else changes the table before the sum or discard that
    ends the turn. So the card a Thief stole or a Shifter moved is the table's last card. Which
    cards the Bomb dropped a view cannot tell (how many hands it hit is not in it): its line says
    what happened, and the table lists them with the others.
    """
    if v.t_played is None or v.status != PLAYING:
        return None
    kind = TKind(v.t_played)
    play = t_label(lang, kind)
    if kind is TKind.THIEF and v.table:
        return _(lang, "{play}: {card} stolen", play=play, card=card(v.table[-1]))
    if kind is TKind.SHIFTER and v.table:
        return _(lang, "{play}: {card} from the deck", play=play, card=card(v.table[-1]))
    if kind is TKind.BOMB:
        return _(lang, "{play}: a card from each opponent", play=play)
    return None


def _held_short(kinds: Sequence[str]) -> str:
    """'🥷×2 🃏': [T!] cards held, by emoji (a popup short of room)."""
    counts = Counter(TKind(k) for k in kinds)
    return " ".join(T_EMOJI[k] + (f"×{n}" if n > 1 else "") for k, n in counts.items())


# --- the 👀 My hand popup -------------------------------------------------------------------------


def hand_popup(lang: str, v: View) -> str:
    """The '👀 My hand' popup, only the tapper sees it: their hand (first line, slot by slot), their
    [T!] cards, the live table, what this turn's [T!] card did, and to the player to move the
    target (≤ 200 characters: a long table by value, then the [T!] cards by emoji, then without
    the [T!] line of this turn, which the table still holds)."""
    assert v.seat is not None and v.hand is not None
    slots = "  ".join(f"{i + 1}:{card(c)}" for i, c in enumerate(v.hand)) or _(lang, "(no cards)")
    head = [_(lang, "Your hand: {slots}", slots=slots)]
    held = v.holdings[v.seat] or ()
    playing = v.status == PLAYING
    tail: list[str] = []
    if v.current == v.seat and playing:
        if v.joker:
            joker = f"{t_label(lang, TKind.JOKER)} {v.joker:+d}"
            tail.append(_(lang, "Target {target} ({joker}). Your move!", target=v.target, joker=joker))
        else:
            tail.append(_(lang, "Target {target}. Your move!", target=v.target))
    news = t_news(lang, v)

    def popup(table: str, holding: str | None, with_news: bool) -> str:
        lines = list(head)
        if holding:
            lines.append(_(lang, "[T!]: {cards}", cards=holding))
        if playing:
            lines.append(table)
            if with_news and news:
                lines.append(news)
        return "\n".join(lines + tail)

    full, by_value = table_forms(lang, v.table)
    long_held = t_list(lang, held) if held else None
    short_held = _held_short(held) if held else None
    forms = [
        popup(full, long_held, True),
        popup(by_value, long_held, True),
        popup(by_value, short_held, True),
        popup(by_value, short_held, False),
    ]
    return first_fitting(forms, in_popup)


# --- the first line of the 🎯 Play list -----------------------------------------------------------


def description(lang: str, v: View, with_target: bool) -> str:
    """The table (and the target, unless the title says it) under a line of the list that plays
    nothing: '🎯 Target 9 · Table: 🟦3 🟩5 · 🥷 Thief: 🟦3 stolen'."""
    head = [target_text(lang, v)] if with_target else []
    news = t_news(lang, v)

    def line(table: str, with_news: bool) -> str:
        return " · ".join([*head, table, *([news] if with_news and news else [])])

    full, by_value = table_forms(lang, v.table)
    forms = [line(full, True), line(by_value, True), line(full, False), line(by_value, False)]
    return first_fitting(forms, in_description)
