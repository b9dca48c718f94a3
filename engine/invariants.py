"""Consistency checks used by tests, the simulator and the bot's fuzz test."""

from __future__ import annotations

from collections import Counter

from .cards import cards_of_colours, t_deck
from .config import HAND_SIZE
from .state import OVER, GameState


def check_invariants(state: GameState) -> list[str]:
    """Return a list of violations (empty when the state is sound).

    Card conservation: every number card in play is in exactly one zone (deck,
    table, a hand, a score pile), and every [T!] card in exactly one of the
    [T!] deck, a holding or a used pile. Also: hands never exceed 3 cards, the
    current seat has cards while the game runs, and totals equal the recorded
    round points.
    """
    problems: list[str] = []
    n = state.players
    if state.status == OVER:
        if any(state.hands) or state.deck or state.table:
            problems.append("cards left in play after the game ended")
    else:
        zones = [*state.deck, *state.table]
        for seat in range(n):
            zones.extend(state.hands[seat])
            zones.extend(state.piles[seat])
        expected = Counter(cards_of_colours(state.config.colours))
        if Counter(zones) != expected:
            problems.append("number cards not conserved")
        tcards = [*state.tdeck]
        for seat in range(n):
            tcards.extend(state.holdings[seat])
            tcards.extend(state.used_t[seat])
        if Counter(tcards) != Counter(t_deck(state.config.edition)):
            problems.append("[T!] cards not conserved")
        if any(len(h) > HAND_SIZE for h in state.hands):
            problems.append("a hand holds more than 3 cards")
        if not state.hands[state.current]:
            problems.append("the seat to move has no cards")
        if state.t_played is None and state.joker != 0:
            problems.append("Joker delta without a Joker played")
    sums = [sum(r[s] for r in state.round_points) for s in range(n)]
    if sums != state.totals:
        problems.append("totals differ from the recorded round points")
    return problems
