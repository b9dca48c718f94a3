"""Easy: a beginner.

It spots a sum of its card and one table card nearly always, a sum of three
cards often, a longer one rarely; of the sums it spots it takes the one worth
most. It plays a Joker when the Joker plainly opens a sum it can see, and now
and then tries another [T!] card when it sees nothing to sum. With nothing to
sum it gives away its cheapest card, or any card when careless. All its chance
comes from the decision seed, so a seat replays exactly.
"""

from __future__ import annotations

from .. import rng
from ..actions import Action, Discard, PlayJoker, Sum, TAction
from ..views import View
from .tactics import cheapest_discard, sums_by_value

#: Chance of spotting a sum, by how many table cards it uses (more: the last entry).
NOTICE: tuple[float, ...] = (1.0, 0.85, 0.5, 0.2)
#: Chance of playing a Joker that plainly opens a sum.
JOKER_CHANCE = 0.85
#: Chance of trying some other [T!] card when no sum is in sight.
TRY_T_CHANCE = 0.6
#: Chance of discarding any card rather than the cheapest.
CARELESS = 0.2

_SCALE = 1 << 53


def _chance(r: int) -> tuple[int, float]:
    r, x = rng.next_u64(r)
    return r, (x >> 11) / _SCALE


def _spotted(r: int, v: View, target: int) -> tuple[int, list[tuple[Sum, int]]]:
    """The sums this beginner notices at `target`, each with its points."""
    seen: list[tuple[Sum, int]] = []
    for action, points, _tweak, used in sums_by_value(v.hand or (), v.table, target):
        r, x = _chance(r)
        if x < NOTICE[min(used, len(NOTICE)) - 1]:
            seen.append((action, points))
    return r, seen


def easy_action(v: View, t_options: tuple[TAction, ...], seed: int) -> Action:
    r = rng.seed_state(seed)
    hand = v.hand or ()
    r, seen = _spotted(r, v, v.target)
    if not seen and v.t_played is None and t_options:
        jokers = [t for t in t_options if isinstance(t, PlayJoker)]
        for joker in jokers:
            r, opened = _spotted(r, v, v.target + joker.delta)
            r, x = _chance(r)
            if opened and x < JOKER_CHANCE:
                return joker
        others = [t for t in t_options if not isinstance(t, PlayJoker)]
        r, x = _chance(r)
        if others and x < TRY_T_CHANCE:
            r, i = rng.below(r, len(others))
            return others[i]
    if seen:
        return max(seen, key=lambda s: s[1])[0]
    r, x = _chance(r)
    if x < CARELESS:
        r, i = rng.below(r, len(hand))
        return Discard(i)
    return cheapest_discard(hand)
