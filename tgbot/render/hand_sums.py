"""The sums a person's own view offers (issue 61): every legal sum when the table plays with sum
hints, or only those made of the values the person typed when it does not.

Worked out from the seat's own view (its hand, the table, the live target) and the [T!] plays the
caller found legal (`board.Table.t_choices`, engine codes), so no other hand can enter a sum. The
search is the engine's, by values (`engine.sums`), with the cards picked afterwards: the inline
list's offers (`services/inline_moves.py`) are built the same way, from this module's
`card_choices`.

Skill is kept without hints: the typed values are checked, never completed. A sum the view offers
is the person's, not the bot's: it plays nothing a key of the draft could not.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations, product

from engine import View, sum_options
from engine.actions import PlayJoker, Sum, decode
from engine.cards import VALUE
from engine.sums import realise

from . import move_list
from .move_list import Offer

#: Sums offered as keys at most: the text says how many more there are.
MAX_OFFERED = 8
#: Choices of cards looked at for one typed sum at most (a table of many equal cards).
MAX_CHOICES = 50


def jokers(t_choices: Sequence[str]) -> tuple[int, ...]:
    """The Joker's changes of the target among the legal [T!] plays (none, or +1 and -1)."""
    return tuple(a.delta for code in t_choices if isinstance(a := decode(code), PlayJoker))


def _offer(v: View, hand_index: int, positions: tuple[int, ...], delta: int) -> Offer:
    hand, table = v.hand or (), v.table
    joker = (PlayJoker(delta),) if delta else ()
    tweak = len(positions) == len(table)
    return Offer(
        (*joker, Sum(hand_index, positions)),
        hand[hand_index],
        tuple(table[p] for p in positions),
        tweak,
        joker=delta,
        wins_t=tweak and v.tdeck_size > 0,
    )


def hinted_sums(v: View, t_choices: Sequence[str]) -> list[Offer]:
    """Every distinct legal sum (by values, the best-scoring cards for each), with the Joker's
    too: TWEAKs first, then by points taken, a sum without the Joker before one with it."""
    hand, table = list(v.hand or ()), list(v.table)
    found: list[Offer] = []
    for delta in (0, *jokers(t_choices)):
        for option in sum_options(hand, table, v.target + delta):
            h, positions = realise(hand, table, option)
            found.append(_offer(v, h, positions, delta))
    found.sort(key=lambda o: (not o.tweak, -o.points, o.joker != 0))
    return found


def typed_sums(lang: str, v: View, t_choices: Sequence[str], values: Sequence[int]) -> list[Offer] | str:
    """The legal sums made of exactly the typed values (one per choice of cards, told apart by
    colour), or why they make none: a line to show."""
    typed = list(values)
    if not typed or any(not 1 <= value <= 6 for value in typed):
        return move_list.not_card_values(lang)
    deltas = [d for d in (0, *jokers(t_choices)) if v.target + d == sum(typed)]
    if len(typed) < 2 or not deltas:
        return move_list.not_a_sum(lang, typed, v.target)
    hand, table = list(v.hand or ()), list(v.table)
    found = [
        _offer(v, hand_index, positions, delta)
        for delta in deltas
        for hand_index, positions in card_choices(hand, table, typed)
    ]
    return found or move_list.cards_missing(lang, typed)


def card_choices(hand: list[str], table: list[str], values: list[int]) -> list[tuple[int, tuple[int, ...]]]:
    """Each way to take these values, one from the hand and the rest from the table, told apart
    by the cards' colours (two copies of one card are the same choice)."""
    choices: list[tuple[int, tuple[int, ...]]] = []
    seen: set[tuple[str, tuple[str, ...]]] = set()
    for hand_index, card in enumerate(hand):
        rest = list(values)
        if VALUE[card] not in rest:
            continue
        rest.remove(VALUE[card])
        for positions in _table_choices(table, sorted(rest)):
            key = (_face(card), tuple(sorted(_face(table[p]) for p in positions)))
            if key not in seen:
                seen.add(key)
                choices.append((hand_index, positions))
    return choices[:MAX_CHOICES]


def _table_choices(table: list[str], values: list[int]) -> list[tuple[int, ...]]:
    """Table positions holding exactly these values (each value as many times as typed)."""
    by_value: dict[int, list[int]] = {}
    for p, c in enumerate(table):
        by_value.setdefault(VALUE[c], []).append(p)
    picks: list[list[tuple[int, ...]]] = []
    for value in sorted(set(values)):
        need = values.count(value)
        by_faces: dict[tuple[str, ...], tuple[int, ...]] = {}  # one choice per set of colours
        for combo in combinations(by_value.get(value, []), need):
            by_faces.setdefault(tuple(sorted(_face(table[p]) for p in combo)), combo)
        picks.append(list(by_faces.values()))
    return [tuple(sorted(p for group in combo for p in group)) for combo in product(*picks)]


def _face(card: str) -> str:
    """A card as the player sees it: colour and value (two copies look alike)."""
    return card[:2]
