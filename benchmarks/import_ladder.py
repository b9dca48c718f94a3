"""What each library costs a bot process: RSS after importing the bot's dependencies one step at
a time, each step on top of the ones before, in fresh processes.

``python benchmarks/import_ladder.py [--python PYTHON] [--runs 3] [--sqlite]``

Step k runs a new interpreter that imports the modules of steps 1..k and reports its RSS
(``VmRSS``); a step's cost is its median minus the median of the step before (so a package is
charged only for what the packages above it had not already loaded: pydantic's cost, say, is
not counted again under SQLModel). Medians and (min–max) of ``--runs`` cold processes per step.

``--python`` measures another interpreter's environment: a virtualenv with ``pip install .`` and
no dev extras is what a production install holds (this one's dev extras bring rich, click and
pygments, which httpx imports when present). The bot's own code is this tree's (``PYTHONPATH``).
The last step is the database driver of a PostgreSQL bot; ``--sqlite`` measures the SQLite
dialect instead (the sqlite3 driver is in the standard library).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: (label, modules), in the order the bot's imports reach them.
STEPS: list[tuple[str, str]] = [
    ("the standard library the bot uses (asyncio, ssl, logging, json, ...)",
     "asyncio ssl logging json argparse subprocess concurrent.futures http.client"),
    ("pydantic (pydantic-core)", "pydantic pydantic.fields pydantic.types"),
    ("python-dotenv (reads .env)", "dotenv"),
    ("Babel's plural rules (babel.plural)", "babel.plural"),
    ("SQLAlchemy Core", "sqlalchemy sqlalchemy.engine sqlalchemy.sql"),
    ("SQLAlchemy ORM", "sqlalchemy.orm"),
    ("SQLModel", "sqlmodel"),
    ("httpx (httpcore, anyio, h11, idna, certifi)", "httpx httpcore"),
    ("python-telegram-bot: telegram", "telegram"),
    ("python-telegram-bot: telegram.ext (APScheduler; tornado too where it is installed)", "telegram.ext"),
    ("aiohttp (the Bot API client; the server of /healthz, /metrics, the webhook)", "aiohttp aiohttp.web"),
    ("prometheus_client (only a bot that serves /metrics: webhook mode, METRICS_PORT)", "prometheus_client"),
    ("the bot's own code (tgbot, engine) and what only it imports",
     "tgbot.__main__ tgbot.runner tgbot.app tgbot.web"),
]
POSTGRES = (
    "PostgreSQL: SQLAlchemy's postgresql dialect and psycopg (binary: its own libpq, libssl, libcrypto)",
    "sqlalchemy.dialects.postgresql sqlalchemy.dialects.postgresql.psycopg psycopg",
)
SQLITE = ("SQLite: SQLAlchemy's sqlite dialect (sqlite3)", "sqlalchemy.dialects.sqlite sqlite3")

PROBE = """
import importlib, sys
for name in sys.argv[1:]:
    importlib.import_module(name)
for line in open("/proc/self/status"):
    if line.startswith("VmRSS:"):
        print(int(line.split()[1]) / 1024)
"""


def rss_after(python: str, modules: list[str]) -> float:
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    env = {**os.environ, "PYTHONPATH": path}
    done = subprocess.run(
        [python, "-c", PROBE, *modules], capture_output=True, text=True, check=True, cwd="/", env=env
    )
    return float(done.stdout.split()[-1])


def spread(values: list[float]) -> str:
    return f"{min(values):.1f}–{max(values):.1f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n\n")[0])
    parser.add_argument("--python", default=sys.executable, help="the interpreter to measure (default: this)")
    parser.add_argument("--runs", type=int, default=3, help="cold processes per step")
    parser.add_argument("--sqlite", action="store_true", help="end with the SQLite dialect, not PostgreSQL")
    args = parser.parse_args(argv)
    steps = [*STEPS, SQLITE if args.sqlite else POSTGRES]
    print(f"Interpreter: {args.python}; {args.runs} cold processes per step; RSS in MB\n")
    print("| Step (each on top of the ones above) | RSS, median (min–max) | Cost |")
    print("|---|---|---|")
    bare = [rss_after(args.python, []) for _ in range(args.runs)]
    print(f"| A bare interpreter | {statistics.median(bare):.1f} ({spread(bare)}) | |")
    modules: list[str] = []
    previous = statistics.median(bare)
    for label, names in steps:
        modules += names.split()
        values = [rss_after(args.python, modules) for _ in range(args.runs)]
        median = statistics.median(values)
        print(f"| + {label} | {median:.1f} ({spread(values)}) | {median - previous:+.1f} |", flush=True)
        previous = median
    return 0


if __name__ == "__main__":
    sys.exit(main())
