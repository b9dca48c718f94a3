"""The services a running bot shares, kept in `application.bot_data`."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.engine import Engine

from .clock import Clock, SystemClock
from .locks import KeyedLocks
from .services.pacing import Pace

DEPS_KEY = "tweakbot.deps"


def _random_seed() -> int:
    return secrets.randbits(63)


@dataclass
class Deps:
    db: Engine
    clock: Clock = field(default_factory=SystemClock)
    locks: KeyedLocks = field(default_factory=KeyedLocks)
    custom_pace: Pace | None = None
    default_pace: str = "casual"
    lobby_ttl_seconds: int = 24 * 3600
    pause_max_seconds: int = 7 * 24 * 3600
    seed_source: Callable[[], int] = _random_seed
    stats: dict[str, Any] = field(default_factory=dict)


def get_deps(bot_data: dict[str, Any]) -> Deps:
    deps = bot_data[DEPS_KEY]
    assert isinstance(deps, Deps)
    return deps
