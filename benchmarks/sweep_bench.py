"""Sweep benchmark: one pass of the real sweep job over N games of which D are due.

``python benchmarks/sweep_bench.py [--runs 3] [--games 10000 100000] [--due 1000] [--db sqlite postgres]``

Each cold run is a fresh process and a fresh database (a SQLite file, WAL, as the bot runs it; a
new PostgreSQL database from ``tests/pg.py``, default server settings, on this machine), built
then swept once: the pass is the first thing that touches the due games, so nothing is warm from
an earlier pass (the database's own page cache is as warm as the build left it).

The data (bulk-inserted with SQLAlchemy Core, the rows as the bot writes them):

* groups (a tenth with quiet hours), people (two in five can be written to in private), and N
  games with 2–4 seats, paces live/quick/casual/slow/relaxed. Not due: 60 % over (finished,
  cancelled, abandoned, expired: no wake-up time), the rest in play, in a lobby or paused with
  their next wake-up later. Their state is a real mid-game state; their move log the start entry.
* Seats as people leave them: a seat is a computer (one in four; Normal, Easy or Hard as 7:2:1),
  a person who is away (one in ten) or has left (one in twenty), else a person playing, a third
  of them using the private panel. The player to move is always a person playing.
* The D due games, each a game of its own with a real state and its **whole move log** (the
  events `apply` returned, as the bot stores them), its board on screen (``shown_messages``):
  35 % a first reminder (private to a panel user who can be written to, else a mention under
  the board), 15 % a last call, 40 % a **deadline**: the engine's idle default is played, then
  every computer, away or departed seat after it (Normal and Easy computers decide in well under
  a millisecond, Hard in several), a second missed turn in a row makes the player away (a game
  with nobody left playing is abandoned), and rounds and games end on the way: a third of the
  deadline states are taken from a round's last cards and a sixth from the game's last round,
  so the pass writes round summaries, final standings, score charts (as outbox rows) and the
  **stats** of every game that ends (which read its whole move log); 5 % lobbies that expire and
  5 % pauses that run out.

The pass is ``tgbot.jobs.run_sweep`` itself (the due ids 500 at a time, batches of
``services.sweep.BATCH`` games per transaction, in the bot's database worker threads), with the
outbox rows written but no sender running (what Telegram costs is not the sweep's). Reported: the
wall time of the pass and per due game, its SQL statements and transactions (SQLAlchemy events),
how much of it was the computers' and the idle default's decisions and the stats at games' ends,
what it did (from the database afterwards), the due query alone (``services.sweep.due``, its
first run), and the query plan of the due query, which must use ``ix_games_wake_at``.
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
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from pydantic import SecretStr

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from coldrun import add_child_arguments, cold_runs, column, emit, machine, spread
from sqlalchemy import event, func, insert, select, text
from sqlalchemy.engine import Engine
from sqlmodel import col

import engine as rules
from engine.actions import Action, encode
from engine.ai import choose_action
from engine.events import Event, GameEnded, RoundEnded, dump_events
from engine.game import apply_in_place, new_game
from engine.state import GameState
from tgbot import pacing, turn_clock
from tgbot.game_settings import GameSettings
from tgbot.store.db import create_all, make_engine
from tgbot.store.models import Chat, Game, GamePlayer, Move, OutboxRow, ShownMessage, User

NOW = datetime(2026, 6, 1, 12, 0, 0)
CHUNK = 2_000
NAMES = ("Ana", "Ben", "Chi", "Dev", "Eli", "Fay", "Gus", "Hal")
PACES = ("live", "quick", "casual", "casual", "slow", "relaxed")
LEVELS = ("normal",) * 7 + ("easy",) * 2 + ("hard",)
SIM_GAMES = 40  # simulated games per player count, the source of the due games' states and logs


# --- the states -------------------------------------------------------------------------------


@dataclass
class Simulated:
    players: int
    seed: int
    moves: list[tuple[int, Action, list[Event]]]
    round_end_cuts: list[int] = field(default_factory=list)  # last cards of a round (not the last)
    game_end_cuts: list[int] = field(default_factory=list)  # last cards of the game's last round
    mid_cuts: list[int] = field(default_factory=list)


def simulate(players: int, seed: int) -> Simulated:
    """A whole game, every seat an Easy computer (quick; [T!] cards included)."""
    config = GameSettings().engine_config(players)
    state = new_game(config, seed)
    sim = Simulated(players, seed, [])
    cards_left: list[tuple[int, int, bool]] = []  # (cut, round, deck empty and few cards in hand)
    while not state.is_over:
        seat = state.current
        action = choose_action(state, seat, "easy", seed=state.rng ^ len(sim.moves))
        events: list[Event] = []
        few = not state.deck and sum(len(h) for h in state.hands) <= players + 1
        cards_left.append((len(sim.moves), state.round, few))
        apply_in_place(state, seat, action, events)
        sim.moves.append((seat, action, events))
    last_round = state.round
    for cut, round_no, few in cards_left:
        if few:
            (sim.game_end_cuts if round_no == last_round else sim.round_end_cuts).append(cut)
        elif cut > 3:
            sim.mid_cuts.append(cut)
    return sim


def state_at(sim: Simulated, cut: int) -> GameState:
    state = new_game(GameSettings().engine_config(sim.players), sim.seed)
    events: list[Event] = []
    for seat, action, _events in sim.moves[:cut]:
        apply_in_place(state, seat, action, events)
    return state


def dumps(state: GameState) -> str:
    return json.dumps(state.to_json(), separators=(",", ":"))


# --- the data -----------------------------------------------------------------------------------


@dataclass
class Built:
    due: Counter[str] = field(default_factory=Counter)
    rows: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0


def build(db: Engine, games: int, due: int, seed: int) -> Built:
    started = time.perf_counter()
    rnd = random.Random(seed)
    built = Built()
    sims = {n: [simulate(n, seed * 1000 + n * 100 + i) for i in range(SIM_GAMES)] for n in (2, 3, 4)}
    pool = {n: [dumps(state_at(s, rnd.choice(s.mid_cuts))) for s in sims[n][:10]] for n in (2, 3, 4)}
    settings = {p: GameSettings(pace=p).to_json() for p in PACES}
    chats = max(10, games // 5)
    users = max(50, games // 2)
    chat_rows = []
    for i in range(chats):
        quiet = rnd.random() < 0.1
        chat_rows.append(
            {
                "id": -100_000_000 - i,
                "title": f"Group {i}",
                "language": "en",
                "quiet_start": 23 if quiet else None,
                "quiet_end": 7 if quiet else None,
                "utc_offset_minutes": rnd.choice((0, 60, -300, 330)) if quiet else 0,
                "bot_removed": False,
                "created_at": NOW - timedelta(days=90),
            }
        )
    user_rows = [
        {
            "id": 1_000 + i,
            "first_name": NAMES[i % len(NAMES)],
            "tg_language": "en",
            "can_dm": rnd.random() < 0.4,
            "created_at": NOW - timedelta(days=90),
        }
        for i in range(users)
    ]
    can_dm = {r["id"]: r["can_dm"] for r in user_rows}
    n_first = int(due * 0.35)
    n_last = int(due * 0.15)
    n_lobby = n_pause = max(1, due // 20)
    n_deadline = due - n_first - n_last - n_lobby - n_pause
    kinds = ["first"] * n_first + ["last"] * n_last + ["deadline"] * n_deadline
    kinds += ["lobby"] * n_lobby + ["pause"] * n_pause
    others = games - due
    over = int(others * 0.6)
    lobbies = paused = others // 50
    kinds += ["over"] * over + ["future_lobby"] * lobbies + ["future_pause"] * paused
    kinds += ["future"] * (others - over - lobbies - paused)
    rnd.shuffle(kinds)
    game_rows: list[dict[str, Any]] = []
    player_rows: list[dict[str, Any]] = []
    move_rows: list[dict[str, Any]] = []
    shown_rows: list[dict[str, Any]] = []
    for index, kind in enumerate(kinds):
        gid = index + 1
        chat_id = -100_000_000 - rnd.randrange(chats)
        pace_key = rnd.choice(PACES)
        pace = pacing.PACES[pace_key]
        if kind in ("first", "last", "deadline") and pace.deadline is None:
            pace_key, pace = "casual", pacing.PACES["casual"]  # a deadline needs one; a last call too
        players = rnd.choice((2, 2, 3, 3, 4))
        created = NOW - timedelta(days=rnd.randrange(1, 60))
        row: dict[str, Any] = {
            "id": gid,
            "chat_id": chat_id,
            "thread_id": None,
            "status": "playing",
            "version": 1,
            "settings": settings[pace_key],
            "state": None,
            "seed": gid,
            "creator_id": 1_000 + rnd.randrange(users),
            "language": "en",
            "board_no": 1,
            "current_seat": None,
            "turn_started_at": None,
            "next_nudge_at": None,
            "deadline_at": None,
            "nudges_sent": 0,
            "paused_until": None,
            "wake_at": None,
            "created_at": created,
            "updated_at": NOW - timedelta(minutes=rnd.randrange(1, 5000)),
            "finished_at": None,
        }
        state: GameState | None = None
        log: list[tuple[int, Action, list[Event]]] = []
        late = timedelta(seconds=rnd.randrange(0, 30))
        if kind in ("first", "last", "deadline", "pause"):
            sim = rnd.choice(sims[players])
            cuts = sim.mid_cuts
            if kind == "deadline":
                pick = rnd.random()
                if pick < 1 / 6 and sim.game_end_cuts:
                    cuts = sim.game_end_cuts
                elif pick < 1 / 2 and sim.round_end_cuts:
                    cuts = sim.round_end_cuts
            cut = rnd.choice(cuts)
            state = state_at(sim, cut)
            log = sim.moves[:cut]
            row["seed"] = sim.seed
            row["state"] = dumps(state)
            row["version"] = 1 + cut
            row["current_seat"] = state.current
            built.due[kind] += 1
            shown_rows.append(
                {"chat_id": chat_id, "surface": f"board:{gid}:1", "message_id": 10 + gid, "digest": ""}
            )
        elif kind in ("lobby", "future_lobby"):
            row.update(status="lobby", version=0, board_no=0, seed=0)
            row["wake_at"] = NOW - late if kind == "lobby" else NOW + timedelta(hours=rnd.uniform(1, 20))
            shown_rows.append(
                {"chat_id": chat_id, "surface": f"lobby:{gid}", "message_id": 10 + gid, "digest": ""}
            )
            if kind == "lobby":
                built.due[kind] += 1
        else:
            row["state"] = rnd.choice(pool[players])
            row["version"] = 30
        if kind == "first":
            turn_start = NOW - pace.nudge - late
        elif kind == "last":
            assert pace.deadline is not None
            turn_start = NOW - pace.deadline * turn_clock.LAST_CALL_FRACTION - late
        elif kind == "deadline":
            assert pace.deadline is not None
            turn_start = NOW - pace.deadline - late
        else:
            turn_start = NOW - pace.nudge * rnd.uniform(0.05, 0.9)
        if kind in ("first", "last", "deadline", "future"):
            deadline = turn_start + pace.deadline if pace.deadline is not None else None
            sent = {"first": 0, "last": 1, "deadline": 2, "future": 0}[kind]
            nudge = turn_clock.TurnClock(pace).next_nudge(turn_start, sent, deadline)
            row.update(
                turn_turn_start_at=turn_start, nudges_sent=sent, next_nudge_at=nudge, deadline_at=deadline
            )
            row["wake_at"] = turn_clock.earliest(nudge, deadline)
            if row["current_seat"] is None:
                row["current_seat"] = 0
        elif kind in ("pause", "future_pause"):
            row["status"] = "paused"
            row["paused_until"] = NOW - late if kind == "pause" else NOW + timedelta(days=rnd.uniform(0.5, 6))
            row["wake_at"] = row["paused_until"]
            if state is None:
                row["state"] = rnd.choice(pool[players])
        elif kind == "over":
            row["status"] = rnd.choice(
                ("finished", "finished", "finished", "cancelled", "abandoned", "expired")
            )
            row["finished_at"] = row["updated_at"]
            row["board_no"] = 0
        game_rows.append(row)
        seats = rnd.randint(1, 3) if row["status"] == "lobby" else players
        mover = state.current if state is not None else 0
        for seat in range(seats):
            person = 1_000 + rnd.randrange(users)
            entry = {
                "game_id": gid,
                "seat": seat,
                "user_id": person,
                "name": NAMES[seat],
                "ai_level": None,
                "away": False,
                "left": False,
                "timeouts": 0,
                "panel": rnd.random() < 0.3 and can_dm[person],
            }
            if seat == mover or row["status"] == "lobby":
                if kind == "deadline" and rnd.random() < 0.3:
                    entry["timeouts"] = 1  # missed the turn before: this deadline makes them away
            else:
                pick = rnd.random()
                if pick < 0.25:
                    entry.update(user_id=None, name=f"Bot {seat}", ai_level=rnd.choice(LEVELS), panel=False)
                elif pick < 0.35:
                    entry.update(away=True, timeouts=2)
                elif pick < 0.40:
                    entry["left"] = True
            player_rows.append(entry)
        if row["status"] != "lobby":
            move_rows.append(
                {
                    "game_id": gid,
                    "seq": 1,
                    "seat": None,
                    "code": f"start:{row['seed']}",
                    "source": "system",
                    "at": created,
                    "events": None,
                }
            )
            for seq, (seat, action, events) in enumerate(log, start=2):
                move_rows.append(
                    {
                        "game_id": gid,
                        "seq": seq,
                        "seat": seat,
                        "code": encode(action),
                        "source": rnd.choice(("player", "player", "player", "ai")),
                        "at": created,
                        "events": dump_events(events),
                    }
                )
    tables = (
        (chat_rows, Chat),
        (user_rows, User),
        (game_rows, Game),
        (player_rows, GamePlayer),
        (move_rows, Move),
        (shown_rows, ShownMessage),
    )
    for rows, table in tables:
        with db.begin() as conn:
            for start in range(0, len(rows), CHUNK):
                conn.execute(insert(table), rows[start : start + CHUNK])
        built.rows[table.__tablename__] = len(rows)
    with db.begin() as conn:
        if db.dialect.name == "postgresql":
            for name in ("games", "game_players", "moves"):
                conn.execute(text(f"SELECT setval('{name}_id_seq', (SELECT max(id) FROM {name}))"))
        conn.execute(text("ANALYZE"))
    built.seconds = time.perf_counter() - started
    return built


# --- the pass -----------------------------------------------------------------------------------


def due_query_plan(db: Engine, statement: str, parameters: Any) -> str:
    """The plan of the statement `sweep.due` ran, with its parameters."""
    with db.connect() as conn:
        if db.dialect.name == "sqlite":
            rows = conn.exec_driver_sql(f"EXPLAIN QUERY PLAN {statement}", parameters).all()
            plan = "\n".join(str(r[-1]) for r in rows)
        else:
            rows = conn.exec_driver_sql(f"EXPLAIN (ANALYZE, BUFFERS) {statement}", parameters).all()
            plan = "\n".join(str(r[0]) for r in rows)
    return " ".join(statement.split()) + f"  -- {parameters}\n" + plan


class Timed:
    """Wraps a function of a module and adds up the time spent in it (seconds)."""

    def __init__(self, module: Any, name: str) -> None:
        self.module, self.name, self.original = module, name, getattr(module, name)
        self.seconds = 0.0
        self.calls = 0

        def timed(*args: Any, **kw: Any) -> Any:
            started = time.perf_counter()
            try:
                return self.original(*args, **kw)
            finally:
                self.seconds += time.perf_counter() - started
                self.calls += 1

        setattr(module, name, timed)

    def undo(self) -> None:
        setattr(self.module, self.name, self.original)


def sweep_pass(db: Engine, url: str) -> dict[str, Any]:
    from tests.fakes.telegram import TEST_TOKEN
    from tgbot import jobs
    from tgbot.app import make_deps
    from tgbot.clock import ManualClock
    from tgbot.config import Settings
    from tgbot.services import moves, stats, sweep

    counts: Counter[str] = Counter()

    def count_statement(conn: Any, cursor: Any, sql: str, *args: Any) -> None:
        word = sql.lstrip().split(None, 1)[0].upper()
        counts["BEGIN" if word == "BEGIN" else "statements"] += 1

    def begun(conn: Any) -> None:
        counts["transactions"] += 1

    deps = make_deps(
        Settings(telegram_bot_token=SecretStr(TEST_TOKEN), database_url=url), db=db, clock=ManualClock(NOW)
    )
    with db.connect() as conn:
        before_moves = conn.execute(select(func.max(Move.id))).scalar() or 0
        before_outbox = conn.execute(select(func.count()).select_from(OutboxRow)).scalar() or 0
    from sqlmodel import Session

    seen: list[tuple[str, Any]] = []

    def capture(conn: Any, cursor: Any, sql: str, parameters: Any, *args: Any) -> None:
        seen.append((sql, parameters))

    event.listen(db, "before_cursor_execute", capture)
    with Session(db) as session:
        started = time.perf_counter()
        ids = sweep.due(session, NOW)
        due_query = time.perf_counter() - started
    event.remove(db, "before_cursor_execute", capture)
    statement, parameters = next((q, p) for q, p in seen if "wake_at" in q)
    plan = due_query_plan(db, statement, parameters)
    ai = Timed(moves, "choose_action")
    idle = Timed(rules, "default_action")
    ends = Timed(stats, "record_game_end")
    event.listen(db, "before_cursor_execute", count_statement)
    event.listen(db, "begin", begun)
    try:
        cpu, started = time.process_time(), time.perf_counter()
        report = asyncio.run(jobs.run_sweep(deps))
        wall, cpu = time.perf_counter() - started, time.process_time() - cpu
    finally:
        event.remove(db, "before_cursor_execute", count_statement)
        event.remove(db, "begin", begun)
        for timed in (ai, idle, ends):
            timed.undo()
        deps.db.shutdown(wait=True)
    with db.connect() as conn:
        written = conn.execute(
            select(col(Move.source), col(Move.events)).where(col(Move.id) > before_moves)
        ).all()
        statuses = dict(
            conn.execute(
                select(col(Game.status), func.count())
                .where(col(Game.updated_at) == NOW)
                .group_by(col(Game.status))
            ).all()
        )
        outbox = (conn.execute(select(func.count()).select_from(OutboxRow)).scalar() or 0) - before_outbox
        stats_rows = conn.execute(
            text("SELECT (SELECT count(*) FROM player_stats) + (SELECT count(*) FROM computer_stats)")
        ).scalar()
    sources = Counter(str(s) for s, _e in written)
    rounds = sum(1 for _s, e in written if e and f'"event":"{RoundEnded.__name__}"' in e)
    game_ends = sum(1 for _s, e in written if e and f'"event":"{GameEnded.__name__}"' in e)
    return {
        "wall": wall,
        "cpu": cpu,
        "due_query": due_query,
        "due_ids": len(ids),
        "examined": report.examined,
        "reminders": report.reminders,
        "idle_moves": report.idle_moves,
        "failed": len(report.failed),
        "moves": len(written),
        "sources": dict(sources),
        "rounds_ended": rounds,
        "games_ended": game_ends,
        "statuses": {str(k): int(v) for k, v in statuses.items()},
        "outbox_rows": int(outbox),
        "stats_rows": int(stats_rows or 0),
        "statements": counts["statements"],
        "transactions": counts["transactions"],
        "ai_seconds": ai.seconds,
        "ai_calls": ai.calls,
        "idle_seconds": idle.seconds,
        "ends_seconds": ends.seconds,
        "ends_calls": ends.calls,
        "plan": plan,
    }


@contextmanager
def database(kind: str) -> Iterator[tuple[Engine, str]]:
    if kind == "sqlite":
        with tempfile.TemporaryDirectory() as tmp:
            url = f"sqlite:///{Path(tmp) / 'sweep.sqlite3'}"
            db = make_engine(url)
            create_all(db)
            try:
                yield db, url
            finally:
                db.dispose()
        return
    from tests.pg import create_database, drop_database, unreachable_reason

    reason = unreachable_reason()
    if reason is not None:
        raise SystemExit(f"PostgreSQL: {reason}")
    name, url = create_database()
    db = make_engine(url)
    create_all(db)
    try:
        yield db, url
    finally:
        db.dispose()
        drop_database(name)


def child(args: argparse.Namespace) -> None:
    with database(args.db[0]) as (db, url):
        built = build(db, args.games[0], args.due, seed=args.run + 1)
        figures = sweep_pass(db, url)
    figures.update(build_seconds=built.seconds, due_kinds=dict(built.due), rows=dict(built.rows))
    emit(figures)


# --- the report ---------------------------------------------------------------------------------


def report(label: str, games: int, due: int, results: list[dict[str, Any]]) -> list[str]:
    def f0(v: float) -> str:
        return f"{v:,.0f}"

    def f1(v: float) -> str:
        return f"{v:,.1f}"

    def f2(v: float) -> str:
        return f"{v:,.2f}"

    per_game = [r["wall"] / due * 1000 for r in results]
    rest = [
        (r["wall"] - r["ai_seconds"] - r["idle_seconds"] - r["ends_seconds"]) / due * 1000 for r in results
    ]
    first = results[0]
    kinds = ", ".join(f"{v} {k}" for k, v in sorted(first["due_kinds"].items()))
    print(
        f"\n[{label}, {games:,} games, {due:,} due] build "
        f"{spread(column(results, 'build_seconds'), f1)} s; due: {kinds}"
    )
    print(f"[{label}] query plan of the due query (run 1):\n{first['plan']}\n")
    sources: Counter[str] = Counter()
    for r in results:
        sources.update(r["sources"])
    print(
        f"[{label}] moves written by source (all runs): {dict(sources)}; "
        f"game statuses set: {first['statuses']}"
    )
    return [
        f"| {label} | {games:,} / {due:,} | {spread([r['due_query'] * 1000 for r in results], f2)} ms "
        f"| **{spread([r['wall'] * 1000 for r in results], f0)} ms** | **{spread(per_game, f2)} ms** "
        f"| {spread(column(results, 'statements'), f0)} / {spread(column(results, 'transactions'), f0)} "
        f"| {spread([r['ai_seconds'] * 1000 for r in results], f0)} ms "
        f"({f0(statistics_median(column(results, 'ai_calls')))} decisions) "
        f"/ {spread([r['idle_seconds'] * 1000 for r in results], f0)} ms / "
        f"{spread([r['ends_seconds'] * 1000 for r in results], f0)} ms "
        f"({f0(statistics_median(column(results, 'ends_calls')))} games) "
        f"| {spread(rest, f2)} ms "
        f"| {spread(column(results, 'reminders'), f0)} / {spread(column(results, 'idle_moves'), f0)} / "
        f"{spread(column(results, 'moves'), f0)} / {spread(column(results, 'rounds_ended'), f0)} / "
        f"{spread(column(results, 'games_ended'), f0)} / {spread(column(results, 'outbox_rows'), f0)} |"
    ]


def statistics_median(values: Sequence[float]) -> float:
    return statistics.median(values) if values else 0.0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="cold runs per database and size")
    parser.add_argument("--games", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--due", type=int, default=1_000)
    parser.add_argument("--db", nargs="+", default=["sqlite", "postgres"], choices=["sqlite", "postgres"])
    add_child_arguments(parser)
    args = parser.parse_args(argv)
    if args.child:
        child(args)
        return 0
    lines = [
        "| Database | Games / due | Due query (first run) | Pass (`run_sweep`) | Per due game "
        "| SQL statements "
        "/ transactions | of which: computers' decisions / idle defaults / stats at games' ends | Per due "
        "game without those | Reminders / idle moves / moves written / rounds ended / games ended "
        "/ outbox rows |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    everything: list[dict[str, Any]] = []
    for db in args.db:
        label = "SQLite" if db == "sqlite" else "PostgreSQL"
        for games in args.games:
            passed = [f"--db={db}", f"--games={games}", f"--due={args.due}"]
            results = cold_runs(__file__, passed, args.runs, f"sweep {label} {games:,}")
            everything += results
            lines += report(label, games, args.due, results)
    print(f"\nSweep, {args.runs} cold runs each; {machine(everything)}\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
