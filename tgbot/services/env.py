"""What every service needs besides its database session: the time, and the operator's choices.

Handlers build one `Env` per update (the clock read once), so a whole transaction agrees on "now".
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from ..pacing import DEFAULT_PACE, Pace, PaceName
from ..turn_clock import LOBBY_TTL, PAUSE_MAX


def random_seed() -> int:
    return secrets.randbits(63)


@dataclass(frozen=True)
class Env:
    now: datetime
    custom_pace: Pace | None = None
    default_pace: PaceName = DEFAULT_PACE
    lobby_ttl: timedelta = LOBBY_TTL
    pause_max: timedelta = PAUSE_MAX
    bot_username: str = "tweakbot"
    #: Inline mode is on for this bot (BotFather): boards offer the 🎯 Play key.
    inline: bool = False
    new_seed: Callable[[], int] = field(default=random_seed, compare=False)
