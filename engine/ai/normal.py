"""Normal: a solid casual player.

It takes the sum worth most now (a TWEAK first while it still wins a [T!]
card), and with nothing to sum it gives away the card that leaves the next
player least. It plays a [T!] card when the card's expected result, judged over
the cards it has not seen, beats its best move without it: by a margin while
the deck is long (a card kept is a chance later), by anything once the round
is nearly over, when a Thief or a Bomb also costs the next player a card. It
looks one move deep: it never asks what the others will do next.
"""

from __future__ import annotations

from ..actions import Action, Discard, PlayThief, Sum, TAction
from ..game import view_default
from ..views import View, unseen_cards
from .tactics import (
    main_value,
    next_seat_with_cards,
    sum_value,
    sums_by_value,
    t_outcome_value,
)

#: What keeping a [T!] card for a later turn is worth while the deck is long.
HOLD = 1.5
#: Deck size from which a kept [T!] card has few turns left to be useful.
HOLD_CUTOFF = 6


def normal_main(v: View) -> Sum | Discard:
    """The sum worth most now, else the safest discard."""
    hand = v.hand or ()
    best: tuple[tuple[float, int], Sum] | None = None
    for action, points, tweak, used in sums_by_value(hand, v.table, v.target):
        key = (sum_value(points, tweak, v.tdeck_size > 0), used)
        if best is None or key > best[0]:
            best = (key, action)
    if best is not None:
        return best[1]
    return view_default(v)


def normal_action(v: View, t_options: tuple[TAction, ...], seed: int) -> Action:
    main = normal_main(v)
    if v.t_played is not None or not t_options:
        return main
    hand = v.hand or ()
    threshold = main_value(hand, v.table, v.target, v.tdeck_size > 0)
    threshold += HOLD if v.deck_size > HOLD_CUTOFF else 0.0
    unseen = unseen_cards(v)
    victim = next_seat_with_cards(v)
    choice: Action = main
    for option in t_options:
        if isinstance(option, PlayThief) and option.victim != victim:
            continue
        value = t_outcome_value(v, option, unseen, seed)
        if value is not None and value > threshold:
            threshold, choice = value, option
    return choice
