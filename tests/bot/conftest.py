"""Fixtures that build the real bot Application over a fake Telegram and a real database."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr

from tests.fakes import FakeTelegram, TelegramTestClient
from tests.fakes.flood import FloodLimits
from tests.fakes.telegram import TEST_TOKEN
from tests.fakes.timer import VirtualTimer
from tgbot.app import build_application, make_deps
from tgbot.config import Settings
from tgbot.delivery import charts
from tgbot.deps import Deps
from tgbot.store.db import make_engine
from tgbot.time_source import ManualClock


@dataclass
class BotRig:
    """One running bot: the fake Telegram, the client that drives it, its services."""

    fake: FakeTelegram
    tg: TelegramTestClient
    deps: Deps
    clock: ManualClock
    db_url: str
    timer: VirtualTimer


def make_settings(db_url: str, **overrides: Any) -> Settings:
    return Settings(telegram_bot_token=SecretStr(TEST_TOKEN), database_url=db_url, **overrides)


@pytest.fixture
def db_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'bot.sqlite3'}"


#: The first game seed of every bot test. Another base deals other hands to every test, which is
#: how a set-up that only holds for one deal is found (DEVELOPERS.md, *Other deals*).
SEED_BASE = int(os.environ.get("TWEAK_TEST_SEED_BASE", "1000"))


@pytest.fixture
def seeds() -> Callable[[], int]:
    counter = iter(range(1, 10**6))
    return lambda: SEED_BASE + next(counter)


@pytest.fixture
async def rig(db_url: str, seeds: Callable[[], int]) -> AsyncIterator[BotRig]:
    async with running_bot(db_url, seeds) as bot:
        yield bot


class running_bot:
    """Start a bot over `db_url`; a second one over the same URL is a restart."""

    def __init__(
        self,
        db_url: str,
        seeds: Callable[[], int] | None = None,
        clock: ManualClock | None = None,
        fake: FakeTelegram | None = None,
        **settings: Any,
    ) -> None:
        self.settings = make_settings(db_url, **settings)
        self.clock = clock or ManualClock()
        # Telegram's flood limits are on, on a virtual timer that jumps ahead whenever the bot
        # only waits for its budget: every test also checks that the bot never gets a 429.
        self.timer = (
            fake.timer if fake is not None and isinstance(fake.timer, VirtualTimer) else VirtualTimer()
        )
        self.fake = fake or FakeTelegram(clock=self.clock.now, timer=self.timer, flood=FloodLimits())
        deps = make_deps(self.settings, db=make_engine(db_url), clock=self.clock, timer=self.timer)
        if seeds is not None:
            deps.seed_source = seeds
        deps.delivery.poll_seconds = 0  # every test wakes its senders through commits
        deps.delivery.draw_chart = charts.draw_here  # a process per chart is tested apart (test_charts)
        self.deps = deps
        app = build_application(self.settings, deps=deps, request=self.fake)
        self.tg = TelegramTestClient(app, self.fake)

    async def __aenter__(self) -> BotRig:
        await self.tg.start()
        return BotRig(self.fake, self.tg, self.deps, self.clock, str(self.settings.database_url), self.timer)

    async def __aexit__(self, *exc: object) -> None:
        await self.tg.stop()
        if exc[0] is None:
            assert not self.fake.flood_rejections, (
                f"the bot hit Telegram's flood limit: {self.fake.flood_rejections}"
            )
        self.deps.db.close()
