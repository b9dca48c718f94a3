"""Telegram's write budget, with headroom (DESIGN §6).

Telegram lets a bot write about 20 messages a minute into one group (edits included), one a
second into one private chat and about 30 a second in all; beyond that it answers 429. The bot
stays under those figures on its own, so a 429 is an accident, not the way it learns the limit.

A group's budget is shared by every instance (the send times live in ``delivery_chats.recent``);
the per-second ceiling is per process (`GlobalBudget`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..config import DEFAULT_SEND_RATE
from ..store.outbox import Priority
from ..tables import TableKind
from ..time_source import Timer, Wakeup

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
#: In a chat reached through inline mode every turn costs two edits (the mover's post made the
#: board, the post before it stripped of its keys), so at a brisk pace the cosmetic limit alone
#: leaves old posts with live keys for minutes. An old post's edit (its keys off, or a note that
#: an old pick played nothing, which takes its key too) may also take a slot while fewer than
#: this many writes were spent in the minute (three kept for the boards) ...
INLINE_CLEANUP_LIMIT = GROUP_LIMIT - 3
#: ... and fewer than `INLINE_CLEANUP_BURST` in the last `INLINE_CLEANUP_SPAN` seconds: a pace of
#: 14 writes a minute at most, so a run of quick turns, whose boards need the slots, stops it.
INLINE_CLEANUP_BURST = 7
INLINE_CLEANUP_SPAN = 30.0


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


def until_room(times: list[float], limit: int, window: float, now: float) -> float:
    """Seconds until fewer than `limit` of the sorted `times` lie within `window` of now: the
    write that must leave the window before another fits (0: now)."""
    if len(times) < limit:
        return 0.0
    return max(0.0, times[len(times) - limit] + window - now)


def wait_before(
    chat_id: int, recent: list[float], priority: int, now: float, limits: Limits = Limits()
) -> float:
    """Seconds until a write of `priority` fits the chat's budget (0: now)."""
    recent = sorted(prune(recent, now))
    gap = max(0.0, recent[-1] + limits.private_gap - now) if recent else 0.0
    if is_private(chat_id):
        return gap
    if TableKind.of_chat(chat_id) is TableKind.INLINE:
        # A chat reached through inline mode may be a group or a private chat between two people:
        # Telegram counts edits of its messages on that chat, so both budgets hold.
        return max(_inline_room(recent, priority, now, limits), gap)
    limit = limits.cosmetic if priority >= Priority.COSMETIC else limits.group
    return until_room(recent, limit, GROUP_WINDOW + MARGIN, now)


def _inline_room(recent: list[float], priority: int, now: float, limits: Limits) -> float:
    """An inline table's budget: its boards (the mover's post made the next board, the record
    written into the live post) may spend it all; everything else — lobby edits, notes on old
    picks, old posts' keys — only what the cosmetic limit leaves, so a game's first boards never
    queue behind its lobby's edits. An old post's edit (cosmetic and clean-up rows) may go
    further, within `INLINE_CLEANUP_LIMIT` and `INLINE_CLEANUP_BURST`, while the turns leave room
    for it."""
    window = GROUP_WINDOW + MARGIN
    if priority <= Priority.BOARD:
        return until_room(recent, limits.group, window, now)
    spare = until_room(recent, limits.cosmetic, window, now)
    if priority < Priority.COSMETIC or spare == 0:
        return spare
    limit = min(limits.group, max(limits.cosmetic, INLINE_CLEANUP_LIMIT))
    lately = [t for t in recent if t > now - INLINE_CLEANUP_SPAN]
    return min(
        spare,
        max(
            until_room(recent, limit, window, now),
            until_room(lately, INLINE_CLEANUP_BURST, INLINE_CLEANUP_SPAN, now),
        ),
    )


@dataclass(eq=False)
class Slot:
    """One write's place in the process's second: held from when it is taken until a second after
    its call returns (`GlobalBudget.landed`); `landed` is None while the call is in flight."""

    landed: float | None = None


class GlobalBudget:
    """This process's writes in the last second, across every chat.

    A slot counts from when it is taken until a second after its call returns, not a second after
    it was taken: Telegram counts a write when the call reaches it, which may be any moment in
    between. A process that falls behind (a saturated event loop, a slow network) sends calls
    late and in bunches; counted from when they were taken, the next second's calls would join
    them at Telegram's end and pass its 30 (the bot got 429s that way at 200 groups, decisions.md
    B23). Counted until they land, no second ever holds more than the
    rate, however late the calls go.
    """

    def __init__(self, timer: Timer, rate: int = GLOBAL_RATE, cosmetic: int = GLOBAL_COSMETIC) -> None:
        self.timer = timer
        self.rate = rate
        self.cosmetic = min(cosmetic, rate)
        self._slots: list[Slot] = []

    def wait(self, priority: int = Priority.TURN) -> float:
        """Seconds until a write of `priority` may take a slot (0: now; a call in flight counts as
        leaving a second from now, the earliest it can)."""
        now = self.timer.monotonic()
        self._slots = [s for s in self._slots if s.landed is None or s.landed > now - 1.0]
        limit = self.cosmetic if priority >= Priority.COSMETIC else self.rate
        landed = sorted(now if s.landed is None else s.landed for s in self._slots)
        return until_room(landed, limit, 1.0, now)

    async def take(
        self, priority: int = Priority.TURN, wake: Wakeup | None = None, outranked: Callable[[], bool] = bool
    ) -> Slot | None:
        """Wait for a free slot and hold it until `landed`; None, holding nothing, when
        `outranked()` says something more urgent came while waiting (`wake` ends the wait to ask)."""
        while (delay := self.wait(priority)) > 0:
            if await self.timer.sleep(delay, wake):
                assert wake is not None
                wake.clear()
                if outranked():
                    return None
        slot = Slot()
        self._slots.append(slot)
        return slot

    def landed(self, slot: Slot) -> None:
        """The call that held `slot` has returned (or was never made): its second starts now."""
        slot.landed = self.timer.monotonic()
