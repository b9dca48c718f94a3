"""Flood control: with PTB's rate limiter on, a 429 is retried after retry_after, and sent once."""

from __future__ import annotations

import time
from pathlib import Path

from tests.fakes import FakeTelegram, TelegramTestClient
from tgbot import metrics
from tgbot.metrics import CountingRateLimiter

from .conftest import build


async def test_a_429_is_retried_after_retry_after_and_the_message_arrives_once(tmp_path: Path) -> None:
    fake = FakeTelegram()
    app, deps, _settings = build(f"sqlite:///{tmp_path / 'bot.sqlite3'}", fake, rate_limiter=True)
    assert isinstance(app.bot.rate_limiter, CountingRateLimiter)
    ana = fake.user(1, "Ana")
    group = fake.group("Friends")
    errors_before = metrics.value("tweakbot_telegram_api_errors_total", {"kind": "retry_after"})
    async with TelegramTestClient(app, fake) as tg:
        fake.fail_next("sendMessage", 429, retry_after=1)
        started = time.monotonic()
        await tg.send(group, ana, "/help@tweak_test_bot")
        waited = time.monotonic() - started
    deps.db.dispose()
    attempts = fake.calls_to("sendMessage")
    assert [call.status for call in attempts] == [429, 200]
    assert attempts[0].params == attempts[1].params
    replies = [m for m in fake.messages(group.id) if m.from_bot]
    assert len(replies) == 1 and "/newgame" in replies[0].text
    assert waited >= 1.0  # it waited for retry_after before trying again
    assert metrics.value("tweakbot_telegram_api_errors_total", {"kind": "retry_after"}) == errors_before + 1
