"""Per-game settings chosen in the lobby, stored as JSON on the game row."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, replace
from enum import StrEnum
from typing import Any

from engine import GameConfig
from engine.cards import COLOUR_ORDER
from engine.config import MAX_PLAYERS, MIN_PLAYERS, THRESHOLDS

from .pacing import DEFAULT_PACE

EDITIONS = ("classic", "extended")
COLOUR_CHOICES = (0, 3, 4, 5, 6)  # 0 = by player count (RULES §2.2)
TARGET_STEP = 20
TARGET_MIN = 20
TARGET_MAX = 300


class SettingKey(StrEnum):
    """A lobby setting, as its keys name it (one letter: the keys' data is short)."""

    EDITION = "e"  # c(lassic) | x (extended)
    COLOURS = "c"  # one of COLOUR_CHOICES
    GOAL = "t"  # + | - | d (back to the automatic goal)
    FACE_DOWN = "f"  # 0 | 1
    HINTS = "h"  # 0 | 1
    PACE = "p"  # a pace's name (checked against the known paces by the caller)


@dataclass(frozen=True)
class GameSettings:
    edition: str = "classic"
    colours: int = 0
    target: int | None = None  # a fixed goal (games set up before goal_offset); None: by player count
    #: The lobby's *Goal ±20* keys move the goal from the automatic one of the seat count the game
    #: starts with (RULES §5.4), not of the count when they were tapped.
    goal_offset: int = field(default=0, kw_only=True)
    #: Sum hints (issue "Keep the game a game"): on, 🎯 Play lists the legal sums best first and
    #: the popups say when a card makes no sum; off (the default), the player finds the sum and
    #: types its values, and only exact legal matches are offered.
    hints: bool = field(default=False, kw_only=True)
    face_down: bool = False
    pace: str = DEFAULT_PACE

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str | None, default_pace: str = DEFAULT_PACE) -> GameSettings:
        data: dict[str, Any] = json.loads(text) if text else {}
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        known.setdefault("pace", default_pace)
        # Tables set up before the setting existed played with the hints: they keep them.
        known.setdefault("hints", bool(data))
        return cls(**known)

    def engine_config(self, players: int) -> GameConfig:
        colours = tuple(c.value for c in COLOUR_ORDER[: self.colours]) if self.colours else ()
        return GameConfig(
            players=players,
            edition=self.edition,
            colours=colours,
            target_score=self.target if self.target is not None else self._moved_goal(players),
            won_t_face_down=self.face_down,
        )

    def threshold(self, players: int) -> int:
        """The goal a game of `players` seats plays to."""
        if self.target is not None:
            return self.target
        return self._moved_goal(players) or _auto_goal(players)

    def _moved_goal(self, players: int) -> int | None:
        """The automatic goal moved by the offset (None without one: the engine's own)."""
        if not self.goal_offset:
            return None
        return max(TARGET_MIN, min(TARGET_MAX, _auto_goal(players) + self.goal_offset))

    @property
    def goal_is_auto(self) -> bool:
        return self.target is None and not self.goal_offset

    def with_change(self, key: SettingKey, value: str, players: int) -> GameSettings | None:
        """Apply one lobby key; None when the value is not acceptable."""
        match key:
            case SettingKey.EDITION if value in ("c", "x"):
                return replace(self, edition="classic" if value == "c" else "extended")
            case SettingKey.COLOURS if value.isdigit() and int(value) in COLOUR_CHOICES:
                return replace(self, colours=int(value))
            case SettingKey.GOAL if value == "d":
                return replace(self, target=None, goal_offset=0)
            case SettingKey.GOAL if value in ("+", "-"):
                step = TARGET_STEP if value == "+" else -TARGET_STEP
                goal = max(TARGET_MIN, min(TARGET_MAX, self.threshold(players) + step))
                return replace(self, target=None, goal_offset=goal - _auto_goal(players))
            case SettingKey.FACE_DOWN if value in ("0", "1"):
                return replace(self, face_down=value == "1")
            case SettingKey.HINTS if value in ("0", "1"):
                return replace(self, hints=value == "1")
            case SettingKey.PACE if value.isalpha() and len(value) <= 8:
                return replace(self, pace=value)  # checked against known paces by the caller
        return None


def _auto_goal(players: int) -> int:
    """The engine's goal for this many seats; a lobby still filling up counts as the nearest
    table the engine allows."""
    return THRESHOLDS[max(MIN_PLAYERS, min(MAX_PLAYERS, players))]
