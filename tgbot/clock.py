"""Time as an injectable dependency, so tests move the clock instead of sleeping."""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime, timedelta
from typing import Protocol


class Clock(Protocol):
    def now(self) -> datetime: ...


class SystemClock:
    """Naive UTC, matching what the database stores."""

    def now(self) -> datetime:
        return datetime.now(UTC).replace(tzinfo=None, microsecond=0)


class ManualClock:
    def __init__(self, start: datetime | None = None) -> None:
        self._now = start or datetime(2026, 1, 1, 12, 0, 0)

    def now(self) -> datetime:
        return self._now

    def advance(self, delta: timedelta) -> None:
        self._now += delta

    def set(self, moment: datetime) -> None:
        self._now = moment


class Timer(Protocol):
    """Monotonic seconds and sleeping, for pacing deliveries against Telegram's budget.

    Separate from `Clock` (the game's wall clock, which moves deadlines): tests run delivery on a
    virtual timer that jumps ahead whenever everything else is idle, without touching game time.
    """

    def monotonic(self) -> float: ...

    async def sleep(self, seconds: float) -> None: ...


class SystemTimer:
    def monotonic(self) -> float:
        return time.monotonic()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(max(0.0, seconds))
