"""Bot benchmark: many concurrent games through the real Application and a fake Telegram.

``python benchmarks/bot_bench.py [--games 50] [--goal 20] [--no-postgres] [--profile]``

Each game has 2 to 4 players in its own group. Half the games are composed on the group board
(players peek with "👀 My hand" and tap hidden hand slots), the other half in the private panels
(every player sent /start to the bot first). Players are the scripted players of the tests
(``tests/bot/players.py``): they read the keys and texts the bot showed and tap keys, nothing else,
so every tap goes through PTB's ``Application.process_update``, the handlers, the services, the
database and the fake Telegram (``tests/fakes/telegram.py``, no rate limiter).

All games run at once on one event loop (so on one core); after every update the driver yields, so
updates of different games interleave. Measured:

* taps per second: callback queries handled divided by the wall-clock time of the whole run
  (lobbies, commands and the driver's own work included), and the handling time of a tap
  (p50/p99, from the update's JSON to the last Telegram call it caused);
* the time spent rendering the final score charts (matplotlib, one per game, in a worker
  thread; the tap that ends a game waits for it and no other update is fed meanwhile, so it is
  part of the wall clock: measured, not left out);
* Telegram calls per turn that count against a chat's budget (send/edit/delete), in the group and
  in the private chats, split by where the move was composed; "ordinary" turns exclude the turns
  that ended a round or the game (they add a summary message).

SQLite runs on a temporary file. PostgreSQL runs when a server answers at ``--postgres`` (default
``postgresql+psycopg://postgres@127.0.0.1:5432/test``), in a schema of its own that is dropped
and created again first.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import io
import json
import pstats
import random
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.bot.players import Player, play_turn, to_move
from tests.fakes import FakeTelegram, TelegramTestClient
from tests.fakes.telegram import (
    MESSAGE_METHODS,
    TEST_TOKEN,
    CallbackAnswer,
    FakeChat,
    FakeUser,
    StoredMessage,
)
from tgbot.app import build_application, make_deps
from tgbot.clock import ManualClock
from tgbot.config import Settings
from tgbot.store.db import make_engine

DEFAULT_PG = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
PG_SCHEMA = "tweakbot_bench"
NAMES = ("Ana", "Ben", "Cai", "Dee")
MAX_TURNS = 1000
Button = str | re.Pattern[str] | Callable[[str, str | None], bool]
KINDS = {"c": "compose", "t": "t_menu", "m": "move", "h": "my_hand", "command": "command"}


@dataclass
class Figures:
    taps: list[float] = field(default_factory=list)  # handling time of each tap, seconds
    cpu: list[float] = field(default_factory=list)  # CPU time of every update (taps and commands)
    cpu_by_kind: dict[str, list[float]] = field(default_factory=dict)
    commands: list[float] = field(default_factory=list)
    # Telegram calls per turn: (where composed, chat) -> per-turn counts; ordinary turns only
    ordinary: dict[tuple[str, str], list[int]] = field(default_factory=dict)
    every: dict[tuple[str, str], list[int]] = field(default_factory=dict)
    games_finished: int = 0
    turns: int = 0
    charts: list[float] = field(default_factory=list)  # rendering each final score chart, seconds
    wall: float = 0.0
    wall_cpu: float = 0.0  # CPU time of the whole run (driver and fake Telegram included)

    def add_turn(self, surface: str, group_calls: int, private_calls: int, special: bool) -> None:
        self.turns += 1
        for chat, count in (("group", group_calls), ("private", private_calls)):
            self.every.setdefault((surface, chat), []).append(count)
            if not special:
                self.ordinary.setdefault((surface, chat), []).append(count)


class Driver:
    """Taps keys like ``TelegramTestClient.tap`` does, timing only the Application's handling."""

    def __init__(self, app: Any, fake: FakeTelegram, figures: Figures) -> None:
        self.app = app
        self.fake = fake
        self.figures = figures
        # Updates are fed one at a time, as fast as the bot takes them; games interleave between
        # updates. This keeps each update's timing its own (no other game's work inside it).
        self.feed: asyncio.Lock | contextlib.nullcontext[None] = asyncio.Lock()

    async def _process(self, data: dict[str, Any], times: list[float]) -> None:
        query = data.get("callback_query")
        kind = str(query.get("data", "")).split(":")[0] if query else "command"
        async with self.feed:
            update = self.fake.to_update(data, self.app.bot)
            started, cpu = time.perf_counter(), time.process_time()
            await self.app.process_update(update)
            times.append(time.perf_counter() - started)
            used = time.process_time() - cpu
        self.figures.cpu.append(used)
        self.figures.cpu_by_kind.setdefault(KINDS.get(kind, kind), []).append(used)
        await asyncio.sleep(0)  # let the other games go on

    async def send(self, chat: FakeChat, user: FakeUser, text: str) -> None:
        data = self.fake.command_update(chat, user, text)
        await self._process(data, self.figures.commands)

    async def tap(
        self, user: FakeUser, message: StoredMessage, button: Button, *, expect_answer: bool = True
    ) -> CallbackAnswer:
        found = []
        for row in message.keyboard:
            for b in row:
                text, data = b["text"], b.get("callback_data")
                if data is None:
                    continue
                if isinstance(button, str):
                    ok = text == button
                elif isinstance(button, re.Pattern):
                    ok = button.search(text) is not None
                else:
                    ok = bool(button(text, data))
                if ok:
                    found.append(data)
        if not found:
            raise AssertionError(f"no key {button!r} on {message.text!r}: {message.buttons}")
        update = self.fake.callback_update(user, message, found[0])
        await self._process(update, self.figures.taps)
        answer = self.fake.answers[update["callback_query"]["id"]]
        if expect_answer and not answer.answered:
            raise AssertionError(f"tap {found[0]!r} was not answered")
        return answer


def _board(fake: FakeTelegram, group: FakeChat) -> StoredMessage | None:
    for message in reversed(fake.messages(group.id)):
        if any((d or "").startswith("h:") for _t, d in message.buttons):
            return message
    return None


def _panel(fake: FakeTelegram, user: FakeUser) -> StoredMessage:
    for message in reversed(fake.messages(user.id)):
        if any((d or "").startswith("c:") for _t, d in message.buttons):
            return message
    raise AssertionError(f"{user.first_name} has no private panel")


async def play_game(
    driver: Driver, fake: FakeTelegram, number: int, players: int, private: bool, goal_steps: int
) -> None:
    figures = driver.figures
    group = fake.group(f"Bench {number}")
    users = [fake.user(number * 100 + i + 1, NAMES[i]) for i in range(players)]
    team = [Player(u, random.Random(number * 10 + i)) for i, u in enumerate(users)]
    if private:
        for user in users:
            await driver.send(fake.private(user), user, "/start")
    await driver.send(group, users[0], "/newgame@tweak_test_bot")
    lobby = fake.last_message(group.id)
    for user in users[1:]:
        await driver.tap(user, lobby, "✋ Join")
    if goal_steps:
        await driver.tap(users[0], lobby, "⚙️ Settings")
        for _ in range(goal_steps):
            await driver.tap(users[0], lobby, "Goal −20")
        await driver.tap(users[0], lobby, "↩️ Back")
    await driver.tap(users[0], lobby, "▶️ Start")
    user_ids = {u.id for u in users}
    surface_kind = "private" if private else "group"
    for _turn in range(MAX_TURNS):
        board = _board(fake, group)
        if board is None:
            break
        player = to_move(board.text or "", team)
        if player is None:
            raise AssertionError(f"nobody to move: {board.text}")
        surface = _panel(fake, player.user) if private else board
        first = len(fake.calls)
        await play_turn(driver, fake, surface, player, private=private)  # type: ignore[arg-type]
        calls = fake.calls[first:]
        group_calls = [c for c in calls if c.chat_id == group.id and c.method in MESSAGE_METHODS]
        private_calls = [c for c in calls if c.chat_id in user_ids and c.method in MESSAGE_METHODS]
        special = any(
            c.method == "sendMessage" and str(c.params.get("text", "")).startswith(("🏁", "🏆"))
            for c in group_calls
        )
        figures.add_turn(surface_kind, len(group_calls), len(private_calls), special)
    else:
        raise AssertionError(f"game {number} did not end")
    if any("Game over" in (m.text or "") for m in fake.messages(group.id)):
        figures.games_finished += 1


@contextlib.contextmanager
def timing_charts(figures: Figures) -> Iterator[None]:
    """Time the score chart's rendering (matplotlib, in a worker thread at each game's end).

    Only measured, nothing changes: the tap that ends a game still waits for its picture, and
    while it does no other update is fed, so this time is part of the wall clock.
    """
    from tgbot.render import chart

    original = chart.score_chart_png

    def timed(*args: Any, **kwargs: Any) -> bytes:
        started = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            figures.charts.append(time.perf_counter() - started)

    chart.score_chart_png = timed  # type: ignore[assignment]
    try:
        yield
    finally:
        chart.score_chart_png = original  # type: ignore[assignment]


async def run(db_url: str, games: int, goal_steps: int, seed: int) -> Figures:
    settings = Settings(telegram_bot_token=TEST_TOKEN, database_url=db_url)
    clock = ManualClock()
    fake = FakeTelegram(clock=clock.now)
    deps = make_deps(settings, db=make_engine(db_url), clock=clock)
    seeds = iter(range(seed, seed + 10**6))
    deps.seed_source = lambda: next(seeds)
    app = build_application(settings, deps=deps, request=fake, rate_limiter=False)
    figures = Figures()
    driver = Driver(app, fake, figures)
    client = TelegramTestClient(app, fake)
    await client.start()
    try:
        sizes = [2 + (g % 3) for g in range(games)]  # 2, 3, 4, 2, 3, 4, ...
        with timing_charts(figures):
            started, cpu = time.perf_counter(), time.process_time()
            await asyncio.gather(
                *(play_game(driver, fake, g + 1, sizes[g], g % 2 == 1, goal_steps) for g in range(games))
            )
            figures.wall = time.perf_counter() - started
            figures.wall_cpu = time.process_time() - cpu
    finally:
        await client.stop()
        deps.db.dispose()
    if client.errors:
        raise client.errors[0]
    return figures


def _pg_url(base: str) -> str | None:
    """A URL whose connections use a fresh schema of their own, or None without a server."""
    import sqlalchemy

    try:
        engine = sqlalchemy.create_engine(base)
        with engine.begin() as conn:
            conn.exec_driver_sql(f"DROP SCHEMA IF EXISTS {PG_SCHEMA} CASCADE")
            conn.exec_driver_sql(f"CREATE SCHEMA {PG_SCHEMA}")
        engine.dispose()
    except Exception as exc:  # no server, no rights: skip PostgreSQL
        print(f"PostgreSQL not reachable at {base}: {str(exc).splitlines()[0]}", file=sys.stderr)
        return None
    joiner = "&" if "?" in base else "?"
    return f"{base}{joiner}options=-csearch_path%3D{PG_SCHEMA}"


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _mean(values: list[int]) -> float:
    return statistics.fmean(values) if values else float("nan")


def report(name: str, figures: Figures) -> dict[str, Any]:
    taps = figures.taps
    handling = sum(taps)
    row: dict[str, Any] = {
        "database": name,
        "games": figures.games_finished,
        "turns": figures.turns,
        "taps": len(taps),
        "wall_s": round(figures.wall, 2),
        "taps_per_s": round(len(taps) / figures.wall, 1),
        "taps_per_cpu_s": round(len(taps) / figures.wall_cpu, 1),
        "taps_per_s_handling_only": round(len(taps) / handling, 1),
        "tap_p50_ms": round(_pct(taps, 0.50) * 1000, 2),
        "tap_p99_ms": round(_pct(taps, 0.99) * 1000, 2),
        "tap_max_ms": round(max(taps) * 1000, 2),
        "charts": len(figures.charts),
        "chart_render_s": round(sum(figures.charts), 2),
        "chart_render_share_of_wall": f"{sum(figures.charts) / figures.wall:.0%}",
        "update_cpu_p50_ms": round(_pct(figures.cpu, 0.50) * 1000, 2),
        "update_cpu_p99_ms": round(_pct(figures.cpu, 0.99) * 1000, 2),
        "command_p50_ms": round(_pct(figures.commands, 0.50) * 1000, 2),
    }
    for kind in ("compose", "my_hand", "move"):
        values = figures.cpu_by_kind.get(kind, [])
        if values:
            row[f"{kind}_taps"] = len(values)
            row[f"{kind}_cpu_p50_ms"] = round(_pct(values, 0.50) * 1000, 2)
    for (surface, chat), counts in sorted(figures.every.items()):
        ordinary = figures.ordinary.get((surface, chat), [])
        row[f"{surface}_composed_{chat}_calls_per_turn"] = round(_mean(counts), 2)
        row[f"{surface}_composed_{chat}_calls_per_ordinary_turn"] = round(_mean(ordinary), 2)
        row[f"{surface}_composed_{chat}_calls_max_ordinary"] = max(ordinary) if ordinary else None
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--goal-steps", type=int, default=4, help="taps on Goal −20 in each lobby")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--postgres", default=DEFAULT_PG, help="PostgreSQL URL (SQLAlchemy form)")
    parser.add_argument("--no-postgres", action="store_true")
    parser.add_argument("--profile", action="store_true", help="cProfile the SQLite run")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--sort", default="cumulative", help="profile order: cumulative, tottime, ...")
    args = parser.parse_args(argv)

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{Path(tmp) / 'bench.sqlite3'}"
        profiler = cProfile.Profile() if args.profile else None
        with profiler or contextlib.nullcontext():
            figures = asyncio.run(run(url, args.games, args.goal_steps, args.seed))
        rows.append(report("SQLite", figures))
        if profiler is not None:
            out = io.StringIO()
            pstats.Stats(profiler, stream=out).sort_stats(args.sort).print_stats(45)
            print(out.getvalue(), file=sys.stderr)
    if not args.no_postgres:
        pg = _pg_url(args.postgres)
        if pg is not None:
            rows.append(report("PostgreSQL", asyncio.run(run(pg, args.games, args.goal_steps, args.seed))))
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    keys = list(rows[0])
    print("| Measure | " + " | ".join(r["database"] for r in rows) + " |")
    print("|---|" + "---|" * len(rows))
    for key in keys[1:]:
        print(f"| {key} | " + " | ".join(str(r.get(key)) for r in rows) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
