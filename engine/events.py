"""What happened during an `apply`, in order.

Events carry card ids, including private ones (a card drawn into a hand); the
caller decides who may see what.

The bot stores each move's events, so their JSON is a persisted format
(docs/replay-format.md, "Stored events"): `to_json` and `event_from_json` are
exact inverses, and the encoding only ever gains optional fields. Stats and
history are then reads of stored events instead of re-runs of the game.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import MISSING, dataclass, field, fields
from typing import Any

from .errors import SchemaError


@dataclass(frozen=True, slots=True)
class Event:
    def to_json(self) -> dict[str, Any]:
        """Plain JSON types; fields still at their default are left out to keep stored moves small."""
        data: dict[str, Any] = {"event": type(self).__name__}
        for name, encode, _, default in _CODECS[type(self)]:
            value = getattr(self, name)
            if default is MISSING or value != default:
                data[name] = encode(value)
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
    hand_cards: tuple[str, ...]  # private to `seat`


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


EVENT_TYPES: tuple[type[Event], ...] = (
    TPlayed,
    Summed,
    Discarded,
    Refilled,
    LostTurn,
    Skipped,
    TurnStarted,
    RoundEnded,
    RoundStarted,
    GameEnded,
)


# --- JSON -------------------------------------------------------------------------------


def _int(value: Any) -> int:
    if type(value) is not int:  # bool is an int to Python, not to us
        raise TypeError(f"expected an integer, got {value!r}")
    return value


def _bool(value: Any) -> bool:
    if type(value) is not bool:
        raise TypeError(f"expected true or false, got {value!r}")
    return value


def _str(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"expected a string, got {value!r}")
    return value


def _optional(decode: Callable[[Any], Any]) -> Callable[[Any], Any]:
    return lambda value: None if value is None else decode(value)


def _tuple_of(decode: Callable[[Any], Any]) -> Callable[[Any], tuple[Any, ...]]:
    def run(value: Any) -> tuple[Any, ...]:
        if not isinstance(value, list | tuple):
            raise TypeError(f"expected a list, got {value!r}")
        return tuple(decode(item) for item in value)

    return run


def _seat_key(key: Any) -> int:
    """JSON object keys are strings; only the canonical spelling of a seat number is accepted."""
    if isinstance(key, str) and key.isdecimal() and str(int(key)) == key:
        return int(key)
    raise ValueError(f"expected a seat number as key, got {key!r}")


def _seat_map(value: Any) -> dict[int, str]:
    if not isinstance(value, Mapping):
        raise TypeError(f"expected an object, got {value!r}")
    return {_seat_key(k): _str(v) for k, v in value.items()}


def _same(value: Any) -> Any:
    return value


# Keyed by the annotation text (this module postpones annotations), so a field of a new
# type fails at import instead of being stored in a shape nobody can read back.
_BY_ANNOTATION: dict[str, tuple[Callable[[Any], Any], Callable[[Any], Any]]] = {
    "int": (_same, _int),
    "bool": (_same, _bool),
    "str": (_same, _str),
    "int | None": (_same, _optional(_int)),
    "str | None": (_same, _optional(_str)),
    "tuple[int, ...]": (list, _tuple_of(_int)),
    "tuple[str, ...]": (list, _tuple_of(_str)),
    "dict[int, str]": (lambda d: {str(k): d[k] for k in sorted(d)}, _seat_map),
}

_Codec = tuple[str, Callable[[Any], Any], Callable[[Any], Any], Any]  # name, encode, decode, default


def _codecs(cls: type[Event]) -> tuple[_Codec, ...]:
    result: list[_Codec] = []
    for f in fields(cls):
        encode, decode = _BY_ANNOTATION[str(f.type)]
        default: Any = f.default
        if f.default_factory is not MISSING:
            default = f.default_factory()
        result.append((f.name, encode, decode, default))
    return tuple(result)


_CODECS: dict[type[Event], tuple[_Codec, ...]] = {cls: _codecs(cls) for cls in EVENT_TYPES}
_BY_NAME: dict[str, type[Event]] = {cls.__name__: cls for cls in EVENT_TYPES}


def event_from_json(data: Mapping[str, Any]) -> Event:
    """The event `to_json` described; raises SchemaError on anything it could not have written."""
    if not isinstance(data, Mapping):
        raise SchemaError(f"an event is a JSON object, got {data!r}")
    name = data.get("event")
    cls = _BY_NAME.get(name) if isinstance(name, str) else None
    if cls is None:
        raise SchemaError(f"unknown event {name!r}")
    codecs = _CODECS[cls]
    unknown = set(data) - {"event"} - {c[0] for c in codecs}
    if unknown:
        raise SchemaError(f"{name}: unknown fields {sorted(map(str, unknown))}")
    values: dict[str, Any] = {}
    for field_name, _, decode, default in codecs:
        if field_name in data:
            try:
                values[field_name] = decode(data[field_name])
            except (TypeError, ValueError) as exc:
                raise SchemaError(f"{name}.{field_name}: {exc}") from exc
        elif default is MISSING:
            raise SchemaError(f"{name}: missing field {field_name!r}")
    return cls(**values)


def events_to_json(events: Iterable[Event]) -> list[dict[str, Any]]:
    return [event.to_json() for event in events]


def events_from_json(data: Sequence[Mapping[str, Any]]) -> list[Event]:
    if not isinstance(data, list | tuple):
        raise SchemaError(f"stored events are a JSON list, got {type(data).__name__}")
    return [event_from_json(item) for item in data]


def dump_events(events: Iterable[Event]) -> str:
    """One move's events as compact JSON text, the form the bot stores per move."""
    return json.dumps(events_to_json(events), separators=(",", ":"), ensure_ascii=True)


def load_events(text: str) -> list[Event]:
    """Inverse of `dump_events`; SchemaError if the text is not stored events."""
    try:
        data = json.loads(text)
    except (TypeError, ValueError) as exc:
        raise SchemaError(f"stored events are not JSON: {exc}") from exc
    return events_from_json(data)
