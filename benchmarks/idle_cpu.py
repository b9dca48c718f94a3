"""What a running bot with nobody playing costs: CPU a minute, and how often it wakes.

``python benchmarks/idle_cpu.py [--db sqlite|postgres|both] [--runs 3] [--seconds 90]``

Most of a hobby group's bot's life is idle: between games, overnight, between the turns of a
slow game. A process that wakes to look at an empty table costs the host CPU (on this project's
2-core virtual machine every wake of an idle process is about 0.2 ms, BENCHMARKS.md *CPU per tap,
seventh session*), and under load the same background work is charged to every tap. Each cold
run starts the real application (the same wiring as the load bench, the fake Telegram in
process, no updates), lets it settle for 10 s, then reads the process's CPU time and its
database transactions over `--seconds`. Figures: median (min–max) of the runs.
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from coldrun import database_main, database_parser, emit, fig, fresh_database  # noqa: E402

SETTLE_SECONDS = 10.0


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


async def _idle(url: str, seconds: float) -> dict[str, Any]:
    from sqlalchemy import event

    from tests.bot.conftest import make_settings
    from tests.fakes import FakeTelegram
    from tgbot.app import build_application, make_deps
    from tgbot.store.db import make_engine

    settings = make_settings(url)
    engine = make_engine(url)
    deps = make_deps(settings, db=engine)
    app = build_application(settings, deps=deps, request=FakeTelegram())
    transactions = [0]

    def began(_conn: Any) -> None:
        transactions[0] += 1

    event.listen(engine, "begin", began)
    await app.initialize()
    if app.post_init:
        await app.post_init(app)
    await app.start()
    try:
        await asyncio.sleep(SETTLE_SECONDS)
        cpu, before = _cpu(), transactions[0]
        await asyncio.sleep(seconds)
        cpu, counted = _cpu() - cpu, transactions[0] - before
    finally:
        await app.stop()
        if app.post_stop:
            await app.post_stop(app)
        await app.shutdown()
        deps.db.close()
    return {"cpu_ms_per_min": cpu / seconds * 60_000, "transactions_per_min": counted / seconds * 60}


def child(args: argparse.Namespace) -> dict[str, Any]:
    from tgbot import event_loop

    with fresh_database(args.db, "idle_cpu_") as url:
        result: dict[str, Any] = event_loop.run(_idle(url, args.seconds))
    return result


def main(argv: Sequence[str] | None = None) -> int:
    parser = database_parser(__doc__)
    parser.add_argument("--seconds", type=float, default=90.0)
    return database_main(
        parser,
        argv,
        __file__,
        "idle",
        lambda args: emit(child(args)),
        ["seconds"],
        lambda args, db, results: (
            f"{db}, idle for {args.seconds:g} s, median (min–max) of {args.runs} cold runs: "
            f"CPU {fig(results, 'cpu_ms_per_min')} ms a minute, "
            f"{fig(results, 'transactions_per_min')} database transactions a minute"
        ),
    )


if __name__ == "__main__":
    raise SystemExit(main())
