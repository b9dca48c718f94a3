"""Telegram's write budget, with headroom (DESIGN §6).

Telegram lets a bot write about 20 messages a minute into one group (edits included), one a
second into one private chat and about 30 a second in all; beyond that it answers 429. The bot
stays under those figures on its own, so a 429 is an accident, not the way it learns the limit.

A group's budget is shared by every instance (the send times live in ``delivery_chats.recent``);
the per-second ceiling is per process (`GlobalBudget`).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from ..clock import Timer, Wakeup
from ..config import DEFAULT_SEND_RATE
from ..store.outbox import Priority

GROUP_WINDOW = 60.0
#: Writes per window in a group: Telegram's 20, less headroom for calls we do not pace (a 400,
#: a retry whose first try did land).
GROUP_LIMIT = 18
#: Cosmetic writes (lobby edits, keys taken off old messages) only while fewer writes than this
#: were spent: the rest is kept for the game's record (the next board, a round summary) and
#: replies, so lobby taps just before *Start* never delay the first board.
COSMETIC_LIMIT = 12
#: Seconds between two writes into one private chat (Telegram: one a second).
PRIVATE_GAP = 1.05
#: Writes per second by this process across all chats (Telegram: about 30), unless the operator
#: gives it a share (TWEAKBOT_SEND_RATE).
GLOBAL_RATE = DEFAULT_SEND_RATE
#: Cosmetic writes take a slot of the second only while fewer than this many were spent in it:
#: under a busy bot, one group's keys-off edit never takes the slot another group's board needs.
GLOBAL_COSMETIC = 18
#: Seconds added to every wait: a burst's writes leave the window together, and Telegram's clock
#: and ours need not agree to the millisecond.
MARGIN = 1.0


def is_private(chat_id: int) -> bool:
    """User chats have positive ids; groups, supergroups and channels negative ones."""
    return chat_id > 0


def prune(recent: list[float], now: float) -> list[float]:
    return [t for t in recent if t > now - GROUP_WINDOW]


@dataclass(frozen=True)
class Limits:
    """The budget a sender keeps to (the defaults above; tests that are not about pacing may
    loosen it)."""

    group: int = GROUP_LIMIT
    cosmetic: int = COSMETIC_LIMIT
    private_gap: float = PRIVATE_GAP
    overall: int = GLOBAL_RATE
    overall_cosmetic: int = GLOBAL_COSMETIC

    @classmethod
    def sending(cls, rate: int) -> Limits:
        """This process's share of the bot's per-second budget (`TWEAKBOT_SEND_RATE`), cosmetic
        writes kept to the same share of it as by default."""
        return cls(overall=rate, overall_cosmetic=max(1, rate * GLOBAL_COSMETIC // GLOBAL_RATE))


def wait_before(
    chat_id: int, recent: list[float], priority: int, now: float, limits: Limits = Limits()
) -> float:
    """Seconds until a write of `priority` fits the chat's budget (0: now)."""
    recent = sorted(prune(recent, now))
    if is_private(chat_id):
        return max(0.0, recent[-1] + limits.private_gap - now) if recent else 0.0
    limit = limits.cosmetic if priority >= Priority.COSMETIC else limits.group
    if len(recent) < limit:
        return 0.0
    # The write that must leave the window before this one fits, and the margin.
    return max(0.0, recent[len(recent) - limit] + GROUP_WINDOW + MARGIN - now)


class GlobalBudget:
    """This process's writes in the last second, across every chat."""

    def __init__(self, timer: Timer, rate: int = GLOBAL_RATE, cosmetic: int = GLOBAL_COSMETIC) -> None:
        self.timer = timer
        self.rate = rate
        self.cosmetic = min(cosmetic, rate)
        self._sent: deque[float] = deque()

    def wait(self, priority: int = Priority.TURN) -> float:
        """Seconds until a write of `priority` may take a slot (0: now)."""
        now = self.timer.monotonic()
        while self._sent and self._sent[0] <= now - 1.0:
            self._sent.popleft()
        limit = self.cosmetic if priority >= Priority.COSMETIC else self.rate
        if len(self._sent) < limit:
            return 0.0
        return self._sent[len(self._sent) - limit] + 1.0 - now

    async def take(
        self, priority: int = Priority.TURN, wake: Wakeup | None = None, outranked: Callable[[], bool] = bool
    ) -> bool:
        """Wait for a free slot and spend it; False, spending nothing, when `outranked()` says
        something more urgent came while waiting (`wake` ends the wait to ask)."""
        while (delay := self.wait(priority)) > 0:
            if await self.timer.sleep(delay, wake):
                assert wake is not None
                wake.clear()
                if outranked():
                    return False
        self._sent.append(self.timer.monotonic())
        return True
