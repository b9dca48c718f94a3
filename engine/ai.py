"""Computer players: ``random``, ``greedy`` and ``smart``.

`choose_action(state, seat, level, seed)` is pure: the same state, seat, level
and seed always give the same action, so simulations replay exactly and a bot
seat filled by the computer never needs a random source of its own. A turn may
take two calls: a [T!] play first, then (asked again) the main action.

The players only ever look at what the seat could know (its own hand, the
table, the public counts and holdings, and the cards already seen), never at
other hands or at the order of the deck, so a computer seat does not cheat
against people. Sums are always chosen at the value level through
`engine.sums.sum_options`, so a huge table costs no more than a small one.
"""

from __future__ import annotations

from collections.abc import Sequence

from . import rng
from .actions import Action, Discard, Sum
from .ai_smart import smart_action
from .cards import POINTS, VALUE
from .errors import GameOverError, NotYourTurnError
from .game import t_actions
from .state import GameState
from .sums import VALUES, SumOption, realise, sum_options

LEVELS: tuple[str, ...] = ("random", "greedy", "smart")

#: How the bot's difficulty names map to levels.
AI_LEVEL_FOR_DIFFICULTY: dict[str, str] = {"easy": "random", "normal": "greedy", "hard": "smart"}


def choose_action(state: GameState, seat: int, level: str, seed: int) -> Action:
    """The action a computer player of `level` takes now; always legal."""
    if state.is_over:
        raise GameOverError("the game is over")
    if seat != state.current:
        raise NotYourTurnError(f"it is seat {state.current}'s turn")
    if level == "random":
        return random_action(state, seat, seed)
    if level == "greedy":
        return greedy_action(state, seat)
    if level == "smart":
        return smart_action(state, seat, seed)
    raise ValueError(f"unknown AI level {level!r}; expected one of {', '.join(LEVELS)}")


# --- random ---------------------------------------------------------------


def random_action(state: GameState, seat: int, seed: int) -> Action:
    """Uniform over [T!] plays, value-level sums and discards.

    Sums are counted once per distinct value combination, not once per
    concrete card choice, so a big table does not drown the discards; the
    concrete cards of the chosen combination are then picked at random too.
    """
    r = rng.seed_state(seed)
    hand = state.hands[seat]
    choices: list[Action | SumOption] = [*t_actions(state, seat)]
    choices.extend(sum_options(hand, state.table, state.target))
    choices.extend(Discard(i) for i in range(len(hand)))
    r, pick = rng.below(r, len(choices))
    choice = choices[pick]
    if isinstance(choice, SumOption):
        return _random_realisation(r, hand, state.table, choice)
    return choice


def _random_pick(r: int, positions: list[int], n: int) -> tuple[int, list[int]]:
    """n distinct positions drawn uniformly (partial Fisher-Yates)."""
    pool = list(positions)
    for i in range(n):
        r, j = rng.below(r, len(pool) - i)
        pool[i], pool[i + j] = pool[i + j], pool[i]
    return r, pool[:n]


def _random_realisation(r: int, hand: Sequence[str], table: Sequence[str], option: SumOption) -> Sum:
    r, picked = _random_pick(r, [i for i, c in enumerate(hand) if VALUE[c] == option.hand_value], 1)
    positions: list[int] = []
    for v, n in zip(VALUES, option.counts, strict=True):
        if n:
            r, chosen = _random_pick(r, [i for i, c in enumerate(table) if VALUE[c] == v], n)
            positions.extend(chosen)
    return Sum(picked[0], tuple(positions))


# --- greedy ---------------------------------------------------------------


def sum_points(hand: Sequence[str], table: Sequence[str], hand_index: int, positions: Sequence[int]) -> int:
    return POINTS[hand[hand_index]] + sum(POINTS[table[p]] for p in positions)


def greedy_action(state: GameState, seat: int) -> Action:
    """Most points now, a TWEAK before anything else; never a [T!].

    A TWEAK comes first because it also wins a [T!] (2 points) and leaves the
    next player an almost bare table. Without a sum it gives away the card
    worth least, ties to the lowest hand index so the choice is stable.
    """
    hand, table = state.hands[seat], state.table
    best: tuple[tuple[bool, int], Sum] | None = None
    for option in sum_options(hand, table, state.target):
        h, positions = realise(hand, table, option)
        key = (option.tweak, sum_points(hand, table, h, positions))
        if best is None or key > best[0]:
            best = (key, Sum(h, positions))
    if best is not None:
        return best[1]
    return Discard(min(range(len(hand)), key=lambda i: (POINTS[hand[i]], i)))


__all__ = [
    "AI_LEVEL_FOR_DIFFICULTY",
    "LEVELS",
    "choose_action",
    "greedy_action",
    "random_action",
]
