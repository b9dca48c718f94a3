"""Cold runs for the benchmarks: every figure is the median and the spread of N fresh processes.

A benchmark script runs itself N times as a child (``--child``): a new Python process, so nothing
(parse caches, the sum cache, SQLAlchemy's compiled statements, a warm database file) carries
over from one run to the next. Each child prints its figures as one JSON line; the parent reports,
for every figure, the median of the runs and their range (min–max), never a best-of.

The machine is shared (2 cores, other people's jobs running), so the load average before and
after each run is recorded and printed with the figures.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
MARK = "BENCH-RESULT "


def emit(figures: dict[str, Any]) -> None:
    """The child's figures: one line the parent reads back."""
    print(MARK + json.dumps(figures, separators=(",", ":")), flush=True)


def cold_runs(
    script: str | Path, child_args: Sequence[str], runs: int, label: str = ""
) -> list[dict[str, Any]]:
    """Run ``script --child child_args`` `runs` times, each in a fresh process; their figures."""
    results: list[dict[str, Any]] = []
    for run in range(runs):
        before = os.getloadavg()[0]
        started = time.perf_counter()
        command = [sys.executable, str(script), "--child", "--run", str(run), *child_args]
        proc = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
        elapsed = time.perf_counter() - started
        if proc.returncode != 0:
            sys.stderr.write(proc.stdout[-4000:] + proc.stderr[-8000:])
            raise SystemExit(f"{label or script}: run {run + 1} failed (exit {proc.returncode})")
        lines = [line for line in proc.stdout.splitlines() if line.startswith(MARK)]
        if not lines:
            sys.stderr.write(proc.stdout[-4000:] + proc.stderr[-4000:])
            raise SystemExit(f"{label or script}: run {run + 1} printed no figures")
        figures: dict[str, Any] = json.loads(lines[-1][len(MARK) :])
        figures["_load"] = [before, os.getloadavg()[0]]
        figures["_seconds"] = elapsed
        results.append(figures)
        print(
            f"  [{label}] cold run {run + 1}/{runs}: {elapsed:.1f} s, load average {before:.1f}"
            f"→{os.getloadavg()[0]:.1f}",
            file=sys.stderr,
            flush=True,
        )
    return results


@contextlib.contextmanager
def fresh_database(db: str, prefix: str) -> Iterator[str]:
    """The URL of an empty database for one cold child: a new PostgreSQL database (dropped after)
    or a SQLite file in a temporary directory, so no run inherits another's rows or caches."""
    if db == "postgres":
        from tests.pg import create_database, drop_database

        name, url = create_database()
        try:
            yield url
        finally:
            drop_database(name)
        return
    with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
        yield f"sqlite:///{tmp}/bot.sqlite3"


def each_database(
    script: str | Path,
    choice: str,
    child_args: Sequence[str],
    runs: int,
    label: str,
    line: Callable[[str, list[dict[str, Any]]], str],
) -> None:
    """`cold_runs` on SQLite, PostgreSQL or both (`choice`: ``--db sqlite|postgres|both``), a
    printed `line(db, results)` for each, then the machine they ran on."""
    everything: list[dict[str, Any]] = []
    for db in ("sqlite", "postgres") if choice == "both" else (choice,):
        results = cold_runs(script, [*child_args, "--db", db], runs, f"{label} {db}")
        everything += results
        print(line(db, results))
    print(machine(everything))


def logged_run(command: Sequence[str], out: Path, log_path: Path, label: str) -> dict[str, Any] | None:
    """One cold child that writes its figures to `out` and its output to `log_path` (the load and
    scale benchmarks: a run is minutes long and its log is kept); its figures with `run_wall_s`,
    or None (said on stdout) when it failed."""
    started = time.perf_counter()
    with open(log_path, "w") as log_file:
        done = subprocess.run(command, stdout=log_file, stderr=subprocess.STDOUT, check=False)
    if done.returncode != 0 or not out.exists():
        print(f"{label}: FAILED (exit {done.returncode}); log: {log_path}", flush=True)
        return None
    figures: dict[str, Any] = json.loads(out.read_text())
    figures["run_wall_s"] = time.perf_counter() - started
    return figures


def spread(values: Iterable[float], fmt: Callable[[float], str] = lambda v: f"{v:,.1f}") -> str:
    """`median (min–max)`; just the value when every run gave the same."""
    got = sorted(values)
    if not got:
        return "—"
    middle = statistics.median(got)
    if got[0] == got[-1]:
        return fmt(middle)
    return f"{fmt(middle)} ({fmt(got[0])}–{fmt(got[-1])})"


def column(results: Sequence[dict[str, Any]], *path: str | int) -> list[float]:
    """One figure of every run (`path` into each run's JSON); runs without it are left out."""
    values = []
    for result in results:
        value: Any = result
        for key in path:
            try:
                value = value[key]
            except (KeyError, IndexError, TypeError):
                value = None
                break
        if value is not None:
            values.append(float(value))
    return values


def cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def machine(results: Sequence[dict[str, Any]] = ()) -> str:
    """The machine and its load while the runs ran."""
    loads = [v for r in results for v in r.get("_load", [])]
    load = f"; load average {min(loads):.1f}–{max(loads):.1f} during the runs" if loads else ""
    return (
        f"{os.cpu_count()} shared cores ({cpu_name()}), shared with other work{load}; "
        f"CPython {platform.python_version()}"
    )


def ms(seconds: float) -> str:
    return f"{seconds * 1000:,.1f} ms"


def add_child_arguments(parser: Any) -> None:
    parser.add_argument("--child", action="store_true", help="(internal) one cold run, figures as JSON")
    parser.add_argument("--run", type=int, default=0, help="(internal) which cold run this is")


def database_main(
    parser: argparse.ArgumentParser,
    argv: Sequence[str] | None,
    script: str | Path,
    label: str,
    child: Callable[[argparse.Namespace], None],
    forwarded: Sequence[str],
    line: Callable[[argparse.Namespace, str, list[dict[str, Any]]], str],
) -> int:
    """The main of a `database_parser` script: as the child, one cold run (`child`); else
    `each_database` with the options named in `forwarded` (by their attribute names) passed on
    to every child, and `line` printing each database's figures."""
    args = parser.parse_args(argv)
    if args.child:
        child(args)
        return 0
    child_args = [
        part for name in forwarded for part in (f"--{name.replace('_', '-')}", str(getattr(args, name)))
    ]
    each_database(script, args.db, child_args, args.runs, label, lambda db, results: line(args, db, results))
    return 0


def database_parser(doc: str | None) -> argparse.ArgumentParser:
    """The options of a script that runs on SQLite, PostgreSQL or both (`each_database`): its
    description (the docstring's first line), ``--db``, ``--runs`` and the child's own."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0] if doc else None)
    parser.add_argument("--db", choices=("sqlite", "postgres", "both"), default="both")
    parser.add_argument("--runs", type=int, default=3)
    add_child_arguments(parser)
    return parser


def fig(
    results: Sequence[dict[str, Any]], *path: str | int, f: Callable[[float], str] = lambda v: f"{v:,.1f}"
) -> str:
    """`spread` of one figure of every run: ``fig(results, "moves", "bot_us")``."""
    return spread(column(results, *path), f)
