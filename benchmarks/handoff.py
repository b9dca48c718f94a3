"""What handing a transaction to a database thread costs, at a tap's pace.

``python benchmarks/handoff.py [--db sqlite|postgres|both] [--runs 3] [--gap 0.25] [--blocks 6]
[--per-block 40]``

Every transaction of the bot runs in a worker thread (`tgbot.store.db.Database.run`): the event
loop wakes a sleeping thread, and the thread's result wakes the loop again. On this project's
2-core virtual machine a wake after an idle pause costs far more CPU than the same code in a
tight loop, so the hand-off is measured where a tap meets it: one short write transaction (the
senders' `release_all`, one UPDATE) every `--gap` seconds, through `Database.run`, and the same
transaction on the event loop itself, the two alternated in blocks inside one process so that
both see the same machine. Each cold run is a fresh process; the figures are the median and range
of the runs' medians, in microseconds of process CPU per transaction.

A diagnostic, not a proposal: the bot keeps its threads (BENCHMARKS.md, *What a thread hand-off
costs*, says why).
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import statistics
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from coldrun import column, database_main, database_parser, emit, fresh_database, spread  # noqa: E402


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


async def _block(db: Any, on_loop: bool, count: int, gap: float) -> float:
    """Microseconds of CPU per transaction (and its share of the pause's wake) over one block."""
    from tgbot.store import outbox

    def work(session: Any) -> None:
        outbox.release_all(session, "nobody")

    started = _cpu()
    for _ in range(count):
        if on_loop:
            db._transaction(work)  # the same transaction, without the threads
        else:
            await db.run(work)
        await asyncio.sleep(gap)
    return (_cpu() - started) / count * 1e6


async def _measure(url: str, args: argparse.Namespace) -> dict[str, Any]:
    from tgbot.store.db import Database, create_all, make_engine

    engine = make_engine(url)
    create_all(engine)
    db = Database(engine)
    try:
        await _block(db, False, 5, 0.0)  # connections open, statements compiled, both ways
        await _block(db, True, 5, 0.0)
        got: dict[bool, list[float]] = {True: [], False: []}
        for block in range(args.blocks):
            for on_loop in (block % 2 == 0, block % 2 == 1):
                got[on_loop].append(await _block(db, on_loop, args.per_block, args.gap))
    finally:
        db.close()
    thread, loop = statistics.median(got[False]), statistics.median(got[True])
    return {"thread_us": thread, "loop_us": loop, "handoff_us": thread - loop}


def child(args: argparse.Namespace) -> None:
    from tgbot import event_loop

    with fresh_database(args.db, "handoff_") as url:
        emit(event_loop.run(_measure(url, args)))  # the bot's loop


def main(argv: Sequence[str] | None = None) -> int:
    parser = database_parser(__doc__)
    parser.add_argument("--gap", type=float, default=0.25, help="seconds between transactions")
    parser.add_argument("--blocks", type=int, default=6, help="blocks of each way, alternated")
    parser.add_argument("--per-block", type=int, default=40, help="transactions in a block")
    return database_main(
        parser,
        argv,
        __file__,
        "handoff",
        child,
        ["gap", "blocks", "per_block"],
        lambda args, db, results: (
            f"{db}: one write transaction every {args.gap:g} s, µs of CPU each, median (min–max) of "
            f"{args.runs} cold runs: through a worker thread {spread(column(results, 'thread_us'))}, "
            f"on the event loop {spread(column(results, 'loop_us'))}, "
            f"the hand-off {spread(column(results, 'handoff_us'))}"
        ),
    )


if __name__ == "__main__":
    raise SystemExit(main())
