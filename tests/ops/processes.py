"""Running `python -m tgbot` as an operator does, against the fake Bot API over HTTP."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

from tests.fakes.telegram import TEST_TOKEN

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
