"""The ``smart`` computer player.

It scores every main action as *points won now* minus a share of *what the
next player can expect to take from the table I leave*, and it plays a [T!]
card when the expected score after the play beats the best move without it
by more than the worth of keeping the card for later.

The next player's hand is unknown, so their chances are modelled from the
deck's fixed value mix (values 1-3 twice as common as 4-6); results for a
table are cached by the table's (value, points) multiset, which repeats a lot.
Random [T!] outcomes (the stolen card, the Shifter's card and new target, the
Bomb's drops) are averaged over the cards this seat has not seen, never over
the real hidden cards, so the player does not cheat.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from . import rng
from .actions import Action, Discard, PlayJoker, PlayShifter, PlayThief, Sum, TAction
from .cards import BLUE_CARD_TARGET, POINTS, T_POINTS, VALUE, cards_of_colours
from .config import HAND_SIZE, TWEAK_REFILL
from .game import t_actions
from .state import GameState
from .sums import Counts, count_vectors, realise, sum_options

#: Weight of the next player's expected take against my own points.
LAMBDA = 0.6
#: Discarding a card also gives up my own chance to score it later.
MU = 0.25
#: A won [T!] is worth more than its 2 points: it can be played later.
TWEAK_EXTRA = 2.5
#: What keeping an unplayed [T!] for a later turn is worth, early in a round.
HOLD_EARLY = 2.0
#: Deck size below which a held [T!] is worth nothing more than its points.
HOLD_CUTOFF = 6
#: Thief and Bomb also cost each victim a card in their next turn.
VICTIM_BONUS = 0.3
BOMB_SAMPLES = 8
NEVER = float("-inf")

#: Share of each value 1..6 among the number cards of any colour set.
VALUE_SHARE: tuple[float, ...] = tuple(n / 9 for n in (2, 2, 2, 1, 1, 1))

Class = tuple[int, int]  # (value, points): all a sum evaluation needs of a card
CLASS: dict[str, Class] = {c: (VALUE[c], POINTS[c]) for c in VALUE}


def _hand_points(colours: int) -> tuple[float, ...]:
    """Mean points of an unknown card of each value when `colours` colours are in play."""
    return tuple(
        (5 + 4 * (colours - 1)) / colours if v == 5 else (3 + (colours - 1)) / colours for v in range(1, 7)
    )


def _counts(key: Sequence[Class]) -> tuple[Counts, list[list[int]]]:
    by_value: list[list[int]] = [[], [], [], [], [], []]
    for v, p in key:
        by_value[v - 1].append(p)
    prefix: list[list[int]] = []
    for pts in by_value:
        pts.sort(reverse=True)
        acc = [0]
        for p in pts:
            acc.append(acc[-1] + p)
        prefix.append(acc)
    c = [len(x) for x in by_value]
    return (c[0], c[1], c[2], c[3], c[4], c[5]), prefix


def _expected_max(gains: Sequence[float], hand_size: int) -> float:
    """E[max gain] over `hand_size` hand values drawn independently with VALUE_SHARE."""
    total = 0.0
    below = 0.0
    for i in sorted(range(6), key=gains.__getitem__):
        upto = below + VALUE_SHARE[i]
        total += gains[i] * (upto**hand_size - below**hand_size)
        below = upto
    return total


@lru_cache(maxsize=1 << 16)
def _next_gain(key: tuple[Class, ...], target: int, hand_size: int, colours: int, tweak_pays: bool) -> float:
    """What a player holding `hand_size` unknown cards expects to take from this table."""
    available, prefix = _counts(key)
    hand_points = _hand_points(colours)
    gains: list[float] = []
    for hv in range(1, 7):
        best = -1.0
        for counts in count_vectors(available, target - hv):
            pts = float(sum(prefix[i][n] for i, n in enumerate(counts) if n))
            if tweak_pays and counts == available:
                pts += T_POINTS + TWEAK_EXTRA
            best = max(best, pts)
        gains.append(best + hand_points[hv - 1] if best >= 0 else 0.0)
    return _expected_max(gains, hand_size)


@lru_cache(maxsize=4096)
def _random_table_gain(cards: int, target: int, hand_size: int, colours: int, tweak_pays: bool) -> float:
    """The next player's expectation on a table of `cards` fresh deck cards (after a TWEAK)."""
    if cards == 0:
        return 0.0
    classes: list[tuple[Class, float]] = []
    for v in range(1, 7):
        red, other = (5, 4) if v == 5 else (3, 1)
        classes.append(((v, red), VALUE_SHARE[v - 1] / colours))
        classes.append(((v, other), VALUE_SHARE[v - 1] * (colours - 1) / colours))
    layouts: list[tuple[tuple[Class, ...], float]] = [((), 1.0)]
    for _ in range(cards):
        layouts = [((*k, c), p * q) for k, p in layouts for c, q in classes]
    return sum(p * _next_gain(tuple(sorted(k)), target, hand_size, colours, tweak_pays) for k, p in layouts)


@dataclass(slots=True)
class _Context:
    """What the mover knows about the player after them."""

    colours: int
    tweak_pays: bool  # the [T!] deck still has a card for a TWEAK
    hand_size: int  # hand size of the next player who will act; 0 when nobody else will
    weights: tuple[tuple[int, float], ...]  # next player's base target after a plain move
    after_tweak: float  # next player's expectation after my TWEAK

    def next_gain(self, table: Sequence[str]) -> float:
        if self.hand_size == 0:
            return 0.0
        key = tuple(sorted([CLASS[c] for c in table]))
        return sum(
            w * _next_gain(key, t, self.hand_size, self.colours, self.tweak_pays) for t, w in self.weights
        )


def unseen_cards(state: GameState, seat: int) -> list[str]:
    """Cards this seat has not seen: in play, not in its hand, on the table or won.

    Every sum is announced, so won cards are public knowledge; what is left
    is the deck and the other hands, taken as a sorted multiset so that no
    hidden order can leak into a decision.
    """
    seen = set(state.hands[seat]) | set(state.table)
    for pile in state.piles:
        seen.update(pile)
    return sorted(c for c in cards_of_colours(state.config.colours) if c not in seen)


def _back_weights(
    state: GameState, unseen: Sequence[str], left_in_deck: int
) -> tuple[tuple[int, float], ...]:
    """Where a base target may land once `left_in_deck` cards remain: an unseen card's back, or 7."""
    if left_in_deck <= 0:
        return ((BLUE_CARD_TARGET, 1.0),)
    backs = Counter(state.back_of(c) for c in unseen)
    total = sum(backs.values())
    return tuple((b, n / total) for b, n in sorted(backs.items()))


def _next_hand_size(state: GameState, seat: int) -> int:
    """Hand size of the next seat that will actually play on the table I leave."""
    n = state.players
    for step in range(1, n):
        hand = state.hands[(seat + step) % n]
        if hand:
            return len(hand)
        # An empty hand loses its turn (deck left) or is skipped (deck out): look further.
    return 0


def _context(state: GameState, seat: int, unseen: Sequence[str]) -> _Context:
    colours = len(state.config.colours)
    tweak_pays = bool(state.tdeck)
    hand_size = _next_hand_size(state, seat)
    left = len(state.deck) - (HAND_SIZE - (len(state.hands[seat]) - 1))
    weights = _back_weights(state, unseen, left)
    refill = min(TWEAK_REFILL, max(0, left))
    tweak_weights = _back_weights(state, unseen, left - refill)
    after_tweak = 0.0
    if hand_size:
        after_tweak = sum(
            w * _random_table_gain(refill, t, hand_size, colours, len(state.tdeck) > 1)
            for t, w in tweak_weights
        )
    return _Context(colours, tweak_pays, hand_size, weights, after_tweak)


def best_main(
    hand: Sequence[str], table: Sequence[str], target: int, ctx: _Context
) -> tuple[float, Sum | Discard]:
    """The best SUM or DISCARD and its score: my points minus LAMBDA x the next player's take."""
    best: tuple[float, Sum | Discard] | None = None
    for option in sum_options(hand, table, target):
        h, positions = realise(hand, table, option)
        gain = float(POINTS[hand[h]] + sum(POINTS[table[p]] for p in positions))
        if option.tweak:
            if ctx.tweak_pays:
                gain += T_POINTS + TWEAK_EXTRA
            given = ctx.after_tweak
        else:
            used = set(positions)
            given = ctx.next_gain([c for i, c in enumerate(table) if i not in used])
        score = gain - LAMBDA * given
        if best is None or score > best[0]:
            best = (score, Sum(h, positions))
    tried: set[Class] = set()
    for i, card in enumerate(hand):
        if CLASS[card] in tried:
            continue
        tried.add(CLASS[card])
        score = -MU * POINTS[card] - LAMBDA * ctx.next_gain([*table, card])
        if best is None or score > best[0]:
            best = (score, Discard(i))
    assert best is not None  # the mover always holds a card
    return best


def _by_class(cards: Sequence[str]) -> list[tuple[str, float]]:
    """One representative card per (value, points) class with its probability."""
    groups: dict[Class, list[str]] = {}
    for c in cards:
        groups.setdefault(CLASS[c], []).append(c)
    total = len(cards)
    return [(members[0], len(members) / total) for members in groups.values()]


def _thief_victim(state: GameState, seat: int) -> int:
    """Rob the leader (by running total), nearest in turn order on ties."""
    n = state.players
    totals = state.scores_total()
    candidates = [(seat + step) % n for step in range(1, n) if state.hands[(seat + step) % n]]
    return max(candidates, key=lambda s: (totals[s], -((s - seat) % n)))


def _t_value(
    state: GameState, seat: int, action: TAction, unseen: Sequence[str], ctx: _Context, seed: int
) -> float:
    """Expected score of the best main action after playing `action`.

    Minus infinity when the seat's knowledge contradicts the position (a
    hand-built state with no unseen card to steal): never play into that.
    """
    hand, table, target = state.hands[seat], state.table, state.target
    if isinstance(action, PlayJoker):
        return best_main(hand, table, target + action.delta, ctx)[0]
    if isinstance(action, PlayThief):
        outcomes = _by_class(unseen)
        if not outcomes:
            return NEVER
        value = sum(p * best_main(hand, [*table, c], target, ctx)[0] for c, p in outcomes)
        return value + VICTIM_BONUS
    if isinstance(action, PlayShifter):
        tops = _by_class([c for c in unseen if state.back_of(c) == state.base_target])
        if not tops:
            return NEVER
        targets = _back_weights(state, unseen, len(state.deck) - 1)
        return sum(p * q * best_main(hand, [*table, c], t, ctx)[0] for c, p in tops for t, q in targets)
    victims = [s for s in range(state.players) if s != seat and state.hands[s]]
    if len(unseen) < len(victims):
        return NEVER
    r = rng.seed_state(seed)
    total = 0.0
    for _ in range(BOMB_SAMPLES):
        pool = list(unseen)
        drops: list[str] = []
        for _victim in victims:
            r, i = rng.below(r, len(pool))
            drops.append(pool.pop(i))
        total += best_main(hand, [*table, *drops], target, ctx)[0]
    return total / BOMB_SAMPLES + VICTIM_BONUS * len(victims)


def _hold_value(state: GameState) -> float:
    """Keeping a [T!] only pays while enough turns remain to find a better use."""
    return HOLD_EARLY if len(state.deck) > HOLD_CUTOFF else 0.0


def smart_action(state: GameState, seat: int, seed: int) -> Action:
    unseen = unseen_cards(state, seat)
    ctx = _context(state, seat, unseen)
    hand = state.hands[seat]
    score, action = best_main(hand, state.table, state.target, ctx)
    if state.t_played is not None:
        return action
    choice: Action = action
    threshold = score + _hold_value(state)
    thief_victim: int | None = None
    for t_action in t_actions(state, seat):
        if isinstance(t_action, PlayThief):
            if thief_victim is None:
                thief_victim = _thief_victim(state, seat)
            if t_action.victim != thief_victim:
                continue
        value = _t_value(state, seat, t_action, unseen, ctx, seed)
        if value > threshold:
            threshold, choice = value, t_action
    return choice


__all__ = ["best_main", "smart_action", "unseen_cards"]
