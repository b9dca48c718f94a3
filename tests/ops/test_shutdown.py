"""`tweakbot` as operators run it: a real process, real HTTP to a fake Bot API, stopped by SIGTERM."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path

from sqlalchemy import inspect

from tests.fakes import FakeTelegram
from tests.fakes.telegram import TEST_TOKEN
from tests.ops.fake_http import FakeBotApiServer
from tgbot import migrations
from tgbot.store.db import make_engine

START_TIMEOUT = 60.0
REPO = Path(__file__).resolve().parents[2]


def bot_env(tmp_path: Path, api: FakeBotApiServer, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "WEBHOOK_URL", "METRICS_PORT")}
    # Import this checkout's tgbot even when the project is not installed into the interpreter.
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    env.update(
        TELEGRAM_BOT_TOKEN=TEST_TOKEN,
        TELEGRAM_API_BASE_URL=api.base_url,
        DATABASE_URL=f"sqlite:///{tmp_path / 'bot.sqlite3'}",
        LOG_LEVEL="INFO",
        TWEAKBOT_SWEEP_INTERVAL="1s",
        **extra,
    )
    return env


async def test_sigterm_finishes_the_update_in_flight_and_exits_cleanly(tmp_path: Path) -> None:
    fake = FakeTelegram()
    ana = fake.user(1, "Ana")
    group = fake.group("Friends")
    async with FakeBotApiServer(fake, TEST_TOKEN) as api:
        update = fake.command_update(group, ana, "/help@tweak_test_bot")
        fake.queue_update(update)
        api.hold("sendMessage", 1.0)  # the reply is in flight when SIGTERM arrives
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "tgbot",
            cwd=tmp_path,
            env=bot_env(tmp_path, api),
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        try:
            await asyncio.wait_for(api.arrived("sendMessage").wait(), START_TIMEOUT)
            process.send_signal(signal.SIGTERM)
            _out, err = await asyncio.wait_for(process.communicate(), 30)
        finally:
            if process.returncode is None:
                process.kill()
                await process.wait()
    log = err.decode()
    assert process.returncode == 0, log
    assert "stopping (SIGTERM): finishing the updates in flight" in log
    assert log.rstrip().splitlines()[-1].endswith("tweakbot stopped cleanly"), log
    # The reply that was in flight was delivered, once.
    replies = [m for m in fake.messages(group.id) if m.from_bot]
    assert len(replies) == 1 and "/newgame" in replies[0].text
    sent = fake.calls_to("sendMessage")
    assert len(sent) == 1 and sent[0].ok
    # The update was confirmed to Telegram before exiting, so a restart does not handle it again.
    offsets = [int(call.params.get("offset") or 0) for call in fake.calls_to("getUpdates")]
    assert max(offsets) > update["update_id"]
    # One structured line for the update, and the token nowhere in the logs.
    lines = [line for line in log.splitlines() if "tweakbot.updates" in line]
    assert len(lines) == 1 and "action=help outcome=ok" in lines[0], log
    assert TEST_TOKEN not in log and TEST_TOKEN.split(":")[1] not in log
    # The bot migrated its database on start.
    engine = make_engine(f"sqlite:///{tmp_path / 'bot.sqlite3'}")
    try:
        assert migrations.current(engine) == migrations.head()
        assert "games" in inspect(engine).get_table_names()
    finally:
        engine.dispose()


async def test_migrate_command_only_migrates(tmp_path: Path) -> None:
    fake = FakeTelegram()
    async with FakeBotApiServer(fake, TEST_TOKEN) as api:
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "tgbot",
            "migrate",
            cwd=tmp_path,
            env=bot_env(tmp_path, api),
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        _out, err = await asyncio.wait_for(process.communicate(), START_TIMEOUT)
    assert process.returncode == 0, err.decode()
    assert f"schema revision {migrations.head()}" in err.decode()
    assert api.requests == []  # it never talked to Telegram
    engine = make_engine(f"sqlite:///{tmp_path / 'bot.sqlite3'}")
    try:
        assert migrations.current(engine) == migrations.head()
    finally:
        engine.dispose()
