"""Running `python -m tgbot` as an operator does, against the fake Bot API over HTTP."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

from tests.fakes import FakeTelegram
from tests.fakes.telegram import TEST_TOKEN, FakeChat, FakeUser, StoredMessage

REPO = Path(__file__).resolve().parents[2]
START_TIMEOUT = 60.0


def bot_env(tmp_path: Path, base_url: str, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "WEBHOOK_URL", "METRICS_PORT")}
    # Import this checkout's tgbot even when the project is not installed into the interpreter.
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    env.update(
        TELEGRAM_BOT_TOKEN=TEST_TOKEN,
        TELEGRAM_API_BASE_URL=base_url,
        DATABASE_URL=f"sqlite:///{tmp_path / 'bot.sqlite3'}",
        LOG_LEVEL="INFO",
        TWEAKBOT_SWEEP_INTERVAL="1s",
        **extra,
    )
    return env


async def start_bot(
    tmp_path: Path, env: dict[str, str], *args: str, stdout: int | None = asyncio.subprocess.PIPE
) -> asyncio.subprocess.Process:
    """`python -m tgbot [args]` in `tmp_path`; its stderr (the log) is piped."""
    return await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "tgbot",
        *args,
        cwd=tmp_path,
        env=env,
        stdout=stdout,
        stderr=asyncio.subprocess.PIPE,
    )


@asynccontextmanager
async def running_bot(
    tmp_path: Path, env: dict[str, str], *args: str, stdout: int | None = asyncio.subprocess.PIPE
) -> AsyncIterator[asyncio.subprocess.Process]:
    """`start_bot`, killed on the way out if the test left it running (a failed wait or assertion),
    so no bot outlives its test."""
    process = await start_bot(tmp_path, env, *args, stdout=stdout)
    try:
        yield process
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()


async def until(condition: Callable[[], object], timeout: float = START_TIMEOUT) -> None:
    """Wait, briefly polling, until `condition()` is true."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        assert loop.time() < deadline, "timed out waiting for the bot"
        await asyncio.sleep(0.02)


def keyed(fake: FakeTelegram, chat_id: int, prefix: str) -> list[StoredMessage]:
    """The bot's live messages in the chat with a key whose data starts with `prefix`."""
    return [m for m in fake.messages(chat_id) if any(d and d.startswith(prefix) for _t, d in m.buttons)]


async def start_a_game(
    fake: FakeTelegram, group: FakeChat, creator: FakeUser, joiner: FakeUser
) -> tuple[int, StoredMessage, FakeUser]:
    """A game of two opened, joined and started through the running bot: its id, its first
    board, and who is to move."""
    fake.queue_update(fake.command_update(group, creator, "/newgame@tweak_test_bot"))
    await until(lambda: keyed(fake, group.id, "lj:"))
    lobby = keyed(fake, group.id, "lj:")[0]
    gid = int(next(d for _t, d in lobby.buttons if d and d.startswith("lj:")).split(":")[1])
    fake.queue_update(fake.callback_update(joiner, lobby, f"lj:{gid}"))
    await until(lambda: joiner.first_name in (fake.message(group.id, lobby.message_id).text or ""))
    fake.queue_update(fake.callback_update(creator, lobby, f"ls:{gid}"))
    await until(lambda: keyed(fake, group.id, "k:"))
    board = keyed(fake, group.id, "k:")[0]
    mover = creator if f"{creator.first_name}, your move" in (board.text or "") else joiner
    return gid, board, mover
