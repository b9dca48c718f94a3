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

    def time(self) -> float:
        """Epoch seconds, for what several processes share (a chat's budget, a 429 pause)."""
        ...

    async def sleep(self, seconds: float, wake: Wakeup | None = None) -> bool:
        """Wait `seconds`, or less when `wake` is set meanwhile; True when woken early."""
        ...


class Wakeup:
    """A flag that ends a `Timer.sleep` early: a sender waiting for its budget is woken by
    new work. Set and cleared from the event loop only."""

    def __init__(self) -> None:
        self._set = False
        self._waiters: list[asyncio.Future[bool]] = []

    def set(self) -> None:
        self._set = True
        for waiter in self._waiters:
            if not waiter.done():
                waiter.set_result(True)
        self._waiters.clear()

    def clear(self) -> None:
        self._set = False

    def is_set(self) -> bool:
        return self._set

    def waiter(self) -> asyncio.Future[bool]:
        """A future that completes with True once the flag is set (at once when it is)."""
        future: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        if self._set:
            future.set_result(True)
        else:
            self._waiters.append(future)
        return future


class SystemTimer:
    def monotonic(self) -> float:
        return time.monotonic()

    def time(self) -> float:
        return time.time()

    async def sleep(self, seconds: float, wake: Wakeup | None = None) -> bool:
        if wake is None:
            await asyncio.sleep(max(0.0, seconds))
            return False
        future = wake.waiter()

        def time_is_up() -> None:
            if not future.done():
                future.set_result(False)

        timer = asyncio.get_running_loop().call_later(max(0.0, seconds), time_is_up)
        try:
            return await future
        finally:
            timer.cancel()
