"""Fast playouts: the next turns of a sampled game, played by a model of Normal.

Hard judges a move by playing on in many sampled games, so each played turn
must be cheap: the engine's `apply` checks every action, builds events and
clones, which is right for real moves and wasteful here. These turns work on
the lists of a state the search owns (a clone of a sample), take the model's
moves, which are legal by construction, and keep the points won in a side
list instead of the score piles. They stop at the round's end, since the next
deal is a fresh shuffle the search knows nothing about.

The model is Normal's own main action (the sum worth most, TWEAK counted with
its [T!] card, more table cards on ties; otherwise the discard that leaves the
next player least) and Normal's [T!] plays (`model_t`): a Thief on the next
seat, a Joker or a Shifter, when it beats the best move without it. The Bomb
is kept: its worth is counted at the horizon instead. Inside a sample the next
target is known, so the model's discard is judged against it alone.
"""

from __future__ import annotations

from collections.abc import Sequence

from .. import rng
from ..cards import BLUE_CARD_TARGET, POINTS, T_POINTS, VALUE
from ..config import HAND_SIZE, TWEAK_REFILL
from ..game import safest_discard
from ..state import GameState
from ..sums import count_vectors
from .normal import HOLD as NORMAL_HOLD
from .normal import HOLD_CUTOFF as NORMAL_HOLD_CUTOFF
from .tactics import DENY, DENY_LATE, TWEAK_EXTRA

FastSum = tuple[float, int, int, tuple[int, ...]]  # (worth, table cards used, hand index, table positions)
#: A best sum looked for already (the sum, or None: there is none), or None: not looked for yet.
Known = tuple[FastSum | None] | None


def best_sum_fast(hand: Sequence[str], table: Sequence[str], target: int, tdeck_left: bool) -> FastSum | None:
    """Normal's choice of sum, or None: the worth most, then the most table cards.

    The same order as `normal.normal_main`, found without building an action
    per option: per value only the richest cards are ever taken, so a running
    total of their points prices every option at once. This is the search's
    innermost loop (a third of its time).
    """
    if not table or not hand:
        return None
    by_value: list[list[int]] = [[], [], [], [], [], []]
    for i, c in enumerate(table):
        by_value[VALUE[c] - 1].append(i)
    prefix: list[list[int]] = []
    for positions in by_value:
        if len(positions) > 1:
            positions.sort(key=lambda i: -POINTS[table[i]])
        running = [0]
        for p in positions:
            running.append(running[-1] + POINTS[table[p]])
        prefix.append(running)
    p0, p1, p2, p3, p4, p5 = prefix
    available = (len(p0) - 1, len(p1) - 1, len(p2) - 1, len(p3) - 1, len(p4) - 1, len(p5) - 1)
    richest: dict[int, int] = {}
    for i, c in enumerate(hand):
        v = VALUE[c]
        if v not in richest or POINTS[c] > POINTS[hand[richest[v]]]:
            richest[v] = i
    best: FastSum | None = None
    best_worth = 0.0
    best_used = 0
    bonus = T_POINTS + TWEAK_EXTRA if tdeck_left else 0.0
    for v in sorted(richest):
        h = richest[v]
        own = POINTS[hand[h]]
        for counts in count_vectors(available, target - v):
            c0, c1, c2, c3, c4, c5 = counts
            points = own + p0[c0] + p1[c1] + p2[c2] + p3[c3] + p4[c4] + p5[c5]
            used = c0 + c1 + c2 + c3 + c4 + c5
            worth = points + bonus if counts == available else float(points)
            if best is None or worth > best_worth or (worth == best_worth and used > best_used):
                picked = tuple(sorted(p for k, n in enumerate(counts) if n for p in by_value[k][:n]))
                best = (worth, used, h, picked)
                best_worth, best_used = worth, used
    return best


def next_target(state: GameState, draws: int) -> int:
    """The base target once `draws` cards have left the deck's top (the sample's deck is known)."""
    deck = state.deck
    if len(deck) <= draws:
        return BLUE_CARD_TARGET
    return state.back_of(deck[-1 - draws])


def model_turn(state: GameState, seat: int, gains: list[int]) -> None:
    """One whole turn of the model player at `seat`, who holds cards; the turn passes on after it."""
    known: Known = None
    if state.t_played is None and state.holdings[seat]:
        known = model_t(state, seat)
    main_action(state, seat, state.target, gains, known)


def model_t(state: GameState, seat: int) -> Known:
    """Normal's [T!] play, judged inside the sample: a card whose outcome beats the best move without it.

    Normal weighs a Thief's or Shifter's card over everything it has not seen;
    in a sample the candidates are the victim's hand and the deck's top, which
    is the same judgement on one dealing of those cards. For the Shifter that
    dealing is the card it then turns, so in a sample it is played only when
    it pays; judging it on other deck cards measured no different (tenth pass,
    BENCHMARKS.md). The Bomb (one or two in a deck) is kept: its drops would
    cost a draw per seat to judge.
    Returns the best sum without a [T!] card when none is played (the main
    action needs it next), else None.
    """
    hand, table, deck = state.hands[seat], state.table, state.deck
    tdeck_left = bool(state.tdeck)
    held = state.holdings[seat]
    target = state.target
    now = best_sum_fast(hand, table, target, tdeck_left)
    threshold = now[0] if now is not None else 0.0
    threshold += NORMAL_HOLD if len(deck) > NORMAL_HOLD_CUTOFF else 0.0
    deny = DENY_LATE if not deck else DENY
    choice: tuple[str, int] | None = None
    if "thief" in held:
        victim = _next_with_cards(state, seat)
        if victim is not None:
            loot = state.hands[victim]
            total = 0.0
            for c in loot:
                found = best_sum_fast(hand, [*table, c], target, tdeck_left)
                total += found[0] if found is not None else 0.0
            value = total / len(loot) + deny
            if value > threshold:
                threshold, choice = value, ("thief", victim)
    if "joker" in held:
        for delta in (1, -1):
            opened = best_sum_fast(hand, table, target + delta, tdeck_left)
            if opened is not None and opened[0] > threshold:
                threshold, choice = opened[0], ("joker", delta)
    if "shifter" in held and deck:
        shifted = BLUE_CARD_TARGET if len(deck) == 1 else state.back_of(deck[-2])
        found = best_sum_fast(hand, [*table, deck[-1]], shifted, tdeck_left)
        if found is not None and found[0] > threshold:
            choice = ("shifter", 0)
    if choice is None:
        return (now,)
    kind, arg = choice
    _use(state, seat, kind)
    if kind == "joker":
        state.joker = arg
    elif kind == "thief":
        loot = state.hands[arg]
        state.rng, i = rng.below(state.rng, len(loot))
        table.append(loot.pop(i))
    else:
        table.append(deck.pop())
    return None


def _use(state: GameState, seat: int, kind: str) -> None:
    state.holdings[seat].remove(kind)
    state.used_t[seat].append(kind)
    state.t_played = kind


def _next_with_cards(state: GameState, seat: int) -> int | None:
    n = state.players
    for step in range(1, n):
        other = (seat + step) % n
        if state.hands[other]:
            return other
    return None


def main_action(state: GameState, seat: int, target: int, gains: list[int], known: Known = None) -> None:
    """The model's main action at `target`, then the refill and the turn passed on.

    `known` is the best sum already found for this very hand, table and
    target, which saves the search one look per turn.
    """
    hand = state.hands[seat]
    best = best_sum_fast(hand, state.table, target, bool(state.tdeck)) if known is None else known[0]
    if best is not None:
        play_main(state, seat, best[2], best[3], gains)
    else:
        draws = min(len(state.deck), HAND_SIZE - (len(hand) - 1))
        play_main(state, seat, safest_discard(hand, state.table, {next_target(state, draws): 1}), None, gains)


def play_main(
    state: GameState, seat: int, hand_index: int, positions: tuple[int, ...] | None, gains: list[int]
) -> None:
    """A sum of the hand card with the table cards at `positions` (None: a discard), as the rules play it.

    Then the hand is refilled, the table after a TWEAK, and the turn passed on
    (RULES §3.5-§3.6). The round is not closed: the search stops there, and
    dealing the next round would cost more than the whole look-ahead.
    """
    hand = state.hands[seat]
    table = state.table
    card = hand.pop(hand_index)
    tweak = False
    if positions is not None:
        gained = POINTS[card]
        taken = set(positions)
        for p in positions:
            gained += POINTS[table[p]]
        state.table = table = [c for i, c in enumerate(table) if i not in taken]
        if not table:
            tweak = True
            if state.tdeck:
                state.holdings[seat].append(state.tdeck.pop())
                gained += T_POINTS
        gains[seat] += gained
    else:
        table.append(card)
    deck = state.deck
    while len(hand) < HAND_SIZE and deck:
        hand.append(deck.pop())
    if tweak:
        for _ in range(TWEAK_REFILL):
            if deck:
                table.append(deck.pop())
    state.t_played = None
    state.joker = 0
    advance(state)


def advance(state: GameState) -> bool:
    """Pass the turn to the next seat that can play; False once the round is over (RULES §3.8, §5.1)."""
    n = state.players
    hands = state.hands
    deck = state.deck
    while True:
        if not deck and not any(hands):
            return False
        state.current = (state.current + 1) % n
        state.turn += 1
        hand = hands[state.current]
        if hand:
            return True
        while len(hand) < HAND_SIZE and deck:  # a lost turn refills (A27); else a skip (A28)
            hand.append(deck.pop())


def round_over(state: GameState) -> bool:
    return not state.deck and not any(state.hands)


def play_on(state: GameState, seat: int, own_turns: int, gains: list[int]) -> int:
    """Model turns until `seat` is to move for the (own_turns + 1)-th time, or the round ends.

    `seat`'s own turns in between are the model's too. Returns the turns played.
    """
    played = 0
    seen = 0
    while not round_over(state):
        if state.current == seat:
            if seen == own_turns:
                break
            seen += 1
        model_turn(state, state.current, gains)
        played += 1
    return played
