"""What every benchmark shares: cold runs, median and spread, the machine, JSON results, options.

A benchmark runs itself as a child (``--child``) once per cold run: a new Python process with a
new database, so no cache (parse caches, compiled statements, a warm database file) carries over
from one run to the next. The child prints its figures as one JSON line (or writes them to a
file, for the long runs whose logs are kept); the parent reports, for every figure, the median of
the runs and their range (min–max), never a best-of, and names the machine they ran on with its
load average, since a shared machine's load moves every time figure.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import platform
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
MARK = "BENCH-RESULT "
Figures = dict[str, Any]
Getter = Callable[[Figures], float | None]
Row = tuple[str, Getter, str]


# --- options ------------------------------------------------------------------------------------


def parser(doc: str | None, runs: int = 3, db: bool = True) -> argparse.ArgumentParser:
    """The options every benchmark takes: ``--runs``, ``--json FILE``, ``--db`` (where it has a
    database), and the child's own (hidden)."""
    found = argparse.ArgumentParser(
        description=(doc or "").partition("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    found.add_argument("--runs", type=int, default=runs, help="cold runs (fresh processes) per cell")
    found.add_argument("--json", metavar="FILE", help="also write every run's figures to FILE")
    if db:
        found.add_argument("--db", choices=("sqlite", "postgres", "both"), default="both")
    found.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    found.add_argument("--run", type=int, default=0, help=argparse.SUPPRESS)
    found.add_argument("--out", help=argparse.SUPPRESS)
    return found


def databases(choice: str) -> list[str]:
    return ["sqlite", "postgres"] if choice == "both" else [choice]


def label(db: str) -> str:
    return "SQLite" if db == "sqlite" else "PostgreSQL"


# --- cold runs ----------------------------------------------------------------------------------


def emit(figures: Figures) -> None:
    """The child's figures: one line the parent reads back."""
    print(MARK + json.dumps(figures, separators=(",", ":"), default=str), flush=True)


def cold_runs(script: str | Path, child_args: Sequence[str], runs: int, name: str = "") -> list[Figures]:
    """Run ``script --child child_args`` `runs` times, each in a fresh process; their figures,
    each with the load average before and after it (``_load``)."""
    results: list[Figures] = []
    for run in range(runs):
        before = os.getloadavg()[0]
        started = time.perf_counter()
        command = [sys.executable, str(script), "--child", "--run", str(run), *child_args]
        proc = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
        lines = [line for line in proc.stdout.splitlines() if line.startswith(MARK)]
        if proc.returncode != 0 or not lines:
            sys.stderr.write(proc.stdout[-4000:] + proc.stderr[-8000:])
            raise SystemExit(f"{name or script}: run {run + 1} failed (exit {proc.returncode})")
        figures: Figures = json.loads(lines[-1][len(MARK) :])
        figures["_load"] = [before, os.getloadavg()[0]]
        results.append(figures)
        print(
            f"  [{name}] cold run {run + 1}/{runs}: {time.perf_counter() - started:.1f} s, "
            f"load average {before:.1f}→{os.getloadavg()[0]:.1f}",
            file=sys.stderr,
            flush=True,
        )
    return results


def each_database(
    args: argparse.Namespace, script: str | Path, passed: Sequence[str], report: Callable[[str, Any], None]
) -> int:
    """Cold runs of `script` on each database of ``--db`` (`passed`: the child's other options), each
    database's reported as they end; then every run written to ``--json``."""
    everything = {}
    for db in databases(args.db):
        name = f"{Path(script).stem} {label(db)}"
        everything[db] = cold_runs(script, [f"--db={db}", *passed], args.runs, name)
        report(label(db), everything[db])
    write_json(args.json, {"machine": machine([r for rs in everything.values() for r in rs]), **everything})
    return 0


def logged_run(command: Sequence[str], out: Path, log_path: Path, name: str) -> Figures | None:
    """One cold child that writes its figures to `out` and its output to `log_path` (a run of
    minutes whose log is kept); its figures with the load average, or None when it failed."""
    before = os.getloadavg()[0]
    with open(log_path, "w") as log_file:
        done = subprocess.run(command, stdout=log_file, stderr=subprocess.STDOUT, check=False)
    if done.returncode != 0 or not out.exists():
        print(f"{name}: FAILED (exit {done.returncode}); log: {log_path}", flush=True)
        return None
    figures: Figures = json.loads(out.read_text())
    figures["_load"] = [before, os.getloadavg()[0]]
    return figures


@contextlib.contextmanager
def fresh_database(db: str) -> Iterator[str]:
    """The URL of an empty database for one cold child: a new PostgreSQL database (dropped after)
    or a SQLite file in a temporary directory."""
    if db == "postgres":
        from tests.pg import fresh_database as pg_database
        from tests.pg import unreachable_reason

        reason = unreachable_reason()
        if reason is not None:
            raise SystemExit(f"PostgreSQL: {reason}")
        with pg_database() as url:
            yield url
        return
    with tempfile.TemporaryDirectory(prefix="bench_") as tmp:
        yield f"sqlite:///{tmp}/bot.sqlite3"


def write_json(path: str | None, data: Any) -> None:
    if path:
        Path(path).write_text(json.dumps(data, indent=1, default=str))


# --- median and spread --------------------------------------------------------------------------


def pct(values: Sequence[float], q: float) -> float | None:
    """The q-quantile, interpolated between the two nearest values (None for no values)."""
    if not values:
        return None
    ordered = sorted(values)
    k = (len(ordered) - 1) * q
    low = int(k)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (k - low)


def spread(values: Iterable[float], fmt: Callable[[float], str] = lambda v: f"{v:,.1f}") -> str:
    """`median (min–max)`; just the value when every run gave the same."""
    got = sorted(values)
    if not got:
        return "—"
    middle, low, high = fmt(statistics.median(got)), fmt(got[0]), fmt(got[-1])
    return middle if low == high else f"{middle} ({low}–{high})"


def column(results: Sequence[Figures], *path: str | int) -> list[float]:
    """One figure of every run (`path` into each run's JSON); runs without it are left out."""

    def get(value: Any) -> Any:
        with contextlib.suppress(KeyError, IndexError, TypeError):
            for key in path:
                value = value[key]
            return value
        return None

    return [float(value) for value in map(get, results) if value is not None]


def fig(
    results: Sequence[Figures], *path: str | int, f: Callable[[float], str] = lambda v: f"{v:,.1f}"
) -> str:
    """`spread` of one figure of every run: ``fig(results, "moves", "bot_us")``."""
    return spread(column(results, *path), f)


def cell(runs: Sequence[Figures], get: Getter, fmt: str) -> str:
    """One table cell: the median of `get` over the runs and its range, the unit said once."""
    values = []
    for run in runs:
        with contextlib.suppress(KeyError, TypeError, ZeroDivisionError):  # a figure a run lacks
            if (value := get(run)) is not None:
                values.append(value)
    if not values:
        return "—"
    mid, low, high = (fmt.format(v) for v in (statistics.median(values), min(values), max(values)))
    if low == high:
        return mid
    unit = next((u for u in (" ms", " s/s", " s", " %", " MB") if low.endswith(u) and high.endswith(u)), "")
    return f"{mid} ({low.removesuffix(unit)}–{high.removesuffix(unit)}{unit})"


def table(title: str, columns: Mapping[str, Sequence[Figures]], rows: Sequence[Row]) -> str:
    """A Markdown table: one row per figure, one column per cell of runs."""
    lines = [f"| {title} | " + " | ".join(columns) + " |", "|---|" + "---|" * len(columns)]
    for name, get, fmt in rows:
        lines.append(f"| {name} | " + " | ".join(cell(runs, get, fmt) for runs in columns.values()) + " |")
    return "\n".join(lines)


# --- the machine --------------------------------------------------------------------------------


def cpu_name() -> str:
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown CPU"


def machine(results: Sequence[Figures] = ()) -> str:
    """The machine and its load average while the runs ran."""
    loads = [v for r in results for v in r.get("_load", [])]
    load = f"; load average {min(loads):.1f}–{max(loads):.1f} during the runs" if loads else ""
    return f"machine: {os.cpu_count()} cores ({cpu_name()}){load}; CPython {platform.python_version()}"


def proc_cpu(pid: int | str = "self") -> float:
    """CPU seconds (user + system) of a process so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def proc_mb(field: str, pid: int | str = "self") -> float | None:
    """A memory figure of ``/proc/PID/status`` in MB (``VmRSS`` now, ``VmHWM`` its peak)."""
    with contextlib.suppress(OSError, ValueError, IndexError):
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    return None


# --- the code under test ------------------------------------------------------------------------


def code_fingerprint(root: Path = ROOT) -> str:
    """A short hash of the code a run imports (engine, tgbot, the fakes and players it uses)."""
    digest = hashlib.sha256()
    files = [*sorted((root / "engine").rglob("*.py")), *sorted((root / "tgbot").rglob("*.py"))]
    files += [*sorted((root / "tests" / "fakes").rglob("*.py")), root / "tests" / "bot" / "players.py"]
    for path in files:
        digest.update(str(path.relative_to(root)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


def git_head() -> str:
    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True).stdout.strip()

    dirty = git("status", "--porcelain", "--", "engine", "tgbot")
    return (git("rev-parse", "--short", "HEAD") or "unknown") + (" + uncommitted changes" if dirty else "")


def snapshot(script: Path, into: Path) -> Path:
    """Copy the code a run imports (and the benchmarks), so that edits made to the tree while a
    long benchmark runs cannot mix versions between its runs; returns the copy of `script`."""
    skip = shutil.ignore_patterns("__pycache__", "*.pyc", ".hypothesis", "*.sqlite3*")
    for name in ("engine", "tgbot", "tests", "benchmarks"):
        shutil.copytree(ROOT / name, into / name, ignore=skip)
    return into / "benchmarks" / script.name


def code_label(root: Path = ROOT) -> str:
    return f"code {code_fingerprint(root)} (git {git_head()})"


# --- the players (tap_cost.py, load_bench.py): what they read off the bot's messages ------------

NAMES = ("Ana", "Ben", "Cai", "Dee", "Eva", "Fin")
READ, STEP = (1.0, 4.0), (0.5, 2.0)  # human pace, seconds: reading a board, between two taps
T_TAPS, T_TAPS_MAX = (1, 3), 10  # taps on a [T!] key to choose a card; at most, to choose none again
JOKER_TARGET = re.compile(r"the target becomes (\d+)")
NO_T_CHOSEN = "No [T!] card chosen."
PICKED = re.compile(r"g(\d+)v(\d+):(.+)")  # a move of the 🎯 Play list: game, version, its codes


def keys_of(message: Any) -> list[tuple[str, str]]:
    """(text, callback data) of a message's keys as shown now (link and inline-mode keys left out)."""
    return [(b["text"], b["callback_data"]) for row in message.keyboard for b in row if "callback_data" in b]


def switch_query(message: Any) -> str | None:
    """What the message's inline-mode key types (🎯 Play: ``g<game>``; 🔁 Rematch), if it has one."""
    found = (b.get("switch_inline_query_current_chat") for row in message.keyboard for b in row)
    return next((query for query in found if query is not None), None)


def live_post(fake: Any, chat_id: int) -> Any:
    """An inline table's live message: the newest one posted via the bot that the bot made a board
    (with 🎯 Play) or the standings (🔁 Rematch); None before the game starts."""
    return next((m for m in reversed(fake.transcript(chat_id)) if m.via_bot and switch_query(m)), None)


def choose_pick(results: Sequence[Mapping[str, Any]], rng: random.Random, t_first: bool) -> tuple[str, bool]:
    """A move of the 🎯 Play list and whether it is a Thief, Shifter or Bomb (played first, the
    turn goes on): one of those when `t_first` and the list has one, else its best sum (another
    listed sum three times in ten), else its first discard."""
    kinds: dict[str, list[str]] = {"TFB": [], "S": [], "D": []}
    for result in results:
        if found := PICKED.fullmatch(result["id"]):
            last = found.group(3).split(" ")[-1][0]  # a Joker's sum lists the Joker first
            next((ids for kind, ids in kinds.items() if last in kind), []).append(result["id"])
    if t_first and kinds["TFB"]:
        return rng.choice(kinds["TFB"]), True
    sums = kinds["S"]
    return ((sums[0] if rng.random() < 0.7 else rng.choice(sums)) if sums else kinds["D"][0]), False
