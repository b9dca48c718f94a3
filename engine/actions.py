"""Actions and their short ASCII codes.

Codes are designed to travel inside 64-byte Telegram callback data next to a
game id and a version, so they refer to cards by position (hand index, table
bit mask) rather than by id; the game version makes positions unambiguous.

==========  =====================================  ==========
action      code                                   example
==========  =====================================  ==========
Thief       ``T`` + victim seat                    ``T2``
Joker       ``J+`` or ``J-``                       ``J-``
Shifter     ``F``                                  ``F``
Bomb        ``B``                                  ``B``
Sum         ``S`` + hand index + ``.`` + hex mask  ``S1.5``
Discard     ``D`` + hand index                     ``D0``
==========  =====================================  ==========

The table mask has bit *i* set when table position *i* is used (``5`` = the
first and third table cards).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .cards import TKind
from .errors import MalformedActionError


@dataclass(frozen=True, slots=True)
class PlayThief:
    victim: int


@dataclass(frozen=True, slots=True)
class PlayJoker:
    delta: int


@dataclass(frozen=True, slots=True)
class PlayShifter:
    pass


@dataclass(frozen=True, slots=True)
class PlayBomb:
    pass


@dataclass(frozen=True, slots=True)
class Sum:
    hand: int
    table: tuple[int, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "table", tuple(sorted(self.table)))


@dataclass(frozen=True, slots=True)
class Discard:
    hand: int


TAction = PlayThief | PlayJoker | PlayShifter | PlayBomb
MainAction = Sum | Discard
Action = TAction | MainAction

T_ACTION_KIND: dict[type, TKind] = {
    PlayThief: TKind.THIEF,
    PlayJoker: TKind.JOKER,
    PlayShifter: TKind.SHIFTER,
    PlayBomb: TKind.BOMB,
}

def t_kind(code: str) -> TKind | None:
    """The kind of [T!] card an action code plays (None for a sum, a discard or garbage)."""
    try:
        action = decode(code)
    except MalformedActionError:
        return None
    return T_ACTION_KIND.get(type(action))


_SUM_RE = re.compile(r"S([0-9])\.([1-9a-f][0-9a-f]{0,15})")  # no leading zeros: one code per action


def mask_of(positions: tuple[int, ...] | list[int]) -> int:
    mask = 0
    for p in positions:
        mask |= 1 << p
    return mask


def positions_of(mask: int) -> tuple[int, ...]:
    return tuple(i for i in range(mask.bit_length()) if mask >> i & 1)


def encode(action: Action) -> str:
    if isinstance(action, PlayThief):
        return f"T{action.victim}"
    if isinstance(action, PlayJoker):
        return "J+" if action.delta > 0 else "J-"
    if isinstance(action, PlayShifter):
        return "F"
    if isinstance(action, PlayBomb):
        return "B"
    if isinstance(action, Sum):
        return f"S{action.hand}.{mask_of(action.table):x}"
    if isinstance(action, Discard):
        return f"D{action.hand}"
    raise MalformedActionError(f"not an action: {action!r}")


def decode(code: str) -> Action:
    """Parse an action code; raises MalformedActionError on anything else."""
    if not isinstance(code, str) or not code.isascii() or len(code) > 20:
        raise MalformedActionError("action code must be a short ASCII string")
    if code in ("J+", "J-"):
        return PlayJoker(1 if code == "J+" else -1)
    if code == "F":
        return PlayShifter()
    if code == "B":
        return PlayBomb()
    if len(code) == 2 and code[0] == "T" and code[1].isdigit():
        return PlayThief(int(code[1]))
    if len(code) == 2 and code[0] == "D" and code[1].isdigit():
        return Discard(int(code[1]))
    match = _SUM_RE.fullmatch(code)
    if match:
        mask = int(match.group(2), 16)
        if mask == 0:
            raise MalformedActionError("a sum needs at least one table card")
        return Sum(int(match.group(1)), positions_of(mask))
    raise MalformedActionError(f"unknown action code {code!r}")
