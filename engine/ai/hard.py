"""Hard: determinized search over the seat's unseen cards, with fast playouts.

Each sample (`sampling.sample_world`) is a whole game consistent with the
seat's view; the real hidden cards are never read. In a sample a candidate
move is played, then the round goes on with every seat played by a model of
Normal (`playout`), the way the other seats really play, until the seat has
had its next turn and the others have answered it. The result is judged by
where it leaves the seat against the others: points gained, the points in
hands (a card kept is usually scored later), the [T!] cards still held (a
card kept can wait for its moment) and the next take, each against the
others weighted by their standing, so that at a big table points given to the
leader cost more than points given to the last (`_weights`).

Near the end of a round that may end the game, the samples play on to the
round's end instead, and a sample whose round ends the game counts WIN for
finishing on top (`_own_turns`, `_score`): then a point only matters as far as
it changes who is first, which a count of points does not see. Earlier in such
a round, where the samples still stop at the seat's next turn, they count WIN
times the chance that the seat's lead over the best of the others (or its gap)
lasts to the round's end, a logistic of the lead over a spread that shrinks
with the points still to play (`_lead_scale`): so a move that keeps the seat
ahead of the leader is worth more than the same points against the others'
mean.

The work is a fixed number of played turns, not a clock (the engine has
none), so a decision replays exactly from its seed and stays within its time
at every table size. It is spent by successive halving: every candidate is
tried on a few samples, the worse half dropped, and the rest of the work
goes to the survivors, so a close choice gets the most samples. Survivors
always share the same samples (common random numbers), which makes the
comparison between two moves far less noisy than either estimate; ties go to
the earlier candidate.

Candidates are every discard (one per kind of card), the richest few sums,
and, before the main action, every [T!] play (a Thief only on the next seat or
the leader). A [T!] play is followed in the samples by the model's best sum
after it, which the seat will see before it chooses (E2).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..actions import Action, Discard, MainAction, PlayThief, Sum, TAction
from ..cards import POINTS, T_POINTS, VALUE
from ..config import HAND_SIZE
from ..game import apply_checked
from ..state import GameState
from ..views import View, unseen_cards
from .normal import normal_action
from .playout import best_sum_fast, main_action, play_main, play_on, round_over
from .sampling import sample_world, world_config
from .tactics import best_sum, cheapest_discard, next_seat_with_cards, sum_value, sums_by_value

#: Work per decision (turns played, plus SAMPLE_WORK per sample), by player count: what keeps p99
#: under 50 ms on one core of the 2-core machine with a margin for its slower days. Short tables
#: pay more per turn (more samples, each cloned and scored, for the same turns), so they get less.
#: A quarter to a third less than the 2,000 / 2,400 before measured no weaker on fresh deals at
#: any count (seventh pass, BENCHMARKS.md): the search's choices settle well within that work.
#: 2,400 at 4 players measured +0.2 points (-3.9 to +4.3) against 1,600 (tenth pass).
BUDGET: dict[int, int] = {2: 1400, 3: 1500, 4: 1600, 5: 1800, 6: 1800}
#: Work charged per sample beyond its turns: cloning it costs about as much as two turns.
SAMPLE_WORK = 2
#: Own turns that stand for "to the round's end".
ROUND_END = 10_000
#: Samples every candidate gets in the first halving round, whatever the budget.
MIN_SAMPLES = 2
#: The seat's own turns played in each sample beyond the move judged (then the others answer).
#: At 4 players 0 measured -4.4 points and 2 -1.0 (ninth pass, BENCHMARKS.md).
OWN_TURNS = 1
#: Sums kept as candidates, richest first.
MAX_SUMS = 5
#: Share of the seat's next take counted at the horizon.
NEXT_TAKE = 0.6
#: Worth of an unplayed [T!] card beyond its points, until the deck is down to HOLD_CUTOFF cards.
#: At 4 players 2.0 measured -1.8 points and 6.0 -2.9 (ninth pass); at 3 players 2.0 -0.3
#: (eleventh pass, BENCHMARKS.md).
HOLD = 4.0
HOLD_CUTOFF = 2
#: Share of a hand card's points counted at the horizon: a card kept is usually scored later.
HAND_WORTH = 0.8
#: How sharply the others are weighted by standing (points), by player count: small weighs the
#: leader alone. At 6 players 8 against 15: +4.2 points (+1.3 to +7.0) paired on 15 tuning deals,
#: +2.4 on the table's 30 new ones; 5 did no better than 8. At 5 players 8 against equal
#: weights: +3.1 points (+0.0 to +6.2) paired on 60 fresh deals (ninth pass). BENCHMARKS.md.
STANDING_SCALE: dict[int, float] = {5: 8.0, 6: 8.0}
#: Up to this many players the others count equally: with two or three opponents, watching the
#: leader lets the others through. 3 players against Normal: 72.2 % equal, 62.2 % by standing on
#: 15 deals; 65.7 % and 67.9 % on 35 more. 4 players: equal against a scale of 15, paired over 300
#: fresh deals, +1.5 points (ninth pass, BENCHMARKS.md); a scale of 8 had measured -2.5 there.
EQUAL_UP_TO = 4
#: What finishing the game on top is worth, in points, when a sample's round ends the game.
#: 60 read the same at 3 players (second pass); 45 at 4 players -1.1 (tenth pass, BENCHMARKS.md).
WIN = 30.0
#: Deck size from which the look-ahead goes to the round's end, if the round may end the game: the
#: last laps decide who is on top, and they are short to play out (counted with the hands, so
#: that a hand emptied by a [T!] card shortens them: 18 cards to play at 3 players, 27 at 6).
#: At 4 players 5 and 14 both read within a point of 9 (tenth pass); 5 read +1.0 at 3 players
#: and -0.4 at 4 on fresh deals (eleventh pass, BENCHMARKS.md): noise, not a slope.
END_DECK = 9
#: In a round that may end the game, before the look-ahead reaches the round's end: the spread
#: (logistic scale, in points) of a lead at the horizon, per square root of the points still in
#: play per seat. 1.5 and 3.0 measured alike at 3 players; 1.5 kept after a check at 6
#: (BENCHMARKS.md, fifth pass); 0: none.
LEAD_SPREAD = 1.5


def hard_action(v: View, t_options: tuple[TAction, ...], seed: int) -> Action:
    candidates = _candidates(v, t_options)
    if len(candidates) == 1:
        return candidates[0]
    seat = v.seat if v.seat is not None else v.current
    config = world_config(v)
    unseen = unseen_cards(v)
    in_play = _in_play(v, unseen)
    own_turns, lead_scale = _own_turns(v, in_play), _lead_scale(v, in_play)
    judge = Judge(_weights(v, seat), _standing(v), v.threshold, own_turns, lead_scale)
    worlds: list[GameState] = []

    def world(d: int) -> GameState | None:
        while len(worlds) <= d:
            w = sample_world(v, config, unseen, seed + len(worlds))
            if w is None:
                return None
            worlds.append(w)
        return worlds[d]

    if world(0) is None:
        return normal_action(v, t_options, seed)

    def pull(arm: int, d: int) -> tuple[float, int]:
        sample = world(d)
        if sample is None:  # cannot happen once the first sample was found: same view, other seed
            return 0.0, 1
        return _rollout(sample.clone(), seat, candidates[arm], judge)

    return candidates[successive_halving(len(candidates), pull, BUDGET[v.players], MIN_SAMPLES)]


def successive_halving(
    arms: int, pull: Callable[[int, int], tuple[float, int]], budget: int, min_samples: int
) -> int:
    """The arm with the best mean after halving rounds over a work budget; ties go to the lower arm.

    `pull(arm, d)` plays arm on sample d and returns (value, work). Every round
    spends an equal share of the budget on the arms still in, each arm on the
    same samples; then the better half stays. Deterministic: the work counts,
    never a clock.
    """
    alive = list(range(arms))
    totals = [0.0] * arms
    counts = [0] * arms
    rounds = max(1, math.ceil(math.log2(arms)))
    spent = 0
    d = 0
    for r in range(rounds):
        share = (budget - spent) // (rounds - r)
        used = 0
        first = True
        while first or used < share:
            for arm in alive:
                value, work = pull(arm, d)
                totals[arm] += value
                counts[arm] += 1
                used += work
            d += 1
            if r == 0 and d < min_samples:
                continue
            first = False
        spent += used
        if len(alive) > 1:
            alive.sort(key=lambda a: (-totals[a] / counts[a], a))
            alive = sorted(alive[: max(1, (len(alive) + 1) // 2)])
    return min(alive, key=lambda a: (-totals[a] / counts[a], a))


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


def _weights(v: View, seat: int) -> list[float]:
    """How much each other seat's gain counts against the seat's own: by standing, summing to 1.

    Up to four players the others count alike (EQUAL_UP_TO: there, watching the
    leader lets the rest through). At a bigger table the game is won by
    beating the best of the others, not their mean, so a seat weighs as
    exp(standing / STANDING_SCALE[players]): far ahead, it counts nearly alone; level,
    all count alike.
    """
    if v.players <= EQUAL_UP_TO:
        return [0.0 if s == seat else 1 / (v.players - 1) for s in range(v.players)]
    standing = [t + r for t, r in zip(v.totals, v.scores_round, strict=True)]
    top = max(standing[s] for s in range(v.players) if s != seat)
    scale = STANDING_SCALE[v.players]
    raw = [0.0 if s == seat else math.exp((standing[s] - top) / scale) for s in range(v.players)]
    total = sum(raw)
    return [w / total for w in raw]


@dataclass(frozen=True)
class Judge:
    """How a decision's samples are played out and scored: the same for every candidate."""

    weights: list[float]
    standing: list[int]  # each seat's points so far, this round's included
    threshold: int
    own_turns: int  # the seat's turns played beyond the judged move (many: to the round's end)
    lead_scale: float = 0.0  # > 0 in a round that may end the game: see `_score`


def _standing(v: View) -> list[int]:
    return [t + r for t, r in zip(v.totals, v.scores_round, strict=True)]


def _own_turns(v: View, in_play: int) -> int:
    """To the round's end when few cards are left and the round may end the game, else OWN_TURNS.

    Then who ends on top is what counts, and only a look-ahead to the round's end sees it; the
    last laps are short, so the samples stay many.
    """
    if v.deck_size + sum(v.hand_sizes) > END_DECK + HAND_SIZE * v.players:
        return OWN_TURNS
    return ROUND_END if _may_end(v, in_play) else OWN_TURNS


def _in_play(v: View, unseen: Sequence[str]) -> int:
    """The points still to be won this round: unseen, on the table, in the seat's hand, [T!] deck."""
    return (
        sum(POINTS[c] for c in unseen)
        + sum(POINTS[c] for c in v.table)
        + sum(POINTS[c] for c in v.hand or ())
        + T_POINTS * v.tdeck_size
    )


def _may_end(v: View, in_play: int) -> bool:
    """The leader plus half the points still in play reaches the threshold."""
    return max(_standing(v)) + in_play / 2 >= v.threshold


def _lead_scale(v: View, in_play: int) -> float:
    """The spread of a lead at the horizon in a round that may end the game (0: not such a round)."""
    if LEAD_SPREAD <= 0 or not _may_end(v, in_play):
        return 0.0
    return LEAD_SPREAD * math.sqrt(1 + in_play / v.players)


def _rollout(state: GameState, seat: int, first: Action, judge: Judge) -> tuple[float, int]:
    """Play `first` (and the model's main action after a [T!] play), then the round on.

    Returns the score for `seat` and the work: the turns played, plus the cost
    of preparing the sample, so that short look-aheads near a round's end do
    not buy thousands of samples.
    """
    gains = [0] * state.players
    if isinstance(first, Sum):
        play_main(state, seat, first.hand, first.table, gains)
    elif isinstance(first, Discard):
        play_main(state, seat, first.hand, None, gains)
    else:
        apply_checked(state, seat, first, [])  # a [T!] play: it never ends the turn or the round
        main_action(state, seat, state.target, gains)
    played = 1 + play_on(state, seat, judge.own_turns, gains)
    return _score(state, seat, gains, judge, over=round_over(state)), played + SAMPLE_WORK


def _score(state: GameState, seat: int, gains: list[int], judge: Judge, over: bool) -> float:
    """The seat's gain against the others' (weighted by standing), plus what the horizon still holds.

    A round that ends the game adds WIN shared among those on top: then a point
    matters only as far as it changes who is first.
    """
    weights = judge.weights

    def edge(per_seat: list[int] | list[float]) -> float:
        return per_seat[seat] - sum(w * x for w, x in zip(weights, per_seat, strict=True))

    value = edge(gains)
    if over:
        final = [s + g for s, g in zip(judge.standing, gains, strict=True)]
        best = max(final)
        if best >= judge.threshold and final[seat] == best:
            value += WIN / final.count(best)
        return value
    if len(state.deck) > HOLD_CUTOFF:
        value += HOLD * edge([len(h) for h in state.holdings])
    hands = [sum(POINTS[c] for c in h) for h in state.hands]
    value += HAND_WORTH * edge(hands)
    if judge.lead_scale:
        # How likely the seat's lead (or gap) to the best of the others is to last to the round's
        # end, and so win the game: the WIN a sample played to the end would count, in expectation.
        held = [s + g + HAND_WORTH * h for s, g, h in zip(judge.standing, gains, hands, strict=True)]
        lead = held[seat] - max(x for s, x in enumerate(held) if s != seat)
        value += WIN / (1 + math.exp(-lead / judge.lead_scale))
    if state.current == seat:
        take = best_sum_fast(state.hands[seat], state.table, state.target, bool(state.tdeck))
        if take is not None:
            value += NEXT_TAKE * take[0]
    return value
