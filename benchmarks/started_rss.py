"""RSS of a bot process once started, before any load: ``python -m tgbot`` as an operator runs it,
against the fake Telegram over HTTP, measured a few seconds after it logs that it is running.

``python benchmarks/started_rss.py [--mode webhook-postgres|polling-sqlite] [--runs 3]
[--bot-python PYTHON] [--idle 5]``

What runs, per cold run: a new SQLite file or PostgreSQL database (``tests/pg.py``, a server at
127.0.0.1:5432), migrated; `tests/ops/fake_http.py` serving the fake Telegram; the bot started
with this tree's code (``PYTHONPATH``), by this interpreter or ``--bot-python`` (e.g. a production
virtualenv's, see `instances.py`), with ``MALLOC_ARENA_MAX=2`` as deployed unless the environment
sets it. ``VmRSS`` is read ``--idle`` seconds after "tweakbot running" (the first sweep has run by
then), then the bot is stopped (SIGTERM). Median (min–max) of the runs.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

START_TIMEOUT = 30.0


def _status(pid: int, field: str) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    raise LookupError(field)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


async def one_run(mode: str, python: str, idle: float) -> float:
    """The bot's VmRSS (MiB) `idle` seconds after it started, in one cold run."""
    import tests.pg as pg
    from tests.fakes import FakeTelegram
    from tests.fakes.telegram import TEST_TOKEN
    from tests.ops.fake_http import FakeBotApiServer
    from tgbot import migrations

    work = Path(tempfile.mkdtemp(prefix="started_rss_"))
    name: str | None = None
    if mode == "webhook-postgres":
        name, url = pg.create_database()
    else:
        url = f"sqlite:///{work / 'bot.sqlite3'}"
    try:
        migrations.upgrade(url)
        async with FakeBotApiServer(FakeTelegram(), TEST_TOKEN) as api:
            env = {
                k: v
                for k, v in os.environ.items()
                if not k.startswith(("WEBHOOK_", "TWEAKBOT_", "TELEGRAM_", "METRICS_", "DATABASE_URL"))
            }
            env.setdefault("MALLOC_ARENA_MAX", "2")  # as deploy/ runs the bot
            env.update(
                PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
                TELEGRAM_BOT_TOKEN=TEST_TOKEN,
                TELEGRAM_API_BASE_URL=api.base_url,
                DATABASE_URL=url,
                LOG_LEVEL="INFO",
            )
            command = [python, "-m", "tgbot"]
            if mode == "webhook-postgres":
                command.append("--webhook")
                env.update(
                    WEBHOOK_URL="https://bench.invalid/telegram",
                    WEBHOOK_SECRET="s" * 32,
                    WEBHOOK_LISTEN="127.0.0.1",
                    WEBHOOK_PORT=str(_free_port()),
                )
            log_path = work / "bot.log"
            with open(log_path, "wb") as log:
                bot = await asyncio.create_subprocess_exec(
                    *command, cwd=work, env=env, stdout=log, stderr=subprocess.STDOUT
                )
            try:
                began = time.monotonic()
                while b"tweakbot running" not in log_path.read_bytes():
                    if bot.returncode is not None or time.monotonic() - began > START_TIMEOUT:
                        raise RuntimeError(f"the bot did not start: {log_path.read_text()[-2000:]}")
                    await asyncio.sleep(0.2)
                await asyncio.sleep(idle)
                return _status(bot.pid, "VmRSS")
            finally:
                if bot.returncode is None:
                    bot.send_signal(signal.SIGTERM)
                    await bot.wait()
    finally:
        if name is not None:
            pg.drop_database(name)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n\n")[0])
    parser.add_argument("--mode", choices=("webhook-postgres", "polling-sqlite"), default="webhook-postgres")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--bot-python", default=sys.executable, metavar="PYTHON")
    parser.add_argument("--idle", type=float, default=5.0, help="seconds after start-up to read the RSS")
    args = parser.parse_args(argv)
    values = []
    for run in range(args.runs):
        load = os.getloadavg()[0]
        values.append(asyncio.run(one_run(args.mode, args.bot_python, args.idle)))
        print(f"run {run + 1}: {values[-1]:.1f} MiB (load average {load:.1f})", flush=True)
    print(
        f"{args.mode}, {args.bot_python}: RSS once started {statistics.median(values):.1f} MiB "
        f"({min(values):.1f}–{max(values):.1f})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
