"""Telegram's flood limits for bots, as sliding windows over accepted writes.

Telegram's bot FAQ ("My bot is hitting limits, how do I avoid this?") gives about one message a
second per chat, 20 messages a minute per group and about 30 messages a second in all. The FAQ
speaks of messages; in practice edits (and deletions) draw on the same budget, so they count here
like sends. Beyond a limit Telegram answers 429 "Too Many Requests: retry after N" and does nothing.

``FloodLimits()`` has those defaults; ``FloodLedger`` keeps the timestamps of accepted writes
(always, even with no limits enforced) so tests can assert on them.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

__all__ = ["FloodLedger", "FloodLimits", "FloodRejection", "WriteLimit", "max_in_window", "retry_after"]


@dataclass(frozen=True)
class WriteLimit:
    """At most ``writes`` accepted writes in any sliding window of ``seconds``."""

    writes: int
    seconds: float

    def __post_init__(self) -> None:
        if self.writes < 1 or not self.seconds > 0:
            raise ValueError(f"a write limit needs writes >= 1 and seconds > 0, not {self}")


@dataclass(frozen=True)
class FloodLimits:
    """Which limits the fake enforces; ``None`` switches one off. The defaults are Telegram's."""

    #: Per group, supergroup or channel (edits and deletions count).
    group: WriteLimit | None = WriteLimit(20, 60.0)
    #: Per private chat.
    private: WriteLimit | None = WriteLimit(1, 1.0)
    #: Across the whole bot.
    overall: WriteLimit | None = WriteLimit(30, 1.0)


@dataclass(frozen=True)
class FloodRejection:
    """One write the limits refused (answered 429, not applied, not counted)."""

    at: float
    chat_id: int
    method: str
    retry_after: int
    limit: Literal["chat", "overall"]


def retry_after(times: list[float], limit: WriteLimit, now: float) -> int | None:
    """Whole seconds until ``limit`` lets one more write through at ``now`` (None: it does now).

    ``times`` are the accepted writes, oldest first. A write at ``t`` is inside the window at
    ``now`` while ``t > now - seconds``; Telegram answers at least 1 second.
    """
    first_inside = bisect.bisect_right(times, now - limit.seconds)
    inside = len(times) - first_inside
    if inside < limit.writes:
        return None
    # The write that has to leave the window before one more fits.
    leaving = times[len(times) - limit.writes]
    wait = leaving + limit.seconds - now
    return max(1, math.ceil(wait - 1e-9))


def max_in_window(times: Iterable[float], seconds: float) -> int:
    """The most writes that fall in any window ``(t - seconds, t]`` (sliding, like the limits)."""
    ordered = sorted(times)
    best = start = 0
    for end, moment in enumerate(ordered):
        while ordered[start] <= moment - seconds:
            start += 1
        best = max(best, end - start + 1)
    return best


@dataclass
class FloodLedger:
    """Accepted writes per chat and in all, plus every refusal; checks and records in one step."""

    limits: FloodLimits | None = None
    writes: dict[int, list[float]] = field(default_factory=dict)
    all_writes: list[float] = field(default_factory=list)
    rejections: list[FloodRejection] = field(default_factory=list)

    def admit(self, chat_id: int, is_private: bool, method: str, now: float) -> FloodRejection | None:
        """Record a write at ``now``, or return (and record) why the limits refuse it."""
        if self.limits is not None:
            per_chat = self.limits.private if is_private else self.limits.group
            waits: list[tuple[int, Literal["chat", "overall"]]] = []
            if per_chat is not None:
                wait = retry_after(self.writes.get(chat_id, []), per_chat, now)
                if wait is not None:
                    waits.append((wait, "chat"))
            if self.limits.overall is not None:
                wait = retry_after(self.all_writes, self.limits.overall, now)
                if wait is not None:
                    waits.append((wait, "overall"))
            if waits:
                wait, which = max(waits, key=lambda w: w[0])
                rejection = FloodRejection(now, chat_id, method, wait, which)
                self.rejections.append(rejection)
                return rejection
        # insort, not append: a test may swap timers, and the windows need sorted times.
        bisect.insort(self.writes.setdefault(chat_id, []), now)
        bisect.insort(self.all_writes, now)
        return None
