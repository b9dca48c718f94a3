"""A slow or locked database slows only the updates that need it (issue "Flood-proof play", item 1;
issue "A group that enjoys the game": one clear message, one log line per outage).

The bot runs for real (webhook server, `tgbot.runner.serve`); another connection holds SQLite's
write lock, so every transaction of the bot waits for it: that is what a hung database looks like
from the bot's side.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sqlite3
import time
from pathlib import Path

import pytest

from tests.fakes import FakeTelegram
from tgbot.web import SECRET_HEADER

from .conftest import served
from .test_web import SECRET, webhook_settings

TROUBLE = "The bot is having trouble right now. Please try again in a minute."


def locked(db_file: Path) -> sqlite3.Connection:
    """Another process's transaction holding the database's write lock."""
    holder = sqlite3.connect(db_file, isolation_level=None, timeout=1)
    holder.execute("BEGIN EXCLUSIVE")
    return holder


async def test_a_locked_database_never_freezes_the_bot(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    db_file = tmp_path / "bot.sqlite3"
    fake = FakeTelegram()
    ana = fake.user(1, "Ana")
    group = fake.group("Friends")
    async with served(f"sqlite:///{db_file}", webhook=True, fake=fake, **webhook_settings()) as bot:
        await bot.until(lambda: fake.webhook is not None)
        url = bot.url("/telegram/hook")
        headers = {"Content-Type": "application/json", SECRET_HEADER: SECRET}

        async def post(update: dict[str, object]) -> None:
            answer = await bot.http.post(url, content=json.dumps(update), headers=headers)
            assert answer.status_code == 200
            await fake.webhook_reply(answer.status_code, answer.headers.get("content-type"), answer.content)

        await post(fake.command_update(group, ana, "/newgame@tweak_test_bot"))
        await bot.until(lambda: bool(fake.messages(group.id)))
        lobby = fake.last_message(group.id)
        holder = locked(db_file)
        try:
            taps = [fake.callback_update(ana, lobby, "lo:1") for _ in range(3)]
            for tap in taps:
                await post(tap)
            await post(fake.command_update(group, ana, "/help@tweak_test_bot"))
            await post(fake.command_update(group, ana, "/top@tweak_test_bot"))
            # While the taps and commands wait for the database, the bot still answers at once.
            for _ in range(3):
                started = time.perf_counter()
                health = await bot.http.get(bot.url("/healthz"))
                assert time.perf_counter() - started < 1.0
                assert health.status_code in (200, 503)
                await asyncio.sleep(0.5)
            # Every tap is answered (within Telegram's 15 s) with an apology, not a spinner.
            await bot.until(lambda: all(fake.answers[t["callback_query"]["id"]].answered for t in taps), 14)
            assert {fake.answers[t["callback_query"]["id"]].text for t in taps} == {TROUBLE}
            # The commands got one apology between them, not one each.
            await bot.until(lambda: any(TROUBLE in (m.text or "") for m in fake.messages(group.id)), 14)
        finally:
            holder.rollback()
            holder.close()
        # One log line for the outage, one when the database is back.
        await post(fake.command_update(group, ana, "/help@tweak_test_bot"))
        await bot.until(lambda: any("/newgame" in (m.text or "") for m in fake.messages(group.id)[1:]))
    apologies = [m for m in fake.messages(group.id) if TROUBLE in (m.text or "")]
    assert len(apologies) == 1
    down = [r for r in caplog.records if "the database is not answering" in r.getMessage()]
    back = [r for r in caplog.records if "the database answers again" in r.getMessage()]
    assert len(down) == 1 and len(back) == 1
    assert not [r for r in caplog.records if r.exc_info and r.name.startswith("tweakbot")]
