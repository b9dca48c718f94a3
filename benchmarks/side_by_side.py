"""Side by side: the load bench's load against tweakbot on SQLite and on PostgreSQL, interleaved.

``python benchmarks/side_by_side.py [--groups 4 200] [--seconds 150] [--runs 3] [--seed 1]
[--abuse-every 6] [--players 0] [--event-loop asyncio|uvloop] [--import-runs 3] [--json FILE] [--before FILE]
[--no-snapshot]``

The load is `benchmarks/load_bench.py`'s, run by its own child (``load_bench.py --child``: the
real Application over the flood-limited fake Telegram, the players at human speed with their
abuse; see its docstring). This script only orders the runs and reads their figures: for each
group count, run 1 on SQLite, run 1 on PostgreSQL, run 2 on SQLite, ... so that both databases
see the same machine (the load of other work drifts) and, per pair, the same seed. Every run is
cold: a new process, a new SQLite file or a new PostgreSQL database (``tests/pg.py``).

Per database and N, the median (min–max) of the runs:

* taps answered (within Telegram's 15 s), answer latency p50/p99 (the fake hands out the query →
  the bot's answerCallbackQuery);
* CPU per tap answered and per move: the process's CPU time over the load window (bot, fake
  Telegram and players: one process; the profiles in BENCHMARKS.md put the fake and the players
  at about 3 % of it) divided by the taps answered, and by the moves the bot accepted;
* peak RSS of that process (``ru_maxrss``, the whole run: start, load, drain), and its RSS once
  the bot had started, before any load; whether a score chart (matplotlib) was drawn. The
  process is the bot *and* the harness: the import table below says what the harness's own
  imports add (the fake Telegram, ``tests.pg`` and pytest), and the fake keeps every call it
  answered. `benchmarks/instances.py` measures a bot process on its own (webhook mode);
* 429s, the most writes one group had in any 60 s, writes/s in all;
* the machine's load average (1 min) at the start of the runs.

And, before the load runs, what the bot's imports cost (``--import-runs`` cold processes): RSS of
a bare interpreter, after importing what ``python -m tgbot`` imports, after building the
Application (SQLite), after saying a duration in every language (a reminder), after the load
bench's own imports, and after drawing one score chart (matplotlib, loaded lazily).

``--json FILE`` writes every run's figures; ``--before FILE`` (such a file from an earlier run)
prints each median next to the earlier one. The code under test is copied first, as the load
bench does (``--no-snapshot`` runs the tree as it is).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import coldrun  # noqa: E402
import load_bench  # noqa: E402

DBS = ("sqlite", "postgres")
NAMES = {"sqlite": "SQLite", "postgres": "PostgreSQL"}
#: Issue 20's goals: answers p99 at 4 groups (both databases) and on PostgreSQL at 200 groups,
#: and the peak RSS.
GOAL_P99_MS = {("sqlite", 4): 40.0, ("postgres", 4): 40.0, ("postgres", 200): 150.0}
GOAL_RSS_MB = 75.0

Figures = dict[str, Any]
Getter = Callable[[Figures], float | None]


# --------------------------------------------------------------------------------------------------
# What the imports cost (a cold child per run)
# --------------------------------------------------------------------------------------------------


def _vm(field: str) -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return float("nan")


def import_child() -> None:
    """RSS (MB) after each step of starting the bot, in this fresh process."""
    steps: dict[str, float] = {"python": _vm("VmRSS")}
    from pydantic import SecretStr

    import tgbot.app
    import tgbot.runner
    import tgbot.web

    steps["imports"] = _vm("VmRSS")
    from tgbot.config import Settings

    with tempfile.TemporaryDirectory(prefix="side_by_side_") as tmp:
        settings = Settings(
            telegram_bot_token=SecretStr("123456:" + "A" * 35), database_url=f"sqlite:///{tmp}/bot.sqlite3"
        )
        app = tgbot.app.build_application(settings)
        steps["application"] = _vm("VmRSS")
        from tgbot import pacing
        from tgbot.i18n import LANGUAGES

        for lang in LANGUAGES:  # what a turn's reminder says ("3 minutes left") in each language
            pacing.format_duration(timedelta(minutes=3), lang)
        steps["durations"] = _vm("VmRSS")
        # What load_bench's child adds around the bot (its RSS figures include it).
        import tests.bot.conftest
        import tests.fakes.telegram
        import tests.pg  # noqa: F401

        steps["harness"] = _vm("VmRSS")
        from tgbot.render import chart
        from tgbot.services.record import chart_texts

        texts = chart_texts("en", 100)
        png = chart.from_spec(
            chart.spec(texts, texts, ["Ana", "Ben", "Cai"], [[10, 20, 5], [30, 0, 40]], 100, [2])
        )
        assert png.startswith(b"\x89PNG")
        steps["chart"] = _vm("VmRSS")
        del app
    coldrun.emit({"rss_mb": steps, "peak_mb": _vm("VmHWM"), "modules": len(sys.modules)})


IMPORT_STEPS = (
    ("python", "A bare interpreter (this script's stdlib imports)"),
    ("imports", "+ what `python -m tgbot` imports (tgbot.app, runner, web)"),
    ("application", "+ the Application built (SQLite engine, tables, handlers)"),
    ("durations", "+ a duration said in each of the six languages (a reminder's \"3 minutes\")"),
    ("harness", "+ the load bench's own imports (fake Telegram, tests.pg, pytest)"),
    ("chart", "+ one score chart drawn here (matplotlib; the bot itself draws in a child process)"),
)


def import_table(results: list[Figures]) -> str:
    lines = ["| RSS of one process (MB), cold | median (min–max) |", "|---|---|"]
    for key, label in IMPORT_STEPS:
        lines.append(f"| {label} | {coldrun.fig(results, 'rss_mb', key)} |")
    lines.append(f"| Peak (VmHWM) | {coldrun.fig(results, 'peak_mb')} |")
    return "\n".join(lines)


# --------------------------------------------------------------------------------------------------
# The load runs: load_bench's child, interleaved
# --------------------------------------------------------------------------------------------------


def _ms_per(count: str) -> Getter:
    def get(f: Figures) -> float | None:
        n = f.get(count) or 0
        return 1000 * f["cpu_s"] / n if n and "cpu_s" in f else None

    return get


ROWS: list[tuple[str, Getter, str]] = [
    ("Players", lambda f: f["players"], "{:.0f}"),
    ("Taps sent (all kinds)", lambda f: f["taps"], "{:,.0f}"),
    ("Taps answered", lambda f: 100 * f["answered"] / max(1, f["taps"]), "{:.2f} %"),
    ("Answer latency p50", lambda f: f["latency_p50_ms"], "{:,.0f} ms"),
    ("Answer latency p99", lambda f: f["latency_p99_ms"], "{:,.0f} ms"),
    ("Moves (accepted claims, discards, [T!] cards)", lambda f: f["moves"], "{:,.0f}"),
    ("CPU per tap answered", _ms_per("answered"), "{:.1f} ms"),
    ("CPU per move", _ms_per("moves"), "{:.0f} ms"),
    ("CPU of the process (share of one core)", lambda f: f["cpu_percent"], "{:.0f} %"),
    ("Peak RSS of the process", lambda f: f.get("peak_rss_mb"), "{:.0f} MB"),
    ("RSS once started, before the load", lambda f: f.get("rss_ready_mb"), "{:.0f} MB"),
    (
        "Runs that drew a score chart (matplotlib)",
        lambda f: float(bool(f.get("matplotlib_loaded"))),
        "{:.0f}",
    ),
    ("429 answers", lambda f: f["count_429"], "{:.0f}"),
    ('Edits refused as "message is not modified"', lambda f: f.get("not_modified_edits"), "{:.0f}"),
    ("Most writes, one group, any 60 s", lambda f: f["max_group_writes_60s"], "{:.0f}"),
    ("Writes/s in all, mean (steady part)", lambda f: f["writes_per_s_mean"], "{:.1f}"),
    ("Its threads runnable but waiting for a core", lambda f: f.get("runnable_waiting_per_s"), "{:.2f} s/s"),
    ("Machine load average (1 min) at the start", lambda f: f.get("loadavg_start"), "{:.1f}"),
]


def _cell(runs: list[Figures], label: str, get: Getter, fmt: str) -> str:
    if label.startswith("Runs that drew"):
        return f"{sum(bool(r.get('matplotlib_loaded')) for r in runs)} of {len(runs)}"
    return load_bench._cell(runs, get, fmt)


def load_table(results: dict[tuple[str, int], list[Figures]], groups: list[int]) -> str:
    cells = [(db, n) for n in groups for db in DBS if (db, n) in results]
    lines = [
        "| | " + " | ".join(f"{NAMES[db]}, N = {n}" for db, n in cells) + " |",
        "|---|" + "---|" * len(cells),
    ]
    for label, get, fmt in ROWS:
        lines.append(f"| {label} | " + " | ".join(_cell(results[c], label, get, fmt) for c in cells) + " |")
    return "\n".join(lines)


def _median(runs: list[Figures], get: Getter) -> float | None:
    values = [v for v in (get(r) for r in runs) if v is not None]
    return statistics.median(values) if values else None


def goals(results: dict[tuple[str, int], list[Figures]], before: dict[str, list[Figures]] | None) -> str:
    lines = []
    for (db, n), target in GOAL_P99_MS.items():
        runs = results.get((db, n))
        if runs:
            p99 = _median(runs, lambda f: f["latency_p99_ms"]) or 0.0
            verdict = "met" if p99 <= target else "not met"
            lines.append(
                f"- {NAMES[db]}, {n} groups: answers p99 {p99:.0f} ms (goal ≤ {target:.0f} ms): {verdict}"
            )
    for (db, n), runs in sorted(results.items()):
        rss = _median(runs, lambda f: f.get("peak_rss_mb")) or 0.0
        verdict = "met" if rss <= GOAL_RSS_MB else "not met"
        line = f"- {NAMES[db]}, {n} groups: peak RSS {rss:.0f} MB (goal ≤ {GOAL_RSS_MB:.0f} MB): {verdict}"
        earlier = (before or {}).get(f"{db}:{n}")
        if earlier:
            now_cpu, then_cpu = _median(runs, _ms_per("answered")), _median(earlier, _ms_per("answered"))
            if now_cpu and then_cpu:
                line += (
                    f"; CPU per tap {then_cpu:.1f} → {now_cpu:.1f} ms ({then_cpu / now_cpu:.2f}× less; "
                    f"goal ≥ 2×: {'met' if then_cpu / now_cpu >= 2 else 'not met'})"
                )
            then_p99 = _median(earlier, lambda f: f["latency_p99_ms"])
            now_p99 = _median(runs, lambda f: f["latency_p99_ms"])
            if then_p99 is not None and now_p99 is not None:
                line += f"; p99 {then_p99:.0f} → {now_p99:.0f} ms"
        lines.append(line)
    return "\n".join(lines)


def _one_line(db: str, n: int, run: int, f: Figures) -> str:
    per_tap = _ms_per("answered")(f)
    return (
        f"{load_bench._one_line(db, n, run, f)}; CPU/tap {per_tap or 0:.1f} ms; "
        f"peak RSS {f.get('peak_rss_mb', 0):.0f} MB; load {f.get('loadavg_start')}"
    )


def run_parent(args: argparse.Namespace) -> int:
    work = Path(tempfile.mkdtemp(prefix="side_by_side_"))
    script = Path(__file__).resolve()
    bench = ROOT / "benchmarks" / "load_bench.py"
    if not args.no_snapshot:
        bench = load_bench.snapshot(work / "code")
        # the snapshot holds load_bench.py and coldrun.py; this script runs from it too
        (bench.parent / "side_by_side.py").write_bytes((ROOT / "benchmarks" / "side_by_side.py").read_bytes())
        script = bench.parent / "side_by_side.py"
    code = f"{load_bench.code_fingerprint(bench.parent.parent)} (git {load_bench._git_head()})"
    print(f"code {code}; runs in {work}", flush=True)
    began = time.perf_counter()

    imports: list[Figures] = []
    if args.import_runs:
        imports = coldrun.cold_runs(script, [], args.import_runs, "imports")

    # load_bench's child takes its options from the same names.
    child = argparse.Namespace(
        seconds=args.seconds,
        abuse_every=args.abuse_every,
        rtt_ms=0.0,
        trace_db=False,
        db_workers=0,
        py_spy=None,
        players=args.players,
        event_loop=args.event_loop,
    )
    results: dict[tuple[str, int], list[Figures]] = {}
    for n in args.groups:
        for run in range(args.runs):
            seed = args.seed + run
            for db in DBS:
                out = work / f"{db}-{n}-{seed}.json"
                log_path = work / f"{db}-{n}-{seed}.log"
                command = load_bench._child_command(child, bench, db, n, seed, out)
                figures = coldrun.logged_run(command, out, log_path, f"{db} N={n} run {run + 1}")
                if figures is None:
                    continue
                figures.pop("debug", None)
                figures["errors_logged"] = load_bench._count_errors(log_path)
                results.setdefault((db, n), []).append(figures)
                print(_one_line(db, n, run + 1, figures), flush=True)

    print(f"\nAll runs: {time.perf_counter() - began:.0f} s wall; logs and figures in {work}\n")
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {
                    "code": code,
                    "args": {
                        "seconds": args.seconds,
                        "abuse_every": args.abuse_every,
                        "players": args.players,
                    },
                    "imports": imports,
                    **{f"{db}:{n}": r for (db, n), r in results.items()},
                },
                indent=1,
                default=str,
            )
        )
    report(results, imports, code, args)
    return 0


def report(
    results: dict[tuple[str, int], list[Figures]], imports: list[Figures], code: str, args: argparse.Namespace
) -> None:
    before = json.loads(Path(args.before).read_text()) if args.before else None
    runs = max((len(r) for r in results.values()), default=0)
    print(
        f"Load: load_bench's players, {args.seconds:.0f} s per run, abuse every {args.abuse_every:g} s "
        f"per group, {runs} cold runs per cell (SQLite and PostgreSQL interleaved), median (min–max); "
        f"machine: {coldrun.machine()}; code {code}.\n"
    )
    if imports:
        print(import_table(imports) + "\n")
    print(load_table(results, sorted({n for _db, n in results})) + "\n")
    print(goals(results, before))


def report_file(path: str, args: argparse.Namespace) -> int:
    """The tables of an earlier run's --json file."""
    data = json.loads(Path(path).read_text())
    results = {
        (key.split(":")[0], int(key.split(":")[1])): runs
        for key, runs in data.items()
        if key not in ("code", "args", "imports")
    }
    vars(args).update(data.get("args", {}))
    report(results, data.get("imports", []), str(data.get("code", "?")), args)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n\n")[0])
    parser.add_argument("--groups", type=int, nargs="+", default=[4, 200])
    parser.add_argument("--seconds", type=float, default=150.0, help="length of each run's load window")
    parser.add_argument("--runs", type=int, default=3, help="cold runs per database and N")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--abuse-every", type=float, default=6.0, help="mean seconds between abusive taps per group (0: none)"
    )
    parser.add_argument("--players", type=int, default=0, help="players per group (0: 3 or 4 at random)")
    parser.add_argument(
        "--event-loop", choices=("asyncio", "uvloop"), default="asyncio", help="the loop the bot runs on"
    )
    parser.add_argument("--import-runs", type=int, default=3, help="cold runs of the import check (0: skip)")
    parser.add_argument("--json", metavar="FILE", help="also write every run's figures to FILE")
    parser.add_argument("--before", metavar="FILE", help="a --json file of an earlier run, to compare")
    parser.add_argument("--report", metavar="FILE", help="only print the tables of a --json file")
    parser.add_argument(
        "--no-snapshot",
        action="store_true",
        help="run the tree as it is (default: a copy taken at the start)",
    )
    coldrun.add_child_arguments(parser)
    args = parser.parse_args(argv)
    if args.child:
        import_child()
        return 0
    if args.report:
        return report_file(args.report, args)
    return run_parent(args)


if __name__ == "__main__":
    sys.exit(main())
