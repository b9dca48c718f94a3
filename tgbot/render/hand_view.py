"""A person's own view of a running game in the group (issue 61): their cards, the table, the
target and whose move it is, on an ephemeral message only they see; on their turn, the keys to
compose and play it there.

Drawn from the seat's own view (`engine.seat_view`), so it can hold no other player's hand, by
construction; the [T!] plays it offers are the caller's (`Table.t_choices`, the engine's legal
plays of this seat, empty off its turn). Each tap edits the message in place, so unlike the group
board (one message a turn) the view shows the draft as it is composed: the hand card and table
cards picked, their running sum against the target (a chosen Joker's included), ✅ *Claim* only
when the draft is a legal move, a discard of the hand card picked, and *Clear*.

Skill is kept: with sum hints off (the default) the view asks for the values of a sum the person
found, typed in an ephemeral reply ("5 3 1"), then offers only the legal sums made of exactly
those values, or says why there is none; with hints on it lists the legal sums. A sum offered is
one key that plays it.

Delivery of an ephemeral message is not guaranteed, so the tap's answer (`toast`) always carries
the person's cards too: an app that missed the message still shows them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from engine import View
from engine.actions import PlayThief, decode, t_kind
from engine.cards import VALUE, TKind
from engine.state import PLAYING

from .. import callbacks as cb
from ..i18n import _, _n
from . import hand_sums, move_list
from .board import Draft, Table, t_play_label
from .cards import HIDDEN_CARD, T_EMOJI, card, cards, fit, name, t_label, t_list, width
from .glance import first_fitting, in_popup, t_news, table_in_full, target_text
from .keys import Key, Keyboard, button, rows_of
from .limits import POPUP_LIMIT, utf16_length

#: Columns a key and a row of keys may take on a phone (`tests/test_i18n.py` checks every row).
KEY_COLUMNS = 28
ROW_COLUMNS = 34
TABLE_ROW = 6


@dataclass(frozen=True)
class Composing:
    """What the person has composed on their view, kept by the server: the draft (hand card, table
    cards, [T!] play) and the card values they typed in reply (None: nothing typed)."""

    draft: Draft = field(default_factory=Draft)
    typed: tuple[int, ...] | None = None

    @property
    def empty(self) -> bool:
        return self.draft.empty and self.typed is None


@dataclass(frozen=True)
class Shown:
    """The view's text (HTML) and keys (none: an empty keyboard)."""

    text: str
    keys: Keyboard


def my_cards_key(lang: str, game_id: int) -> Key:
    """The board's one key for the turn: whoever taps it sees their own view. It names no version,
    so it never goes stale: an old board's key opens the live game's view."""
    return button(_(lang, "🃏 My cards"), cb.MyCards(game_id))


def hand_view(lang: str, v: View, table: Table, composing: Composing | None = None) -> Shown:
    """The view of seat `v.seat`: on its turn with the compose keys, else its cards, the table and
    whose move it is with a key to look again; a finished game says so."""
    assert v.seat is not None and v.hand is not None, "a seat's own view"
    if v.status != PLAYING:
        return game_over(lang)
    composing = composing or Composing()
    lines = _head(lang, v)
    lines.append("")
    if v.current != v.seat:
        lines.append(_whose_move(lang, v, table))
        refresh = button(_(lang, "🔄 Refresh"), cb.MyCards(table.game_id))
        return Shown("\n".join(lines), [[refresh]])
    lines.append(_(lang, "👉 Your move!"))
    lines.extend(_draft_lines(lang, v, table, composing.draft))
    offered, help_lines = _offered(lang, v, table, composing)
    lines.extend(help_lines)
    return Shown("\n".join(lines), _compose_keys(lang, v, table, composing, offered))


def tap_my_hand(lang: str) -> str:
    """/cards where the bot can show the cards to nobody but the group: where to look instead."""
    return _(lang, "👀 Tap My hand on the board: your cards show to you alone.")


def game_over(lang: str) -> Shown:
    """The view of a game that is over (finished, cancelled or abandoned): no keys."""
    return Shown("🏁 " + _(lang, "This game is over."), [])


def toast(lang: str, v: View, note: str = "") -> str:
    """The tap's answer (≤ 200 characters): `note` (what the tap did), then always the person's
    cards and [T!] cards, so an app that missed the ephemeral message still shows them. A note
    too long is cut, never the cards."""
    assert v.seat is not None and v.hand is not None, "a seat's own view"
    empty = _(lang, "(no cards)")  # not nested in the call below: Babel would not extract it
    hand = _(lang, "Your hand: {cards}", cards=cards(v.hand, empty=empty))
    held = v.holdings[v.seat] or ()
    tails = [[hand]]
    if held:
        tails = [
            [hand, _(lang, "[T!]: {cards}", cards=t_list(lang, held))],
            [hand, _(lang, "[T!]: {cards}", cards=_held_short(held))],
        ]
    forms = ["\n".join([note, *tail] if note else tail) for tail in tails]
    text = first_fitting(forms, in_popup)
    if in_popup(text):
        return text
    tail = "\n".join(tails[-1])
    room = POPUP_LIMIT - utf16_length(tail) - 2  # the newline and the "…"
    return _cut(note, room) + "\n" + tail


# --- the text ---------------------------------------------------------------------------------


def _head(lang: str, v: View) -> list[str]:
    assert v.seat is not None
    lines = [
        _(lang, "🃏 <b>Your cards</b> · only you see this"),
        target_text(lang, v),
        table_in_full(lang, v.table),
    ]
    if news := t_news(lang, v):
        lines.append(news)
    empty = _(lang, "(no cards)")  # not nested in the call below: Babel would not extract it
    lines.append(_(lang, "Your hand: {cards}", cards=cards(v.hand or (), empty=empty)))
    if held := v.holdings[v.seat]:
        lines.append(_(lang, "Your [T!] cards: {cards}", cards=t_list(lang, held)))
    return lines


def _whose_move(lang: str, v: View, table: Table) -> str:
    """Who is to move, named without a mention: an ephemeral message wakes nobody."""
    current = table.players[v.current]
    if current.computer or current.left or current.away:
        return _(lang, "⏩ {name} is played by the bot.", name=name(current.name))
    return _(lang, "👀 It's {name}'s turn.", name=name(current.name))


def _sum_of(v: View, draft: Draft) -> tuple[str, int] | None:
    """The draft's sum as '🟥2 + 🟦3' and its total (None: no hand card picked)."""
    hand = v.hand or ()
    if draft.hand is None or draft.hand >= len(hand):
        return None
    chosen = draft.chosen(len(v.table))
    expr = " + ".join([card(hand[draft.hand]), *(card(v.table[p]) for p in chosen)])
    return expr, VALUE[hand[draft.hand]] + sum(VALUE[v.table[p]] for p in chosen)


def _draft_lines(lang: str, v: View, table: Table, draft: Draft) -> list[str]:
    """The [T!] play chosen, and the running sum against the target (a chosen Joker's)."""
    lines: list[str] = []
    if draft.t_code:
        lines.append(
            _(lang, "✏️ {play}: ✅ Claim plays it", play=t_play_label(lang, draft.t_code, table.players))
        )
    target = v.target + draft.joker
    chosen = draft.chosen(len(v.table))
    if (made := _sum_of(v, draft)) is not None:
        expr, total = made
        if chosen and total == target:
            lines.append("✏️ " + _(lang, "{expr} = {total} ✅ Tap Claim!", expr=expr, total=total))
        else:
            lines.append(
                _(lang, "✏️ {expr} = {total} (target {target})", expr=expr, total=total, target=target)
            )
    elif chosen:
        lines.append(
            _(
                lang,
                "✏️ Table cards {expr} = {total}; no hand card chosen yet (target {target})",
                expr=" + ".join(card(v.table[p]) for p in chosen),
                total=sum(VALUE[v.table[p]] for p in chosen),
                target=target,
            )
        )
    return lines


def _offered(
    lang: str, v: View, table: Table, composing: Composing
) -> tuple[list[move_list.Offer], list[str]]:
    """The sums offered as keys, and the lines that say what they are (or how to get some)."""
    if table.hints:
        found = hand_sums.hinted_sums(v, table.t_choices)
        if not found:
            return [], [_no_sum(lang, table)]
        head = _(lang, "💡 Sums you can make: tap one to play it.")
        return found[: hand_sums.MAX_OFFERED], [head, *_listed(lang, found)]
    if composing.typed is None:
        return [], [_(lang, "🧮 Found a sum? Reply to this message with its values, e.g. 5 3 1.")]
    typed = list(composing.typed)
    result = hand_sums.typed_sums(lang, v, table.t_choices, typed)
    if isinstance(result, str):
        return [], ["🧮 " + result, _(lang, "Reply again with other values, or compose with the keys.")]
    expr = " + ".join(str(value) for value in typed)
    head = _(lang, "🧮 {expr} = {total}: tap your sum to play it.", expr=expr, total=sum(typed))
    return result[: hand_sums.MAX_OFFERED], [head, *_listed(lang, result)]


def _listed(lang: str, found: Sequence[move_list.Offer]) -> list[str]:
    """The sums offered, as the move report will say them, and how many more there are."""
    lines = ["▫️ " + move_list.title(lang, offer) for offer in found[: hand_sums.MAX_OFFERED]]
    if (more := len(found) - hand_sums.MAX_OFFERED) > 0:
        lines.append(_n(lang, "…and {n} more sum", "…and {n} more sums", more))
    return lines


def _no_sum(lang: str, table: Table) -> str:
    """Hints on, no sum: what is left to do (a [T!] card may change the table first)."""
    if any(t_kind(code) not in (None, TKind.JOKER) for code in table.t_choices):
        return _(lang, "💡 No sum for now: a [T!] card may open one, or discard a card.")
    return _(lang, "💡 No sum with your cards: discard one.")


# --- the keys ---------------------------------------------------------------------------------


def _claimable(v: View, table: Table, draft: Draft) -> bool:
    """The draft is a legal move: a [T!] play the seat may make (a Joker with a sum that reaches
    the target it makes), or a sum that reaches the target."""
    if draft.t_code is not None:
        if draft.t_code not in table.t_choices or v.t_played is not None:
            return False
        if t_kind(draft.t_code) is not TKind.JOKER:
            return True
    made = _sum_of(v, draft)
    return made is not None and bool(draft.chosen(len(v.table))) and made[1] == v.target + draft.joker


def _compose_keys(
    lang: str, v: View, table: Table, composing: Composing, offered: Sequence[move_list.Offer]
) -> Keyboard:
    assert v.seat is not None and v.hand is not None
    gid, ver, seat = table.game_id, table.version, v.seat
    draft = composing.draft
    rows: Keyboard = []
    hand_keys = [
        button(("👉" if draft.hand == i else "") + card(c), cb.CardsPickHand(gid, ver, seat, i))
        for i, c in enumerate(v.hand)
    ]
    if hand_keys:
        rows.append(hand_keys)
    chosen = draft.chosen(len(v.table))
    table_keys = [
        button(("✅" if p in chosen else "") + card(c), cb.CardsPickTable(gid, ver, seat, p))
        for p, c in enumerate(v.table)
    ]
    rows.extend(rows_of(table_keys, TABLE_ROW))
    if v.t_played is None:
        rows.extend(_t_keys(lang, table, seat, draft))
    rows.extend([button(_sum_label(offer), cb.CardsPlay(gid, ver, seat, offer.moves))] for offer in offered)
    actions = []
    if _claimable(v, table, draft):
        actions.append(button(_(lang, "✅ Claim"), cb.CardsClaim(gid, ver, seat)))
    if draft.hand is not None and draft.hand < len(v.hand):
        discard = _(lang, "🗑 Discard {card}", card=card(v.hand[draft.hand]))
        actions.append(button(discard, cb.CardsDiscard(gid, ver, seat)))
    if not composing.empty:
        actions.append(button(_(lang, "↩️ Clear"), cb.CardsClear(gid, ver, seat)))
    rows.extend(_packed(actions))
    return rows


def _packed(keys: Sequence[Key]) -> Keyboard:
    """Keys in rows, in order, as many to a row as fit a phone's width."""
    rows: Keyboard = []
    used = 0
    for key in keys:
        columns = width(key["text"])
        if rows and used + columns <= ROW_COLUMNS:
            rows[-1].append(key)
            used += columns
        else:
            rows.append([key])
            used = columns
    return rows


def _t_keys(lang: str, table: Table, seat: int, draft: Draft) -> Keyboard:
    """A key per legal [T!] play (each victim of the Thief, the Joker's +1 and -1…), the chosen one
    marked: a Thief's key alone in its row, with its victim's name cut to fit."""
    gid, ver = table.game_id, table.version
    thieves: Keyboard = []
    others: list[Key] = []
    for code in table.t_choices:
        mark = "👉" if draft.t_code == code else ""
        data = cb.CardsChooseT(gid, ver, seat, code)
        match decode(code):
            case PlayThief(victim):
                head = f"{mark}{t_label(lang, TKind.THIEF)} → "
                who = fit(table.players[victim].name, KEY_COLUMNS - width(head))
                thieves.append([button(head + who, data)])
            case _:
                others.append(button(mark + t_play_label(lang, code, table.players), data))
    return thieves + rows_of(others, 2)


def _sum_label(offer: move_list.Offer) -> str:
    """A sum offered, on a key: its cards, else its table cards by value, else their number."""
    assert offer.hand_card is not None
    joker = f"{T_EMOJI[TKind.JOKER]}{offer.joker:+d} " if offer.joker else ""
    hand = card(offer.hand_card)
    total = sum(VALUE[c] for c in (offer.hand_card, *offer.table_cards))
    forms = [
        joker + " + ".join([hand, *(card(c) for c in offer.table_cards)]) + f" = {total}",
        joker + "+".join([hand, *(card(c) for c in offer.table_cards)]) + f"={total}",
        joker + "+".join([hand, *(str(VALUE[c]) for c in offer.table_cards)]) + f"={total}",
        f"{joker}{hand}+{HIDDEN_CARD}×{len(offer.table_cards)}={total}",
    ]
    return first_fitting(forms, lambda text: width(text) <= KEY_COLUMNS)


# --- small parts ------------------------------------------------------------------------------


def _held_short(kinds: Sequence[str]) -> str:
    """'🥷×2 🃏': [T!] cards held, by emoji (a toast short of room)."""
    counts = Counter(TKind(k) for k in kinds)
    return " ".join(T_EMOJI[k] + (f"×{n}" if n > 1 else "") for k, n in counts.items())


def _cut(text: str, units: int) -> str:
    """`text` in at most `units` UTF-16 units, then '…'."""
    out = ""
    for char in text:
        if utf16_length(out + char) > units:
            break
        out += char
    return out + "…"
