"""The live table where the player to move looks, at the size limits, in every language.

The 👀 My hand popup takes 200 characters (UTF-16 units, as Telegram counts); a phone shows two
lines of an inline result's description (Telegram for iOS; `render.glance.DESCRIPTION_COLUMNS`
display columns). A table too long for them is told by value, every card counted: never cut
mid-card, never a card left out. Worked out for every table size a game can reach, every [T!]
card of the turn, the fullest [T!] holding, the longest words of each language, and (on the
private panel, which names the players) the worst-case names. The texts expected are put together
here from the cards and the catalogs' own wording, not by the renderer.
"""

from __future__ import annotations

import re
from collections import Counter

import pytest

from engine import GameConfig, GameState, new_game, seat_view
from engine.cards import ALL_CARDS, COLOUR_OF, VALUE
from tests.test_i18n import HOLDING, NAMES, display_width, worst_table
from tgbot.i18n import LANGUAGES, _, _n
from tgbot.render import board, glance
from tgbot.render import move_list as inline_render
from tgbot.render.limits import MESSAGE_LIMIT, POPUP_LIMIT, visible_length

EMOJI = {"R": "🟥", "O": "🟧", "Y": "🟨", "G": "🟩", "B": "🟦", "P": "🟪"}
T_EMOJI = {"thief": "🥷", "joker": "🃏", "shifter": "🔀", "bomb": "💣"}
T_NAME = {"thief": "Thief", "joker": "Joker", "shifter": "Shifter", "bomb": "Bomb"}
KINDS = [None, "thief", "joker", "shifter", "bomb"]
#: 54 number cards in the extended game, three in each of six hands: at most 36 on the table.
TABLE_SIZES = range(0, 37)


def sizes(kind: str | None) -> range:
    """The tables a turn can show: a Thief's or a Shifter's card is on it."""
    return range(1, 37) if kind in ("thief", "shifter") else TABLE_SIZES


DESCRIPTION_COLUMNS = 80  # two lines of a phone (Telegram for iOS shows two)


def utf16(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def label(card: str) -> str:
    return f"{EMOJI[COLOUR_OF[card]]}{VALUE[card]}"


def t_label(lang: str, kind: str) -> str:
    return f"{T_EMOJI[kind]} {_(lang, T_NAME[kind])}"


def state_of(size: int, kind: str | None, current: int = 0) -> GameState:
    """Six players (extended game); `size` cards on the table, the seat to move having played
    `kind` this turn (a Joker: -1); every seat holds all the [T!] cards of the extended game."""
    state = new_game(GameConfig(players=6, edition="extended"), seed=3)
    cards = list(ALL_CARDS)
    state.hands = [cards[36 + 3 * s : 39 + 3 * s] for s in range(6)]
    state.table = cards[:size]
    state.holdings = [list(HOLDING) for _s in range(6)]
    state.current, state.t_played = current, kind
    state.joker = -1 if kind == "joker" else 0
    return state


def news(lang: str, state: GameState) -> str | None:
    """What the turn's [T!] card did: the Thief's and the Shifter's card is the last one placed."""
    if state.t_played in ("thief", "shifter"):
        text = {
            "thief": "{play}: {card} stolen",
            "shifter": "{play}: {card} from the deck",
        }[state.t_played]
        return _(lang, text, play=t_label(lang, state.t_played), card=label(state.table[-1]))
    if state.t_played == "bomb":
        return _(lang, "{play}: a card from each opponent", play=t_label(lang, "bomb"))
    return None


def in_full(lang: str, table: list[str]) -> str:
    return _(lang, "Table: {cards}", cards=" ".join(label(c) for c in table) or _(lang, "(empty)"))


def by_value(lang: str, table: list[str]) -> str:
    counts = Counter(VALUE[c] for c in table)
    groups = " ".join(f"{v}×{n}" for v, n in sorted(counts.items()))
    return _n(
        lang,
        "Table ({n} card by value): {groups}",
        "Table ({n} cards by value): {groups}",
        len(table),
        groups=groups,
    )


def tells_every_card(lang: str, line: str, table: list[str]) -> bool:
    """The line lists the table card by card, or counts every card by value."""
    return line == in_full(lang, table) or (len(table) > 0 and line == by_value(lang, table))


def fullest_popup(lang: str, state: GameState, seat: int) -> str:
    """The popup with nothing shortened: hand, [T!] cards by name, the table card by card, the
    [T!] line of the turn, the call to move."""
    hand = "  ".join(f"{i + 1}:{label(c)}" for i, c in enumerate(state.hands[seat]))
    counts = Counter(state.holdings[seat])
    held = ", ".join(t_label(lang, k) + (f" ×{n}" if n > 1 else "") for k, n in counts.items())
    lines = [_(lang, "Your hand: {slots}", slots=hand), _(lang, "[T!]: {cards}", cards=held)]
    lines.append(in_full(lang, state.table))
    if (line := news(lang, state)) is not None:
        lines.append(line)
    if seat == state.current:
        lines.append(call_to_move(lang, state))
    return "\n".join(lines)


def call_to_move(lang: str, state: GameState) -> str:
    if state.joker:
        joker = f"{t_label(lang, 'joker')} {state.joker:+d}"
        return _(lang, "Target {target} ({joker}). Your move!", target=state.target, joker=joker)
    return _(lang, "Target {target}. Your move!", target=state.target)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_the_popup_fits_and_tells_every_card(lang: str, kind: str | None) -> None:
    shortened = 0
    for size in sizes(kind):
        for seat in (0, 1):  # the player to move, and a player waiting
            state = state_of(size, kind)
            popup = glance.hand_popup(lang, seat_view(state, seat))
            assert utf16(popup) <= POPUP_LIMIT, (size, seat, popup)
            fullest = fullest_popup(lang, state, seat)
            if utf16(fullest) <= POPUP_LIMIT:
                assert popup == fullest  # nothing shortened while it fits
                continue
            shortened += 1
            lines = popup.splitlines()
            assert lines[0] == fullest.splitlines()[0]  # the hand, slot by slot
            told = [line for line in lines if tells_every_card(lang, line, state.table)]
            # shortened: the table by value (an empty one is short as it is)
            assert told == [by_value(lang, state.table) if state.table else in_full(lang, [])]
            if seat == state.current:
                assert lines[-1] == call_to_move(lang, state)
            else:
                assert call_to_move(lang, state) not in popup
    assert shortened, "the largest tables do not fit card by card"


@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_the_popup_goes_by_value_at_the_first_table_too_long(lang: str) -> None:
    """At the limit: the largest table shown card by card, and the next one by value."""
    fitting = [
        size
        for size in sizes("thief")
        if utf16(fullest_popup(lang, state_of(size, "thief"), 0)) <= POPUP_LIMIT
    ]
    largest = max(fitting)
    assert fitting == list(range(1, largest + 1))
    fits = glance.hand_popup(lang, seat_view(state_of(largest, "thief"), 0))
    assert in_full(lang, state_of(largest, "thief").table) in fits.splitlines()
    after = state_of(largest + 1, "thief")
    assert by_value(lang, after.table) in glance.hand_popup(lang, seat_view(after, 0)).splitlines()


def target_part(lang: str, state: GameState) -> str:
    if state.joker:
        return _(lang, "🎯 Target {target} ({joker})", target=state.target, joker=f"🃏{state.joker:+d}")
    return _(lang, "🎯 Target {target}", target=state.target)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_the_first_line_of_the_list_fits_and_tells_every_card(lang: str, kind: str | None) -> None:
    for size in sizes(kind):
        state = state_of(size, kind)
        view = seat_view(state, 0)
        title = inline_render.how_to_type(lang, view)
        # a phone shows one line of a title and cuts the rest: the target comes first
        assert title.startswith(target_part(lang, state) + " · ")
        for with_target in (False, True):
            text = glance.description(lang, view, with_target)
            assert display_width(text) <= DESCRIPTION_COLUMNS, (size, text)
            head = [target_part(lang, state)] if with_target else []
            line = news(lang, state)
            fullest = " · ".join([*head, in_full(lang, state.table), *([line] if line else [])])
            if display_width(fullest) <= DESCRIPTION_COLUMNS:
                assert text == fullest
                continue
            parts = text.split(" · ")
            assert parts[: len(head)] == head
            assert tells_every_card(lang, parts[len(head)], state.table)
            assert parts[len(head) + 1 :] in ([], [line])


@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_a_small_table_is_listed_card_by_card_everywhere(lang: str) -> None:
    """What a table mostly holds (a few cards) is never shortened, whatever the [T!] card."""
    for kind in KINDS:
        state = state_of(5, kind)
        view = seat_view(state, 0)
        assert in_full(lang, state.table) in glance.hand_popup(lang, view).splitlines()
        assert glance.description(lang, view, True).split(" · ")[1] == in_full(lang, state.table)
        if line := news(lang, state):
            assert line in glance.hand_popup(lang, view).splitlines()
            assert glance.description(lang, view, True).endswith(" · " + line)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_the_panel_names_the_turns_t_card_with_worst_case_names(lang: str, kind: str | None) -> None:
    """The private panel, which names every player, adds the [T!] line under its table and
    still fits a message with six worst-case names and the fullest table."""
    state = state_of(36, kind)
    view = seat_view(state, 0)
    text = board.board_text(lang, view, worst_table(state, 0), board.Draft(0, (1 << 36) - 1))
    assert visible_length(text) <= MESSAGE_LIMIT
    assert all(re.sub(r"\s+", " ", n)[:10] in text or n.startswith("<") for n in NAMES)
    line = news(lang, state)
    table_at = text.splitlines().index(in_full(lang, state.table))
    if line is None:
        assert not any(t_label(lang, k) + ":" in text for k in ("thief", "shifter", "bomb"))
    else:
        assert text.splitlines()[table_at + 1] == line
