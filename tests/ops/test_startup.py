"""Starting while Telegram is unreachable, and a second instance polling with the same token.

Both used to end in tracebacks (42 frames for an unreachable Telegram, one per 409 Conflict, about
a minute's worth each minute). Here the bot talks real HTTP to the fake Bot API, as a subprocess
stopped by SIGTERM or as `serve()` in-process, and the tests count the log lines it writes.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import socket
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.bot.conftest import make_settings
from tests.fakes import FakeTelegram
from tests.fakes.telegram import TEST_TOKEN
from tests.ops.fake_http import FakeBotApiServer
from tests.ops.processes import bot_env, running_bot, start_bot, until
from tgbot import runner
from tgbot.app import build_application, make_deps
from tgbot.runner import PollingErrors, serve
from tgbot.store.db import make_engine
from tgbot.time_source import ManualClock

REPO = Path(__file__).resolve().parents[2]
TIMEOUT = 60.0
CONFLICT = "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running"


def closed_port() -> int:
    """A local port nobody listens on: connecting to it fails at once, like an unreachable host."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


async def read_until(process: asyncio.subprocess.Process, done: Callable[[list[str]], bool]) -> list[str]:
    """The process's log lines, read as they come, until ``done(lines)``."""
    assert process.stderr is not None
    lines: list[str] = []

    async def read() -> None:
        assert process.stderr is not None
        while not done(lines):
            raw = await process.stderr.readline()
            assert raw, "the bot exited early:\n" + "".join(lines)
            lines.append(raw.decode())

    await asyncio.wait_for(read(), TIMEOUT)
    return lines


async def stop_bot(process: asyncio.subprocess.Process, lines: list[str]) -> list[str]:
    """SIGTERM, then every line up to the exit."""
    process.send_signal(signal.SIGTERM)
    _out, rest = await asyncio.wait_for(process.communicate(), 30)
    return [line.rstrip("\n") for line in lines + rest.decode().splitlines(keepends=True)]


async def test_unreachable_telegram_is_retried_with_one_line_per_attempt_until_sigterm(
    tmp_path: Path,
) -> None:
    base_url = f"http://127.0.0.1:{closed_port()}/bot"
    async with running_bot(tmp_path, bot_env(tmp_path, base_url)) as process:
        lines = await read_until(process, lambda lines: sum("WARNING" in line for line in lines) >= 2)
        log = await stop_bot(process, lines)
    text = "\n".join(log)
    assert process.returncode == 0, text
    assert "Traceback" not in text and TEST_TOKEN.split(":")[1] not in text
    warnings = [line for line in log if " WARNING " in line]
    assert len(warnings) >= 2
    # One line per attempt, saying what failed and when the next try comes: 1 s, then 2 s.
    assert "getMe failed (attempt 1, NetworkError: " in warnings[0] and "retrying in 1 s" in warnings[0]
    assert "getMe failed (attempt 2, " in warnings[1] and "retrying in 2 s" in warnings[1]
    assert "stopping (SIGTERM) before Telegram could be reached" in text
    assert log[-1].endswith("tweakbot stopped cleanly"), text


async def test_telegram_coming_back_is_picked_up_without_a_restart(tmp_path: Path) -> None:
    fake = FakeTelegram()
    ana = fake.user(1, "Ana")
    group = fake.group("Friends")
    fake.fail_next("getMe", 502, times=2)  # a proxy in front of an unreachable Telegram
    fake.queue_update(fake.command_update(group, ana, "/help@tweak_test_bot"))
    async with (
        FakeBotApiServer(fake, TEST_TOKEN) as api,
        running_bot(tmp_path, bot_env(tmp_path, api.base_url)) as process,
    ):
        await asyncio.wait_for(api.arrived("sendMessage").wait(), TIMEOUT)
        lines = await read_until(process, lambda lines: any("tweakbot running" in line for line in lines))
        log = await stop_bot(process, lines)
    text = "\n".join(log)
    assert process.returncode == 0, text
    assert "Traceback" not in text
    running = [line for line in log if "tweakbot running mode=polling" in line]
    assert running and running[0].endswith("loop=asyncio"), text  # a polling bot's default loop
    warnings = [line for line in log if " WARNING " in line]
    assert len(warnings) == 2, text
    assert all("getMe failed" in line and "Bad Gateway" in line for line in warnings)
    assert [call.ok for call in fake.calls_to("getMe")] == [False, False, True]
    assert [m for m in fake.messages(group.id) if m.from_bot]  # and then it served the group


async def test_a_token_telegram_rejects_is_one_line_and_exit_2(tmp_path: Path) -> None:
    fake = FakeTelegram()
    async with FakeBotApiServer(fake, "1000000:the-token-telegram-knows-is-another-one") as api:
        process = await start_bot(tmp_path, bot_env(tmp_path, api.base_url))
        _out, err = await asyncio.wait_for(process.communicate(), TIMEOUT)
    text = err.decode()
    assert process.returncode == 2, text
    assert "Traceback" not in text and TEST_TOKEN.split(":")[1] not in text
    errors = [line for line in text.splitlines() if " ERROR " in line]
    assert len(errors) == 1 and "Telegram rejected TELEGRAM_BOT_TOKEN" in errors[0], text
    assert len(api.requests) == 1  # a rejected token is not retried


@asynccontextmanager
async def serving(
    tmp_path: Path, fake: FakeTelegram, *, webhook: bool, **overrides: Any
) -> AsyncIterator[None]:
    """`serve()` in-process over real HTTP to the fake Bot API, until the block ends."""
    db_url = f"sqlite:///{tmp_path / 'bot.sqlite3'}"
    async with FakeBotApiServer(fake, TEST_TOKEN) as api:
        settings = make_settings(db_url, telegram_api_base_url=api.base_url, **overrides)
        deps = make_deps(settings, db=make_engine(db_url), clock=ManualClock())
        application = build_application(settings, deps=deps)
        stop = asyncio.Event()
        task = asyncio.create_task(
            serve(application, settings, webhook=webhook, stop=stop, handle_signals=False)
        )
        try:
            yield
            assert not task.done() or task.result() is None
        finally:
            stop.set()
            await asyncio.wait_for(task, 30)
            deps.db.close()


def bot_records(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    """The bot's and PTB's records (not the fake server's access log)."""
    return [r for r in caplog.records if r.name.startswith(("tweakbot", "telegram"))]


async def test_set_webhook_is_retried_until_telegram_takes_it(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    fake = FakeTelegram()
    fake.fail_next("setWebhook", 500, times=1)
    hook = {
        "webhook_url": "https://bot.example.com/telegram",
        "webhook_secret": "s3cret-for-tests",
        "webhook_listen": "127.0.0.1",
        "webhook_port": 0,
    }
    async with serving(tmp_path, fake, webhook=True, **hook):
        await until(lambda: fake.webhook is not None)
    assert fake.webhook is not None and fake.webhook["secret_token"] == "s3cret-for-tests"
    warnings = [r for r in bot_records(caplog) if r.levelno >= logging.WARNING]
    assert len(warnings) == 1 and warnings[0].levelno == logging.WARNING
    assert warnings[0].getMessage().startswith("setWebhook failed (attempt 1, NetworkError: ")
    assert not [r for r in caplog.records if r.exc_info], "no tracebacks"


async def test_another_instance_polling_is_said_once_without_tracebacks(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    fake = FakeTelegram()
    fake.fail_next("getUpdates", 409, CONFLICT, times=3)  # PTB retries after 1 s, 1.5 s, 2.25 s

    def conflicts_then_a_poll() -> bool:
        calls = fake.calls_to("getUpdates")
        return len(calls) > 3 and calls[3].ok

    async with serving(tmp_path, fake, webhook=False):
        await until(conflicts_then_a_poll)
    assert [call.status for call in fake.calls_to("getUpdates")[:4]] == [409, 409, 409, 200]
    said = [r for r in bot_records(caplog) if "another instance is polling" in r.getMessage()]
    assert len(said) == 1 and said[0].levelno == logging.ERROR
    assert "409 Conflict" in said[0].getMessage() and "--webhook" in said[0].getMessage()
    assert not [r for r in caplog.records if r.exc_info], "no tracebacks"
    assert [r for r in bot_records(caplog) if r.levelno >= logging.WARNING] == said


def test_a_conflict_is_said_again_only_after_it_stopped_and_came_back(
    caplog: pytest.LogCaptureFixture,
) -> None:
    from telegram.error import Conflict, NetworkError

    caplog.set_level(logging.INFO)
    now = [0.0]
    errors = PollingErrors(quiet=runner.CONFLICT_QUIET_SECONDS, clock=lambda: now[0])
    for moment in (0.0, 1.0, 2.5, 4.75, 30.0, 60.0):  # one episode, PTB's retries within it
        now[0] = moment
        errors(Conflict(CONFLICT))
    assert sum("another instance" in r.getMessage() for r in caplog.records) == 1
    now[0] = 60.0 + runner.CONFLICT_QUIET_SECONDS + 1  # quiet for a while: the other one stopped
    errors(Conflict(CONFLICT))
    errors(NetworkError("httpx.ConnectError: All connection attempts failed"))
    messages = [(r.levelname, r.getMessage()) for r in caplog.records]
    assert sum("another instance" in m for _level, m in messages) == 2
    assert messages[-1] == (
        "WARNING",
        "getUpdates failed (NetworkError: httpx.ConnectError: All connection attempts failed); retrying",
    )
    assert not [r for r in caplog.records if r.exc_info]
