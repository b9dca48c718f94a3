"""The one path that sends messages: a sender per chat works through that chat's outbox.

`Delivery` (one per process) starts a `ChatSender` for a chat when a committed transaction left
rows for it (`wake`), and a poller wakes chats whose rows nobody in this process is sending (after
a restart, or when another instance stopped). A chat's rows are sent in (priority, id) order,
within the chat's budget (`budget`), by one instance at a time: a sender holds the chat's lease
(`delivery_chats`) while it sends and lets it go before any long wait for the chat's budget; a
wait for the process's budget that used up most of the lease renews it before the call
(`SEND_MARGIN`), so no call runs on a lease another instance may have taken. A 429 pauses that
chat only. Nothing is held across a Telegram call but the lease and the call's slot of the
process's budget (`GlobalBudget.landed`).

What a sender cannot fix itself goes back to the services: a group that refused the bot pauses
its games, a blocked private chat turns off panels, a group that became a supergroup moves its
games, a board that was deleted is posted anew.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Protocol, TypeVar

from sqlmodel import Session
from telegram import Bot

from .. import metrics
from ..clock import Clock, Timer, Wakeup
from ..store import outbox
from ..store.db import Database, DatabaseTrouble
from ..store.models import OutboxRow
from ..store.outbox import Fallback, Message, Payload, Priority
from ..store.surfaces import Surface
from . import budget, charts
from . import telegram_io as io
from .telegram_io import OutcomeKind

log = logging.getLogger("tweakbot.delivery")

T = TypeVar("T")

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
#: At a stop, the most time spent handing the chats' leases back.
RELEASE_SECONDS = 1.0


class ChatTrouble(Protocol):
    """The services' side of what Telegram told a sender (each runs in one transaction)."""

    def bot_removed(self, session: Session, chat_id: int) -> None: ...

    def private_blocked(self, session: Session, user_id: int) -> None: ...

    def migrated(self, session: Session, old_id: int, new_id: int) -> None: ...

    def surface_lost(self, session: Session, chat_id: int, surface: Surface) -> None: ...

    def surface_shown(self, session: Session, chat_id: int, surface: Surface) -> None:
        """A board or panel reached the chat (or Telegram refused it for good): a turn it shows
        may start its clock now, never before its player can see it."""
        ...


def digest(payload: Payload) -> str:
    """What a surface shows, in a few bytes: an edit to the same content is skipped. The first
    letter says whether it has keys ("k"), so a message without any is never asked to lose them
    (Telegram would answer "message is not modified")."""
    shown = json.dumps([payload.text, payload.keys], ensure_ascii=False, sort_keys=True)
    mark = "k" if payload.keys else "n"
    return mark + hashlib.blake2b(shown.encode(), digest_size=12).hexdigest()


def has_keys(shown_digest: str) -> bool:
    """The shown content had keys (a digest from before the mark counts as having them)."""
    return not shown_digest.startswith("n")


@dataclass
class Batch:
    """What a sender read about its chat in one transaction."""

    row: OutboxRow | None  # the next row to send: only it is sent before the next read
    chat: outbox.ChatDelivery
    payload: Payload = field(default_factory=Payload)  # the row's, decoded
    shown: dict[Surface, tuple[int, str]] = field(default_factory=dict)  # surface -> (message id, digest)


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
        self._stopping = False

    def wake(self, chats: dict[int, int] | list[int]) -> None:
        """New rows were committed for these chats (chat id -> their most urgent priority): make
        sure a sender is on each."""
        if self._stopping or self.bot is None:
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
        self._stopping = False
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
        while not self._stopping:
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
        self._stopping = True
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

    def _finished(self, sender: ChatSender) -> None:
        if self._senders.get(sender.chat_id) is sender:
            del self._senders[sender.chat_id]


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
            self.delivery._finished(self)

    async def _loop(self) -> None:
        """At most two transactions per message: one takes the chat with its first row, then one
        per message sent records what it did and reads the next row, or lets the chat go when
        none is left. A group that gets one message a turn costs two; a burst, one each."""
        d = self.delivery
        timer = d.timer
        batch: Batch | None = None
        while not d._stopping:
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
        while not self.delivery._stopping:
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
        plan = _plan(row, payload, batch)

        def then_next(record: Callable[[Session], object]) -> Callable[[Session], Batch | None]:
            def work(session: Session) -> Batch | None:
                # The chat's row is locked and loaded first: what `record` changes of it is then
                # read from the session, not queried again, and written once, at the end (with
                # autoflush, the budget, the last message id and the lease were an UPDATE each).
                with session.no_autoflush:
                    chat = outbox.claim(session, self.chat_id, d.holder, d.timer.time(), LEASE_SECONDS)
                    record(session)
                    return None if chat is None else _next_batch(session, chat)

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
            await d.store(lambda s: _attempted(s, self.chat_id, row, now))
            return None
        self._backoff = 0.0
        if outcome.kind == OutcomeKind.FLOOD:
            log.warning("429 in chat %s: paused for %.0f s", self.chat_id, outcome.retry_after)
            await d.store(lambda s: _paused(s, self.chat_id, now + outcome.retry_after + 0.5))
            return None
        if outcome.kind == OutcomeKind.BLOCKED:
            await d.store(lambda s: self._blocked(s, row, payload))
            return None
        if outcome.kind == OutcomeKind.MIGRATED and outcome.new_chat_id is not None:
            new_id = outcome.new_chat_id
            await d.store(lambda s: d.trouble.migrated(s, self.chat_id, new_id))
            return None
        return await d.store(
            then_next(lambda s: _finish(s, self.chat_id, row, outcome, plan, payload, now, d))
        )

    async def _media(self, payload: Payload) -> bytes | None:
        """A chart is drawn here, just before it is sent: never on a tap's path (`charts`)."""
        media = payload.media
        if not media or "chart" not in media:
            return None
        try:
            return await self.delivery.draw_chart(media["chart"])
        except Exception:  # a picture is a bonus: never hold up the chat for it
            log.exception("drawing a chart for chat %s failed", self.chat_id)
            return b""

    def _blocked(self, session: Session, row: OutboxRow, payload: Payload) -> None:
        """The chat refuses the bot: nothing waiting for it can be delivered."""
        trouble = self.delivery.trouble
        if budget.is_private(self.chat_id):
            trouble.private_blocked(session, self.chat_id)
            fallback = payload.fallback
            if fallback is not None:
                outbox.put(session, _message_from(fallback, row.game_id), self.delivery.clock.now())
        else:
            trouble.bot_removed(session, self.chat_id)
        dropped = outbox.drop_chat(session, self.chat_id)
        log.info("chat %s refuses the bot: %d waiting messages dropped", self.chat_id, dropped)


@dataclass
class _Plan:
    edit_id: int | None = None
    reply_id: int | None = None
    skip: bool = False  # nothing to do (already shows it, or an edit of a message never shown)
    digest: str = ""
    replaces: int | None = None  # an older message of the surface this post supersedes


def _plan(row: OutboxRow, payload: Payload, batch: Batch) -> _Plan:
    """Post or edit, and what to answer: decided from what the chat shows now."""
    plan = _Plan(digest=digest(payload))
    if payload.message_id is not None:
        plan.edit_id = payload.message_id
        return plan
    reply_to = payload.reply_to
    if reply_to and reply_to in batch.shown:
        plan.reply_id = batch.shown[reply_to][0]
    surface = row.surface
    if surface is None:
        return plan
    shown = batch.shown.get(surface)
    if shown is None:
        plan.skip = payload.edit_only
        return plan
    message_id, shown_digest = shown
    last = batch.chat.last_message_id
    behind = payload.bottom and last is not None and message_id < last
    if (behind or payload.fresh) and not payload.edit_only:
        # post it at the bottom; the old one loses its keys, if it has any
        plan.replaces = message_id if has_keys(shown_digest) else None
        return plan
    if shown_digest == plan.digest:
        plan.skip = True
        return plan
    plan.edit_id = message_id
    return plan


def _hold_again(session: Session, chat_id: int, holder: str, now: float, row: OutboxRow) -> bool:
    """Renew the chat's lease for the row in hand; False when another instance holds the chat or
    the row was delivered or replaced meanwhile (the sender then reads the queue again)."""
    if outbox.claim(session, chat_id, holder, now, LEASE_SECONDS) is None:
        return False
    return outbox.still_waiting(session, row.id or 0, row.rev)


def _claim(session: Session, chat_id: int, holder: str, now: float) -> Batch | None:
    chat = outbox.take(session, chat_id, holder, now, LEASE_SECONDS)
    return None if chat is None else _next_batch(session, chat)


def _next_batch(session: Session, chat: outbox.ChatDelivery) -> Batch:
    """The chat's next row and what the chat shows of the surfaces it concerns; with no row left,
    the chat is let go in the same transaction. That is safe against a row queued meanwhile: the
    chat's row is locked before the queue is read, so another instance's sender that wants the
    chat waits for this commit and then finds it free, and this process's wake reaches the
    sender before it ends (`ChatSender._loop`)."""
    chat_id = chat.chat_id
    found = outbox.next_row(session, chat_id)
    if found is None:
        batch = Batch(None, chat)
        chat.holder, chat.lease_until = None, 0.0
    else:
        row, shown = found
        batch = Batch(row, chat, Payload.from_json(row.payload))
        reply_to = batch.payload.reply_to
        replied = (
            outbox.shown_message(session, chat_id, reply_to) if reply_to and reply_to != row.surface else None
        )
        for known in (shown, replied):
            if known is not None:
                batch.shown[known.surface] = (known.message_id, known.digest)
    return batch


def _spent(chat: outbox.ChatDelivery, now: float) -> None:
    chat.recent = json.dumps([round(t, 3) for t in budget.prune(json.loads(chat.recent), now)] + [now])


def _finish(
    session: Session,
    chat_id: int,
    row: OutboxRow,
    outcome: io.Outcome,
    plan: _Plan,
    payload: Payload,
    now: float,
    delivery: Delivery,
) -> None:
    """Record what one call did, in one transaction."""
    assert row.id is not None
    chat = outbox.delivery_chat(session, chat_id)
    _spent(chat, now)
    kind = outcome.kind
    if (
        row.surface is not None
        and kind in (OutcomeKind.SENT, OutcomeKind.EDITED, OutcomeKind.REFUSED)
        and not payload.keys_only
    ):
        # First, while nothing of the outbox is locked yet: the game row comes before the outbox
        # in every transaction that takes both (taps take the game, then its outbox rows).
        delivery.trouble.surface_shown(session, chat_id, row.surface)
    if kind in (OutcomeKind.SENT, OutcomeKind.EDITED):
        if row.surface is not None and outcome.message_id is not None:
            outbox.remember_shown(session, chat_id, row.surface, outcome.message_id, plan.digest)
        if kind == OutcomeKind.SENT and outcome.message_id is not None:
            chat.last_message_id = max(chat.last_message_id or 0, outcome.message_id)
        outbox.delivered(session, row.id, row.rev)
        if plan.replaces is not None:
            # the older message of the surface, posted again below: its keys go when budget allows
            outbox.drop_keys(session, chat_id, plan.replaces, delivery.clock.now(), game_id=row.game_id)
    elif kind == OutcomeKind.GONE:
        if row.surface is not None and not payload.message_id:
            outbox.forget_shown(session, chat_id, row.surface)  # posted anew on the next round
            if payload.edit_only:
                outbox.drop(session, row.id)
        else:
            outbox.drop(session, row.id)
    elif kind == OutcomeKind.REPLY_MISSING:
        lost = payload.reply_to
        if lost:
            outbox.forget_shown(session, chat_id, lost)
            delivery.trouble.surface_lost(session, chat_id, lost)
    elif kind == OutcomeKind.THREAD_MISSING:
        if payload.thread_id is not None:
            log.warning("chat %s: the forum topic is gone; the game goes on in the general topic", chat_id)
            stored = session.get(OutboxRow, row.id)
            if stored is not None:
                stored.payload = replace(payload, thread_id=None).to_json()
                session.add(stored)
        else:
            outbox.drop(session, row.id)
    else:  # REFUSED: retrying would fail the same way
        log.error("chat %s: dropped an undeliverable message (%s)", chat_id, outcome.detail)
        outbox.drop(session, row.id)


def _attempted(session: Session, chat_id: int, row: OutboxRow, now: float) -> None:
    assert row.id is not None
    outbox.note_attempt(session, row.id)
    _spent(outbox.delivery_chat(session, chat_id), now)


def _paused(session: Session, chat_id: int, until: float) -> None:
    chat = outbox.delivery_chat(session, chat_id)
    chat.paused_until = max(chat.paused_until, until)


def _message_from(fallback: Fallback, game_id: int | None) -> Message:
    return Message(fallback.chat_id, fallback.payload, fallback.surface, game_id=game_id)
