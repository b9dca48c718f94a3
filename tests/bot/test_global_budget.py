"""The bot's writes per second across all chats (`GlobalBudget`): cosmetic writes (keys taken off
old boards, lobby edits) take a slot only while the second has room to spare, so at the bot's
ceiling one group's clean-up never takes the slot another group's next board needs; and a slot is
held until a second after its call returns, so calls that go out late never bunch past the rate
at Telegram's end."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from sqlmodel import Session

from tests.bot.conftest import BotRig
from tests.fakes.timer import VirtualTimer
from tgbot.delivery import telegram_io as io
from tgbot.delivery.budget import GLOBAL_RATE, GlobalBudget
from tgbot.store import outbox
from tgbot.store.outbox import Message, Payload, Priority
from tgbot.time_source import Wakeup


async def settle() -> None:
    """Let every task that can run do so."""
    for _ in range(10):
        await asyncio.sleep(0)


async def spend(budget: GlobalBudget, writes: int) -> None:
    """Writes whose calls return at once."""
    for _ in range(writes):
        slot = await budget.take(Priority.TURN)
        assert slot is not None
        budget.landed(slot)


async def test_at_the_cosmetic_share_a_board_goes_at_once_and_a_clean_up_waits() -> None:
    timer = VirtualTimer()
    budget = GlobalBudget(timer, rate=5, cosmetic=3)
    await spend(budget, 3)
    assert budget.wait(Priority.BOARD) == 0.0
    assert budget.wait(Priority.CLEANUP) == 1.0  # until the first of the three leaves the second
    clean_up = asyncio.ensure_future(budget.take(Priority.CLEANUP))
    await settle()
    assert await budget.take(Priority.BOARD) is not None  # the board does not queue behind it
    assert not clean_up.done()
    timer.advance(1.0)
    assert await clean_up is not None


async def test_a_full_second_holds_every_write() -> None:
    timer = VirtualTimer()
    budget = GlobalBudget(timer, rate=5, cosmetic=3)
    await spend(budget, 5)
    assert budget.wait(Priority.BOARD) == 1.0
    timer.advance(0.4)
    assert budget.wait(Priority.BOARD) == 0.6


async def test_a_waiting_clean_up_gives_its_place_up_to_a_more_urgent_row() -> None:
    """Its sender holds the chat while it waits: a board of the same chat would wait behind it.
    Woken, it asks whether it was outranked, and if so gives up without spending a slot."""
    timer = VirtualTimer()
    budget = GlobalBudget(timer, rate=5, cosmetic=3)
    await spend(budget, 3)
    wake = Wakeup()
    urgent: list[int] = []
    waiting = asyncio.ensure_future(
        budget.take(Priority.CLEANUP, wake, lambda: bool(urgent) and urgent[0] < Priority.CLEANUP)
    )
    await settle()
    urgent.append(Priority.CLEANUP)  # another clean-up: not more urgent, it waits on
    wake.set()
    await settle()
    assert not waiting.done() and not wake.is_set()
    urgent[0] = Priority.BOARD
    wake.set()
    assert await waiting is None
    assert budget.wait(Priority.BOARD) == 0.0 and budget.wait(Priority.CLEANUP) == 1.0  # nothing spent


async def test_a_slot_is_held_until_a_second_after_its_call_returns() -> None:
    """Five calls taken at 0 that reach Telegram late, at 0.9: the next five must not go at 1.0,
    or Telegram would count ten in the second from 0.9."""
    timer = VirtualTimer()
    budget = GlobalBudget(timer, rate=5, cosmetic=3)
    slots = [await budget.take(Priority.TURN) for _ in range(5)]
    timer.advance(0.5)
    assert budget.wait(Priority.TURN) == 1.0  # in flight: a second from now at the earliest
    timer.advance(0.4)
    for slot in slots:
        assert slot is not None
        budget.landed(slot)
    timer.advance(0.1)  # a second after they were taken
    assert budget.wait(Priority.TURN) == pytest.approx(0.9)
    timer.advance(0.9)
    assert budget.wait(Priority.TURN) == 0.0


async def test_calls_landing_out_of_order_free_their_slots_in_the_order_they_landed() -> None:
    timer = VirtualTimer()
    budget = GlobalBudget(timer, rate=2, cosmetic=1)
    slow, quick = await budget.take(Priority.TURN), await budget.take(Priority.TURN)
    assert slow is not None and quick is not None
    timer.advance(0.2)
    budget.landed(quick)
    timer.advance(0.5)
    budget.landed(slow)
    assert budget.wait(Priority.TURN) == pytest.approx(0.5)  # the quick one leaves at 1.2
    assert budget.wait(Priority.CLEANUP) == pytest.approx(1.0)  # both must leave: the slow at 1.7


def test_an_instance_given_a_share_of_the_token_keeps_to_it() -> None:
    """TWEAKBOT_SEND_RATE: two instances busy on one token take 12 a second each, not 25 each
    (50 > Telegram's 30); cosmetic writes keep the same share of what is left."""
    from sqlalchemy import create_engine

    from tgbot.app import make_deps
    from tgbot.config import Settings

    token = "123456:" + "A" * 35
    for rate, cosmetic in ((None, 18), (12, 8), (1, 1)):
        settings = (
            Settings(telegram_bot_token=token)
            if rate is None
            else Settings(telegram_bot_token=token, send_rate=rate)
        )
        budget = make_deps(settings, db=create_engine("sqlite://")).delivery.global_budget
        assert (budget.rate, budget.cosmetic) == (rate or 25, cosmetic)


async def test_calls_that_reach_telegram_late_never_bunch_past_the_rate(
    rig: BotRig, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A saturated process: the first second's calls reach Telegram 0.75 s after their slots were
    taken (a time the virtual clock holds exactly), the rest at once. Counted from when the slots
    were taken, the next second's writes would land beside them: 50 in a second, 429s past
    Telegram's 30. The rig fails on any 429."""
    real = io.deliver
    calls = 0

    async def late(*args: Any, **kwargs: Any) -> io.Outcome:
        nonlocal calls
        calls += 1
        if calls <= GLOBAL_RATE:
            await rig.timer.sleep(0.75)
        return await real(*args, **kwargs)

    monkeypatch.setattr(io, "deliver", late)
    groups = [rig.fake.group(f"Table {i}") for i in range(3 * GLOBAL_RATE)]
    with Session(rig.deps.db.engine) as session:
        for group in groups:
            outbox.put(session, Message(group.id, Payload(f"Board of {group.title}")), rig.clock.now())
        session.commit()
    rig.deps.delivery.wake([g.id for g in groups])
    for _ in range(30):
        await rig.tg.advance(0.5)
        if len(rig.fake.write_times()) == len(groups):
            break
    assert len(rig.fake.write_times()) == len(groups)
    assert rig.fake.max_writes_in_window(None, 1.0) <= GLOBAL_RATE
