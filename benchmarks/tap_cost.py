"""What a tap costs: SQL statements and transactions per kind of tap; the table's chat's writes and
the notifications per turn, for each way of playing.

``python benchmarks/tap_cost.py [--runs 3] [--db sqlite|postgres|both] [--games 3] [--json FILE]
[--notifications] [--ways board panel inline "any chat"]``

Each cold run is a fresh process, database and bot (`tests.bot.conftest.running_bot`: the real
Application over the fake Bot API, flood limits and inline mode on, delivery on a virtual clock).
``--games`` games of each way, 3 players to 40 points, are played at once to the end: on the group
board, in the private panel, by inline pick in the group, and in any chat (an inline table: a group
without the bot, where the players post the lobby and every move from the bot's inline list and the
bot edits those posts; sum hints on; all three started the bot). Per tap: the statements and
transactions on the bot's foreground database threads (``db_*``) while it was handled, SQLite's
``BEGIN IMMEDIATE`` apart, and its answer time. Per turn and way: the writes into the table's
chat (lobbies and keys taken off old boards apart), the private writes, the notifications.
``--notifications``: board games only, where all, one or none of the 3 players started the bot.

The players (also `bot_bench.py`'s) use only what the bot showed them, now and then a [T!] card
first or a refused tap, at human pace on the virtual clock, which runs as fast as the CPU can.
"""

from __future__ import annotations

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
from collections.abc import AsyncIterator, Callable, Generator, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import common
import load_bench
from common import JOKER_TARGET, NAMES, NO_T_CHOSEN, READ, STEP, T_TAPS, T_TAPS_MAX, keys_of, spread
from sqlalchemy import create_engine, event, text

from tests.bot.players import EMOJI_VALUE, HAND_SLOT, choose_sum, target_of
from tests.fakes.telegram import StoredMessage

BOT = "@tweak_test_bot"
T_CHANCE = 0.35
OUT_OF_TURN = STALE = 0.08  # per turn: the board tapped out of turn, a key of an old board
PATIENCE, POLL = 600.0, 0.5
ANY = "any chat"
WAYS = ("board", "panel", "inline", ANY)
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
        way = ANY if table.way == ANY else "inline"
        if isinstance(step, Query):
            update = self.fake.inline_query_update(step.user, step.text, chat=step.chat)
            query_id = update["inline_query"]["id"]
            await self._process(table, f"{way}: 🎯 Play list (query)", update, query_id)
            return self.fake.inline_answer(query_id)
        assert isinstance(step, Pick)
        for update in self.fake.pick_inline_result(step.user, step.chat, step.answer, step.result_id):
            kind = f"{ANY}: pick (chosen result plays the move)" if table.way == ANY else DUPLICATE
            kind = "inline: pick (posted message)" if "message" in update else kind
            await self._process(table, kind, update, None)
        return self.fake.transcript(step.chat)[-1]  # the post

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
        """The group board (or `user`'s panel) with keys of this version, if the bot has shown it; an
        inline table's live message."""
        if table.way == ANY:
            post: StoredMessage | None = common.live_post(self.fake, table.group.id)
            return post
        prefix = f"k:{table.game_id}:{version}:"
        messages: list[StoredMessage] = self.fake.messages(table.group.id if user is None else user.id)
        return next((m for m in reversed(messages) if any(d.startswith(prefix) for _, d in keys_of(m))), None)


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
    """A game of 3 players to 40 points in a new group (without the bot for an inline table: its
    lobby posted from the inline list), started with the test client (not measured). The first
    `started` players send /start in private; panel players open their panel."""
    fake, tg = rig.fake, rig.tg
    rng = random.Random(seed)
    users = [fake.user(next(_user_ids), NAMES[i]) for i in range(3)]
    for user in users[:started]:
        await tg.send(fake.private(user), user, "/start")
    group = fake.group(f"{way.title()} table {seed}", with_bot=way != ANY)
    if way == ANY:
        await tg.pick(users[0], group, await tg.inline_query(users[0], "", chat=group), "new")
    else:
        await tg.send(group, users[0], f"/newgame{BOT}")
    lobby = fake.transcript(group)[-1]
    for user in users[1:]:
        await tg.tap(user, lobby, "✋ Join")
    await tg.tap(users[0], lobby, "⚙️ Settings")
    for _ in range(4):
        await tg.tap(users[0], lobby, "Goal −20")
    # Inline players pick a listed sum: their tables turn sum hints on (`ln:<game>:h:1`).
    hints = [d for _t, d in keys_of(lobby) if re.fullmatch(r"ln:\d+:h:1", d)]
    if way in ("inline", ANY) and hints:
        await tg.tap(users[0], lobby, lambda _text, data: data == hints[0])
    await tg.tap(users[0], lobby, "↩️ Back")
    await tg.tap(users[0], lobby, "▶️ Start")
    gid = next(int(d[2:]) for m in fake.transcript(group)[::-1] for _t, d in keys_of(m) if d[:2] == "h:")
    table = Table(way, group, [Seat(u, random.Random(rng.random())) for u in users], rng, gid)
    if way == "panel":
        for user in users:
            await tg.send(fake.private(user), user, f"/start g{gid}")
    return table


def table_cards(keys: list[tuple[str, str]], prefix: str) -> list[tuple[int, str]]:
    """(value, data) of the table keys, in position order."""
    found = ((EMOJI_VALUE.search(name), data) for name, data in keys if data.startswith(prefix + "t:"))
    return [(int(match.group(2)), data) for match, data in found if match]


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
        if table.way in ("inline", ANY):
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
        board = driver.surface(table, after) if table.way != ANY else None
        if state is not None and board is not None and table.rng.random() < OUT_OF_TURN:
            others = [s for i, s in enumerate(table.seats) if i != int(state["current"])]
            yield pace(table.rng, STEP)
            yield Tap(table.rng.choice(others).user, board, f"k:{gid}:{after}:h:0", "refused: out of turn")


#: A mover's turn on keys: where they play (`private`: their panel), at which game version.
At = namedtuple("At", "driver table seat version private")


def surface(at: At, message: StoredMessage) -> StoredMessage:
    """The board or panel with this version's keys (`message` until the bot shows it again)."""
    return at.driver.surface(at.table, at.version, at.seat.user if at.private else None) or message


def key_turn(driver: Driver, table: Table, seat: Seat, version: int, private: bool) -> Script:
    """Compose on the group board or in the private panel; a [T!] card first now and then."""
    gid, rng, at = table.game_id, seat.rng, At(driver, table, seat, version, private)
    where, user = ("panel", seat.user) if private else ("board", None)
    message = yield from wait_for(partial(driver.surface, table, version, user), f"the {where}")
    board = driver.surface(table, version)
    if board is not None:
        table.last_board = (board, f"k:{gid}:{version}:h:0")
    yield pace(rng, READ)
    hand = yield from read_hand(at, message)
    t_keys = [d for _t, d in keys_of(message) if d.startswith(f"t:{gid}:{version}:")]
    if t_keys and rng.random() < T_CHANCE:
        played = yield from t_card(at, message, rng.choice(t_keys), hand)
        if played == "joker":
            return
        if played == "card":
            _status, now, state = driver.game(gid)
            if state is None or table.seats[int(state["current"])] is not seat or now != version + 1:
                return  # the [T!] card ended the turn (or the game)
            at = at._replace(version=now)
            message = yield from wait_for(partial(driver.surface, table, now, user), f"the {where} again")
            yield pace(rng, STEP)
            hand = yield from read_hand(at, message)
    yield from compose(at, message, hand, target_of(message.text or ""), joker=False)


def compose(at: At, message: StoredMessage, hand: list[int], target: int, joker: bool) -> Script:
    """A hand card and the table cards of a sum for `target` (a hand card to discard if there is
    none), then *Claim* (or *Discard*), always on the surface."""
    rng, user, where = at.seat.rng, at.seat.user, "panel" if at.private else "board"
    prefix = f"k:{at.table.game_id}:{at.version}:"
    keys = keys_of(message)
    hand_keys = [d for _t, d in keys if d.startswith(prefix + "h:")]
    table_keys = table_cards(keys, prefix)
    fits = len(hand) == len(hand_keys)
    choice = choose_sum(hand, [v for v, _d in table_keys], target, rng) if fits else None
    yield pace(rng, STEP)
    if choice is None:
        yield Tap(user, surface(at, message), rng.choice(hand_keys), f"compose, {where}")
        final, kind = prefix + "d", f"discard, {where}"
    else:
        yield Tap(user, surface(at, message), hand_keys[choice[0]], f"compose, {where}")
        for position in choice[1]:
            yield pace(rng, STEP)
            yield Tap(user, surface(at, message), table_keys[position][1], f"compose, {where}")
        final, kind = prefix + "c", f"claim a Joker and its sum, {where}" if joker else f"claim, {where}"
    yield pace(rng, STEP)
    answer = yield Tap(user, surface(at, message), final, kind)
    if answer.text != "Done!":
        raise AssertionError(f"{kind} refused: {answer.text!r}")


def t_card(at: At, message: StoredMessage, t_key: str, hand: list[int]) -> Generator[Step, Any, str | None]:
    """Choose a [T!] card with its key (each tap the next choice; the popup says which) and play
    it: "joker" (played with its sum), "card" (a Thief, Shifter or Bomb by *Claim*; the turn goes
    on), None (tapped back to "No [T!] card chosen.")."""
    rng, user, where = at.seat.rng, at.seat.user, "panel" if at.private else "board"
    prefix = f"k:{at.table.game_id}:{at.version}:"
    taps = 0

    def choose() -> Generator[Step, Any, str]:
        nonlocal taps
        taps += 1
        yield pace(rng, STEP)
        answer = yield Tap(user, surface(at, message), t_key, f"[T!] choice, {where}")
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
        answer = yield Tap(user, surface(at, message), prefix + "c", f"[T!] card played (Claim), {where}")
        if answer.show_alert or at.driver.game(at.table.game_id)[1] == at.version:
            raise AssertionError(f"[T!] card refused: {answer.text!r}")
        if at.table.turn is not None:
            at.table.turn.t_board = not at.private
        return "card"
    keys = keys_of(surface(at, message))
    values = [v for v, _d in table_cards(keys, prefix)]
    fits = len(hand) == len([d for _t, d in keys if d.startswith(prefix + "h:")])
    if fits and choose_sum(hand, values, int(joker.group(1)), random.Random(0)) is not None:
        yield from compose(at, surface(at, message), hand, int(joker.group(1)), joker=True)
        return "joker"
    while taps < T_TAPS_MAX:
        if NO_T_CHOSEN in (yield from choose()):
            return None
    raise AssertionError("the [T!] key never came back to no choice")


def read_hand(at: At, message: StoredMessage) -> Generator[Step, Any, list[int]]:
    if at.private:
        prefix = f"k:{at.table.game_id}:{at.version}:h:"
        found = (EMOJI_VALUE.search(t) for t, d in keys_of(message) if d.startswith(prefix))
        return [int(m.group(2)) for m in found if m]
    popup = yield Tap(at.seat.user, message, f"h:{at.table.game_id}", "👀 My hand (popup)")
    yield pace(at.seat.rng, STEP)
    return [int(m.group(3)) for m in HAND_SLOT.finditer(popup.text or "")]


def _made_board(post: StoredMessage) -> StoredMessage | None:
    return post if common.switch_query(post) else None


def inline_turn(driver: Driver, table: Table, seat: Seat, version: int) -> Script:
    """The 🎯 Play list and a pick; a [T!] card first now and then (then the list again). At an
    inline table the pick's post becomes the board once the bot has edited it; the mover reads
    their hand (👀 My hand) first one turn in two."""
    rng, user, gid, anywhere = seat.rng, seat.user, table.game_id, table.way == ANY
    t_first = rng.random() < T_CHANCE
    board = yield from wait_for(partial(driver.surface, table, version), "the board")
    if not anywhere:
        table.last_board = (board, f"k:{gid}:{version}:h:0")
    elif rng.random() < 0.5:
        yield pace(rng, READ)
        yield Tap(user, board, f"h:{gid}", f"{ANY}: 👀 My hand (popup)")
    for _attempt in range(3):
        yield pace(rng, READ)
        answer = yield Query(user, table.group, common.switch_query(board))
        yield pace(rng, STEP)
        result_id, t_card = common.choose_pick(answer.results, rng, t_first)
        t_first = False
        post = yield Pick(user, table.group, answer, result_id)
        if anywhere:  # the bot edits the post into the next board (or the standings)
            board = yield from wait_for(partial(_made_board, post), "the post made a board")
        if not t_card:
            return
        _status, _version, state = driver.game(gid)
        if state is None or table.seats[int(state["current"])] is not seat:
            return
        if anywhere and table.turn is not None:
            table.turn.t_board = True  # the [T!] card's post is a board of its own
    raise AssertionError("inline turn did not end")


@contextlib.asynccontextmanager
async def running(url: str, seed: int) -> AsyncIterator[Driver]:
    """A running bot (see the module docstring) over the watching fake, and its driver."""
    from tests.bot.conftest import running_bot
    from tests.fakes.timer import VirtualTimer
    from tgbot.time_source import ManualClock

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
        found[kind]["tx"] = statistics.fmean(t.transactions for t in got)
        found[kind] |= {"answer_p50": common.pct(seconds, 0.5), "answer_p99": common.pct(seconds, 0.99)}
    return found


def per_way(driver: Driver, tables: list[Table], first_write: int) -> dict[str, Any]:
    """The writes into the tables' chats and to the players, and the notifications, per turn and way."""
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
        n, record, boards = len(turns), sorts["record"], sorts["board"]
        t_boards = sum(t.t_board for t in turns)
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


async def play(url: str, games: int, seed: int, reach: bool = False, ways: Sequence[str] = WAYS) -> Any:
    """`games` games of each of `ways` at once (`reach`: of each `REACH`, on the board), to the end;
    what they cost (also `bot_bench.py`'s)."""
    seats = [(f"board, {k} started the bot", n) for k, n in REACH.items()] if reach else []
    seats = seats or [(way, 3) for way in ways]
    async with running(url, seed) as driver:
        tables = [
            await new_table(driver.rig, way, seed * 100 + 10 * w + g, started)
            for w, (way, started) in enumerate(seats)
            for g in range(games)
        ]
        await driver.tg.advance(61.0)  # the lobbies' writes leave the budget window
        first_write, first_tap = len(driver.fake.writes), len(driver.taps)
        virtual = driver.rig.timer.monotonic()
        cpu, wall = time.process_time(), time.perf_counter()
        await driver.run([(t, play_game(driver, t)) for t in tables])
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        virtual, actions = driver.rig.timer.monotonic() - virtual, len(driver.taps) - first_tap
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


def fmt(v: float) -> str:
    return f"{v:.2f}".rstrip("0").rstrip(".")


def report(name: str, results: list[common.Figures]) -> None:
    print(f"\n### {name}: {len(results)} cold runs, median (min–max); {common.machine(results)}\n")
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
        "\n| Per turn | Turns (all runs) | Taps | **Writes into the table's chat** | without the boards a "
        "Thief, Shifter or Bomb brings | of them round summaries, standings, charts | Keys-off edits | "
        "Private writes | Notifications: chat / private | per person |\n" + "|---" * 10 + "|"
    )
    for way in dict.fromkeys(way for r in results for way in r["ways"]):
        got = [r["ways"][way] for r in results if way in r["ways"]]
        keys = ("taps", "writes", "no_t_boards", "records", "keys_off", "private")
        cells = [spread([g[k] for g in got], fmt) for k in keys]
        noise = " / ".join(spread([g[k] for g in got], fmt) for k in ("group_noise", "private_noise"))
        person = spread([g["per_person"] for g in got], fmt)
        print(f"| {way} | {sum(int(g['turns']) for g in got):,} | {' | '.join(cells)} | {noise} | {person} |")
    rejected, refused = (common.fig(results, k, f=fmt) for k in ("flood_rejections", "not_modified"))
    print(f"\n429s {rejected}; edits refused as not modified {refused}.")


def main(argv: list[str] | None = None) -> int:
    options = common.parser(__doc__)
    options.add_argument("--games", type=int, default=3, help="games of each way of playing per run")
    options.add_argument("--notifications", action="store_true", help="all, one or none started the bot")
    options.add_argument("--ways", nargs="+", choices=WAYS, default=WAYS, help='only these ("any chat")')
    args = options.parse_args(argv)
    if args.child:
        with common.fresh_database(args.db) as url:
            common.emit(asyncio.run(play(url, args.games, args.run + 1, args.notifications, args.ways)))
        return 0
    passed = [f"--games={args.games}", *["--notifications"][: args.notifications], "--ways", *args.ways]
    return common.each_database(args, __file__, passed, report)


if __name__ == "__main__":
    sys.exit(main())
