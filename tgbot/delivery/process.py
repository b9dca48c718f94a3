"""The process's delivery: a sender per chat with rows, and the poller that finds rows no sender
here is on.

`Delivery` (one per process) starts a `ChatSender` for a chat when a committed transaction left
rows for it (`wake`), and a poller wakes chats whose rows nobody in this process is sending
(after a restart, or when another instance stopped): at start, then every `poll_seconds` while
it finds such rows, its pause doubling up to `poll_idle_seconds` while it finds none
(decisions.md B24). At a stop, the leases this process holds are handed back (B17).
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from collections.abc import Callable
from typing import TypeVar

from sqlmodel import Session
from telegram import Bot

from ..store import outbox
from ..store.db import Database, DatabaseTrouble
from ..store.outbox import Priority
from ..time_source import Clock, Timer, Wakeup
from . import budget, charts
from .recording import ChatTrouble
from .sender import POLL_IDLE_SECONDS, POLL_SECONDS, ChatSender

T = TypeVar("T")

#: At a stop, the most time spent handing the chats' leases back.
RELEASE_SECONDS = 1.0


class Delivery:
    """Every chat's sender in this process."""

    def __init__(
        self,
        db: Database,
        timer: Timer,
        clock: Clock,
        trouble: ChatTrouble,
        *,
        holder: str | None = None,
        poll_seconds: float = POLL_SECONDS,
        poll_idle_seconds: float = POLL_IDLE_SECONDS,
        limits: budget.Limits | None = None,
        draw_chart: charts.ChartDrawer = charts.draw_apart,
    ) -> None:
        self.db = db
        self.timer = timer
        self.clock = clock
        self.trouble = trouble
        self.holder = holder or secrets.token_hex(8)
        self.poll_seconds = poll_seconds
        self.poll_idle_seconds = poll_idle_seconds
        #: Set by `look_again`: something may have been left behind.
        self._look_again = Wakeup()
        self.limits = limits or budget.Limits()
        self.draw_chart = draw_chart
        self.global_budget = budget.GlobalBudget(timer, self.limits.overall, self.limits.overall_cosmetic)
        self.bot: Bot | None = None
        self._senders: dict[int, ChatSender] = {}
        self._poller: asyncio.Task[None] | None = None
        self.stopping = False

    def wake(self, chats: dict[int, int] | list[int]) -> None:
        """New rows were committed for these chats (chat id -> their most urgent priority): make
        sure a sender is on each."""
        if self.stopping or self.bot is None:
            return
        urgency = chats if isinstance(chats, dict) else dict.fromkeys(chats, int(Priority.TURN))
        for chat_id, priority in urgency.items():
            sender = self._senders.get(chat_id)
            if sender is not None:  # a sender leaves `_senders` as it ends
                sender.notice(priority)
                continue
            sender = ChatSender(self, chat_id)
            self._senders[chat_id] = sender
            sender.task = asyncio.get_running_loop().create_task(sender.run(), name=f"send:{chat_id}")

    async def store(self, work: Callable[[Session], T]) -> T:
        """A sender's transaction, on the database's background lane (never ahead of a tap)."""
        return await self.db.run(work, background=True)

    def start(self, bot: Bot) -> None:
        """Begin sending; with `poll_seconds` 0 only `wake` starts senders (tests that drive
        every step themselves)."""
        self.bot = bot
        self.stopping = False
        if self.poll_seconds > 0:
            self._poller = asyncio.get_running_loop().create_task(self._poll(), name="outbox-poller")

    async def _poll(self) -> None:
        """The safety net: rows that no sender of this process is working on.

        Every `poll_seconds` while something may be left over: at start (a restart's rows), after
        a pass that found such rows or could not look, and soon after `look_again`. After passes
        that find nothing, the pause doubles up to `poll_idle_seconds`: every row this process
        commits wakes its sender directly, and an empty pass every two seconds was most of what
        an idle bot spent, and a share of the senders' transactions under load."""
        pause = self.poll_seconds
        while not self.stopping:
            self._look_again.clear()
            quick = True
            with contextlib.suppress(DatabaseTrouble):
                waiting = await self.db.run(outbox.chats_with_rows, background=True, read_only=True)
                left = [c for c in waiting if c not in self._senders]
                self.wake(left)
                quick = bool(left) or self._look_again.is_set()
            pause = self.poll_seconds if quick else min(pause * 2, self.poll_idle_seconds)
            if await self.timer.sleep(pause, self._look_again):
                # Soon, not at once: a chat another instance holds would otherwise be asked for
                # again and again until its lease ends.
                await self.timer.sleep(self.poll_seconds)

    def look_again(self) -> None:
        """A sender stopped with rows perhaps left (the database failed, another instance holds
        its chat): the poller looks within `poll_seconds` and keeps that pace until a pass finds
        nothing left."""
        self._look_again.set()

    async def stop(self, grace: float = 3.0) -> None:
        """Stop sending: a call in flight may finish within `grace` seconds; the rest stays queued."""
        self.stopping = True
        if self._poller is not None:
            self._poller.cancel()
        tasks = [s.task for s in self._senders.values() if s.task is not None and not s.task.done()]
        for sender in self._senders.values():
            sender.wakeup.set()
        if tasks:
            _done, pending = await asyncio.wait(tasks, timeout=grace)
            for task in pending:
                task.cancel()
            if pending:
                await asyncio.wait(pending, timeout=1.0)
        self._senders.clear()
        # Hand the leases back: a restart (or another instance) sends at once. Not worth a wait
        # on a database that does not answer: the leases then run out by themselves.
        with contextlib.suppress(Exception):
            await asyncio.wait_for(
                self.db.run(lambda s: outbox.release_all(s, self.holder), background=True), RELEASE_SECONDS
            )

    def finished(self, sender: ChatSender) -> None:
        """`sender` ends: the next rows of its chat start another."""
        if self._senders.get(sender.chat_id) is sender:
            del self._senders[sender.chat_id]
