"""One chat's sender: the one path a chat's messages take to Telegram.

A `ChatSender` works through its chat's outbox rows in (priority, id) order, within the chat's
budget (`budget`), then ends; the process's `Delivery` starts another when new rows come. One
instance at a time sends to a chat: the sender holds the chat's lease (`delivery_chats`) while it
sends and lets it go before any long wait for the chat's budget; a wait for the process's budget
that used up most of the lease renews it before the call (`SEND_MARGIN`, decisions.md B21), so no
call runs on a lease another instance may have taken. A 429 pauses that chat only. Nothing is
held across a Telegram call but the lease and the call's slot of the process's budget
(`GlobalBudget.landed`).

Each row's delivery is planned from what the chat shows (`plan`), and what the call did is
recorded in the transaction that reads the next row (`recording`); what a sender cannot fix
itself goes back to the services (`recording.ChatTrouble`).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from sqlmodel import Session

from .. import metrics
from ..store import outbox
from ..store.db import DatabaseTrouble
from ..store.models import OutboxRow
from ..store.outbox import Payload
from ..time_source import Wakeup
from . import budget, recording
from . import telegram_io as io
from .plan import Batch, next_batch
from .plan import plan as planned
from .telegram_io import OutcomeKind

if TYPE_CHECKING:
    from .process import Delivery

log = logging.getLogger("tweakbot.delivery")

LEASE_SECONDS = 15.0
NOTHING_NEW = 99  # below every priority: nothing committed since the last read
#: A wait longer than this lets the lease go (another instance may carry on meanwhile).
HOLD_WHILE_WAITING = 2.0
#: The lease a call must have left when it starts: half of it, longer than a call takes unless
#: the network stalls (the client gives up after 5 s of connecting, of writing or of reading).
SEND_MARGIN = LEASE_SECONDS / 2
POLL_SECONDS = 2.0
#: The poller's pace once its passes find nothing to do: a lease's length, so rows another
#: instance let go wait no longer than those of one that crashed wait for its lease anyway.
POLL_IDLE_SECONDS = LEASE_SECONDS
BACKOFF_MAX = 30.0


class ChatSender:
    """Sends one chat's rows, then ends (a new one starts when new rows come)."""

    def __init__(self, delivery: Delivery, chat_id: int) -> None:
        self.delivery = delivery
        self.chat_id = chat_id
        self.wakeup = Wakeup()
        self.task: asyncio.Task[None] | None = None
        self._backoff = 0.0
        #: The most urgent priority committed since this sender last read its rows.
        self.urgency = NOTHING_NEW

    def notice(self, priority: int) -> None:
        self.urgency = min(self.urgency, priority)
        self.wakeup.set()

    async def run(self) -> None:
        try:
            await self._loop()
        except DatabaseTrouble:
            self.delivery.look_again()  # the poller brings the chat back once the database answers
        except Exception:
            log.exception("sender for chat %s failed; the poller will retry", self.chat_id)
            self.delivery.look_again()
        finally:
            self.delivery.finished(self)

    async def _loop(self) -> None:
        """At most two transactions per message: one takes the chat with its first row, then one
        per message sent records what it did and reads the next row, or lets the chat go when
        none is left. A group that gets one message a turn costs two; a burst, one each."""
        d = self.delivery
        timer = d.timer
        batch: Batch | None = None
        while not d.stopping:
            if batch is None:
                self.wakeup.clear()
                self.urgency = NOTHING_NEW
                batch = await d.store(lambda s: _claim(s, self.chat_id, d.holder, timer.time()))
                if batch is None:
                    d.look_again()  # another instance sends to this chat now: if it stops, take over
                    return
            if batch.row is None:
                # The transaction that found nothing left has let the chat go (`_next_batch`).
                # A row committed since woke this sender (it is still in `_senders`): look again.
                if self.wakeup.is_set():
                    batch = None
                    continue
                return
            wait = self._wait(batch)
            if wait > 0:
                if wait > HOLD_WHILE_WAITING:
                    await d.store(lambda s: outbox.release(s, self.chat_id, d.holder))
                await self._wait_for_budget(wait, batch.row.priority)
                batch = None
                continue
            batch = await self._send(batch)

    async def _wait_for_budget(self, seconds: float, waiting: int) -> None:
        """Sleep until the budget allows the row in hand, unless something more urgent comes:
        a burst of draft previews in a spent group costs no database work while it waits."""
        timer = self.delivery.timer
        until = timer.monotonic() + seconds
        while not self.delivery.stopping:
            remaining = until - timer.monotonic()
            if remaining <= 0 or not await timer.sleep(remaining, self.wakeup):
                return
            self.wakeup.clear()
            if self.urgency < waiting:
                return  # a more urgent row: look at the queue again

    def _wait(self, batch: Batch) -> float:
        """Seconds before the first row may go (0: now)."""
        now = self.delivery.timer.time()
        chat = batch.chat
        if chat.paused_until > now:
            return chat.paused_until - now
        if self._backoff > 0:
            return self._backoff
        recent = json.loads(chat.recent)
        assert batch.row is not None
        return budget.wait_before(self.chat_id, recent, batch.row.priority, now, self.delivery.limits)

    async def _send(self, batch: Batch) -> Batch | None:
        """Send the batch's first row; the chat's next batch (None: take the chat again)."""
        d = self.delivery
        assert d.bot is not None
        row, payload = batch.row, batch.payload
        assert row is not None
        plan = planned(row, payload, batch)

        def then_next(record: Callable[[Session], object]) -> Callable[[Session], Batch | None]:
            def work(session: Session) -> Batch | None:
                # The chat's row is locked and loaded first: what `record` changes of it is then
                # read from the session, not queried again, and written once, at the end (with
                # autoflush, the budget, the last message id and the lease were an UPDATE each).
                with session.no_autoflush:
                    chat = outbox.claim(session, self.chat_id, d.holder, d.timer.time(), LEASE_SECONDS)
                    record(session)
                    return None if chat is None else next_batch(session, chat)

            return work

        if plan.skip:
            return await d.store(then_next(lambda s: outbox.delivered(s, row.id or 0, row.rev)))
        media_bytes = await self._media(payload)
        slot = await d.global_budget.take(row.priority, self.wakeup, lambda: self.urgency < row.priority)
        if slot is None:
            return None  # a more urgent row of this chat came while it waited: read the queue again
        try:
            if batch.chat.lease_until - d.timer.time() < SEND_MARGIN:
                # The wait for a slot of the process's budget (a clean-up at the bot's ceiling can
                # wait many seconds) used up the lease: another instance may hold the chat now and
                # be sending this very row. Hold the chat again, with the row unchanged, or let go.
                now = d.timer.time()
                if not await d.store(lambda s: _hold_again(s, self.chat_id, d.holder, now, row)):
                    return None
            outcome = await io.deliver(
                d.bot,
                self.chat_id,
                payload,
                edit_id=plan.edit_id,
                reply_id=plan.reply_id,
                media_bytes=media_bytes,
            )
        finally:
            d.global_budget.landed(slot)  # Telegram has counted the write by now, if it got it
        metrics.count_delivery(outcome.kind)
        now = d.timer.time()
        if outcome.kind == OutcomeKind.NETWORK:
            self._backoff = min(BACKOFF_MAX, max(1.0, self._backoff * 2))
            await d.store(lambda s: recording.attempted(s, self.chat_id, row, now))
            return None
        self._backoff = 0.0
        if outcome.kind == OutcomeKind.FLOOD:
            log.warning("429 in chat %s: paused for %.0f s", self.chat_id, outcome.retry_after)
            await d.store(lambda s: recording.paused(s, self.chat_id, now + outcome.retry_after + 0.5))
            return None
        if outcome.kind == OutcomeKind.BLOCKED:
            await d.store(lambda s: recording.blocked(s, self.chat_id, row, payload, d.trouble, d.clock))
            return None
        if outcome.kind == OutcomeKind.MIGRATED and outcome.new_chat_id is not None:
            new_id = outcome.new_chat_id
            await d.store(lambda s: d.trouble.migrated(s, self.chat_id, new_id))
            return None
        return await d.store(
            then_next(
                lambda s: recording.finish(
                    s, self.chat_id, row, outcome, plan, payload, now, d.trouble, d.clock
                )
            )
        )

    async def _media(self, payload: Payload) -> bytes | None:
        """A chart is drawn here, just before it is sent: never on a tap's path (`charts`)."""
        media = payload.media
        if media is None or media.chart is None:
            return None
        try:
            return await self.delivery.draw_chart(media.chart)
        except Exception:  # a picture is a bonus: never hold up the chat for it
            log.exception("drawing a chart for chat %s failed", self.chat_id)
            return b""


def _hold_again(session: Session, chat_id: int, holder: str, now: float, row: OutboxRow) -> bool:
    """Renew the chat's lease for the row in hand; False when another instance holds the chat or
    the row was delivered or replaced meanwhile (the sender then reads the queue again)."""
    if outbox.claim(session, chat_id, holder, now, LEASE_SECONDS) is None:
        return False
    return outbox.still_waiting(session, row.id or 0, row.rev)


def _claim(session: Session, chat_id: int, holder: str, now: float) -> Batch | None:
    chat = outbox.take(session, chat_id, holder, now, LEASE_SECONDS)
    return None if chat is None else next_batch(session, chat)
