"""Computer players: ``easy``, ``normal`` and ``hard``.

`choose_action(state, seat, level, seed)` is the one entry point. It hands the
level only the seat's view (`engine.views.seat_view`) and the [T!] plays the
rules allow it now, never the `GameState`: a computer seat cannot read a
hidden card because it is never given one. Hard samples the unseen cards
itself. The same view, level and seed always give the same action, so
simulations replay exactly and a bot seat needs no random source of its own.
A turn may take two calls: a [T!] play first, then (asked again) the main
action.
"""

from __future__ import annotations

from collections.abc import Callable

from ..actions import Action, Discard, Sum, TAction
from ..game import require_turn, t_actions
from ..state import GameState
from ..views import View, seat_view
from .easy import easy_action
from .hard import hard_action, reply
from .normal import normal_action

#: The levels, weakest first: the single definition the bot and the simulator use.
LEVELS: tuple[str, ...] = ("easy", "normal", "hard")

#: Older names still accepted by `choose_action` (the bot stored them before the levels had names).
ALIASES: dict[str, str] = {"random": "easy", "greedy": "normal", "smart": "hard"}

Policy = Callable[[View, tuple[TAction, ...], int], Action]

POLICIES: dict[str, Policy] = {"easy": easy_action, "normal": normal_action, "hard": hard_action}


def level_name(level: str) -> str:
    """The level a name stands for (old names included); ValueError for anything else."""
    name = ALIASES.get(level, level)
    if name not in POLICIES:
        raise ValueError(f"unknown AI level {level!r}; expected one of {', '.join(LEVELS)}")
    return name


def choose_action(state: GameState, seat: int, level: str, seed: int) -> Action:
    """The action a computer player of `level` takes now; always legal."""
    policy = POLICIES[level_name(level)]
    require_turn(state, seat)
    return policy(seat_view(state, seat), tuple(t_actions(state, seat)), seed)


def greedy_action(state: GameState, seat: int) -> Sum | Discard:
    """The richest sum (a TWEAK first), else the cheapest card; never a [T!] card.

    A quick legal move for tests and benchmarks (and Hard's model of the other
    players): it reads only the seat's hand, the table and the target.
    """
    require_turn(state, seat)
    return reply(state, seat)


__all__ = ["ALIASES", "LEVELS", "POLICIES", "Policy", "choose_action", "greedy_action", "level_name"]
