"""Per-game settings chosen in the lobby, stored as JSON on the game row."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, replace
from enum import IntEnum, StrEnum
from typing import Any

from engine import GameConfig
from engine.cards import COLOUR_ORDER
from engine.config import MAX_PLAYERS, MIN_PLAYERS, THRESHOLDS

from .pacing import DEFAULT_PACE, PaceName

TARGET_STEP = 20
TARGET_MIN = 20
TARGET_MAX = 300


class Edition(StrEnum):
    """Which [T!] deck the game plays with (RULES A24)."""

    CLASSIC = "classic"
    EXTENDED = "extended"


class Colours(IntEnum):
    """How many colours the game plays with; `AUTO`: as many as its player count needs (RULES §2.2)."""

    AUTO = 0
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6


class GoalStep(StrEnum):
    """What a goal key does: 20 up, 20 down, or back to the automatic goal."""

    UP = "+"
    DOWN = "-"
    AUTO = "d"


@dataclass(frozen=True)
class GameSettings:
    edition: Edition = Edition.CLASSIC
    colours: Colours = Colours.AUTO
    target: int | None = None  # a fixed goal (games set up before goal_offset); None: by player count
    #: The lobby's *Goal ±20* keys move the goal from the automatic one of the seat count the game
    #: starts with (RULES §5.4), not of the count when they were tapped.
    goal_offset: int = field(default=0, kw_only=True)
    #: Sum hints (issue "Keep the game a game"): on, 🎯 Play lists the legal sums best first and
    #: the popups say when a card makes no sum; off (the default), the player finds the sum and
    #: types its values, and only exact legal matches are offered.
    hints: bool = field(default=False, kw_only=True)
    face_down: bool = False
    pace: PaceName = DEFAULT_PACE

    def to_json(self) -> str:
        """The enums are written as their values: the JSON every version has stored."""
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str | None, default_pace: PaceName = DEFAULT_PACE) -> GameSettings:
        data: dict[str, Any] = json.loads(text) if text else {}
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        known["pace"] = PaceName.known(str(known.get("pace", ""))) or default_pace
        if "edition" in known:
            known["edition"] = Edition(known["edition"])
        if "colours" in known:
            known["colours"] = Colours(known["colours"])
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

    def with_goal(self, step: GoalStep, players: int) -> GameSettings:
        """A goal key applied to a game of `players` seats (so far)."""
        if step is GoalStep.AUTO:
            return replace(self, target=None, goal_offset=0)
        change = TARGET_STEP if step is GoalStep.UP else -TARGET_STEP
        goal = max(TARGET_MIN, min(TARGET_MAX, self.threshold(players) + change))
        return replace(self, target=None, goal_offset=goal - _auto_goal(players))


def _auto_goal(players: int) -> int:
    """The engine's goal for this many seats; a lobby still filling up counts as the nearest
    table the engine allows."""
    return THRESHOLDS[max(MIN_PLAYERS, min(MAX_PLAYERS, players))]
