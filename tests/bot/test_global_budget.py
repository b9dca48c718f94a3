"""The bot's writes per second across all chats (`GlobalBudget`): cosmetic writes (keys taken off
old boards, lobby edits) take a slot only while the second has room to spare, so at the bot's
ceiling one group's clean-up never takes the slot another group's next board needs."""

from __future__ import annotations

import asyncio

from tests.fakes.timer import VirtualTimer
from tgbot.clock import Wakeup
from tgbot.delivery.budget import GlobalBudget
from tgbot.store.outbox import Priority


async def settle() -> None:
    """Let every task that can run do so."""
    for _ in range(10):
        await asyncio.sleep(0)


async def spend(budget: GlobalBudget, writes: int) -> None:
    for _ in range(writes):
        assert await budget.take(Priority.TURN)


async def test_at_the_cosmetic_share_a_board_goes_at_once_and_a_clean_up_waits() -> None:
    timer = VirtualTimer()
    budget = GlobalBudget(timer, rate=5, cosmetic=3)
    await spend(budget, 3)
    assert budget.wait(Priority.BOARD) == 0.0
    assert budget.wait(Priority.CLEANUP) == 1.0  # until the first of the three leaves the second
    clean_up = asyncio.ensure_future(budget.take(Priority.CLEANUP))
    await settle()
    assert await budget.take(Priority.BOARD)  # the board does not queue behind it
    assert not clean_up.done()
    timer.advance(1.0)
    assert await clean_up is True


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
    assert await waiting is False
    assert budget.wait(Priority.BOARD) == 0.0 and budget.wait(Priority.CLEANUP) == 1.0  # nothing spent


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
