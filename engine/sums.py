"""Finding sums by card *values*, not by subsets.

A table of 30 cards has about a billion subsets but only 2 x 2 x ... value
multiplicities (values 1-6), so the number of distinct value combinations that
reach a target is tiny. Callers pick concrete cards afterwards.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations
from math import comb

from .cards import POINTS, VALUE

VALUES = (1, 2, 3, 4, 5, 6)
Counts = tuple[int, int, int, int, int, int]


@dataclass(frozen=True, slots=True)
class SumOption:
    """One way to reach the target, by values.

    `counts[v-1]` table cards of value v are used together with one hand card of
    value `hand_value`. `ways` is how many concrete card choices realise it.
    """

    hand_value: int
    counts: Counts
    tweak: bool
    ways: int


def value_counts(cards: Sequence[str]) -> Counts:
    counts = [0, 0, 0, 0, 0, 0]
    for c in cards:
        counts[VALUE[c] - 1] += 1
    return (counts[0], counts[1], counts[2], counts[3], counts[4], counts[5])


#: Questions remembered by `count_vectors`. The computer players' search asks again and again
#: about the few tables of the game going on: 4,096 answers serve 99.6 % of its questions, as
#: 65,536 did, in at most about 3 MB, where 65,536 could grow past 7 MB over a long-lived
#: process's games (decisions.md B29).
COUNT_VECTORS_MEMO = 4096


@lru_cache(maxsize=COUNT_VECTORS_MEMO)
def count_vectors(available: Counts, remainder: int) -> tuple[Counts, ...]:
    """All non-empty count vectors c <= available with sum(v * c[v]) == remainder."""
    if remainder <= 0:
        return ()
    found: list[Counts] = []
    chosen = [0, 0, 0, 0, 0, 0]

    def walk(value_index: int, left: int) -> None:
        if left == 0:
            if any(chosen):
                found.append((chosen[0], chosen[1], chosen[2], chosen[3], chosen[4], chosen[5]))
            return
        if value_index < 0:
            return
        v = value_index + 1
        top = min(available[value_index], left // v)
        for n in range(top, -1, -1):
            chosen[value_index] = n
            walk(value_index - 1, left - n * v)
        chosen[value_index] = 0

    walk(5, remainder)
    return tuple(found)


def sum_options(hand: Sequence[str], table: Sequence[str], target: int) -> list[SumOption]:
    """Every distinct (hand value, table value counts) that reaches `target`."""
    if not table:
        return []
    available = value_counts(table)
    options: list[SumOption] = []
    for hv in sorted({VALUE[c] for c in hand}):
        for counts in count_vectors(available, target - hv):
            ways = 1
            for n, have in zip(counts, available, strict=True):
                if n:
                    ways *= comb(have, n)
            options.append(SumOption(hv, counts, counts == available, ways))
    return options


def has_sum(hand: Sequence[str], table: Sequence[str], target: int) -> bool:
    if not table:
        return False
    available = value_counts(table)
    return any(count_vectors(available, target - hv) for hv in {VALUE[c] for c in hand})


def best_cards(cards: Sequence[str], value: int, n: int) -> list[int]:
    """Positions of the n highest-scoring cards of a value (red and fives first)."""
    positions = [i for i, c in enumerate(cards) if VALUE[c] == value]
    positions.sort(key=lambda i: (-POINTS[cards[i]], i))
    return positions[:n]


def realise(hand: Sequence[str], table: Sequence[str], option: SumOption) -> tuple[int, tuple[int, ...]]:
    """Concrete (hand index, table positions) for an option, taking the most points."""
    hand_index = best_cards(hand, option.hand_value, 1)[0]
    positions: list[int] = []
    for v, n in zip(VALUES, option.counts, strict=True):
        if n:
            positions.extend(best_cards(table, v, n))
    return hand_index, tuple(sorted(positions))


def concrete_sums(
    hand: Sequence[str], table: Sequence[str], target: int
) -> Iterator[tuple[int, tuple[int, ...]]]:
    """Every concrete (hand index, table positions) reaching `target`.

    Driven by the value options, so it only ever visits subsets that succeed;
    the count can still be large, so callers that need one answer should use
    `sum_options` instead.
    """
    by_value: dict[int, list[int]] = {}
    for i, c in enumerate(table):
        by_value.setdefault(VALUE[c], []).append(i)
    for option in sum_options(hand, table, target):
        groups = [list(combinations(by_value[v], n)) for v, n in zip(VALUES, option.counts, strict=True) if n]
        hand_indexes = [i for i, c in enumerate(hand) if VALUE[c] == option.hand_value]
        for h in hand_indexes:
            yield from ((h, tuple(sorted(p for g in picks for p in g))) for picks in _product(groups))


def _product(groups: list[list[tuple[int, ...]]]) -> Iterator[tuple[tuple[int, ...], ...]]:
    if not groups:
        yield ()
        return
    first, rest = groups[0], groups[1:]
    for head in first:
        for tail in _product(rest):
            yield (head, *tail)
