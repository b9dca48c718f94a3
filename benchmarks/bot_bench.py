"""Bot benchmark: how many taps one core handles, and how fast each is answered, with many games at
once through the real Application.

``python benchmarks/bot_bench.py [--runs 3] [--db sqlite|postgres|both] [--tables 12] [--json FILE]``

Each cold run is a fresh process, database and bot, and `tap_cost.py`'s players at ``--tables``
groups of 3 at once (a third each on the board, the panel, inline picks), goal 40, to the end, the
virtual clock as fast as the CPU allows: actions per second (taps, inline queries, pick updates),
CPU per action (all threads), answer time per kind of tap, and the games at human pace one core
keeps up with (virtual minutes played per wall minute × tables).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import (
    cold_runs,
    column,
    databases,
    emit,
    fig,
    fresh_database,
    label,
    machine,
    parser,
    spread,
    write_json,
)
from tap_cost import play


def child(args: argparse.Namespace) -> None:
    with fresh_database(args.db) as url:
        emit(asyncio.run(play(url, args.tables // 3, args.run + 1)))


def report(name: str, results: list[dict[str, Any]], tables: int) -> None:
    def one(v: float) -> str:
        return f"{v:.1f}"

    def count(v: float) -> str:
        return f"{v:,.0f}"

    print(
        f"\n### {name}: {len(results)} cold runs, {tables} tables at once, median (min–max); "
        f"{machine(results)}\n"
    )
    print(
        f"Actions per run {fig(results, 'actions', f=count)} in {fig(results, 'turns', f=count)} turns; "
        f"**{fig(results, 'actions_per_s', f=count)} actions/s**; CPU "
        f"{fig(results, 'cpu_ms_per_action', f=one)} ms per action (all threads); one core keeps up with "
        f"about **{fig(results, 'capacity', f=count)} games** "
        f"at human pace; 429s {fig(results, 'flood_rejections', f=count)}.\n"
    )
    print("| Answer time | Actions (all runs) | p50 | p99 |\n|---|---|---|---|")
    for kind in sorted({k for r in results for k in r["taps"]}):
        n = sum(int(r["taps"][kind]["n"]) for r in results if kind in r["taps"])
        p50, p99 = (
            spread([v * 1000 for v in column(results, "taps", kind, q)], one)
            for q in ("answer_p50", "answer_p99")
        )
        print(f"| {kind} | {n:,} | {p50} ms | {p99} ms |")


def main(argv: list[str] | None = None) -> int:
    options = parser(__doc__)
    options.add_argument("--tables", type=int, default=12, help="games at once (a third of each way)")
    args = options.parse_args(argv)
    if args.child:
        child(args)
        return 0
    everything = {}
    for db in databases(args.db):
        passed = [f"--db={db}", f"--tables={args.tables}"]
        everything[db] = cold_runs(__file__, passed, args.runs, f"bot_bench {db}")
        report(label(db), everything[db], args.tables)
    write_json(args.json, {"machine": machine([r for rs in everything.values() for r in rs]), **everything})
    return 0


if __name__ == "__main__":
    sys.exit(main())
