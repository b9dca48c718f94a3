"""Virtual monotonic time for tests: ``sleep()`` parks the task until the test moves the clock.

``VirtualTimer`` implements ``tgbot.time_source.Timer`` (``monotonic()``, ``time()`` and
``async sleep(seconds, wake=None)``), so code that paces itself against Telegram's budget can be
driven through minutes of virtual time in milliseconds. Nothing moves on its own:
``advance``/``advance_to`` move the clock and wake every sleeper that is due;
``TelegramTestClient`` (``timer=``) does it for you, one wake at a time, whenever the tasks it
waits for can only go on once time passes.

Usage::

    timer = VirtualTimer()
    task = asyncio.create_task(worker(timer))   # worker calls ``await timer.sleep(90)``
    await asyncio.sleep(0)
    assert timer.is_parked(task) and timer.next_wake() == 90.0
    timer.advance(90)                            # the worker runs when the loop next gets control
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
from dataclasses import dataclass, field
from typing import Any, Protocol

__all__ = ["DEFAULT_EPOCH", "Sleeper", "VirtualTimer", "WakeupLike"]

#: ``time()`` at virtual t=0: 2026-01-01 12:00:00 UTC (``tgbot.time_source.ManualClock``'s default start).
DEFAULT_EPOCH = 1_767_268_800.0


class WakeupLike(Protocol):
    """What ``sleep(..., wake=)`` needs of ``tgbot.time_source.Wakeup``: a flag with a future to await."""

    def is_set(self) -> bool: ...

    def waiter(self) -> asyncio.Future[bool]: ...


@dataclass(eq=False)
class Sleeper:
    """One parked ``sleep()``: who sleeps, until when, and the future that wakes it."""

    wake: float
    seq: int
    #: Resolves False when the time is up, True when a ``Wakeup`` ended the sleep early.
    future: asyncio.Future[bool] = field(repr=False)
    task: asyncio.Task[Any] | None
    woken: bool = False
    cancelled: bool = False

    @property
    def active(self) -> bool:
        return not (self.woken or self.cancelled)


class VirtualTimer:
    """Virtual seconds that only move when told; ``sleep`` parks the calling task until then.

    * ``sleep(s)`` with ``s > 0`` parks the task until the virtual time reaches ``now + s``;
      ``sleep(0)`` (or negative) just yields once to the event loop, like ``asyncio.sleep(0)``.
      Like ``SystemTimer``, ``sleep(s, wake)`` ends early when ``wake`` is set (at once if it
      already is) and returns True; False means the time was up.
    * ``time()`` is epoch seconds on the same virtual clock: ``epoch + monotonic()``.
    * ``advance(s)``/``advance_to(t)`` move the clock and wake every sleeper due by then, in wake
      order. Woken tasks run when the event loop next gets control and all see the new time; to
      step through the wakes one at a time (each task seeing its own wake time) use
      ``TelegramTestClient.advance``.
    * Cancelling a parked task is clean: its wake is forgotten and it stops counting as parked.
    """

    def __init__(self, start: float = 0.0, *, epoch: float = DEFAULT_EPOCH) -> None:
        self._now = float(start)
        self.epoch = float(epoch)
        self._heap: list[tuple[float, int, Sleeper]] = []
        self._by_task: dict[asyncio.Task[Any], Sleeper] = {}
        self._seq = itertools.count()
        self._park_watchers: list[asyncio.Future[None]] = []
        #: How many sleeps ever parked (a cheap progress counter for tests).
        self.parks = 0

    # -- tgbot.time_source.Timer -------------------------------------------------------------------------

    def monotonic(self) -> float:
        return self._now

    def time(self) -> float:
        return self.epoch + self._now

    async def sleep(self, seconds: float, wake: WakeupLike | None = None) -> bool:
        if wake is not None and wake.is_set():
            return True
        if not seconds > 0:  # zero, negative (and NaN): one trip round the loop, like asyncio.sleep(0)
            await asyncio.sleep(0)
            return wake is not None and wake.is_set()
        loop = asyncio.get_running_loop()
        task = asyncio.current_task()
        sleeper = Sleeper(self._now + seconds, next(self._seq), loop.create_future(), task)
        heapq.heappush(self._heap, (sleeper.wake, sleeper.seq, sleeper))
        if task is not None:
            self._by_task[task] = sleeper
        woken_by = wake.waiter() if wake is not None else None
        if woken_by is not None:
            woken_by.add_done_callback(lambda done: self._wake_early(sleeper, done))
        self.parks += 1
        self._notify_parked()
        try:
            return await sleeper.future
        finally:
            if woken_by is not None and not woken_by.done():
                woken_by.cancel()
            if not sleeper.woken:
                # Cancelled while parked: forget the wake (the heap entry is dropped lazily).
                sleeper.cancelled = True
                self._forget(sleeper)

    # -- moving time -------------------------------------------------------------------------------

    def advance(self, seconds: float) -> int:
        """Move the clock ``seconds`` forward; returns how many sleepers were woken."""
        if seconds < 0:
            raise ValueError(f"virtual time only moves forward (advance({seconds}))")
        return self.advance_to(self._now + seconds)

    def advance_to(self, moment: float) -> int:
        """Move the clock to ``moment`` (not backwards); wakes every sleeper due by then."""
        if moment < self._now:
            raise ValueError(f"virtual time only moves forward ({self._now} -> {moment})")
        self._now = float(moment)
        woken = 0
        while self._heap and self._heap[0][0] <= self._now:
            _, _, sleeper = heapq.heappop(self._heap)
            if not sleeper.active:
                continue
            sleeper.woken = True
            self._forget(sleeper)
            if not sleeper.future.done():
                sleeper.future.set_result(False)
            woken += 1
        return woken

    # -- inspection --------------------------------------------------------------------------------

    def next_wake(self) -> float | None:
        """The earliest virtual time a parked task wants to wake at, or None if nobody sleeps."""
        while self._heap and not self._heap[0][2].active:
            heapq.heappop(self._heap)
        return self._heap[0][0] if self._heap else None

    def sleepers(self) -> list[Sleeper]:
        """Every parked sleep, earliest wake first."""
        return sorted((entry[2] for entry in self._heap if entry[2].active), key=lambda s: (s.wake, s.seq))

    def parked_tasks(self) -> set[asyncio.Task[Any]]:
        """The tasks currently parked in ``sleep()`` (a woken task stops counting at once)."""
        return {task for task, sleeper in self._by_task.items() if sleeper.active}

    def is_parked(self, task: asyncio.Task[Any]) -> bool:
        sleeper = self._by_task.get(task)
        return sleeper is not None and sleeper.active

    def wake_of(self, task: asyncio.Task[Any]) -> float | None:
        sleeper = self._by_task.get(task)
        return sleeper.wake if sleeper is not None and sleeper.active else None

    def next_park(self) -> asyncio.Future[None]:
        """A future that completes the next time any task parks (lets a waiter notice "stuck")."""
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._park_watchers.append(future)
        return future

    # -- internals ---------------------------------------------------------------------------------

    def _wake_early(self, sleeper: Sleeper, woken_by: asyncio.Future[bool]) -> None:
        if woken_by.cancelled() or not sleeper.active or not woken_by.result():
            return
        sleeper.woken = True
        self._forget(sleeper)
        if not sleeper.future.done():
            sleeper.future.set_result(True)

    def _forget(self, sleeper: Sleeper) -> None:
        if sleeper.task is not None and self._by_task.get(sleeper.task) is sleeper:
            del self._by_task[sleeper.task]

    def _notify_parked(self) -> None:
        watchers, self._park_watchers = self._park_watchers, []
        for future in watchers:
            if not future.done():
                future.set_result(None)

    def __repr__(self) -> str:
        return f"VirtualTimer(now={self._now}, sleepers={len(self.sleepers())})"
