"""Per-seat facts of a game, counted from its events alone.

The bot stores each move's events; end-of-game stats and history then read
them with `tally_events` instead of replaying the game from its seed, so the
numbers are what happened even if the rules change later.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .events import Discarded, Event, GameEnded, RoundEnded, Summed, TPlayed


@dataclass(frozen=True, slots=True)
class GameTally:
    """Per-seat tuples are indexed by seat.

    `totals` are the totals after the last finished round (zeros before the
    first one ends), the same numbers the game's state keeps; `winners` stays
    empty until the game is over, so an abandoned game has no winner.
    """

    tweaks: tuple[int, ...]
    t_played: tuple[int, ...]  # [T!] cards played
    sums: tuple[int, ...]  # SUMs, TWEAKs included
    discards: tuple[int, ...]
    cards_won: tuple[int, ...]  # number cards taken by SUMs (hand card included)
    rounds: int  # rounds finished
    totals: tuple[int, ...]
    winners: tuple[int, ...]
    over: bool


def tally_events(players: int, events: Iterable[Event]) -> GameTally:
    """Count a game's events, in play order, from the deal on (or any prefix of them)."""
    tweaks = [0] * players
    t_played = [0] * players
    sums = [0] * players
    discards = [0] * players
    cards_won = [0] * players
    rounds = 0
    totals: tuple[int, ...] = (0,) * players
    winners: tuple[int, ...] = ()
    over = False
    for event in events:
        if isinstance(event, Summed):
            sums[event.seat] += 1
            tweaks[event.seat] += event.tweak
            cards_won[event.seat] += 1 + len(event.table_cards)
        elif isinstance(event, Discarded):
            discards[event.seat] += 1
        elif isinstance(event, TPlayed):
            t_played[event.seat] += 1
        elif isinstance(event, RoundEnded):
            rounds += 1
            totals = tuple(event.totals)
        elif isinstance(event, GameEnded):
            winners = tuple(event.winners)
            totals = tuple(event.totals)
            over = True
    return GameTally(
        tweaks=tuple(tweaks),
        t_played=tuple(t_played),
        sums=tuple(sums),
        discards=tuple(discards),
        cards_won=tuple(cards_won),
        rounds=rounds,
        totals=totals,
        winners=winners,
        over=over,
    )
