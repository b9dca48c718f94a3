"""Sweep benchmark: 100,000 games in the database, 1,000 of them due.

``python benchmarks/sweep_bench.py [--games N] [--due N] [--repeat N] [--no-postgres] [--telegram]``

For SQLite (a file in a temporary directory, WAL, as the bot runs it) and PostgreSQL (a fresh
database on the local server, see tests/pg.py), it

1. bulk-inserts the games with SQLAlchemy core: chats, users, game players, a start move per game,
   and realistic statuses (finished games without a wake-up time, games in play, lobbies and
   paused games waking up later, and the due ones);
2. prints the query plan of the due query (`EXPLAIN QUERY PLAN` / `EXPLAIN`), which must use
   the index `ix_games_wake_at`;
3. times the due query alone (`sweep.due_game_ids`, the part that grows with the table), then one
   full sweep pass over the due games at the service layer (the same calls `run_sweep` makes:
   `due_game_ids`, `remind_many` for the games that only need a reminder, then `sweep_many` for
   the others, up to `scheduler.SWEEP_TOGETHER` games per transaction), and with
   ``--telegram`` the real `scheduler.run_sweep` sending its messages to the fake Telegram.

Between passes the due games are put back as they were, so every pass does the same work.
Prints a Markdown table for BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sqlalchemy import delete, insert, text, update
from sqlalchemy.engine import Engine
from sqlmodel import col

import engine as rules
from tgbot.services import sweep
from tgbot.services.settings import GameSettings
from tgbot.store.db import create_all, make_engine
from tgbot.store.models import Chat, Game, GamePlayer, Move, User

NOW = datetime(2026, 6, 1, 12, 0, 0)
CHUNK = 5_000
NAMES = ("Ana", "Ben", "Chi", "Dev", "Eli", "Fay")


@dataclass
class Mix:
    """What the due games ask for (and the other games, which must not be touched)."""

    first_reminders: int
    last_calls: int
    deadlines: int
    lobbies: int
    pauses: int

    @classmethod
    def for_due(cls, due: int) -> Mix:
        lobbies = pauses = max(1, due // 50)
        deadlines = last_calls = (due - lobbies - pauses) // 4
        return cls(due - lobbies - pauses - deadlines - last_calls, last_calls, deadlines, lobbies, pauses)

    def describe(self) -> str:
        return (
            f"{self.first_reminders} first reminders, {self.last_calls} last calls, "
            f"{self.deadlines} deadlines (idle moves), {self.lobbies} lobby expiries, "
            f"{self.pauses} pause expiries"
        )


@dataclass
class Dataset:
    due_ids: list[int]
    chat_ids: list[int] = field(default_factory=list)
    originals: list[dict[str, Any]] = field(default_factory=list)  # the due rows as inserted


def _state_json(players: int, seed: int) -> str:
    state = rules.new_game(GameSettings().engine_config(players), seed)
    return json.dumps(state.to_json(), separators=(",", ":"))


def build(db: Engine, games: int, due: int, seed: int = 1) -> Dataset:
    """Insert `games` games, `due` of them due at NOW; returns the due ids and their rows."""
    rnd = random.Random(seed)
    mix = Mix.for_due(due)
    chats = max(10, games // 5)
    users = max(20, games // 2)
    pool = {n: [_state_json(n, seed * 10_000 + i) for i in range(200)] for n in (2, 3, 4)}
    settings = {p: GameSettings(pace=p).to_json() for p in ("live", "quick", "casual", "slow")}
    with db.begin() as conn:
        for start in range(0, chats, CHUNK):
            conn.execute(
                insert(Chat),
                [
                    {"id": -100_000_000 - i, "title": f"Group {i}", "language": "en", "created_at": NOW}
                    for i in range(start, min(chats, start + CHUNK))
                ],
            )
        for start in range(0, users, CHUNK):
            conn.execute(
                insert(User),
                [
                    {"id": 1_000 + i, "first_name": NAMES[i % 6], "can_dm": i % 3 == 0, "created_at": NOW}
                    for i in range(start, min(users, start + CHUNK))
                ],
            )
    kinds = (
        ["first"] * mix.first_reminders
        + ["last"] * mix.last_calls
        + ["deadline"] * mix.deadlines
        + ["lobby"] * mix.lobbies
        + ["pause"] * mix.pauses
    )
    others = games - due
    finished = int(others * 0.6)
    kinds += ["finished"] * finished
    lobbies = others // 50
    paused = others // 50
    kinds += ["future_lobby"] * lobbies + ["future_pause"] * paused
    kinds += ["future"] * (others - finished - lobbies - paused)
    rnd.shuffle(kinds)
    game_rows: list[dict[str, Any]] = []
    player_rows: list[dict[str, Any]] = []
    move_rows: list[dict[str, Any]] = []
    due_positions: list[int] = []
    for index, kind in enumerate(kinds):
        game_id = index + 1
        players = rnd.choice((2, 2, 3, 4))
        pace = rnd.choice(("live", "quick", "casual", "casual", "slow"))
        nudge = {"live": 1, "quick": 10, "casual": 120, "slow": 720}[pace]
        deadline = {"live": 3, "quick": 60, "casual": 720, "slow": 2880}[pace]
        row: dict[str, Any] = {
            "id": game_id,
            "chat_id": -100_000_000 - rnd.randrange(chats),
            "thread_id": None,
            "status": "playing",
            "version": 1,
            "settings": settings[pace],
            "state": None,
            "seed": game_id,
            "creator_id": 1_000 + rnd.randrange(users),
            "language": "en",
            "lobby_message_id": None,
            "board_message_id": rnd.randrange(1, 10**6),
            "current_seat": 0,
            "turn_started_at": None,
            "next_nudge_at": None,
            "deadline_at": None,
            "nudges_sent": 0,
            "paused_until": None,
            "wake_at": None,
            "created_at": NOW - timedelta(days=rnd.randrange(1, 60)),
            "updated_at": NOW - timedelta(minutes=rnd.randrange(1, 5000)),
            "finished_at": None,
        }
        if kind in ("first", "last", "deadline", "lobby", "pause"):
            due_positions.append(index)
            row["state"] = _state_json(players, game_id)  # a game of its own: it will be played
        else:
            row["state"] = rnd.choice(pool[players])
        if kind in ("first", "last", "deadline", "future"):
            # the turn started so long ago that this step is due now (or in the future)
            minutes = {
                "first": nudge,
                "last": deadline * 0.8,
                "deadline": deadline,
                "future": rnd.uniform(0, nudge * 0.9),
            }[kind]
            late = timedelta(seconds=rnd.randrange(0, 30)) if kind != "future" else timedelta(0)
            started = NOW - timedelta(minutes=minutes) - late
            row["turn_started_at"] = started
            row["nudges_sent"] = {"first": 0, "last": 1, "deadline": 2, "future": 0}[kind]
            row["deadline_at"] = started + timedelta(minutes=deadline)
            row["next_nudge_at"] = {
                "first": started + timedelta(minutes=nudge),
                "last": started + timedelta(minutes=deadline * 0.8),
                "deadline": None,
                "future": started + timedelta(minutes=nudge),
            }[kind]
            candidates = [m for m in (row["next_nudge_at"], row["deadline_at"]) if m is not None]
            row["wake_at"] = min(candidates)
        elif kind in ("lobby", "future_lobby"):
            row.update(status="lobby", version=0, state=None, current_seat=None, board_message_id=None)
            row["lobby_message_id"] = rnd.randrange(1, 10**6)
            row["wake_at"] = NOW - timedelta(seconds=5) if kind == "lobby" else NOW + timedelta(hours=5)
        elif kind in ("pause", "future_pause"):
            row["status"] = "paused"
            row["paused_until"] = NOW - timedelta(seconds=5) if kind == "pause" else NOW + timedelta(days=3)
            row["wake_at"] = row["paused_until"]
        else:  # finished, cancelled, abandoned or expired: never looked at again
            row["status"] = rnd.choice(("finished", "finished", "finished", "cancelled", "abandoned"))
            row["finished_at"] = row["updated_at"]
        game_rows.append(row)
        seats = 1 if row["status"] == "lobby" else players
        for seat in range(seats):
            player_rows.append(
                {
                    "game_id": game_id,
                    "seat": seat,
                    "user_id": 1_000 + rnd.randrange(users),
                    "name": NAMES[seat],
                    "ai_level": None,
                    "away": False,
                    "left": False,
                    "timeouts": 0,
                    "panel_message_id": None,
                }
            )
        if row["status"] != "lobby":
            move_rows.append(
                {
                    "game_id": game_id,
                    "seq": 1,
                    "seat": None,
                    "code": f"start:{game_id}",
                    "source": "system",
                    "at": row["created_at"],
                }
            )
    with db.begin() as conn:
        for rows, table in ((game_rows, Game), (player_rows, GamePlayer), (move_rows, Move)):
            for start in range(0, len(rows), CHUNK):
                conn.execute(insert(table), rows[start : start + CHUNK])
    if db.dialect.name == "postgresql":
        with db.begin() as conn:
            conn.execute(text("SELECT setval('games_id_seq', (SELECT max(id) FROM games))"))
            conn.execute(text("ANALYZE"))
    else:
        with db.begin() as conn:
            conn.execute(text("ANALYZE"))
    dataset = Dataset([game_rows[i]["id"] for i in due_positions], [-100_000_000 - i for i in range(chats)])
    dataset.originals = [dict(game_rows[i]) for i in due_positions]
    return dataset


def reset(db: Engine, dataset: Dataset) -> None:
    """Put the due games back as they were before a pass."""
    with db.begin() as conn:
        conn.execute(delete(Move).where(col(Move.game_id).in_(dataset.due_ids), col(Move.seq) > 1))
        conn.execute(
            update(GamePlayer)
            .where(col(GamePlayer.game_id).in_(dataset.due_ids))
            .values(timeouts=0, away=False)
        )
        for row in dataset.originals:
            values = {k: v for k, v in row.items() if k != "id"}
            conn.execute(update(Game).where(col(Game.id) == row["id"]).values(**values))


def due_query_plan(db: Engine) -> str:
    with db.connect() as conn:
        compiled = sweep.due_query(NOW, sweep.SWEEP_BATCH).compile(
            dialect=db.dialect, compile_kwargs={"literal_binds": True}
        )
        sql = str(compiled)
        if db.dialect.name == "sqlite":
            rows = conn.execute(text(f"EXPLAIN QUERY PLAN {sql}")).all()
            return "\n".join(str(r[-1]) for r in rows)
        rows = conn.execute(text(f"EXPLAIN ANALYZE {sql}")).all()
        return "\n".join(str(r[0]) for r in rows)


def time_due_query(db: Engine, repeat: int) -> list[float]:
    from sqlmodel import Session

    times = []
    for _ in range(repeat):
        with Session(db) as session:
            started = time.perf_counter()
            due = sweep.due_game_ids(session, NOW)
            times.append(time.perf_counter() - started)
        assert len(due) == min(sweep.SWEEP_BATCH, len(due)) and due
    return times


@dataclass
class Pass:
    total: float = 0.0
    reminders: float = 0.0  # remind_many: the games that only needed a reminder
    others: float = 0.0  # sweep_many, in batches: idle moves, lobby and pause expiries
    report: sweep.SweepReport = field(default_factory=sweep.SweepReport)
    batched: int = 0
    fallbacks: int = 0  # batches of `sweep_many` that failed and were swept game by game


def service_pass(db: Engine) -> Pass:
    """What run_sweep does, without Telegram: every batch of due ids, reminders together, then the
    others in batches of `scheduler.SWEEP_TOGETHER` (`sweep_many`), one by one if a batch fails."""
    from sqlmodel import Session

    from tgbot.scheduler import SWEEP_TOGETHER

    result = Pass()
    tried: set[int] = set()
    started = time.perf_counter()
    while True:
        with Session(db) as session:
            due = sweep.due_game_ids(session, NOW)
        fresh = [i for i in due if i not in tried]
        tried.update(fresh)
        t0 = time.perf_counter()
        rest = sweep.remind_many(db, fresh, NOW, None, result.report)
        t1 = time.perf_counter()
        for start in range(0, len(rest), SWEEP_TOGETHER):
            chunk = rest[start : start + SWEEP_TOGETHER]
            try:
                reports = sweep.sweep_many(db, chunk, NOW, None)
            except Exception:
                result.fallbacks += 1
                for game_id in chunk:
                    sweep.sweep_game(db, game_id, NOW, None, result.report)
                continue
            for report in reports.values():
                result.report.merge(report)
        result.reminders += t1 - t0
        result.others += time.perf_counter() - t1
        result.batched += len(fresh) - len(rest)
        if len(due) < sweep.SWEEP_BATCH or not fresh:
            break
    result.total = time.perf_counter() - started
    return result


def telegram_pass(db: Engine, dataset: Dataset) -> tuple[float, int]:
    """The real `scheduler.run_sweep`, its messages going to the fake Telegram."""
    from tests.bot.conftest import make_settings
    from tests.fakes import FakeTelegram, TelegramTestClient
    from tgbot import scheduler
    from tgbot.app import build_application, make_deps
    from tgbot.clock import ManualClock

    async def run() -> tuple[float, int]:
        clock = ManualClock(NOW)
        fake = FakeTelegram(clock=clock.now)
        settings = make_settings(str(db.url.render_as_string(hide_password=False)))
        deps = make_deps(settings, db=db, clock=clock)
        app = build_application(settings, deps=deps, request=fake, rate_limiter=False, create_tables=False)
        client = TelegramTestClient(app, fake, raise_errors=False)
        await client.start()
        for chat_id in dataset.chat_ids:
            fake.group(f"Group {chat_id}", chat_id=chat_id)
        try:
            calls_before = len(fake.calls)
            started = time.perf_counter()
            await scheduler.run_sweep(deps, app.bot)
            elapsed = time.perf_counter() - started
            return elapsed, len(fake.calls) - calls_before
        finally:
            await client.stop()

    return asyncio.run(run())


@contextmanager
def sqlite_db() -> Iterator[Engine]:
    with tempfile.TemporaryDirectory() as tmp:
        db = make_engine(f"sqlite:///{Path(tmp) / 'bench.sqlite3'}")
        create_all(db)
        try:
            yield db
        finally:
            db.dispose()


@contextmanager
def postgres_db() -> Iterator[Engine]:
    from tests.pg import create_database, drop_database, unreachable_reason

    reason = unreachable_reason()
    if reason is not None:
        raise SystemExit(reason)
    name, url = create_database()
    db = make_engine(url)
    create_all(db)
    try:
        yield db
    finally:
        db.dispose()
        drop_database(name)


def ms(seconds: float) -> str:
    return f"{seconds * 1000:,.1f} ms"


def run(label: str, db: Engine, games: int, due: int, repeat: int, telegram: bool) -> list[str]:
    started = time.perf_counter()
    dataset = build(db, games, due)
    print(f"[{label}] inserted {games:,} games ({due:,} due) in {time.perf_counter() - started:.1f} s")
    plan = due_query_plan(db)
    print(f"[{label}] query plan of the due query:\n{plan}\n")
    assert "ix_games_wake_at" in plan, "the due query does not use ix_games_wake_at"
    query_times = time_due_query(db, max(5, repeat * 5))
    passes: list[Pass] = []
    for _ in range(repeat):
        reset(db, dataset)
        one = service_pass(db)
        assert one.report.examined == due, (one.report.examined, due)
        passes.append(one)
    best = min(passes, key=lambda p: p.total)
    others = due - best.batched
    line = [
        f"| {label} | {games:,} / {due:,} | {ms(statistics.median(query_times))} "
        f"(min {ms(min(query_times))}) | {ms(best.total)} (median "
        f"{ms(statistics.median(p.total for p in passes))}) | {ms(best.reminders)} for {best.batched:,} "
        f"reminders | {ms(best.others)} for {others:,} games ({ms(best.others / max(1, others))} each) |"
    ]
    report = best.report
    print(f"[{label}] due query: {[ms(t) for t in query_times]}")
    print(f"[{label}] service passes: {[(ms(p.total), ms(p.reminders), ms(p.others)) for p in passes]}")
    print(
        f"[{label}] one pass: {len(report.reminders)} reminders, {len(report.plays)} idle plays, "
        f"{len(report.marked_away)} marked away, {len(report.expired_lobbies)} lobbies closed, "
        f"{len(report.resumed)} pauses lifted; {best.fallbacks} batches swept game by game after a failure"
    )
    if telegram:
        reset(db, dataset)
        elapsed, calls = telegram_pass(db, dataset)
        print(f"[{label}] run_sweep with the fake Telegram: {ms(elapsed)}, {calls:,} API calls")
        line.append(
            f"| {label}, `run_sweep` + fake Telegram | {games:,} / {due:,} | — | {ms(elapsed)} "
            f"({calls:,} API calls) | | |"
        )
    return line


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--due", type=int, default=1_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-postgres", action="store_true")
    parser.add_argument("--telegram", action="store_true", help="also time run_sweep with the fake Telegram")
    args = parser.parse_args(argv)
    print(f"due mix: {Mix.for_due(args.due).describe()}")
    lines = [
        "| Database | Games / due | Due query (`due_game_ids`) | Full pass over the due games "
        "| of which reminders (`remind_many`) | of which the others (`sweep_many`) |",
        "|---|---|---|---|---|---|",
    ]
    with sqlite_db() as db:
        lines += run("SQLite", db, args.games, args.due, args.repeat, args.telegram)
    if not args.no_postgres:
        with postgres_db() as db:
            lines += run("PostgreSQL", db, args.games, args.due, args.repeat, args.telegram)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
