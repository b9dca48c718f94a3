"""Hard: determinized look-ahead over the seat's unseen cards.

For each sampled game consistent with its view (`sampling.sample_world`) it
plays each candidate move, then lets every other seat reply once with a fast
model of a sensible player, and scores the result as its own points gained
minus the others' mean, plus, for play still to come: what it can take when
its turn comes back, the points in its hand (a card kept is usually scored
later) and the [T!] cards it still holds (a card kept can wait for its best
moment), each against the others' mean. The same samples serve every candidate
(common random numbers), so the comparison between moves is far less noisy
than the samples themselves. The candidate with the best total wins; ties go
to the earlier candidate, so a decision replays exactly from its seed.

Candidates are every discard (one per kind of card), the richest few sums,
and, before the main action, every [T!] play (a Thief only on the next seat or
the leader). A [T!] play is followed in the samples by the best sum it opens,
which the seat will see before it chooses (E2).
"""

from __future__ import annotations

from ..actions import Action, Discard, MainAction, PlayJoker, PlayThief, Sum, TAction
from ..cards import POINTS, VALUE
from ..events import Event
from ..game import apply_checked
from ..state import GameState
from ..views import View, unseen_cards
from .normal import normal_action
from .sampling import sample_world, world_config
from .tactics import best_sum, cheapest_discard, next_seat_with_cards, sum_value, sums_by_value

#: Sampled games per decision, by player count: more seats make each sample dearer.
SAMPLES: dict[int, int] = {2: 16, 3: 12, 4: 10, 5: 8, 6: 7}
#: Turns played out per decision at most (candidates x seats x samples), for the 50 ms budget;
#: it only bites with many candidates at a big table, and never below MIN_SAMPLES samples.
PLY_BUDGET = 480
MIN_SAMPLES = 4
#: Sums kept as candidates, richest first.
MAX_SUMS = 5
#: Share of the seat's next take counted at the horizon.
NEXT_TAKE = 0.6
#: Worth of an unplayed [T!] card beyond its points, until the deck is down to HOLD_CUTOFF cards.
#: Measured: 0 plays [T!] cards too early (55 % against Normal), 4 does best (67 %).
HOLD = 4.0
HOLD_CUTOFF = 2
#: Share of a hand card's points counted at the horizon: a card kept is usually scored later.
HAND_WORTH = 0.8


def hard_action(v: View, t_options: tuple[TAction, ...], seed: int) -> Action:
    candidates = _candidates(v, t_options)
    if len(candidates) == 1:
        return candidates[0]
    config = world_config(v)
    unseen = unseen_cards(v)
    samples = max(MIN_SAMPLES, min(SAMPLES[v.players], PLY_BUDGET // (len(candidates) * v.players)))
    worlds = [w for d in range(samples) if (w := sample_world(v, config, unseen, seed + d)) is not None]
    if not worlds:
        return normal_action(v, t_options, seed)
    seat = v.seat if v.seat is not None else v.current
    totals = [0.0] * len(candidates)
    for world in worlds:
        for i, candidate in enumerate(candidates):
            totals[i] += _rollout(world.clone(), seat, candidate)
    best = max(range(len(candidates)), key=lambda i: (totals[i], -i))
    return candidates[best]


def _candidates(v: View, t_options: tuple[TAction, ...]) -> list[Action]:
    hand = v.hand or ()
    tdeck_left = v.tdeck_size > 0
    sums = sorted(
        sums_by_value(hand, v.table, v.target),
        key=lambda s: (-sum_value(s[1], s[2], tdeck_left), -s[3]),
    )
    found: list[Action] = [s[0] for s in sums[:MAX_SUMS]]
    kinds: set[tuple[int, int]] = set()
    for i, card in enumerate(hand):
        kind = (VALUE[card], POINTS[card])
        if kind not in kinds:
            kinds.add(kind)
            found.append(Discard(i))
    if v.t_played is None:
        victims = {next_seat_with_cards(v), _leader(v)}
        found.extend(t for t in t_options if not isinstance(t, PlayThief) or t.victim in victims)
    return found


def _leader(v: View) -> int | None:
    """The opponent with most points (the earliest in turn order on ties), among those with cards."""
    best: tuple[int, int] | None = None
    leader: int | None = None
    for step in range(1, v.players):
        seat = (v.current + step) % v.players
        if v.hand_sizes[seat]:
            key = (v.totals[seat] + v.scores_round[seat], -step)
            if best is None or key > best:
                best, leader = key, seat
    return leader


def reply(state: GameState, seat: int) -> MainAction:
    """The model of a sensible player inside a sampled game: the richest sum, else the cheapest card.

    Cheap on purpose (it runs thousands of times per decision), and giving away
    the cheapest card is what most players do.
    """
    hand, table = state.hands[seat], state.table
    best = best_sum(hand, table, state.target, bool(state.tdeck))
    if best is not None:
        return best[1]
    return cheapest_discard(hand)


def _turn(state: GameState, seat: int, events: list[Event]) -> None:
    """One whole turn of the model player: a Joker when it opens a richer sum, then the main action."""
    if state.t_played is None and "joker" in state.holdings[seat]:
        hand, table, tdeck_left = state.hands[seat], state.table, bool(state.tdeck)
        now = best_sum(hand, table, state.target, tdeck_left)
        base = now[0] if now is not None else 0.0
        for delta in (1, -1):
            opened = best_sum(hand, table, state.target + delta, tdeck_left)
            if opened is not None and opened[0] > base + HOLD:
                apply_checked(state, seat, PlayJoker(delta), events)
                break
    apply_checked(state, seat, reply(state, seat), events)


def _rollout(state: GameState, seat: int, first: Action) -> float:
    """Play `first` (and the sum it opens), then one reply per other seat; score it for `seat`."""
    events: list[Event] = []
    round_no = state.round
    before = state.scores_round()
    apply_checked(state, seat, first, events)
    if not isinstance(first, (Sum, Discard)):
        apply_checked(state, seat, reply(state, seat), events)
    while not state.is_over and state.round == round_no and state.current != seat:
        _turn(state, state.current, events)
    over = state.is_over or state.round != round_no
    after = state.round_points[-1] if over else state.scores_round()
    n = state.players
    gains = [after[s] - before[s] for s in range(n)]
    others = sum(gains[s] for s in range(n) if s != seat) / (n - 1)
    value = gains[seat] - others
    if over:
        return value
    hold = HOLD if len(state.deck) > HOLD_CUTOFF else 0.0
    held = [len(h) for h in state.holdings]
    value += hold * (held[seat] - sum(held[s] for s in range(n) if s != seat) / (n - 1))
    hands = [sum(POINTS[c] for c in h) for h in state.hands]
    value += HAND_WORTH * (hands[seat] - sum(hands[s] for s in range(n) if s != seat) / (n - 1))
    take = best_sum(state.hands[seat], state.table, state.target, bool(state.tdeck))
    if take is not None:
        value += NEXT_TAKE * take[0]
    return value
