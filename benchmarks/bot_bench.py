"""Bot benchmark: how many taps one core handles, and how fast each is answered, with many games at
once through the real Application.

``python benchmarks/bot_bench.py [--runs 3] [--db sqlite|postgres|both] [--tables 12] [--json FILE]``

Each cold run is a fresh process, database and bot, and `tap_cost.py`'s players at ``--tables``
tables of 3 at once (a quarter each on the board, the panel, inline picks and in any chat), goal 40,
to the end, the virtual clock as fast as the CPU allows: actions per second (taps, inline queries,
pick updates), CPU per action (all threads), answer time per kind of tap, and the games at human
pace one core keeps up with (virtual minutes played per wall minute × tables).
"""

from __future__ import annotations

import asyncio
import sys
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import common
from tap_cost import WAYS, play


def report(name: str, results: list[dict[str, Any]], tables: int = 12) -> None:
    def one(v: float) -> str:
        return f"{v:.1f}"

    def fig(key: str, f: Any = lambda v: f"{v:,.0f}") -> str:
        return common.fig(results, key, f=f)

    print(f"\n### {name}: {len(results)} cold runs, {tables} tables at once, median (min–max); ", end="")
    print(f"{common.machine(results)}\n")
    print(
        f"Actions per run {fig('actions')} in {fig('turns')} turns; **{fig('actions_per_s')} actions/s**; "
        f"CPU {fig('cpu_ms_per_action', one)} ms per action (all threads); one core keeps up with about "
        f"**{fig('capacity')} games** at human pace; 429s {fig('flood_rejections')}.\n"
    )
    print("| Answer time | Actions (all runs) | p50 | p99 |\n|---|---|---|---|")
    for kind in sorted({k for r in results for k in r["taps"]}):
        n = sum(int(r["taps"][kind]["n"]) for r in results if kind in r["taps"])
        p50, p99 = (
            common.spread([v * 1000 for v in common.column(results, "taps", kind, q)], one)
            for q in ("answer_p50", "answer_p99")
        )
        print(f"| {kind} | {n:,} | {p50} ms | {p99} ms |")


def main(argv: list[str] | None = None) -> int:
    options = common.parser(__doc__)
    options.add_argument("--tables", type=int, default=12, help="games at once (a quarter of each way)")
    args = options.parse_args(argv)
    if args.child:
        with common.fresh_database(args.db) as url:
            common.emit(asyncio.run(play(url, max(1, args.tables // len(WAYS)), args.run + 1)))
        return 0
    tables = [f"--tables={args.tables}"]
    return common.each_database(args, __file__, tables, partial(report, tables=args.tables))


if __name__ == "__main__":
    sys.exit(main())
