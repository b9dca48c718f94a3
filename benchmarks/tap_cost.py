"""What a tap costs: SQL statements and transactions per kind of tap; the group's writes and the
notifications per turn, for each way of playing.

``python benchmarks/tap_cost.py [--runs 3] [--db sqlite|postgres|both] [--games 3] [--json FILE]``

Each cold run is a fresh process, database and bot (`tests.bot.conftest.running_bot`: the real
Application over the fake Bot API, flood limits and inline mode on, delivery on a virtual clock).
``--games`` games of each way (group board, private panel, inline pick), 3 players, goal 40, are
played at once to the final standings. Per tap: the statements and transactions run on the
bot's foreground database threads (``db_*``; senders and sweep run on ``db-bg_*``) while it was
handled, SQLite's ``BEGIN IMMEDIATE`` apart, and its answer time. Per turn and way: the group's
writes (lobbies and keys taken off old boards apart), the players' private writes, and the
notifications (sends without ``disable_notification``) in the group and in private, and per
person (a group's counts for its 3 players). ``--notifications``: board games only, where all, one
or none of the 3 players started the bot (and so are told of their turns in private).

The players (also `bot_bench.py`'s) use only what the bot showed them (keys, popups, the *🎯 Play*
list), now and then a [T!] card first or a refused tap, at human pace (1–4 s reading, 0.5–2 s
between taps) on the virtual clock, which runs as fast as the CPU can.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import heapq
import json
import random
import re
import statistics
import sys
import threading
import time
from collections import Counter, defaultdict, namedtuple
from collections.abc import AsyncIterator, Callable, Generator
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import load_bench
from common import (
    cold_runs,
    databases,
    emit,
    fig,
    fresh_database,
    label,
    machine,
    parser,
    pct,
    spread,
    write_json,
)
from sqlalchemy import create_engine, event, text

from tests.bot.players import EMOJI_VALUE, HAND_SLOT, choose_sum, target_of
from tests.fakes.telegram import StoredMessage

BOT = "@tweak_test_bot"
NAMES = ("Ana", "Ben", "Cai", "Dee", "Eva", "Fin")
READ, STEP = (1.0, 4.0), (0.5, 2.0)  # human pace, virtual seconds
T_CHANCE, T_TAPS, T_TAPS_MAX = 0.35, (1, 3), 10
JOKER_TARGET = re.compile(r"the target becomes (\d+)")
NO_T_CHOSEN = "No [T!] card chosen."
OUT_OF_TURN = STALE = 0.08  # per turn: the board tapped out of turn, a key of an old board
PATIENCE, POLL = 600.0, 0.5
WAYS = ("board", "panel", "inline")
DUPLICATE = "inline: pick (chosen result, a duplicate)"
REACH = {"all": 3, "one": 1, "none": 0}  # --notifications: how many players of a table started the bot


# --- the books ----------------------------------------------------------------------------------


@dataclass
class TapRecord:
    kind: str
    way: str
    game: int
    statements: int = 0
    transactions: int = 0
    seconds: float = 0.0  # the update reaching the Application → the bot's answer


@dataclass
class TurnRecord:
    way: str
    game: int
    taps: list[TapRecord] = field(default_factory=list)
    t_board: bool = False  # a Thief, Shifter or Bomb played on the board: it brings its own board


# What a player does: a key tapped, an inline query sent, a result of its list picked, a pause.
Tap = namedtuple("Tap", "user message data kind")
Query = namedtuple("Query", "user chat text")
Pick = namedtuple("Pick", "user chat answer result_id")
Wait = namedtuple("Wait", "seconds")
Seat = namedtuple("Seat", "user rng")
Step = Tap | Query | Pick | Wait
Script = Generator[Step, Any, None]


@dataclass
class Table:
    way: str
    group: Any
    seats: list[Seat]
    rng: random.Random
    game_id: int = 0
    last_board: tuple[StoredMessage, str] | None = None
    turn: TurnRecord | None = None


def keys_of(message: StoredMessage) -> list[tuple[str, str]]:
    return [(t, d) for t, d in message.buttons if d is not None]


class Driver:
    """Runs the players' scripts as events on the virtual clock, one update at a time, and keeps
    the books of each tap (the bot's engine's events, counted on its foreground threads)."""

    def __init__(self, rig: Any) -> None:
        self.rig, self.fake, self.tg, self.app = rig, rig.fake, rig.tg, rig.tg.app
        self.peek = create_engine(rig.db_url)  # the driver's own reads, never counted
        self.taps: list[TapRecord] = []
        self.turns: list[TurnRecord] = []
        self.current: TapRecord | None = None
        self.engine, self.rejections = rig.deps.db.engine, 0
        event.listen(self.engine, "before_cursor_execute", self._statement)
        event.listen(self.engine, "begin", self._begin)

    def _ours(self) -> TapRecord | None:
        return self.current if threading.current_thread().name.startswith("db_") else None

    def _statement(self, _conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        if (tap := self._ours()) is not None and not statement.lstrip().upper().startswith("BEGIN"):
            tap.statements += 1

    def _begin(self, _conn: Any) -> None:
        if (tap := self._ours()) is not None:
            tap.transactions += 1

    def close(self) -> None:
        event.remove(self.engine, "before_cursor_execute", self._statement)
        event.remove(self.engine, "begin", self._begin)
        self.peek.dispose()

    async def run(self, scripts: list[tuple[Table, Script]]) -> None:
        queue = [(self.rig.timer.monotonic(), i, i) for i in range(len(scripts))]
        heapq.heapify(queue)
        results: dict[int, Any] = {}
        seq = len(scripts)
        while queue:
            at, _seq, i = heapq.heappop(queue)
            now = self.rig.timer.monotonic()
            if at > now:
                await self.tg.advance(at - now)
            table, script = scripts[i]
            try:
                step = script.send(results.pop(i, None))
            except StopIteration:
                continue
            if isinstance(step, Wait):
                heapq.heappush(queue, (self.rig.timer.monotonic() + step.seconds, seq, i))
            else:
                results[i] = await self.execute(table, step)
                heapq.heappush(queue, (self.rig.timer.monotonic(), seq, i))
            seq += 1

    async def execute(self, table: Table, step: Step) -> Any:
        if isinstance(step, Tap):
            update = self.fake.callback_update(step.user, step.message, step.data)
            query_id = update["callback_query"]["id"]
            await self._process(table, step.kind, update, query_id)
            answer = self.fake.answers[query_id]
            if not answer.answered:
                raise AssertionError(f"{step.kind}: the callback query was not answered")
            return answer
        if isinstance(step, Query):
            update = self.fake.inline_query_update(step.user, step.text, chat=step.chat)
            query_id = update["inline_query"]["id"]
            await self._process(table, "inline: 🎯 Play list (query)", update, query_id)
            return self.fake.inline_answer(query_id)
        assert isinstance(step, Pick)
        for update in self.fake.pick_inline_result(step.user, step.chat, step.answer, step.result_id):
            kind = "inline: pick (posted message)" if "message" in update else DUPLICATE
            await self._process(table, kind, update, None)
        return None

    async def _process(self, table: Table, kind: str, update: dict[str, Any], query_id: str | None) -> None:
        record = self.current = TapRecord(kind, table.way, table.game_id)
        self.taps.append(record)
        if table.turn is not None:
            table.turn.taps.append(record)
        errors = len(self.tg.errors)
        started = time.perf_counter()
        try:
            await self.app.process_update(self.fake.to_update(update, self.app.bot))
        finally:
            self.current = None
        answered = self.fake.answer_times.get(query_id) if query_id else None
        record.seconds = (answered or time.perf_counter()) - started
        if len(self.tg.errors) > errors:
            raise self.tg.errors[errors]

    def game(self, game_id: int) -> tuple[str, int, dict[str, Any] | None]:
        with self.peek.connect() as conn:
            row = conn.execute(
                text("SELECT status, version, state FROM games WHERE id = :id"), {"id": game_id}
            ).one()
        return str(row[0]), int(row[1]), json.loads(row[2]) if row[2] else None

    def surface(self, table: Table, version: int, user: Any = None) -> StoredMessage | None:
        """The group board (or `user`'s panel) with keys of this version, if the bot has shown it."""
        prefix = f"k:{table.game_id}:{version}:"
        chat = table.group.id if user is None else user.id
        messages: list[StoredMessage] = self.fake.messages(chat)
        return next(
            (m for m in reversed(messages) if any(d.startswith(prefix) for _t, d in keys_of(m))), None
        )


def wait_for(probe: Callable[[], Any], what: str) -> Generator[Step, Any, Any]:
    waited = 0.0
    while (found := probe()) is None:
        if waited >= PATIENCE:
            raise AssertionError(f"waited {PATIENCE:.0f} s for {what}")
        yield Wait(POLL)
        waited += POLL
    return found


def pace(rng: random.Random, span: tuple[float, float]) -> Wait:
    return Wait(rng.uniform(*span))


# --- the players --------------------------------------------------------------------------------

_user_ids = iter(range(10_001, 10**7))


async def new_table(rig: Any, way: str, seed: int, started: int = 3) -> Table:
    """A game of 3 players to 40 points in a new group, started (set up with the test client: not
    measured). The first `started` players send /start in private; panel players open their panel."""
    fake, tg = rig.fake, rig.tg
    rng = random.Random(seed)
    users = [fake.user(next(_user_ids), NAMES[i]) for i in range(3)]
    for user in users[:started]:
        await tg.send(fake.private(user), user, "/start")
    group = fake.group(f"{way.title()} table {seed}")
    await tg.send(group, users[0], f"/newgame{BOT}")
    lobby = fake.last_message(group.id)
    for user in users[1:]:
        await tg.tap(user, lobby, "✋ Join")
    await tg.tap(users[0], lobby, "⚙️ Settings")
    for _ in range(4):
        await tg.tap(users[0], lobby, "Goal −20")
    # Inline players pick a listed sum: their tables turn sum hints on (`ln:<game>:h:1`).
    hints = [
        d for _t, d in keys_of(fake.message(group.id, lobby.message_id)) if re.fullmatch(r"ln:\d+:h:1", d)
    ]
    if way == "inline" and hints:
        await tg.tap(users[0], lobby, lambda _text, data: data == hints[0])
    await tg.tap(users[0], lobby, "↩️ Back")
    await tg.tap(users[0], lobby, "▶️ Start")
    gid = next(
        int(d.split(":")[1]) for m in fake.messages(group.id)[::-1] for _t, d in keys_of(m) if d[:2] == "k:"
    )
    table = Table(way, group, [Seat(u, random.Random(rng.random())) for u in users], rng, gid)
    if way == "panel":
        for user in users:
            await tg.send(fake.private(user), user, f"/start g{gid}")
    return table


def table_cards(keys: list[tuple[str, str]], prefix: str) -> list[tuple[int, str]]:
    """(value, data) of the table keys, in position order."""
    found = []
    for name, data in keys:
        match = EMOJI_VALUE.search(name) if data.startswith(prefix + "t:") else None
        if match:
            found.append((int(match.group(2)), data))
    return found


def play_game(driver: Driver, table: Table) -> Script:
    """Turns until the game is over, each played the table's way, and now and then a refused tap."""
    gid = table.game_id
    while True:
        status, version, state = driver.game(gid)
        if status != "playing" or state is None:
            return
        seat = table.seats[int(state["current"])]
        table.turn = TurnRecord(table.way, gid)
        driver.turns.append(table.turn)
        if table.way == "inline":
            yield from inline_turn(driver, table, seat, version)
        else:
            yield from key_turn(driver, table, seat, version, private=table.way == "panel")
        status, after, state = driver.game(gid)
        if after == version:
            raise AssertionError(f"game {gid}: the turn at version {version} did not move")
        table.turn = None
        if status != "playing":
            return
        if table.last_board is not None and table.rng.random() < STALE:
            yield pace(table.rng, STEP)
            yield Tap(seat.user, *table.last_board, "refused: a key of an old board")
        board = driver.surface(table, after)
        if state is not None and board is not None and table.rng.random() < OUT_OF_TURN:
            others = [s for i, s in enumerate(table.seats) if i != int(state["current"])]
            yield pace(table.rng, STEP)
            yield Tap(table.rng.choice(others).user, board, f"k:{gid}:{after}:h:0", "refused: out of turn")


def key_turn(driver: Driver, table: Table, seat: Seat, version: int, private: bool) -> Script:
    """Compose on the group board or in the private panel; a [T!] card first now and then."""
    gid, rng = table.game_id, seat.rng
    where = "panel" if private else "board"
    user = seat.user if private else None
    message = yield from wait_for(partial(driver.surface, table, version, user), f"the {where}")
    board = driver.surface(table, version)
    if board is not None:
        table.last_board = (board, f"k:{gid}:{version}:h:0")
    yield pace(rng, READ)
    hand = yield from read_hand(table, seat, message, f"k:{gid}:{version}:", private)
    t_keys = [d for _t, d in keys_of(message) if d.startswith(f"t:{gid}:{version}:")]
    if t_keys and rng.random() < T_CHANCE:
        played = yield from t_card(driver, table, seat, version, private, message, rng.choice(t_keys), hand)
        if played == "joker":
            return
        if played == "card":
            _status, now, state = driver.game(gid)
            if state is None or table.seats[int(state["current"])] is not seat or now != version + 1:
                return  # the [T!] card ended the turn (or the game)
            version = now
            message = yield from wait_for(
                partial(driver.surface, table, version, user), f"the {where} after a [T!] card"
            )
            yield pace(rng, STEP)
            hand = yield from read_hand(table, seat, message, f"k:{gid}:{version}:", private)
    target = target_of(message.text or "")
    yield from compose(driver, table, seat, version, message, hand, target, private, joker=False)


def compose(
    driver: Driver,
    table: Table,
    seat: Seat,
    version: int,
    message: StoredMessage,
    hand: list[int],
    target: int,
    private: bool,
    joker: bool,
) -> Script:
    """A hand card and the table cards of a sum for `target` (a hand card to discard if there is
    none), then *Claim* (or *Discard*), always on the surface."""
    rng, user, where = seat.rng, seat.user, "panel" if private else "board"
    prefix = f"k:{table.game_id}:{version}:"

    def surface() -> StoredMessage:
        return driver.surface(table, version, user if private else None) or message

    keys = keys_of(message)
    hand_keys = [d for _t, d in keys if d.startswith(prefix + "h:")]
    table_keys = table_cards(keys, prefix)
    choice = (
        choose_sum(hand, [v for v, _d in table_keys], target, rng) if len(hand) == len(hand_keys) else None
    )
    yield pace(rng, STEP)
    if choice is None:
        yield Tap(user, surface(), rng.choice(hand_keys), f"compose, {where}")
        final, kind = prefix + "d", f"discard, {where}"
    else:
        yield Tap(user, surface(), hand_keys[choice[0]], f"compose, {where}")
        for position in choice[1]:
            yield pace(rng, STEP)
            yield Tap(user, surface(), table_keys[position][1], f"compose, {where}")
        final, kind = prefix + "c", f"claim a Joker and its sum, {where}" if joker else f"claim, {where}"
    yield pace(rng, STEP)
    answer = yield Tap(user, surface(), final, kind)
    if answer.text != "Done!":
        raise AssertionError(f"{kind} refused: {answer.text!r}")


def t_card(
    driver: Driver,
    table: Table,
    seat: Seat,
    version: int,
    private: bool,
    message: StoredMessage,
    t_key: str,
    hand: list[int],
) -> Generator[Step, Any, str | None]:
    """Choose a [T!] card with its key (each tap the next choice; the popup says which) and play
    it: "joker" (played with its sum), "card" (a Thief, Shifter or Bomb by *Claim*; the turn goes
    on), None (tapped back to "No [T!] card chosen.")."""
    rng, user, where = seat.rng, seat.user, "panel" if private else "board"
    prefix = f"k:{table.game_id}:{version}:"
    taps = 0

    def surface() -> StoredMessage:
        return driver.surface(table, version, user if private else None) or message

    def choose() -> Generator[Step, Any, str]:
        nonlocal taps
        taps += 1
        yield pace(rng, STEP)
        answer = yield Tap(user, surface(), t_key, f"[T!] choice, {where}")
        if answer.show_alert:
            raise AssertionError(f"[T!] key refused: {answer.text!r}")
        return str(answer.text or "")

    popup = ""
    for _ in range(rng.randint(*T_TAPS)):
        popup = yield from choose()
        if NO_T_CHOSEN in popup:
            return None
    joker = JOKER_TARGET.search(popup)
    if joker is None:
        yield pace(rng, STEP)
        answer = yield Tap(user, surface(), prefix + "c", f"[T!] card played (Claim), {where}")
        if answer.show_alert or driver.game(table.game_id)[1] == version:
            raise AssertionError(f"[T!] card refused: {answer.text!r}")
        if table.turn is not None:
            table.turn.t_board = not private
        return "card"
    keys = keys_of(surface())
    values = [v for v, _d in table_cards(keys, prefix)]
    fits = len(hand) == len([d for _t, d in keys if d.startswith(prefix + "h:")])
    if fits and choose_sum(hand, values, int(joker.group(1)), random.Random(0)) is not None:
        yield from compose(
            driver, table, seat, version, surface(), hand, int(joker.group(1)), private, joker=True
        )
        return "joker"
    while taps < T_TAPS_MAX:
        if NO_T_CHOSEN in (yield from choose()):
            return None
    raise AssertionError("the [T!] key never came back to no choice")


def read_hand(
    table: Table, seat: Seat, message: StoredMessage, prefix: str, private: bool
) -> Generator[Step, Any, list[int]]:
    if private:
        found = (EMOJI_VALUE.search(t) for t, d in keys_of(message) if d.startswith(prefix + "h:"))
        return [int(m.group(2)) for m in found if m]
    popup = yield Tap(seat.user, message, f"h:{table.game_id}", "👀 My hand (popup)")
    yield pace(seat.rng, STEP)
    return [int(m.group(3)) for m in HAND_SLOT.finditer(popup.text or "")]


def _codes(result_id: str) -> list[str]:
    match = re.fullmatch(r"g(\d+)v(\d+):(.+)", result_id)
    return match.group(3).split(" ") if match else []


def inline_turn(driver: Driver, table: Table, seat: Seat, version: int) -> Script:
    """The 🎯 Play list and a pick; a [T!] card first now and then (then the list again)."""
    rng, user, gid = seat.rng, seat.user, table.game_id
    t_first = rng.random() < T_CHANCE
    board = yield from wait_for(partial(driver.surface, table, version), "the board")
    table.last_board = (board, f"k:{gid}:{version}:h:0")
    for _attempt in range(3):
        yield pace(rng, READ)
        play = next(
            (b for row in board.keyboard for b in row if "switch_inline_query_current_chat" in b), None
        )
        if play is None:
            raise AssertionError("no 🎯 Play key on the board")
        answer = yield Query(user, table.group, play["switch_inline_query_current_chat"])
        results = [r for r in answer.results if _codes(r["id"])]
        by_kind = {k: [r for r in results if _codes(r["id"])[-1][0] in k] for k in ("TFB", "S", "D")}
        yield pace(rng, STEP)
        if t_first and by_kind["TFB"]:
            t_first = False
            yield Pick(user, table.group, answer, rng.choice(by_kind["TFB"])["id"])
            _status, _version, state = driver.game(gid)
            if state is None or table.seats[int(state["current"])] is not seat:
                return
            continue
        sums = by_kind["S"]
        choice = (sums[0] if rng.random() < 0.7 else rng.choice(sums)) if sums else by_kind["D"][0]
        yield Pick(user, table.group, answer, choice["id"])
        return
    raise AssertionError("inline turn did not end")


@contextlib.asynccontextmanager
async def running(url: str, seed: int) -> AsyncIterator[Driver]:
    """A running bot (see the module docstring) over the watching fake, and its driver."""
    from tests.bot.conftest import running_bot
    from tests.fakes.timer import VirtualTimer
    from tgbot.clock import ManualClock

    clock, counter = ManualClock(), iter(range(1, 10**6))
    fake = load_bench.watched_fake(
        clock=clock.now, timer=VirtualTimer(), inline_mode=True, inline_feedback=True
    )
    bot = running_bot(url, lambda: seed * 1_000_000 + next(counter), clock=clock, fake=fake)
    rig = await bot.__aenter__()
    rig.tg._settle_timeout = 600.0
    driver = Driver(rig)
    try:
        yield driver
    finally:
        driver.close()
        # A 429 is a figure to report, not a reason to lose the run.
        driver.rejections = len(fake.flood_rejections)
        fake.flood_ledger.rejections.clear()
        await bot.__aexit__(None, None, None)


# --- what is measured ---------------------------------------------------------------------------


def per_kind(taps: list[TapRecord]) -> dict[str, Any]:
    kinds: dict[str, list[TapRecord]] = defaultdict(list)
    for tap in taps:
        kinds[tap.kind].append(tap)
    found: dict[str, dict[str, float | None]] = {}
    for kind, got in kinds.items():
        sql, seconds = [t.statements for t in got], [t.seconds for t in got]
        found[kind] = {"n": len(got), "sql": statistics.fmean(sql), "sql_min": min(sql), "sql_max": max(sql)}
        found[kind] |= {"tx": statistics.fmean(t.transactions for t in got), "answer_p50": pct(seconds, 0.5)}
        found[kind]["answer_p99"] = pct(seconds, 0.99)
    return found


def per_way(driver: Driver, tables: list[Table], first_write: int) -> dict[str, Any]:
    """The group's and the players' writes and notifications per turn, by way of playing."""
    sorted_writes = load_bench.sort_writes(driver.fake.writes)[first_write:]
    out: dict[str, Any] = {}
    for way in dict.fromkeys(t.way for t in tables):
        mine = [t for t in tables if t.way == way]
        groups = {t.group.id for t in mine}
        people = {s.user.id for t in mine for s in t.seats}
        turns = [t for t in driver.turns if t.way == way]
        if not turns:
            continue
        sorts = Counter(sort for w, sort in sorted_writes if w.chat_id in groups)
        n, record, boards, t_boards = (
            len(turns),
            sorts["record"],
            sorts["board"],
            sum(t.t_board for t in turns),
        )
        out[way] = {
            "turns": n,
            "taps": sum(1 for t in turns for tap in t.taps if tap.kind != DUPLICATE) / n,
            "writes": (boards + record) / n,
            "no_t_boards": (boards + record - t_boards) / n,
            "records": record / n,
            "keys_off": sorts["keys_off"] / n,
            "private": sum(1 for w, _s in sorted_writes if w.chat_id in people) / n,
            "group_noise": sum(1 for w, _s in sorted_writes if w.chat_id in groups and w.notify) / n,
            "private_noise": sum(1 for w, _s in sorted_writes if w.chat_id in people and w.notify) / n,
        }
        # each game's first turn was told before `first_write`: per turn told while measured
        per_person = out[way]["group_noise"] + out[way]["private_noise"] / 3
        out[way]["per_person"] = per_person * n / (n - len(mine))
    return out


async def play(url: str, games: int, seed: int, reach: bool = False) -> dict[str, Any]:
    """`games` games of each way at once (`reach`: of each `REACH`, on the board), to the end; what
    they cost (also `bot_bench.py`'s)."""
    ways = [(f"board, {k} started the bot", n) for k, n in REACH.items()] if reach else [(w, 3) for w in WAYS]
    async with running(url, seed) as driver:
        tables = [
            await new_table(driver.rig, way, seed * 100 + 10 * w + g, started)
            for w, (way, started) in enumerate(ways)
            for g in range(games)
        ]
        await driver.tg.advance(61.0)  # the lobbies' writes leave the budget window
        first_write, first_tap, virtual = (
            len(driver.fake.writes),
            len(driver.taps),
            driver.rig.timer.monotonic(),
        )
        cpu, wall = time.process_time(), time.perf_counter()
        await driver.run([(t, play_game(driver, t)) for t in tables])
        cpu, wall, virtual = (
            time.process_time() - cpu,
            time.perf_counter() - wall,
            driver.rig.timer.monotonic() - virtual,
        )
        actions = len(driver.taps) - first_tap
        await driver.rig.tg.advance(120.0)  # the senders send what waits for budget
        figures = {
            "taps": per_kind(driver.taps[first_tap:]),
            "ways": per_way(driver, tables, first_write),
            "not_modified": sum(1 for c in driver.fake.calls if "not modified" in (c.error or "")),
            "actions": actions,
            "turns": len(driver.turns),
            "actions_per_s": actions / wall,
            "cpu_ms_per_action": cpu / actions * 1000,
            "capacity": len(tables) * virtual / wall,
        }
    return figures | {"flood_rejections": driver.rejections}


def child(args: argparse.Namespace) -> None:
    with fresh_database(args.db) as url:
        emit(asyncio.run(play(url, args.games, args.run + 1, args.notifications)))


def fmt(v: float) -> str:
    return f"{v:.2f}".rstrip("0").rstrip(".")


def report(name: str, results: list[dict[str, Any]]) -> None:
    print(f"\n### {name}: {len(results)} cold runs, median (min–max); {machine(results)}\n")
    print("| Tap | Taps (all runs) | SQL statements: mean (fewest–most) | Transactions | Answer p50 |")
    print("|---|---|---|---|---|")
    for kind in sorted({k for r in results for k in r["taps"]}):
        got = [r["taps"][kind] for r in results if kind in r["taps"]]
        print(
            f"| {kind} | {sum(int(g['n']) for g in got):,} | {spread([g['sql'] for g in got], fmt)} "
            f"({min(g['sql_min'] for g in got)}–{max(g['sql_max'] for g in got)}) "
            f"| {spread([g['tx'] for g in got], fmt)} | {spread([g['answer_p50'] * 1000 for g in got])} ms |"
        )
    print(
        "\n| Per turn | Turns (all runs) | Taps | **Group writes** | without the boards a Thief, Shifter or "
        "Bomb brings | of them round summaries, standings, charts | Keys-off edits | Private writes "
        "| Notifications: group / private | per person |\n|---|---|---|---|---|---|---|---|---|---|"
    )
    for way in dict.fromkeys(way for r in results for way in r["ways"]):
        got = [r["ways"][way] for r in results if way in r["ways"]]
        cells = [
            spread([g[k] for g in got], fmt)
            for k in ("taps", "writes", "no_t_boards", "records", "keys_off", "private")
        ]
        noise = " / ".join(spread([g[k] for g in got], fmt) for k in ("group_noise", "private_noise"))
        person = spread([g["per_person"] for g in got], fmt)
        print(f"| {way} | {sum(int(g['turns']) for g in got):,} | {' | '.join(cells)} | {noise} | {person} |")
    print(
        f"\n429s {fig(results, 'flood_rejections', f=fmt)}; "
        f"edits refused as not modified {fig(results, 'not_modified', f=fmt)}."
    )


def main(argv: list[str] | None = None) -> int:
    options = parser(__doc__)
    options.add_argument("--games", type=int, default=3, help="games of each way of playing per run")
    options.add_argument("--notifications", action="store_true", help="all, one or none started the bot")
    args = options.parse_args(argv)
    if args.child:
        child(args)
        return 0
    everything = {}
    for db in databases(args.db):
        passed = [f"--db={db}", f"--games={args.games}", *["--notifications"][: args.notifications]]
        everything[db] = cold_runs(__file__, passed, args.runs, f"tap_cost {label(db)}")
        report(label(db), everything[db])
    write_json(args.json, {"machine": machine([r for rs in everything.values() for r in rs]), **everything})
    return 0


if __name__ == "__main__":
    sys.exit(main())
