"""One-move judgement shared by the levels: what a sum is worth, and what a [T!] card may bring.

Everything here works on cards the caller may know (a hand, the table, the
unseen pool from `views.unseen_cards`); nothing takes a `GameState`, so a level
built from these pieces cannot read a hidden card by accident.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from .. import rng
from ..actions import Discard, PlayBomb, PlayJoker, PlayShifter, PlayThief, Sum, TAction
from ..cards import BALANCED_BACK, POINTS, T_POINTS, VALUE
from ..sums import realise, sum_options
from ..views import View, target_weights

#: A TWEAK also wins a [T!] card: its 2 points, and a later turn made better by playing it.
TWEAK_EXTRA = 2.0
#: A Thief or Bomb victim plays its next turn one card short.
DENY = 0.5
#: Once the deck is out, a stolen card is a whole turn the victim will never play.
DENY_LATE = 1.5
#: Bomb drops sampled per evaluation.
BOMB_SAMPLES = 6


def sum_value(points: int, tweak: bool, tdeck_left: bool) -> float:
    """Points now, plus the [T!] card a TWEAK wins while the [T!] deck lasts."""
    return points + (T_POINTS + TWEAK_EXTRA if tweak and tdeck_left else 0.0)


def sums_by_value(hand: Sequence[str], table: Sequence[str], target: int) -> list[tuple[Sum, int, bool, int]]:
    """Every distinct sum by values, on the richest cards: (sum, points, tweak, table cards used)."""
    found: list[tuple[Sum, int, bool, int]] = []
    for option in sum_options(hand, table, target):
        h, positions = realise(hand, table, option)
        points = POINTS[hand[h]] + sum(POINTS[table[p]] for p in positions)
        found.append((Sum(h, positions), points, option.tweak, len(positions)))
    return found


def best_sum(
    hand: Sequence[str], table: Sequence[str], target: int, tdeck_left: bool
) -> tuple[float, Sum] | None:
    """The sum worth most now (a TWEAK counted with its [T!] card), or None."""
    best: tuple[float, Sum] | None = None
    for action, points, tweak, _ in sums_by_value(hand, table, target):
        value = sum_value(points, tweak, tdeck_left)
        if best is None or value > best[0]:
            best = (value, action)
    return best


def main_value(hand: Sequence[str], table: Sequence[str], target: int, tdeck_left: bool) -> float:
    """What the best main action brings now: a sum's worth, or nothing for a discard."""
    best = best_sum(hand, table, target, tdeck_left)
    return best[0] if best is not None else 0.0


def cheapest_discard(hand: Sequence[str]) -> Discard:
    """The card worth fewest points (the first of equals): what most players give away."""
    return Discard(min(range(len(hand)), key=lambda i: (POINTS[hand[i]], i)))


def next_seat_with_cards(v: View) -> int | None:
    """The opponent who plays next, skipping empty hands (they lose or skip their turn)."""
    for step in range(1, v.players):
        seat = (v.current + step) % v.players
        if v.hand_sizes[seat]:
            return seat
    return None


def deny_value(v: View) -> float:
    return DENY_LATE if v.deck_size == 0 else DENY


def _classes(cards: Sequence[str]) -> list[tuple[str, float]]:
    """One card per (value, points) class with its share: all a sum needs to know of a card."""
    groups: dict[tuple[int, int], list[str]] = {}
    for c in cards:
        groups.setdefault((VALUE[c], POINTS[c]), []).append(c)
    return [(members[0], len(members) / len(cards)) for members in groups.values()]


def t_outcome_value(
    v: View,
    action: TAction,
    unseen: Sequence[str],
    seed: int,
    value_of: Callable[[Sequence[str], int], float] | None = None,
) -> float | None:
    """Expected worth of the best main action after playing `action`, by the seat's own knowledge.

    The Thief's card, the Shifter's card and the Bomb's drops are averaged over
    the cards this seat has not seen, never the real ones. `value_of(table,
    target)` scores the position after the play; by default, the best sum.
    None when the seat's knowledge has no outcome to offer (nothing unseen).
    """
    hand = v.hand or ()
    tdeck_left = v.tdeck_size > 0

    def score(table: Sequence[str], target: int) -> float:
        if value_of is not None:
            return value_of(table, target)
        return main_value(hand, table, target, tdeck_left)

    if isinstance(action, PlayJoker):
        return score(v.table, v.target + action.delta)
    if not unseen:
        return None
    if isinstance(action, PlayThief):
        return sum(p * score([*v.table, c], v.target) for c, p in _classes(unseen)) + deny_value(v)
    if isinstance(action, PlayShifter):
        tops = unseen if v.random_backs else [c for c in unseen if BALANCED_BACK[c] == v.base_target]
        if not tops:
            return None
        targets = _share(target_weights(v, 1))
        return sum(p * q * score([*v.table, c], t + v.joker) for c, p in _classes(tops) for t, q in targets)
    if isinstance(action, PlayBomb):
        victims = sum(1 for s, n in enumerate(v.hand_sizes) if s != v.seat and n)
        if len(unseen) < victims:
            return None
        r = rng.seed_state(seed)
        total = 0.0
        for _ in range(BOMB_SAMPLES):
            pool = list(unseen)
            drops: list[str] = []
            for _victim in range(victims):
                r, i = rng.below(r, len(pool))
                drops.append(pool.pop(i))
            total += score([*v.table, *drops], v.target)
        return total / BOMB_SAMPLES + deny_value(v) * victims
    return None


def _share(weights: Mapping[int, int]) -> list[tuple[int, float]]:
    total = sum(weights.values())
    return [(t, w / total) for t, w in weights.items()]
