"""Game settings: player count, edition, colours, target score and variants."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from .cards import COLOUR_ORDER, EDITIONS, Colour, cards_of_colours
from .errors import ConfigError

MIN_PLAYERS = 2
MAX_PLAYERS = 6
HAND_SIZE = 3
INITIAL_TABLE = 2
TWEAK_REFILL = 2

#: Win thresholds by player count (RULES §5.4); unaffected by the colour licence (A43).
THRESHOLDS: dict[int, int] = {2: 140, 3: 120, 4: 100, 5: 80, 6: 60}


def default_colours(players: int) -> tuple[str, ...]:
    """Colours in play for a player count (RULES §2.2, A23, A25)."""
    count = 4 if players <= 3 else 5 if players == 4 else 6
    return tuple(c.value for c in COLOUR_ORDER[:count])


@dataclass(frozen=True)
class GameConfig:
    """Everything chosen before the first deal.

    `colours` empty means "the default for the player count"; `target_score`
    None means "the threshold for the player count".
    """

    players: int
    edition: str = "classic"
    colours: tuple[str, ...] = field(default_factory=tuple)
    target_score: int | None = None
    won_t_face_down: bool = False
    back_numbers: str = "balanced"

    def __post_init__(self) -> None:
        if not isinstance(self.players, int) or not MIN_PLAYERS <= self.players <= MAX_PLAYERS:
            raise ConfigError(f"players must be {MIN_PLAYERS}-{MAX_PLAYERS}")
        if self.edition not in EDITIONS:
            raise ConfigError(f"unknown edition {self.edition!r}")
        if self.back_numbers not in ("balanced", "random"):
            raise ConfigError("back_numbers must be 'balanced' or 'random'")
        colours = tuple(self.colours) or default_colours(self.players)
        valid = {c.value for c in Colour}
        if any(c not in valid for c in colours) or len(set(colours)) != len(colours):
            raise ConfigError("colours must be distinct colour letters R O Y G B P")
        if Colour.RED.value not in colours:
            raise ConfigError("red must always be in play")
        # Keep the canonical seed order so equal settings compare equal.
        colours = tuple(c.value for c in COLOUR_ORDER if c.value in colours)
        if len(cards_of_colours(colours)) < HAND_SIZE * self.players + INITIAL_TABLE:
            raise ConfigError("not enough colours to deal to every player")
        object.__setattr__(self, "colours", colours)
        if self.target_score is not None and (
            not isinstance(self.target_score, int) or not 1 <= self.target_score <= 10_000
        ):
            raise ConfigError("target_score must be between 1 and 10000")

    @property
    def threshold(self) -> int:
        return self.target_score if self.target_score is not None else THRESHOLDS[self.players]

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["colours"] = list(self.colours)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> GameConfig:
        try:
            return cls(
                players=data["players"],
                edition=data.get("edition", "classic"),
                colours=tuple(data.get("colours", ())),
                target_score=data.get("target_score"),
                won_t_face_down=bool(data.get("won_t_face_down", False)),
                back_numbers=data.get("back_numbers", "balanced"),
            )
        except (KeyError, TypeError) as exc:
            raise ConfigError(f"bad config: {exc}") from exc
