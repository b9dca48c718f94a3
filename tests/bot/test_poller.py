"""The senders' poller slows down when it finds nothing, and comes back quick when it may.

Every row this process commits wakes its chat's sender directly; the poller is the safety net
for rows nobody here is sending (a restart's, another instance's, a sender stopped by a database
error). An idle bot used to look every two seconds for ever. Now the pause doubles after every
empty pass up to a lease's length, and drops back to two seconds when a pass finds such rows,
cannot look, or a sender says something may be left (decisions.md B24). Time is virtual: the
passes are counted where they read the table.
"""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from sqlalchemy.exc import OperationalError
from sqlmodel import Session

from tests.bot.conftest import BotRig, running_bot
from tests.fakes.timer import VirtualTimer
from tgbot.delivery import sender
from tgbot.delivery.sender import LEASE_SECONDS, POLL_IDLE_SECONDS, POLL_SECONDS
from tgbot.store import outbox
from tgbot.store.outbox import Message, Payload, Priority


class Passes:
    """When (virtual seconds) each of the poller's passes read the table; `failing` makes the
    passes fail as a database that does not answer would."""

    def __init__(self, timer: VirtualTimer, monkeypatch: pytest.MonkeyPatch) -> None:
        self.times: list[float] = []
        self.failing = False
        real = outbox.chats_with_rows

        def counted(session: Session, *args: Any, **kwargs: Any) -> list[int]:
            self.times.append(timer.monotonic())
            if self.failing:
                raise OperationalError("SELECT", {}, Exception("the database is not answering"))
            return real(session, *args, **kwargs)

        monkeypatch.setattr(outbox, "chats_with_rows", counted)

    def gaps(self, after: float = 0.0) -> list[float]:
        times = [t for t in self.times if t >= after]
        return [round(b - a, 3) for a, b in itertools.pairwise(times)]


@pytest.fixture
async def polled(
    db_url: str, seeds: Callable[[], int], monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[tuple[BotRig, Passes]]:
    """A bot whose poller runs at the shipped pace (the other bot tests turn it off), its passes
    counted from the first."""
    bot = running_bot(db_url, seeds)
    bot.deps.delivery.poll_seconds = POLL_SECONDS
    passes = Passes(bot.timer, monkeypatch)
    async with bot as rig:
        yield rig, passes


def queue_unannounced(rig: BotRig, chat_id: int, text: str) -> None:
    """A row committed without waking this process: as another instance, or one that stopped,
    leaves it."""
    with Session(rig.deps.db.engine) as session:
        outbox.put(session, Message(chat_id, Payload(text), priority=Priority.TURN), rig.clock.now())
        session.commit()


def sent(rig: BotRig, chat_id: int, text: str) -> bool:
    return any(
        c.chat_id == chat_id and c.params.get("text") == text and c.ok
        for c in rig.fake.calls_to("sendMessage")
    )


async def when_sent(rig: BotRig, chat_id: int, text: str, limit: float) -> float:
    """The virtual moment (to a quarter second) the message reaches the chat, within `limit`."""
    until = rig.timer.monotonic() + limit
    while not sent(rig, chat_id, text):
        assert rig.timer.monotonic() < until, f"{text!r} not sent within {limit} s"
        await rig.tg.advance(0.25)
    return rig.timer.monotonic()


async def test_an_idle_poller_doubles_its_pause_up_to_a_lease(
    polled: tuple[BotRig, Passes],
) -> None:
    rig, passes = polled
    await rig.tg.advance(120)
    assert POLL_IDLE_SECONDS == LEASE_SECONDS == 15
    assert passes.gaps()[:6] == [4, 8, 15, 15, 15, 15]
    # 10 passes in two idle minutes where every two seconds made 60
    assert len(passes.times) <= 11


async def test_a_row_nobody_here_sends_is_found_at_the_idle_pace_and_the_pace_turns_quick(
    polled: tuple[BotRig, Passes],
) -> None:
    rig, passes = polled
    await rig.tg.advance(60)
    assert passes.gaps()[-1] == POLL_IDLE_SECONDS
    group = rig.fake.group("Friends")
    left_at = rig.timer.monotonic()
    queue_unannounced(rig, group.id, "Left behind")
    when = await when_sent(rig, group.id, "Left behind", POLL_IDLE_SECONDS + 1)
    assert when <= left_at + POLL_IDLE_SECONDS
    # the pass that found it is followed by a quick one, then the pace slows again
    found = max(t for t in passes.times if t <= when)
    await rig.tg.advance(20)
    assert passes.gaps(after=found)[:3] == [2, 4, 8]


async def test_a_chat_another_instance_holds_is_looked_at_quickly_and_taken_when_its_lease_ends(
    polled: tuple[BotRig, Passes],
) -> None:
    rig, passes = polled
    await rig.tg.advance(60)  # the poller is at its idle pace
    group = rig.fake.group("Friends")
    now = rig.timer.time()
    with Session(rig.deps.db.engine) as session:  # another instance holds the chat for 5 s more
        assert outbox.claim(session, group.id, "another instance", now - LEASE_SECONDS + 5, LEASE_SECONDS)
        outbox.put(session, Message(group.id, Payload("Your turn"), priority=Priority.TURN), rig.clock.now())
        session.commit()
    start = rig.timer.monotonic()
    rig.deps.delivery.wake([group.id])  # this instance wrote it, but cannot have the chat yet
    when = await when_sent(rig, group.id, "Your turn", 12)
    # the other instance stopped without sending: this one takes over within a quick pause of the
    # lease's end, not at its next idle pass (up to 15 s later)
    assert start + 5 <= when <= start + 5 + POLL_SECONDS
    assert all(gap <= POLL_SECONDS for gap in passes.gaps(after=start)[:2])


async def test_passes_that_cannot_read_the_table_stay_quick(
    polled: tuple[BotRig, Passes],
) -> None:
    rig, passes = polled
    await rig.tg.advance(60)
    passes.failing = True
    failed_from = passes.times[-1] + 1
    await rig.tg.advance(45)  # the next idle pass comes, fails, and every one after it is quick
    failed = [t for t in passes.times if t >= failed_from]
    assert len(failed) >= 10
    assert set(passes.gaps(after=failed[0])) == {POLL_SECONDS}
    passes.failing = False
    group = rig.fake.group("Friends")
    queue_unannounced(rig, group.id, "Back again")
    await when_sent(rig, group.id, "Back again", POLL_SECONDS + 0.5)


async def test_a_sender_stopped_by_a_database_error_has_its_chat_looked_at_again_soon(
    polled: tuple[BotRig, Passes], monkeypatch: pytest.MonkeyPatch
) -> None:
    rig, _passes = polled
    await rig.tg.advance(60)  # the poller is at its idle pace: its next pass is 15 s away
    real_claim = sender._claim
    failures = []

    def claim_fails_once(session: Session, *args: Any) -> Any:
        if not failures:
            failures.append(rig.timer.monotonic())
            raise OperationalError("UPDATE", {}, Exception("the database is not answering"))
        return real_claim(session, *args)

    monkeypatch.setattr(sender, "_claim", claim_fails_once)
    group = rig.fake.group("Friends")
    queue_unannounced(rig, group.id, "Still there")
    start = rig.timer.monotonic()
    rig.deps.delivery.wake([group.id])
    when = await when_sent(rig, group.id, "Still there", POLL_IDLE_SECONDS)
    assert failures == [start]
    assert when <= start + POLL_SECONDS
