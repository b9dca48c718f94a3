"""A sender never starts a call on a lease that has run out.

At the bot's ceiling a clean-up (keys off an old board, the lobby's last edit) can wait many
seconds for a slot of the process's budget while its sender holds the chat and the row. If that
wait outlasts the lease, another instance may take the chat meanwhile and send the same row; a
post would then show twice in the group, an edit be refused as "message is not modified" (seen
with two instances at 200 groups: decisions.md B21). After such a wait the
sender holds the chat again, with the row unchanged, before it sends, or lets the row go.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from sqlmodel import Session

from tests.bot.conftest import BotRig
from tgbot.delivery.budget import GlobalBudget, Slot
from tgbot.delivery.sender import LEASE_SECONDS
from tgbot.store import outbox
from tgbot.store.outbox import Message, Payload, Priority
from tgbot.time_source import Wakeup


class SlowSlot(GlobalBudget):
    """A process budget whose next slot comes when the test says (`go`)."""

    def __init__(self, budget: GlobalBudget) -> None:
        super().__init__(budget.timer, budget.rate, budget.cosmetic)
        self.asked = asyncio.Event()
        self.go = asyncio.Event()

    async def take(
        self, priority: int = Priority.TURN, wake: Wakeup | None = None, outranked: Callable[[], bool] = bool
    ) -> Slot | None:
        self.asked.set()
        await self.go.wait()
        return Slot()


async def queue_and_wait_for_a_slot(
    rig: BotRig, chat_id: int, text: str
) -> tuple[SlowSlot, asyncio.Task[None]]:
    delivery = rig.deps.delivery
    slot = delivery.global_budget = SlowSlot(delivery.global_budget)
    with Session(rig.deps.db.engine) as session:
        outbox.put(session, Message(chat_id, Payload(text), priority=Priority.COSMETIC), rig.clock.now())
        session.commit()
    delivery.wake([chat_id])
    task = delivery._senders[chat_id].task
    assert task is not None
    await asyncio.wait_for(slot.asked.wait(), 5)
    return slot, task


def posts(rig: BotRig, chat_id: int, text: str) -> int:
    return sum(
        1 for c in rig.fake.calls_to("sendMessage") if c.chat_id == chat_id and c.params.get("text") == text
    )


def waiting(rig: BotRig, chat_id: int) -> int:
    """1 when the chat still has a row queued."""
    with Session(rig.deps.db.engine) as session:
        return int(chat_id in outbox.chats_with_rows(session))


async def test_a_lease_run_out_while_waiting_for_a_slot_leaves_the_row_to_the_instance_that_took_the_chat(
    rig: BotRig,
) -> None:
    group = rig.fake.group("Friends")
    slot, sender = await queue_and_wait_for_a_slot(rig, group.id, "Old news")
    rig.timer.advance(LEASE_SECONDS + 1)
    with Session(rig.deps.db.engine) as session:  # another instance takes the chat, as it may now
        assert (
            outbox.claim(session, group.id, "another instance", rig.timer.time(), LEASE_SECONDS) is not None
        )
        session.commit()
    slot.go.set()
    await asyncio.wait_for(sender, 5)
    assert posts(rig, group.id, "Old news") == 0  # the other instance sends it, once
    assert waiting(rig, group.id) == 1


async def test_a_long_wait_with_the_chat_still_free_sends_the_row_once(rig: BotRig) -> None:
    group = rig.fake.group("Friends")
    slot, sender = await queue_and_wait_for_a_slot(rig, group.id, "Old news")
    rig.timer.advance(LEASE_SECONDS + 1)
    slot.go.set()
    await asyncio.wait_for(sender, 5)
    assert posts(rig, group.id, "Old news") == 1
    assert waiting(rig, group.id) == 0
