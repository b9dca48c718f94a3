"""Building the real Application over the fake Telegram, the way the production runner uses it."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from telegram.ext import Application

from tests.bot.conftest import make_settings
from tests.fakes import FakeTelegram
from tgbot.app import build_application, make_deps
from tgbot.config import Settings
from tgbot.deps import Deps
from tgbot.runner import serve
from tgbot.store.db import make_engine
from tgbot.time_source import ManualClock
from tgbot.web import BotServer


@pytest.fixture
def root_logging_restored() -> Iterator[None]:
    """`main()` configures the root logger for the process; the test's own is put back after."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    try:
        yield
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)


@dataclass
class Served:
    app: Application  # type: ignore[type-arg]
    deps: Deps
    fake: FakeTelegram
    settings: Settings
    servers: list[BotServer]
    http: httpx.AsyncClient

    def url(self, path: str, server: int = 0) -> str:
        return f"http://127.0.0.1:{self.servers[server].port}{path}"

    async def until(self, condition: Any, timeout: float = 5.0) -> None:
        """Wait (briefly polling) until ``condition()`` is true."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not condition():
            assert loop.time() < deadline, "timed out waiting for the bot"
            await asyncio.sleep(0.01)


def build(
    db_url: str, fake: FakeTelegram, **overrides: Any
) -> tuple[
    Application, Deps, Settings  # type: ignore[type-arg]
]:
    settings = make_settings(db_url, **overrides)
    deps = make_deps(settings, db=make_engine(db_url), clock=ManualClock())
    app = build_application(settings, deps=deps, request=fake)
    return app, deps, settings


@contextlib.asynccontextmanager
async def served(
    db_url: str, *, webhook: bool, fake: FakeTelegram | None = None, servers: int = 1, **overrides: Any
) -> AsyncIterator[Served]:
    """Run `tgbot.runner.serve` in the background (no signal handlers) until the block ends."""
    fake = fake or FakeTelegram()
    app, deps, settings = build(db_url, fake, **overrides)
    stop = asyncio.Event()
    started: list[BotServer] = []
    task = asyncio.create_task(
        serve(app, settings, webhook=webhook, stop=stop, handle_signals=False, servers=started)
    )
    try:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 10
        while len(started) < servers or not app.running:
            if task.done():
                task.result()
            assert loop.time() < deadline, "the bot did not start"
            await asyncio.sleep(0.01)
        async with httpx.AsyncClient(timeout=5) as http:
            yield Served(app, deps, fake, settings, started, http)
    finally:
        stop.set()
        await asyncio.wait_for(task, 10)
        deps.db.close()
        gc.unfreeze()  # the runner froze the test process's heap with the bot's (`settle_heap`)
