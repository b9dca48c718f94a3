"""Bot benchmark: how many taps one core handles, and how fast each is answered, with many games at
once through the real Application.

``python benchmarks/bot_bench.py [--runs 3] [--db sqlite postgres] [--tables 12] [--py-spy FILE]``

Each cold run is a fresh process with a fresh database (a SQLite file, WAL, as the bot runs it;
a new PostgreSQL database from ``tests/pg.py``) and a fresh bot: `benchmarks/botplay.py`, the
real PTB Application (handlers, services, the database in its worker threads, the outbox and its
per-chat senders keeping Telegram's budget) over the fake Bot API with Telegram's flood limits and
inline mode on. ``--tables`` groups of 3 players play at once, a third of them on the group
board, a third in the private panels, a third with inline picks, goal 40, to the final standings
(the scripted players of `botplay.py`: human pace on the virtual clock, refused taps now and
then). The virtual clock runs as fast as the CPU allows, so the figures say what one core can
do, not how long people wait for each other.

Measured per run, over the games (the lobbies before are not counted):

* **actions per second**: callback queries, inline queries and the two updates of each inline
  pick, over the wall clock of the whole play (the senders' work, the fake Telegram and the
  scripted players included: one process, one event loop, plus the database threads);
* **CPU per action**: the process's CPU time (all threads) over the play, per action;
* **answer time** per kind of tap, p50 and p99: from the update reaching the Application to the
  bot's answer (``answerCallbackQuery``/``answerInlineQuery``; for the two updates of a pick,
  which get no answer, until the handler returned);
* **human-pace capacity**: virtual minutes played per wall-clock minute × tables: how many such
  games at human pace this one core would keep up with (an upper bound: the fake Telegram and
  the players run on the same core here).

``--py-spy FILE`` first records one extra run (on the first database given) with py-spy
(``--idle``, all threads) to FILE (speedscope JSON), for a look at where the time goes; the cold
runs that are reported run without it.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import threading
import time
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from botplay import WAYS, Bench, Table, new_table, play_game, quiet_minute, settle_outbox, time_transactions
from coldrun import ROOT, add_child_arguments, cold_runs, column, emit, fig, machine, spread
from tap_cost import database

#: Kinds of tap grouped for the answer-time table (way-independent where the work is the same).
GROUPS = {
    "👀 My hand (popup)": "👀 My hand (popup)",
    "compose, board": "compose (board or panel)",
    "compose, panel": "compose (board or panel)",
    "claim, board": "claim or discard (board or panel)",
    "claim, panel": "claim or discard (board or panel)",
    "discard, board": "claim or discard (board or panel)",
    "discard, panel": "claim or discard (board or panel)",
    "[T!] choice, board": "[T!] choice (its key)",
    "[T!] choice, panel": "[T!] choice (its key)",
    "[T!] card played (Claim), board": "[T!] card played (Claim; a Joker with its sum)",
    "[T!] card played (Claim), panel": "[T!] card played (Claim; a Joker with its sum)",
    "claim a Joker and its sum, board": "[T!] card played (Claim; a Joker with its sum)",
    "claim a Joker and its sum, panel": "[T!] card played (Claim; a Joker with its sum)",
    "inline: 🎯 Play list (query)": "inline list (query)",
    "inline: pick (posted message)": "inline pick (both updates)",
    "inline: pick (chosen result, a duplicate)": "inline pick (both updates)",
}
ORDER = [
    "all",
    "👀 My hand (popup)",
    "compose (board or panel)",
    "claim or discard (board or panel)",
    "[T!] choice (its key)",
    "[T!] card played (Claim; a Joker with its sum)",
    "inline list (query)",
    "inline pick (both updates)",
    "refused",
]


def thread_cpu() -> dict[str, float]:
    """CPU seconds so far of this process's threads, by kind: the event loop (PTB, the handlers'
    and senders' async parts, the fake Telegram, the players), the database worker threads
    (every transaction: the services' and the senders'), and `asyncio.to_thread` (score charts)."""
    tick = os.sysconf("SC_CLK_TCK")
    found: dict[str, float] = defaultdict(float)
    for thread in threading.enumerate():
        try:
            fields = Path(f"/proc/self/task/{thread.native_id}/stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        seconds = (int(fields[11]) + int(fields[12])) / tick
        name = thread.name
        kind = (
            "loop"
            if name == "MainThread"
            else "db"
            if name.startswith("db")
            else "charts"
            if name.startswith("asyncio")
            else "other"
        )
        found[kind] += seconds
    return found


def _pct(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))] if ordered else 0.0


async def play(url: str, tables: int, seed: int) -> dict[str, Any]:
    async with Bench(url, seed=seed, sql=False) as bench:
        made: list[Table] = []
        for i in range(tables):
            made.append(await new_table(bench.rig, WAYS[i % 3], 3, 4, seed * 1000 + i))
        await quiet_minute(bench)
        first_tap = len(bench.ledger.taps)
        virtual = bench.rig.timer.monotonic()
        books, undo = time_transactions(bench.rig)
        threads = thread_cpu()
        cpu, wall = time.process_time(), time.perf_counter()
        await bench.driver.run([(t, play_game(bench.driver, t)) for t in made])
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        after = thread_cpu()
        undo()
        split = {
            k: (after[k] - threads.get(k, 0.0)) / len(bench.ledger.taps[first_tap:]) * 1000 for k in after
        }
        virtual = bench.rig.timer.monotonic() - virtual
        writes = len(bench.ledger.writes)
        await settle_outbox(bench)
        taps = bench.ledger.taps[first_tap:]
        by_group: dict[str, list[float]] = defaultdict(list)
        for tap in taps:
            group = "refused" if tap.kind.startswith("refused") else GROUPS.get(tap.kind, tap.kind)
            by_group[group].append(tap.answer_seconds)
            by_group["all"].append(tap.answer_seconds)
        return {
            "actions": len(taps),
            "wall": wall,
            "cpu": cpu,
            "actions_per_s": len(taps) / wall,
            "cpu_ms_per_action": cpu / len(taps) * 1000,
            "cpu_split": split,
            "tx_cpu": {k: v[0] / len(taps) * 1000 for k, v in books.items()},
            "tx_per_action": {k: v[1] / len(taps) for k, v in books.items()},
            "virtual_minutes": virtual / 60,
            "capacity": tables * virtual / wall,
            "writes": writes,
            "turns": len(bench.ledger.turns),
            "flood_rejections": len(bench.fake.flood_rejections),
            "answers": {
                group: {"n": len(v), "p50": _pct(v, 0.5), "p99": _pct(v, 0.99), "mean": statistics.fmean(v)}
                for group, v in by_group.items()
            },
        }


def child(args: argparse.Namespace) -> None:
    with database(args.db[0]) as url:
        emit(asyncio.run(play(url, args.tables, args.run + 1)))


def report(label: str, results: list[dict[str, Any]], tables: int) -> None:
    ms = lambda v: f"{v * 1000:.1f}"  # noqa: E731
    print(f"\n### {label}: {len(results)} cold runs, {tables} tables at once; {machine(results)}\n")
    print(
        "Actions (taps, inline queries, pick updates) per run: "
        f"{fig(results, 'actions', f=lambda v: f'{v:,.0f}')} "
        f"in {fig(results, 'turns', f=lambda v: f'{v:,.0f}')} turns; wall clock "
        f"{fig(results, 'wall', f=lambda v: f'{v:.1f}')} s; "
        f"**{fig(results, 'actions_per_s', f=lambda v: f'{v:,.0f}')} actions/s**; CPU "
        f"{fig(results, 'cpu_ms_per_action', f=lambda v: f'{v:.1f}')} ms per action (all threads: "
        f"event loop {fig(results, 'cpu_split', 'loop', f=lambda v: f'{v:.1f}')}, database threads "
        f"{fig(results, 'cpu_split', 'db', f=lambda v: f'{v:.1f}')} (the taps' transactions "
        f"{fig(results, 'tx_cpu', 'tap', f=lambda v: f'{v:.1f}')}, the senders' "
        f"{fig(results, 'tx_cpu', 'delivery', f=lambda v: f'{v:.1f}')} in "
        f"{fig(results, 'tx_per_action', 'delivery', f=lambda v: f'{v:.1f}')} transactions per action), "
        "charts "
        f"{fig(results, 'cpu_split', 'charts', f=lambda v: f'{v:.1f}')}); "
        f"{fig(results, 'virtual_minutes', f=lambda v: f'{v:.0f}')} virtual minutes played, so one core "
        f"keeps up with about **{fig(results, 'capacity', f=lambda v: f'{v:,.0f}')} such games** at "
        f"human pace; writes to Telegram {fig(results, 'writes', f=lambda v: f'{v:,.0f}')}; 429s "
        f"{fig(results, 'flood_rejections', f=lambda v: f'{v:.0f}')}.\n"
    )
    print("| Answer time | Actions (all runs) | p50 | p99 |")
    print("|---|---|---|---|")
    groups = [g for g in ORDER if any(g in r["answers"] for r in results)]
    groups += sorted({g for r in results for g in r["answers"]} - set(groups))
    for group in groups:
        n = sum(int(r["answers"][group]["n"]) for r in results if group in r["answers"])
        print(
            f"| {group} | {n:,} | {spread(column(results, 'answers', group, 'p50'), ms)} ms "
            f"| {spread(column(results, 'answers', group, 'p99'), ms)} ms |"
        )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="cold runs per database")
    parser.add_argument("--db", nargs="+", default=["sqlite", "postgres"], choices=["sqlite", "postgres"])
    parser.add_argument("--tables", type=int, default=12, help="games at once (a third of each way)")
    parser.add_argument("--py-spy", metavar="FILE", help="record the first SQLite run with py-spy")
    add_child_arguments(parser)
    args = parser.parse_args(argv)
    if args.child:
        child(args)
        return 0
    if args.py_spy:
        spy = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
        command = [
            spy,
            "record",
            "--idle",
            "--threads",
            "-f",
            "speedscope",
            "-o",
            args.py_spy,
            "--",
            sys.executable,
            __file__,
            "--child",
            f"--db={args.db[0]}",
            f"--tables={args.tables}",
        ]
        subprocess.run(command, check=True, cwd=ROOT, env={**os.environ})
    for db in args.db:
        label = "SQLite" if db == "sqlite" else "PostgreSQL"
        passed = [f"--db={db}", f"--tables={args.tables}"]
        report(label, cold_runs(__file__, passed, args.runs, f"bot_bench {label}"), args.tables)
    return 0


if __name__ == "__main__":
    sys.exit(main())
