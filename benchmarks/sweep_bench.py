"""Sweep benchmark: one pass of the real sweep job over N games of which D are due.

``python benchmarks/sweep_bench.py [--runs 3] [--games 10000 100000] [--due 1000]
[--db sqlite|postgres|both] [--json FILE]``

Each cold run builds a fresh database as the bot writes its rows (N games, 2–4 seats, a quarter
computers, 60 % over, the rest in play, lobbies or paused; D due games with real states, whole
move logs and boards: 35 % first reminders, 15 % last calls, 40 % deadlines, some ending rounds
and games, 5 % lobbies that expire, 5 % pauses that end) and sweeps it once with
``tgbot.jobs.run_sweep`` (no sender running): the pass's time and per due game, its statements
and transactions, what it did, and the due query's plan, which must use ``ix_games_wake_at``.
"""

from __future__ import annotations

import asyncio
import json
import random
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from pydantic import SecretStr

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import common
from sqlalchemy import event, func, insert, select, text
from sqlalchemy.engine import Engine
from sqlmodel import col

from engine.actions import Action, encode
from engine.ai import choose_action
from engine.events import Event, GameEnded, RoundEnded, dump_events
from engine.game import apply_in_place, new_game
from engine.state import GameState
from tgbot import pacing, turn_clock
from tgbot.game_settings import GameSettings
from tgbot.store.db import create_all, make_engine
from tgbot.store.models import Chat, Game, GamePlayer, GameStatus, Move, OutboxRow, ShownMessage, User
from tgbot.store.surfaces import Board, Lobby

NOW = datetime(2026, 6, 1, 12, 0, 0)
CHUNK = 2_000
NAMES = ("Ana", "Ben", "Chi", "Dev", "Eli", "Fay", "Gus", "Hal")
PACES = tuple(pacing.PaceName(p) for p in ("live", "quick", "casual", "casual", "slow", "relaxed"))
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


def row(model: Any, **fields: Any) -> dict[str, Any]:
    """A table row as the bot writes it: the model's defaults, `fields` over them (as given: a
    surface stays a surface), no generated id."""
    found: dict[str, Any] = model(**fields).model_dump(exclude={"id"} if "id" not in fields else set())
    return {**found, **fields}


def timing(kind: str, pace: Any, late: timedelta, rnd: random.Random) -> dict[str, Any]:
    """The turn clock of a game in play: due now (a first reminder, a last call, a deadline) or later."""
    start = {
        "first": NOW - pace.nudge - late,
        "last": NOW - (pace.deadline or timedelta()) * turn_clock.LAST_CALL_FRACTION - late,
        "deadline": NOW - (pace.deadline or timedelta()) - late,
    }.get(kind, NOW - pace.nudge * rnd.uniform(0.05, 0.9))
    deadline = start + pace.deadline if pace.deadline is not None else None
    sent = {"last": 1, "deadline": 2}.get(kind, 0)
    nudge = turn_clock.TurnClock(pace).next_nudge(start, sent, deadline)
    wake = turn_clock.earliest(nudge, deadline)
    return {
        "turn_started_at": start,
        "nudges_sent": sent,
        "next_nudge_at": nudge,
        "deadline_at": deadline,
        "wake_at": wake,
    }


def build(db: Engine, games: int, due: int, seed: int) -> Built:
    started = time.perf_counter()
    rnd = random.Random(seed)
    built = Built()
    sims = {n: [simulate(n, seed * 1000 + n * 100 + i) for i in range(SIM_GAMES)] for n in (2, 3, 4)}
    pool = {n: [dumps(state_at(s, rnd.choice(s.mid_cuts))) for s in sims[n][:10]] for n in (2, 3, 4)}
    settings = {p: GameSettings(pace=p).to_json() for p in PACES}
    chats, users, long_ago = max(10, games // 5), max(50, games // 2), NOW - timedelta(days=90)
    chat_rows = []
    for i in range(chats):
        quiet = rnd.random() < 0.1
        hours = {"quiet_start": 23, "quiet_end": 7, "utc_offset_minutes": rnd.choice((0, 60, -300, 330))}
        chat = {"id": -100_000_000 - i, "title": f"Group {i}", "language": "en", "created_at": long_ago}
        chat_rows.append(row(Chat, **chat, **(hours if quiet else {})))
    known = {"tg_language": "en", "created_at": long_ago}
    user_rows = [
        row(User, id=1_000 + i, first_name=NAMES[i % len(NAMES)], can_dm=rnd.random() < 0.4, **known)
        for i in range(users)
    ]
    can_dm = {r["id"]: r["can_dm"] for r in user_rows}
    n_first, n_last, n_lobby = int(due * 0.35), int(due * 0.15), max(1, due // 20)
    kinds = ["first"] * n_first + ["last"] * n_last + ["deadline"] * (due - n_first - n_last - 2 * n_lobby)
    kinds += ["lobby"] * n_lobby + ["pause"] * n_lobby
    over, lobbies = int((games - due) * 0.6), (games - due) // 50
    kinds += ["over"] * over + ["future_lobby"] * lobbies + ["future_pause"] * lobbies
    kinds += ["future"] * (games - due - over - 2 * lobbies)
    rnd.shuffle(kinds)
    game_rows, player_rows, move_rows, shown_rows = [], [], [], []
    for gid, kind in enumerate(kinds, start=1):
        chat_id = -100_000_000 - rnd.randrange(chats)
        pace_key = rnd.choice(PACES)
        if kind in ("first", "last", "deadline") and pacing.PACES[pace_key].deadline is None:
            pace_key = pacing.PaceName.CASUAL  # a deadline needs one; a last call too
        pace, players = pacing.PACES[pace_key], rnd.choice((2, 2, 3, 3, 4))
        created, late = NOW - timedelta(days=rnd.randrange(1, 60)), timedelta(seconds=rnd.randrange(0, 30))
        game: dict[str, Any] = {"status": "playing", "version": 30, "state": rnd.choice(pool[players])}
        game["board_no"] = 1
        state: GameState | None = None
        log: list[tuple[int, Action, list[Event]]] = []
        if kind in ("first", "last", "deadline", "pause"):
            sim = rnd.choice(sims[players])
            cuts, pick = sim.mid_cuts, rnd.random()
            if kind == "deadline" and pick < 1 / 6 and sim.game_end_cuts:
                cuts = sim.game_end_cuts  # the game's last round: the deadline may end the game
            elif kind == "deadline" and pick < 1 / 2 and sim.round_end_cuts:
                cuts = sim.round_end_cuts
            cut = rnd.choice(cuts)
            state, log = state_at(sim, cut), sim.moves[:cut]
            game.update(seed=sim.seed, state=dumps(state), version=1 + cut, current_seat=state.current)
            built.due[kind] += 1
            shown_rows.append(row(ShownMessage, chat_id=chat_id, surface=Board(gid, 1), message_id=10 + gid))
        elif kind in ("lobby", "future_lobby"):
            wake = NOW - late if kind == "lobby" else NOW + timedelta(hours=rnd.uniform(1, 20))
            game.update(status="lobby", version=0, board_no=0, seed=0, state=None, wake_at=wake)
            shown_rows.append(row(ShownMessage, chat_id=chat_id, surface=Lobby(gid), message_id=10 + gid))
            built.due[kind] += kind == "lobby"
        if kind in ("first", "last", "deadline", "future"):
            game.update(timing(kind, pace, late, rnd), current_seat=game.get("current_seat", 0))
        elif kind in ("pause", "future_pause"):
            until = NOW - late if kind == "pause" else NOW + timedelta(days=rnd.uniform(0.5, 6))
            game.update(status="paused", paused_until=until, wake_at=until)
        elif kind == "over":
            status = rnd.choice(("finished", "finished", "finished", "cancelled", "abandoned", "expired"))
            game.update(status=status, finished_at=NOW, board_no=0)
        head: dict[str, Any] = {"id": gid, "chat_id": chat_id, "seed": game.pop("seed", gid)}
        head["settings"] = settings[pace_key]
        head |= {"creator_id": 1_000 + rnd.randrange(users), "language": "en", "created_at": created}
        head["updated_at"] = NOW - timedelta(minutes=rnd.randrange(1, 5000))
        game_rows.append(row(Game, **head, **(game | {"status": GameStatus(game["status"])})))
        mover = state.current if state is not None else 0
        for seat in range(rnd.randint(1, 3) if game["status"] == "lobby" else players):
            person = 1_000 + rnd.randrange(users)
            entry = {"user_id": person, "name": NAMES[seat], "panel": rnd.random() < 0.3 and can_dm[person]}
            pick = rnd.random()
            if seat == mover or game["status"] == "lobby":
                if kind == "deadline" and pick < 0.3:
                    entry["timeouts"] = 1  # missed the turn before: this deadline makes them away
            elif pick < 0.25:
                entry.update(user_id=None, name=f"Bot {seat}", ai_level=rnd.choice(LEVELS), panel=False)
            elif pick < 0.35:
                entry.update(away=True, timeouts=2)
            elif pick < 0.40:
                entry["left"] = True
            player_rows.append(row(GamePlayer, game_id=gid, seat=seat, **entry))
        if game["status"] != "lobby":
            start = row(
                Move, game_id=gid, seq=1, code=f"start:{game_rows[-1]['seed']}", source="system", at=created
            )
            move_rows.append(start)
            sources = ("player", "player", "player", "ai")
            for seq, (seat, action, events) in enumerate(log, start=2):
                fields = {"seat": seat, "code": encode(action), "source": rnd.choice(sources), "at": created}
                move_rows.append(row(Move, game_id=gid, seq=seq, events=dump_events(events), **fields))
    tables = ((chat_rows, Chat), (user_rows, User), (game_rows, Game), (player_rows, GamePlayer))
    for rows, table in (*tables, (move_rows, Move), (shown_rows, ShownMessage)):
        with db.begin() as conn:
            for first in range(0, len(rows), CHUNK):
                conn.execute(insert(table), rows[first : first + CHUNK])
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
    sqlite = db.dialect.name == "sqlite"
    with db.connect() as conn:
        explain = "EXPLAIN QUERY PLAN" if sqlite else "EXPLAIN (ANALYZE, BUFFERS)"
        plan = "\n".join(
            str(r[-1] if sqlite else r[0]) for r in conn.exec_driver_sql(f"{explain} {statement}", parameters)
        )
    return " ".join(statement.split()) + f"  -- {parameters}\n" + plan


def sweep_pass(db: Engine, url: str) -> dict[str, Any]:
    from tests.fakes.telegram import TEST_TOKEN
    from tgbot import jobs
    from tgbot.app import make_deps
    from tgbot.config import Settings
    from tgbot.services import sweep
    from tgbot.time_source import ManualClock

    counts: Counter[str] = Counter()
    seen: list[tuple[str, Any]] = []

    def count_statement(conn: Any, cursor: Any, sql: str, parameters: Any, *args: Any) -> None:
        seen.append((sql, parameters))
        counts["BEGIN" if sql.lstrip().upper().startswith("BEGIN") else "statements"] += 1

    def begun(conn: Any) -> None:
        counts["transactions"] += 1

    deps = make_deps(
        Settings(telegram_bot_token=SecretStr(TEST_TOKEN), database_url=url), db=db, clock=ManualClock(NOW)
    )
    with db.connect() as conn:
        before_moves = conn.execute(select(func.max(Move.id))).scalar() or 0
        before_outbox = conn.execute(select(func.count()).select_from(OutboxRow)).scalar() or 0
    from sqlmodel import Session

    event.listen(db, "before_cursor_execute", count_statement)
    with Session(db) as session:
        started = time.perf_counter()
        ids = sweep.due(session, NOW)
        due_query = time.perf_counter() - started
    statement, parameters = next((q, p) for q, p in seen if "wake_at" in q)
    counts.clear()
    event.listen(db, "begin", begun)
    try:
        cpu, started = time.process_time(), time.perf_counter()
        report = asyncio.run(jobs.run_sweep(deps))
        wall, cpu = time.perf_counter() - started, time.process_time() - cpu
    finally:
        event.remove(db, "before_cursor_execute", count_statement)
        event.remove(db, "begin", begun)
        deps.db.shutdown(wait=True)
    plan = due_query_plan(db, statement, parameters)
    with db.connect() as conn:
        written = conn.execute(
            select(col(Move.source), col(Move.events)).where(col(Move.id) > before_moves)
        ).all()
        outbox = (conn.execute(select(func.count()).select_from(OutboxRow)).scalar() or 0) - before_outbox
    return {
        "wall": wall,
        "cpu": cpu,
        "due_query": due_query,
        "due_ids": len(ids),
        "reminders": report.reminders,
        "idle_moves": report.idle_moves,
        "failed": len(report.failed),
        "moves": len(written),
        "sources": dict(Counter(str(s) for s, _e in written)),
        "rounds_ended": sum(1 for _s, e in written if e and f'"event":"{RoundEnded.__name__}"' in e),
        "games_ended": sum(1 for _s, e in written if e and f'"event":"{GameEnded.__name__}"' in e),
        "outbox_rows": int(outbox),
        "statements": counts["statements"],
        "transactions": counts["transactions"],
        "plan": plan,
    }


def report(name: str, games: int, due: int, results: list[dict[str, Any]]) -> str:
    def col(key: str, f: Any = lambda v: f"{v:,.0f}", scale: float = 1.0) -> str:
        return common.spread([v * scale for v in common.column(results, key)], f)

    kinds = ", ".join(f"{v} {k}" for k, v in sorted(results[0]["due_kinds"].items()))
    print(f"\n[{name}, {games:,} games, {due:,} due] due: {kinds}; plan of the due query (run 1):")
    print(results[0]["plan"])
    if "ix_games_wake_at" not in results[0]["plan"]:
        print(f"[{name}] WARNING: the due query does not use ix_games_wake_at")
    did = ("reminders", "idle_moves", "moves", "rounds_ended", "games_ended", "outbox_rows")
    return (
        f"| {name} | {games:,} / {due:,} | {col('due_query', lambda v: f'{v:.1f}', 1000)} ms "
        f"| **{col('wall', scale=1000)} ms** | **{col('wall', lambda v: f'{v:.1f}', 1000 / due)} ms** "
        f"| {col('statements')} / {col('transactions')} | {' / '.join(map(col, did))} |"
    )


def main(argv: Sequence[str] | None = None) -> int:
    options = common.parser(__doc__)
    options.add_argument("--games", type=int, nargs="+", default=[10_000, 100_000])
    options.add_argument("--due", type=int, default=1_000)
    args = options.parse_args(argv)
    if args.child:
        with common.fresh_database(args.db) as url:
            engine = make_engine(url)
            create_all(engine)
            try:
                built = build(engine, args.games[0], args.due, seed=args.run + 1)
                figures = sweep_pass(engine, url)
            finally:
                engine.dispose()
        common.emit(figures | {"build_seconds": built.seconds, "due_kinds": built.due, "rows": built.rows})
        return 0
    lines = [
        "| Database | Games / due | Due query | Pass (`run_sweep`) | Per due game | SQL statements / "
        "transactions | Reminders / idle moves / moves written / rounds ended / games ended / outbox rows |",
        "|---|---|---|---|---|---|---|",
    ]
    everything: dict[str, list[dict[str, Any]]] = {}
    for db, games in ((db, games) for db in common.databases(args.db) for games in args.games):
        passed = [f"--db={db}", f"--games={games}", f"--due={args.due}"]
        name = f"sweep {common.label(db)} {games:,}"
        everything[f"{db}:{games}"] = results = common.cold_runs(__file__, passed, args.runs, name)
        lines.append(report(common.label(db), games, args.due, results))
    runs = [r for rs in everything.values() for r in rs]
    print(f"\nSweep, {args.runs} cold runs each, median (min–max); {common.machine(runs)}\n")
    print("\n".join(lines))
    common.write_json(args.json, {"machine": common.machine(runs), **everything})
    return 0


if __name__ == "__main__":
    sys.exit(main())
