"""The invariants of a game state, in one place.

The simulator checks them after every action, and `GameState.from_json` refuses
a saved state that breaks any of them, so a corrupted or hand-edited row fails
loudly at load time instead of as an odd error (or a silent wrong result)
somewhere in the rules later.
"""

from __future__ import annotations

from collections import Counter

from .cards import cards_of_colours, t_deck
from .config import HAND_SIZE
from .state import OVER, GameState


def check_invariants(state: GameState) -> list[str]:
    """Return the violations, each naming its problem (empty when the state is sound).

    Assumes the shapes are right (one entry per seat everywhere, known card
    ids), which `GameState.from_json` checks first.
    """
    problems: list[str] = []
    n = state.players
    sums = [sum(r[s] for r in state.round_points) for s in range(n)]
    if sums != state.totals:
        problems.append("totals differ from the recorded round points")
    if state.round < 1 or state.turn < 1:
        problems.append("round and turn numbers start at 1")
    best = max(state.totals)
    if state.status == OVER:
        problems.extend(_finished(state, best))
    else:
        problems.extend(_cards(state))
        problems.extend(_turn(state))
        if len(state.round_points) != state.round - 1:
            problems.append("round points recorded for a round that has not ended")
        if best >= state.config.threshold:
            problems.append("a total reached the threshold but the game goes on")
        if state.winners:
            problems.append("winners named while the game goes on")
    return problems


def _finished(state: GameState, best: int) -> list[str]:
    """A finished game keeps only its totals (E6) and names every seat on the top total (A17)."""
    problems: list[str] = []
    zones = [state.deck, state.table, state.tdeck, *state.hands, *state.piles, *state.holdings, *state.used_t]
    if any(zones):
        problems.append("cards left in play after the game ended")
    if len(state.round_points) != state.round:
        problems.append("a finished game must record every round it played")
    if best < state.config.threshold:
        problems.append("the game ended before anyone reached the threshold")
    if state.winners != [s for s, t in enumerate(state.totals) if t == best]:
        problems.append("the winners are not the seats with the highest total")
    return problems


def _cards(state: GameState) -> list[str]:
    """Every card in exactly one zone, hands no bigger than three, backs known for the random variant."""
    problems: list[str] = []
    number_cards = [*state.deck, *state.table]
    for seat in range(state.players):
        number_cards.extend(state.hands[seat])
        number_cards.extend(state.piles[seat])
    in_play = cards_of_colours(state.config.colours)
    found = Counter(number_cards)
    if found != Counter(in_play):
        twice = sorted(c for c, k in found.items() if k > 1)
        missing = sorted(set(in_play) - set(found))
        foreign = sorted(set(found) - set(in_play))
        detail = "; ".join(
            f"{label} {', '.join(cards)}"
            for label, cards in (("twice:", twice), ("missing:", missing), ("not in play:", foreign))
            if cards
        )
        problems.append(f"number cards not conserved ({detail})")
    t_cards = [*state.tdeck]
    for seat in range(state.players):
        t_cards.extend(state.holdings[seat])
        t_cards.extend(state.used_t[seat])
    if Counter(t_cards) != Counter(t_deck(state.config.edition)):
        problems.append("[T!] cards not conserved: the deck, holdings and used piles must make one edition")
    if any(len(h) > HAND_SIZE for h in state.hands):
        problems.append("a hand holds more than 3 cards")
    if state.config.back_numbers == "random":
        if state.backs is None or not set(in_play) <= set(state.backs):
            problems.append("random back numbers missing for some cards")
    elif state.backs is not None:
        problems.append("back numbers saved for the balanced variant")
    return problems


def _turn(state: GameState) -> list[str]:
    """The seat to move can act, and the turn's [T!] record matches its used pile."""
    problems: list[str] = []
    seat = state.current
    if not state.hands[seat]:
        problems.append("the seat to move has no cards")
    if seat != (state.dealer + state.turn) % state.players:
        problems.append("the seat to move is not the one the turn count gives")  # A10, A11
    if state.t_played is None:
        if state.joker != 0:
            problems.append("Joker delta without a Joker played")
    else:
        if state.t_played not in state.used_t[seat]:
            problems.append("the [T!] card played this turn is not in the mover's used pile")
        if (state.joker != 0) != (state.t_played == "joker"):
            problems.append("a Joker played this turn needs a delta of +1 or -1, and nothing else one")
    return problems
