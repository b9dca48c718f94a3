"""What one statement costs the bot's process on PostgreSQL and on SQLite, taken apart.

``python benchmarks/pg_statement.py [--db sqlite|postgres|both] [--runs 3] [--blocks 6]
[--per-block 2000]``

A PostgreSQL tap costs the process about 1 ms more CPU than a SQLite one (BENCHMARKS.md, *CPU
per tap*), which a profile could only put down to the driver. This measures the parts of one
statement in one process, each in blocks alternated with the others so that all see the same
machine, in microseconds of process CPU (user and system: a round trip's system calls count):

* ``driver``: ``SELECT 1`` on the raw driver connection (psycopg inside one transaction, sqlite3);
* ``read``: the senders' read of a chat's delivery row (`tgbot.store.outbox`, 6 columns, one bound
  parameter) through a SQLAlchemy connection, inside one transaction: the statement as a tap runs it;
* ``connection_transaction``: the same read as a whole transaction of its own (begin, read,
  commit) on a SQLAlchemy connection (``engine.begin()``);
* ``transaction``: the same through a `Session`, as every transaction of the bot runs
  (`tgbot.store.db.Database.run`): what the Session adds to a transaction is the difference;
* PostgreSQL only, ``unprepared``: ``read`` again with psycopg's prepared statements turned off
  (``prepare_threshold=None``; by default a statement is prepared on its fifth run).

Each cold run is a fresh process with a fresh database; the figures are the median and range of
the runs' medians. A diagnostic: the bot runs psycopg's defaults.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from coldrun import column, database_main, database_parser, emit, fresh_database, spread  # noqa: E402

CHAT = 1


def _per_op(op: Callable[[], object], count: int) -> float:
    started = time.process_time()
    for _ in range(count):
        op()
    return (time.process_time() - started) / count * 1e6


#: A measure: given a count, runs its operation that many times and returns µs of CPU per run.
Measure = Callable[[int], float]


def _measures(url: str) -> tuple[dict[str, Measure], Callable[[], None]]:
    """Each measure, and what closes them all. The statements run inside a transaction opened
    for the block and closed after it (on SQLite an open transaction holds the write lock)."""
    from sqlalchemy import create_engine
    from sqlmodel import Session

    from tgbot.store import outbox
    from tgbot.store.db import create_all, make_engine

    engine = make_engine(url)
    create_all(engine)
    with Session(engine) as session:
        outbox.delivery_chat(session, CHAT)
        session.commit()
    params = {"chat": CHAT}
    engines = [engine]

    def driver(count: int) -> float:
        raw = engine.raw_connection()
        try:
            cursor = raw.cursor()
            return _per_op(lambda: cursor.execute("SELECT 1").fetchone(), count)
        finally:
            raw.rollback()
            raw.close()

    def reader(eng: Any) -> Measure:
        def read(count: int) -> float:
            with eng.connect() as conn, conn.begin():
                return _per_op(lambda: conn.execute(outbox._CHAT, params).first(), count)

        return read

    def connection_transaction(count: int) -> float:
        def one() -> object:
            with engine.begin() as conn:
                return conn.execute(outbox._CHAT, params).first()

        return _per_op(one, count)

    def transaction(count: int) -> float:
        def one() -> object:
            with Session(engine) as session:
                found = session.execute(outbox._CHAT, params).first()
                session.commit()
            return found

        return _per_op(one, count)

    measures: dict[str, Measure] = {
        "driver": driver,
        "read": reader(engine),
        "connection_transaction": connection_transaction,
        "transaction": transaction,
    }
    if engine.dialect.name == "postgresql":
        unprepared = create_engine(engine.url, connect_args={"prepare_threshold": None})
        engines.append(unprepared)
        measures["unprepared"] = reader(unprepared)

    def close() -> None:
        for eng in engines:
            eng.dispose()

    return measures, close


def child(args: argparse.Namespace) -> None:
    with fresh_database(args.db, "pg_statement_") as url:
        measures, close = _measures(url)
        try:
            for measure in measures.values():  # connections open, statements compiled and prepared
                measure(args.per_block)
            got: dict[str, list[float]] = {name: [] for name in measures}
            names = list(measures)
            for block in range(args.blocks):
                shift = block % len(names)
                for name in names[shift:] + names[:shift]:
                    got[name].append(measures[name](args.per_block))
        finally:
            close()
    emit({f"{name}_us": statistics.median(values) for name, values in got.items()})


def _line(args: argparse.Namespace, db: str, results: list[dict[str, Any]]) -> str:
    parts = [f"{key[:-3]} {spread(column(results, key))}" for key in results[0] if key.endswith("_us")]
    heading = f"{db}: µs of process CPU per operation, median (min–max) of {args.runs} cold runs: "
    return heading + "; ".join(parts)


def main(argv: Sequence[str] | None = None) -> int:
    parser = database_parser(__doc__)
    parser.add_argument("--blocks", type=int, default=6, help="blocks of each measure, alternated")
    parser.add_argument("--per-block", type=int, default=2000, help="operations in a block")
    return database_main(parser, argv, __file__, "pg_statement", child, ["blocks", "per_block"], _line)


if __name__ == "__main__":
    raise SystemExit(main())
