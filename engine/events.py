"""What happened during an `apply`, in order.

Events carry card ids, including private ones (a card drawn into a hand); the
caller decides who may see what. `to_json` gives plain dicts for logs and
traces.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class Event:
    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["event"] = type(self).__name__
        return data


@dataclass(frozen=True, slots=True)
class TPlayed(Event):
    seat: int
    kind: str
    victim: int | None = None  # Thief
    card: str | None = None  # Thief: the stolen card; Shifter: the card moved to the table
    delta: int = 0  # Joker
    dropped: dict[int, str] = field(default_factory=dict)  # Bomb: seat -> card
    new_target: int | None = None  # Shifter


@dataclass(frozen=True, slots=True)
class Summed(Event):
    seat: int
    hand_card: str
    table_cards: tuple[str, ...]
    target: int
    tweak: bool
    won_t: str | None  # the [T!] kind won by a TWEAK, None if none or deck empty (A9)


@dataclass(frozen=True, slots=True)
class Discarded(Event):
    seat: int
    card: str


@dataclass(frozen=True, slots=True)
class Refilled(Event):
    seat: int
    hand_cards: tuple[str, ...]  # private to `seat`
    table_cards: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class LostTurn(Event):
    """The seat's hand was emptied by others; it only refills (A27)."""

    seat: int
    hand_cards: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Skipped(Event):
    """Empty hand and empty deck: the seat sits out the rest of the round (A28)."""

    seat: int


@dataclass(frozen=True, slots=True)
class TurnStarted(Event):
    seat: int
    round: int
    turn: int


@dataclass(frozen=True, slots=True)
class RoundEnded(Event):
    round: int
    points: tuple[int, ...]
    totals: tuple[int, ...]
    leftover_table: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class RoundStarted(Event):
    round: int
    dealer: int
    first: int


@dataclass(frozen=True, slots=True)
class GameEnded(Event):
    winners: tuple[int, ...]
    totals: tuple[int, ...]
