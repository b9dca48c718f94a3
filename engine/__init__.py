"""The rules of TWEAK!, pure: no Telegram, no database, no clock, no global randomness."""

from .actions import (
    Action,
    Discard,
    PlayBomb,
    PlayJoker,
    PlayShifter,
    PlayThief,
    Sum,
    decode,
    encode,
)
from .cards import TKind
from .config import THRESHOLDS, GameConfig, default_colours
from .errors import (
    ConfigError,
    EngineError,
    GameOverError,
    IllegalActionError,
    MalformedActionError,
    NotYourTurnError,
    SchemaError,
)
from .events import Event, dump_events, load_events
from .game import apply, apply_in_place, check, default_action, is_legal, legal_actions, new_game, t_actions
from .state import SCHEMA_VERSION, GameState, check_invariants
from .sums import SumOption, sum_options
from .tally import GameTally, tally_events
from .views import View, public_view, seat_view

__all__ = [
    "SCHEMA_VERSION",
    "THRESHOLDS",
    "Action",
    "ConfigError",
    "Discard",
    "EngineError",
    "Event",
    "GameConfig",
    "GameOverError",
    "GameState",
    "GameTally",
    "IllegalActionError",
    "MalformedActionError",
    "NotYourTurnError",
    "PlayBomb",
    "PlayJoker",
    "PlayShifter",
    "PlayThief",
    "SchemaError",
    "Sum",
    "SumOption",
    "TKind",
    "View",
    "apply",
    "apply_in_place",
    "check",
    "check_invariants",
    "decode",
    "default_action",
    "default_colours",
    "dump_events",
    "encode",
    "is_legal",
    "legal_actions",
    "load_events",
    "new_game",
    "public_view",
    "seat_view",
    "sum_options",
    "t_actions",
    "tally_events",
]
