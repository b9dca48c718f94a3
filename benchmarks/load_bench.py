"""Load benchmark: many groups playing at human speed, with abuse, under Telegram's flood limits.

``python benchmarks/load_bench.py [--groups 10 25 50 100] [--seconds 75] [--db sqlite|postgres|both]
[--runs 3] [--seed 1] [--abuse-every 6] [--players 0] [--rtt-ms 0] [--json FILE] [--no-snapshot]
[--trace-db] [--db-workers K] [--py-spy DIR] [--no-settle] [--event-loop asyncio|uvloop]``

Defaults take about 32 minutes on 2 cores (16 per database). The code under test is copied first
(``--no-snapshot`` runs the tree as it is), so edits made while it runs cannot mix versions; the
table names the copy's fingerprint. Diagnostics: ``--trace-db`` times every database transaction
by caller (queue, SQLite's write lock, statements, CPU), ``--py-spy DIR`` records each run with
py-spy, ``--db-workers K`` (an experiment) resizes the bot's database thread pool, ``--no-settle``
(an experiment) skips `tgbot.runner.settle_heap` (the collector walks the start-up heap again),
``--event-loop uvloop`` runs on uvloop instead of Python's own event loop (`tgbot.event_loop`).

What runs, in real time: the bot's real ``Application`` (``build_application``: PTB, the handlers,
the services, the real ``SystemTimer`` and clock, the database in its worker threads, the outbox
and its per-chat senders, the sweep job) over the fake Bot API ``tests/fakes/telegram.py`` with
Telegram's flood limits enforced (``FloodLimits()``: 20 writes a minute per group, 1 a second per
private chat, 30 a second in all; a write over a limit is refused with 429 and not applied) and
callback queries that expire after 15 s. Updates are put on the Application's update queue as the
Updater (or the webhook server) would; nothing is awaited between them except the players' own
pauses.

Who taps: N groups of 3 or 4 players (``FakeUser``), one game each, composed on the group board.
Each group goes through the lobby (``/newgame``, *Join* taps a second or three apart, *Start*),
then the player to move reads the board (1-4 s), peeks at their hand (*👀 My hand*, the popup
says their cards and the target), taps a hand card and the table cards of a sum one key every
0.5-2 s (each popup shows the running sum; the board is not redrawn) and taps *✅ Claim* (*🗑
Discard* when they have no sum): both are always on the board, nobody waits for a key. In about a
quarter of the turns that offer one they choose a [T!] card first: its key (``t:…:any`` on a
face-down board, else the key of a kind) tapped one to three times, each popup saying what is
chosen; then *Claim* plays a Thief, Shifter or Bomb and the player goes on on the board it brings
(the next board, with new keys); for a Joker they compose a sum for the target its popup
announced and *Claim* plays both, or, with no such sum, tap the key until "No [T!] card chosen."
and play as usual. The others peek at their hand every 5-20 s. Players only tap keys the bot
showed them (read from the messages as the fake stores them now), and compute their sums from
what the bot told them.

``--players K`` gives every group K players. Other scripts drive the same players
(`make_groups`, `Load.start`): `benchmarks/side_by_side.py` runs this child per database,
`benchmarks/instances.py` hands `Load` a ``deliver`` function that posts each update to a
webhook instead of the Application's queue.

Abuse, mixed in (one abusive tap every ``--abuse-every`` seconds per group on average, ``0`` for
none, plus double taps): forged callback data (garbage, ids out of range, another game's keys, a
lobby's *Cancel* by a bystander, a card position that does not exist, a [T!] kind the game has
not), stale keys (kept from boards older than the one before the live one), a bystander who is
not in the game tapping the board's keys, a player tapping card and [T!] keys out of turn, and
double taps (*Claim*/*Discard* tapped twice 50-200 ms apart, *👀 My hand* twice).

Each run is cold: a fresh process (this script runs itself per run), a fresh database (a new
SQLite file; a new PostgreSQL database from ``tests/pg.py``), engine and Application.

Measured per run (times from the fake's clock, which is ``time.monotonic``):

* taps sent and answered (an answer later than 15 s is refused by the fake: not answered);
* answer latency p50/p99/max: from the moment the fake handed out the callback query (just
  before it is put on the update queue) to the bot's answerCallbackQuery; the same for the
  [T!] keys alone (*[T!] choice latency*), and their share answered within 1 s;
* 429s (and how many of them the bot's 30 a second in all refused); the most writes any group
  had in a 60 s window; writes per second in all (mean over the steady part of the run, from
  25 s in to the end; peak in any 1 s window);
* moves played (claims, discards and [T!] cards the bot accepted, whichever tap of a double tap
  it was; a Joker played with its sum is two moves), against the bot's move log;
* the group's writes (every Telegram call that counts against its budget: send, edit, delete),
  sorted: lobby messages, each game's first board, boards, other record messages (round
  summaries, standings, the chart), and the keys taken off old boards (``editMessageReplyMarkup``
  with no keys); per turn (a turn is a sum or a discard in the move log, whoever played it),
  keys-off edits apart; the writes and the move log are read after the window, once the
  senders have sent every row but the keys-off ones (at most ``SETTLE`` seconds);
* *next board*: from a move's answer to the first write in its group carrying a newer version's
  keys (the next board, as the players see it: the outbox wait, the budget wait and the send),
  for the moves that end a turn (a Joker with its sum included) and, apart, for a Thief,
  Shifter or Bomb played on the board (which brings a board of its own);
* the process's CPU use, the time its threads were runnable but got no core (schedstat: the
  shared machine's share), the machine's load average, the event loop's lag (a 250 ms ticker's
  overshoot), and the outbox backlog (rows waiting) at the end of the window; the process's CPU
  seconds in the window, its RSS once the bot started and its peak RSS (``ru_maxrss``).

The parent process prints, per database and N, the median and the spread (min-max) over the
runs, and where the total write rate meets the bot's 25/s pacing (Telegram's ceiling is 30/s).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import gc
import hashlib
import json
import logging
import math
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import coldrun  # noqa: E402  (beside this script, in the tree or in its snapshot)

#: Human speed (seconds): reading the board before the first tap, between two taps of a turn,
#: between two peeks at one's hand, between joining the lobby.
READ = (1.0, 4.0)
STEP = (0.5, 2.0)
PEEK = (5.0, 20.0)
JOIN = (1.0, 3.0)
#: A turn's taps use [T!] cards this often when the board offers them.
T_CHANCE = 0.25
#: A [T!] key is tapped this many times at first (each tap: the next choice).
T_TAPS = (1, 3)
#: Tapped at most this many times in all to get back to "No [T!] card chosen.".
T_TAPS_MAX = 10
#: The final Claim/Discard is tapped twice this often (a double tap).
DOUBLE_CHANCE = 0.15
#: Groups start over this many seconds (the first minute of a bot under load is no stampede).
RAMP = 10.0
#: The write rate's mean is taken from this many seconds after the start to the end.
STEADY_FROM = 25.0
#: After the window: how long to wait for answers still due (the fake refuses them after 15 s).
DRAIN = 16.0
#: After the window: how long to let the senders send what is still waiting (keys-off edits
#: apart), so that the writes counted per turn are those of the turns played.
SETTLE = 60.0
ANSWER_TIMEOUT = 15.0
NAMES = ("Ana", "Ben", "Cai", "Dee")
BYSTANDER = "Zed"
#: A game id that exists nowhere (the largest a key may carry).
MAX_GAME_ID = 2**31 - 1

HAND_SLOT = re.compile(r"(\d):(🟥|🟧|🟨|🟩|🟦|🟪)([1-6])")
CARD_VALUE = re.compile(r"(🟥|🟧|🟨|🟩|🟦|🟪)([1-6])")
KEY_VERSION = re.compile(r"^[kt]:(\d+):(\d+):")
TARGET = re.compile(r"Target (\d+)")
#: The [T!] key's popup for a Joker: the target it would make.
JOKER_TARGET = re.compile(r"the target becomes (\d+)")
NO_T_CHOSEN = "No [T!] card chosen."
DONE = "Done!"
#: Callback data of lobby keys (a message that carries one is a lobby message).
LOBBY_KEY = re.compile(r"^(lj|ll|ls|lc|lo|lb|ln|la):")


# --------------------------------------------------------------------------------------------------
# The child: one cold run
# --------------------------------------------------------------------------------------------------


@dataclass
class Tap:
    query_id: str
    group: int
    kind: str  # lobby | play | peek | abuse:<what>
    data: str
    #: For moves: the game version and board message the tap was made on.
    version: int | None = None
    message_id: int | None = None
    #: compose op letter (h, t, c, d, x); "tchoice" a [T!] key; "tc" the Claim that plays a
    #: chosen Thief, Shifter or Bomb; "jc" the Claim that plays a Joker and its sum; "" otherwise
    op: str = ""


@dataclass
class Write:
    at: float
    chat_id: int
    method: str
    message_id: int | None
    version: int | None  # the game version of the keys it carries (None: no versioned keys)
    game: int | None  # the game of those keys
    lobby: bool  # a lobby message: sent with lobby keys, or a later write to one
    keys_off: bool  # an editMessageReplyMarkup that leaves no keys (an old board's keys taken off)


def _watched_fake(rtt: float) -> Any:
    """FakeTelegram that time-stamps every accepted write, wakes players waiting on a chat and
    resolves a future when a callback query is answered (or refused as too late)."""
    from tests.fakes.flood import FloodLimits
    from tests.fakes.telegram import MESSAGE_METHODS, FakeTelegram

    class WatchedTelegram(FakeTelegram):
        def __init__(self) -> None:
            super().__init__(flood=FloodLimits())
            self.writes: list[Write] = []
            self.lobbies: set[tuple[int, int | None]] = set()  # (chat, message) of lobby messages
            self.changed: dict[int, asyncio.Event] = {}
            self.answered: dict[str, asyncio.Future[None]] = {}

        def event(self, chat_id: int) -> asyncio.Event:
            return self.changed.setdefault(chat_id, asyncio.Event())

        async def do_request(self, url: str, method: str, request_data: Any = None, *args: Any, **kw: Any):  # type: ignore[no-untyped-def,override]
            if rtt:
                await asyncio.sleep(rtt / 2)
            status, body = await super().do_request(url, method, request_data, *args, **kw)
            # Every API method but getUpdates is synchronous in the fake: the call just made is
            # the last one recorded.
            call = self.calls[-1]
            if call.method in MESSAGE_METHODS and call.ok and call.chat_id is not None:
                result = call.response.get("result")
                message_id = (
                    result.get("message_id") if isinstance(result, dict) else call.params.get("message_id")
                )
                data = _markup_data(call.params)
                version = game = None
                for item in data:
                    match = KEY_VERSION.match(item)
                    if match:
                        game, version = int(match.group(1)), int(match.group(2))
                        break
                where = (call.chat_id, message_id)
                if any(LOBBY_KEY.match(item) for item in data):
                    self.lobbies.add(where)
                self.writes.append(
                    Write(
                        self.timer.monotonic(),
                        call.chat_id,
                        call.method,
                        message_id,
                        version,
                        game,
                        where in self.lobbies,
                        call.method == "editMessageReplyMarkup" and not data,
                    )
                )
                event = self.changed.pop(call.chat_id, None)
                if event is not None:
                    event.set()
            elif call.method == "answerCallbackQuery":
                future = self.answered.pop(str(call.params.get("callback_query_id")), None)
                if future is not None and not future.done():
                    future.set_result(None)
            if rtt:
                await asyncio.sleep(rtt / 2)
            return status, body

    return WatchedTelegram()


def _markup_data(params: dict[str, Any]) -> list[str]:
    """The callback data of the keys a write leaves on its message."""
    markup = params.get("reply_markup")
    if isinstance(markup, str):
        markup = json.loads(markup)
    if not isinstance(markup, dict):
        return []
    return [
        str(key["callback_data"])
        for row in markup.get("inline_keyboard", [])
        for key in row
        if key.get("callback_data")
    ]


def _keys(message: Any) -> list[tuple[str, str]]:
    """(text, callback data) of a message's keys as shown now (link keys left out)."""
    return [
        (b["text"], b["callback_data"]) for row in message.keyboard for b in row if b.get("callback_data")
    ]


def _version(buttons: Sequence[tuple[str, str | None]]) -> int | None:
    for _text, data in buttons:
        match = KEY_VERSION.match(data or "")
        if match:
            return int(match.group(2))
    return None


@dataclass
class Member:
    user: Any
    name: str


@dataclass
class Group:
    index: int
    chat: Any
    players: list[Member]
    bystander: Member
    rng: random.Random
    game_id: int | None = None
    #: (message, data) of keys seen on older boards: the stale keys the abusers reuse.
    stale: list[tuple[Any, str]] = field(default_factory=list)
    seen_versions: set[int] = field(default_factory=set)
    games_started: int = 0
    #: A turn stopped after some compose taps: the draft it left is cleared on the next try.
    dirty: bool = False


class Load:
    """Drives the groups against the running Application and records every tap.

    Updates go onto ``app``'s update queue, or, with ``deliver``, to that function instead (as
    JSON-ready dicts: ``benchmarks/instances.py`` posts them to webhooks through a balancer).
    """

    def __init__(
        self,
        app: Any,
        fake: Any,
        args: argparse.Namespace,
        started: float,
        deliver: Callable[[dict[str, Any]], None] | None = None,
    ) -> None:
        self.app = app
        self.deliver = deliver
        self.fake = fake
        self.args = args
        self.started = started
        self.deadline = started + args.seconds
        self.taps: list[Tap] = []
        self.tasks: set[asyncio.Task[Any]] = set()
        self.other_games: list[int] = []

    # -- talking to the bot ------------------------------------------------------------------------

    def now(self) -> float:
        return float(self.fake.timer.monotonic())

    def running(self) -> bool:
        return bool(self.now() < self.deadline)

    async def put(self, data: dict[str, Any]) -> None:
        if self.deliver is not None:
            self.deliver(data)
            return
        await self.app.update_queue.put(self.fake.to_update(data, self.app.bot))

    def tap_nowait(self, g: Group, who: Member, message: Any, data: str, kind: str, op: str = "") -> Tap:
        update = self.fake.callback_update(who.user, message, data)
        query_id = update["callback_query"]["id"]
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.fake.answered[query_id] = future
        match = KEY_VERSION.match(data)
        record = Tap(
            query_id, g.index, kind, data, int(match.group(2)) if match else None, message.message_id, op
        )
        self.taps.append(record)
        if self.deliver is not None:
            self.deliver(update)
        else:
            self.app.update_queue.put_nowait(self.fake.to_update(update, self.app.bot))
        return record

    async def tap(self, g: Group, who: Member, message: Any, data: str, kind: str, op: str = "") -> Any:
        """Tap and wait for the answer (what the user sees); None when none came in time."""
        record = self.tap_nowait(g, who, message, data, kind, op)
        future = self.fake.answered.get(record.query_id)
        if future is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(future), ANSWER_TIMEOUT + 1)
        answer = self.fake.answers[record.query_id]
        return answer if answer.answered else None

    async def pause(self, bounds: tuple[float, float], rng: random.Random) -> None:
        await asyncio.sleep(rng.uniform(*bounds))

    async def wait_chat(self, chat_id: int, predicate: Callable[[], Any], limit: float | None = None) -> Any:
        """Wait until ``predicate()`` is truthy, re-checking whenever the bot writes to the chat."""
        end = self.deadline if limit is None else min(self.deadline, self.now() + limit)
        while True:
            found = predicate()
            if found:
                return found
            remaining = end - self.now()
            if remaining <= 0:
                return None
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.fake.event(chat_id).wait(), min(remaining, 5.0))

    # -- reading what the bot shows ----------------------------------------------------------------

    def board(self, g: Group) -> Any:
        """The group's live board: the newest bot message with the game's *My hand* key."""
        if g.game_id is None:
            return None
        want = f"h:{g.game_id}"
        for message in reversed(self.fake.messages(g.chat.id)):
            if any(d == want for _t, d in _keys(message)):
                return message
        return None

    def remember(self, g: Group, message: Any) -> None:
        """Keep the keys of each board version seen: the stale keys of later abuse."""
        version = _version(_keys(message))
        if version is None or version in g.seen_versions:
            return
        g.seen_versions.add(version)
        g.stale.extend((message, d) for _t, d in _keys(message) if d and KEY_VERSION.match(d))
        if len(g.stale) > 200:
            del g.stale[:-200]

    @staticmethod
    def mover(board: Any, g: Group) -> Member | None:
        for member in g.players:
            if f"👉 {member.name}, your move!" in (board.text or ""):
                return member
        return None

    # -- one group ---------------------------------------------------------------------------------

    def start(self, groups: list[Group]) -> tuple[list[asyncio.Task[None]], asyncio.Task[None]]:
        """Start every group (over the ramp) and the task that tells the abusers the other
        groups' games; returns the groups' tasks and that task."""
        ramp = min(RAMP, self.args.seconds / 5)
        tasks = [
            asyncio.create_task(self.group_main(g, ramp * i / max(1, len(groups))))
            for i, g in enumerate(groups)
        ]

        async def learn_games() -> None:  # other groups' game ids, for forged keys
            while self.running():
                self.other_games = [g.game_id for g in groups if g.game_id is not None]
                await asyncio.sleep(2)

        return tasks, asyncio.create_task(learn_games())

    async def group_main(self, g: Group, delay: float) -> None:
        await asyncio.sleep(delay)
        while self.running():
            if not await self.lobby(g):
                return
            g.games_started += 1
            helpers = [asyncio.create_task(self.peeker(g, member)) for member in g.players] + [
                asyncio.create_task(self.abuser(g))
            ]
            try:
                await self.play(g)
            finally:
                for task in helpers:
                    task.cancel()

    async def lobby(self, g: Group) -> bool:
        creator = g.players[0]
        await self.put(self.fake.command_update(g.chat, creator.user, "/newgame@tweak_test_bot"))

        def lobby_message() -> Any:
            for message in reversed(self.fake.messages(g.chat.id)):
                for _t, d in _keys(message):
                    if d and d.startswith("lj:"):
                        return message
            return None

        lobby = await self.wait_chat(g.chat.id, lobby_message, 60)
        if lobby is None:
            return False
        join = next(d for _t, d in _keys(lobby) if d and d.startswith("lj:"))
        g.game_id = int(join.split(":")[1])
        for member in g.players[1:]:
            await self.pause(JOIN, g.rng)
            double = g.rng.random() < DOUBLE_CHANCE
            await self.tap(g, member, lobby, join, "lobby")
            if double:
                self.tap_nowait(g, member, lobby, join, "abuse:double")
        await self.pause(JOIN, g.rng)
        start = next((d for _t, d in _keys(lobby) if d and d.startswith("ls:")), None)
        if start is None:
            return False
        await self.tap(g, creator, lobby, start, "lobby")
        return await self.wait_chat(g.chat.id, lambda: self.board(g), 60) is not None

    async def play(self, g: Group) -> None:
        attempted: tuple[int, int | None] | None = None
        while self.running():
            board = self.board(g)
            if board is None:
                if any(
                    "Game over" in (m.text or m.caption or "") for m in self.fake.messages(g.chat.id)[-4:]
                ):
                    return  # a new game for this group
                await self.wait_chat(g.chat.id, lambda: self.board(g), 5)
                continue
            self.remember(g, board)
            version = _version(_keys(board))
            mover = self.mover(board, g)
            state = (board.message_id, version)
            if mover is None or version is None or state == attempted:
                # Nothing new to do: wait for the bot to show the next board.
                await self.wait_chat(g.chat.id, functools.partial(self._changed, g, state), 30)
                continue
            attempted = state
            if not await self.turn(g, mover, board, version):
                attempted = None  # no move made (a refusal, the answer late): look again

    def _changed(self, g: Group, seen: tuple[int, int | None]) -> bool:
        return self._state(g) != seen

    def _state(self, g: Group) -> tuple[int, int | None] | None:
        board = self.board(g)
        return None if board is None else (board.message_id, _version(_keys(board)))

    def keys_now(self, g: Group, version: int) -> tuple[Any, list[tuple[str, str]]] | None:
        """The live board's keys, if they still belong to ``version``."""
        board = self.board(g)
        if board is None:
            return None
        keys = [(t, d) for t, d in _keys(board) if d]
        if _version(keys) != version:
            return None
        return board, keys

    async def turn(self, g: Group, who: Member, board: Any, version: int) -> bool:
        """One turn at human speed; False when it ended without a move (to be tried again). A
        Thief, Shifter or Bomb played is a move: the player goes on on the board it brings."""
        rng = g.rng
        gid = g.game_id
        await self.pause(READ, rng)
        answer = await self.tap(g, who, board, f"h:{gid}", "play")
        if answer is None or not self.running():
            return False
        hand = [int(m.group(3)) for m in HAND_SLOT.finditer(answer.text or "")]
        target = TARGET.search(answer.text or "")  # the popup says the target on one's turn
        if not hand or target is None:
            return False
        now = self.keys_now(g, version)
        if now is None:
            return False
        board, keys = now
        clear = f"k:{gid}:{version}:x"
        if g.dirty and any(d == clear for _t, d in keys):  # a draft left by an attempt that stopped
            await self.pause(STEP, rng)
            await self.tap(g, who, board, clear, "play", "x")
        g.dirty = False
        table = []
        for text, data in keys:
            if data.startswith(f"k:{gid}:{version}:t:"):
                value = CARD_VALUE.search(text)
                if value:
                    table.append((int(data.rsplit(":", 1)[1]), int(value.group(2))))
        t_keys = [d for _t, d in keys if d.startswith(f"t:{gid}:{version}:")]
        if t_keys and rng.random() < T_CHANCE:
            played = await self.t_card(g, who, board, version, rng.choice(t_keys), hand, table)
            if played is not None:
                return played
        choice = _choose_sum(hand, [v for _p, v in table], int(target.group(1)), rng)
        return await self.compose(g, who, board, version, hand, table, choice, "c" if choice else "d")

    async def compose(
        self,
        g: Group,
        who: Member,
        board: Any,
        version: int,
        hand: list[int],
        table: list[tuple[int, int]],
        choice: tuple[int, tuple[int, ...]] | None,
        op: str,
    ) -> bool:
        """Tap the hand card and table cards of `choice` (a random hand card to discard when
        None), then *Claim* (``op`` "c", or "jc" for a Joker chosen before) or *Discard* ("d");
        True when the bot played it."""
        rng = g.rng
        gid = g.game_id
        if choice is None:
            h, positions = rng.randrange(len(hand)), []
        else:
            h, subset = choice
            positions = [table[i][0] for i in subset]
        for step, index in [("h", h), *(("t", p) for p in positions)]:
            await self.pause(STEP, rng)
            if not self.running():
                return False
            answer = await self.tap(g, who, board, f"k:{gid}:{version}:{step}:{index}", "play", step)
            g.dirty = True
            if answer is None or answer.show_alert:
                return False
        # Claim and Discard are always on the board: the popup said the sum, the player taps.
        final = f"k:{gid}:{version}:{'d' if op == 'd' else 'c'}"
        await self.pause(STEP, rng)
        if not self.running():
            return False
        if rng.random() < DOUBLE_CHANCE:
            asyncio.get_running_loop().call_later(
                rng.uniform(0.05, 0.2), self.tap_nowait, g, who, board, final, "abuse:double", op
            )
        answer = await self.tap(g, who, board, final, "play", op)
        moved = answer is not None and answer.text == DONE
        g.dirty = not moved
        return moved

    async def t_card(
        self,
        g: Group,
        who: Member,
        board: Any,
        version: int,
        t_key: str,
        hand: list[int],
        table: list[tuple[int, int]],
    ) -> bool | None:
        """Choose a [T!] card with its key (one to three taps, each the next choice) and play it:
        True when it was played (a Joker with its sum), False when the turn stopped, None when
        no [T!] card is chosen in the end (the turn goes on as usual)."""
        rng = g.rng
        gid = g.game_id
        taps = 0

        async def choose() -> str | None:
            nonlocal taps
            taps += 1
            await self.pause(STEP, rng)
            if not self.running():
                return None
            answer = await self.tap(g, who, board, t_key, "play", "tchoice")
            if answer is None or answer.show_alert or _refused(answer.text or ""):
                return None
            return str(answer.text or "")

        popup = ""
        for _ in range(rng.randint(*T_TAPS)):
            got = await choose()
            if got is None:
                return False
            popup = got
            g.dirty = True  # a choice in the draft: cleared if this attempt stops
            if NO_T_CHOSEN in popup:
                return None
        joker = JOKER_TARGET.search(popup)
        if joker is None:  # a Thief, Shifter or Bomb chosen: Claim plays it, a new board comes
            await self.pause(STEP, rng)
            if not self.running():
                return False
            answer = await self.tap(g, who, board, f"k:{gid}:{version}:c", "play", "tc")
            played = answer is not None and not answer.show_alert and not _refused(answer.text or "")
            g.dirty = not played
            return played
        choice = _choose_sum(hand, [v for _p, v in table], int(joker.group(1)), rng)
        if choice is not None:  # the sum for the Joker's target; Claim plays both
            g.dirty = True
            return await self.compose(g, who, board, version, hand, table, choice, "jc")
        while taps < T_TAPS_MAX:  # no sum for it: back to no [T!] card, then as usual
            got = await choose()
            if got is None:
                return False
            if NO_T_CHOSEN in got:
                return None
        return False

    async def peeker(self, g: Group, member: Member) -> None:
        while self.running():
            await self.pause(PEEK, g.rng)
            board = self.board(g)
            if board is None or not self.running() or self.mover(board, g) is member:
                continue
            double = g.rng.random() < DOUBLE_CHANCE / 3
            self.tap_nowait(g, member, board, f"h:{g.game_id}", "peek")
            if double:
                await asyncio.sleep(g.rng.uniform(0.05, 0.2))
                self.tap_nowait(g, member, board, f"h:{g.game_id}", "abuse:double")

    async def abuser(self, g: Group) -> None:
        if self.args.abuse_every <= 0:  # no abuse
            return
        rng = g.rng
        while self.running():
            await asyncio.sleep(rng.expovariate(1.0 / self.args.abuse_every))
            board = self.board(g)
            if board is None or not self.running():
                continue
            gid = g.game_id
            version = _version(_keys(board)) or 1
            kind = rng.choice(("forged", "stale", "bystander", "out_of_turn"))
            if kind == "stale" and g.stale:
                message, data = rng.choice(g.stale)
                if (_version([("", data)]) or 0) >= version - 1:
                    # not stale yet (the board before a [T!] card of this turn keeps working
                    # for its mover): fall through to a forgery
                    kind = "forged"
                else:
                    self.tap_nowait(g, rng.choice(g.players), message, data, "abuse:stale")
                    continue
            if kind == "bystander":
                keys = [d for _t, d in _keys(board) if d]
                self.tap_nowait(g, g.bystander, board, rng.choice(keys), "abuse:bystander")
                continue
            if kind == "out_of_turn":
                mover = self.mover(board, g)
                others = [m for m in g.players if m is not mover]
                keys = [d for _t, d in _keys(board) if d and d.startswith(("k:", "t:"))]
                if others and keys:
                    self.tap_nowait(g, rng.choice(others), board, rng.choice(keys), "abuse:out_of_turn")
                    continue
            others_games = [game for game in self.other_games if game != gid]
            other = rng.choice(others_games) if others_games else MAX_GAME_ID  # never this game's
            forged = rng.choice(
                (
                    "💥",
                    "k:",
                    "k:0:0:c",
                    f"h:{2**31}",
                    f"k:{gid}:{version}:h:9",
                    f"k:{gid}:{version}:t:63",
                    f"k:{gid}:{version}:q",
                    f"k:{gid}:{version + 5}:c",
                    f"k:{other}:{version}:c",
                    f"h:{other}",
                    f"t:{gid}:{version + 5}:joker",
                    f"t:{other}:{version}:any",
                    f"t:{gid}:{version}:T9",
                    f"k:{gid}:{version}:b",
                    f"lc:{gid}",
                    f"ls:{gid}",
                    f"dl:{gid}",
                    "r:99",
                    "lg:zz",
                    f"ln:{gid}:t:-",
                )
            )
            self.tap_nowait(g, rng.choice([g.bystander, *g.players]), board, forged, "abuse:forged")


@functools.cache
def _refusals() -> re.Pattern[str]:
    """Every refusal the bot answers a key with, in English (its templates, fields as wildcards)."""
    from tgbot.render.refusals import ILLEGAL_TEXT, REFUSAL_TEXT

    patterns = [
        ".*".join(re.escape(part) for part in re.split(r"\{\w+\}", str(template)))
        for template in (*REFUSAL_TEXT.values(), *ILLEGAL_TEXT.values())
    ]
    return re.compile("|".join(f"(?:{p})" for p in patterns))


def _refused(text: str) -> bool:
    return _refusals().fullmatch(text) is not None


def make_groups(fake: Any, args: argparse.Namespace) -> list[Group]:
    """The N groups of a run: 3 or 4 players each (``args.players`` fixes it), and a bystander."""
    rng = random.Random(args.seed)
    groups: list[Group] = []
    for i in range(args.groups):
        chat = fake.group(f"Load {i}")
        size = rng.choice((3, 4))
        size = getattr(args, "players", 0) or size
        base = 1_000_000 + i * 100
        players = [Member(fake.user(base + j, NAMES[j]), NAMES[j]) for j in range(size)]
        bystander = Member(fake.user(base + 9, BYSTANDER), BYSTANDER)
        groups.append(Group(i, chat, players, bystander, random.Random(args.seed * 7919 + i)))
    return groups


def _choose_sum(
    hand: list[int], table: list[int], target: int, rng: random.Random
) -> tuple[int, tuple[int, ...]] | None:
    from tests.bot.players import choose_sum

    return choose_sum(hand, table, target, rng)


def _sched() -> tuple[float, float]:
    """(CPU seconds, seconds runnable but waiting for a core) of all this process's threads
    (``/proc/self/task/*/schedstat``; zeros where it is not available)."""
    cpu = wait = 0.0
    try:
        for task in Path("/proc/self/task").iterdir():
            try:
                fields = (task / "schedstat").read_text().split()
            except OSError:
                continue
            cpu += int(fields[0]) / 1e9
            wait += int(fields[1]) / 1e9
    except OSError:
        pass
    return cpu, wait


def _rss_mb() -> float | None:
    """This process's resident set now (MB), from /proc (None where there is none)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def _peak_rss_mb() -> float:
    """This process's peak resident set so far (MB; Linux reports ru_maxrss in KiB)."""
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _loadavg() -> float | None:
    try:
        return float(Path("/proc/loadavg").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None


class GcWatch:
    """The cyclic garbage collector during the window: collections per generation and the CPU
    each took (the thread time of the thread it ran on), since a collection stops every tap in
    flight. CPU rather than wall clock: on a shared machine the wall clock measures the neighbours.
    """

    def __init__(self) -> None:
        self.count = [0, 0, 0]
        self.cpu = [0.0, 0.0, 0.0]
        self.longest = [0.0, 0.0, 0.0]
        self._started = 0.0

    def start(self) -> GcWatch:
        gc.callbacks.append(self._callback)
        return self

    def stop(self) -> None:
        gc.callbacks.remove(self._callback)

    def _callback(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._started = time.thread_time()
            return
        took = time.thread_time() - self._started
        generation = info["generation"]
        self.count[generation] += 1
        self.cpu[generation] += took
        self.longest[generation] = max(self.longest[generation], took)

    def figures(self) -> dict[str, Any]:
        # What a full collection would cost now, with everything the window left behind.
        started = time.thread_time()
        gc.collect()
        return {
            "gc_count": self.count,
            "gc_cpu_s": sum(self.cpu),
            "gc_longest_ms": [1000 * t for t in self.longest],
            "gc_full_ms": 1000 * (time.thread_time() - started),
            "gc_frozen": gc.get_freeze_count(),
        }


#: Seconds between the loop-lag probe's wakes. Every wake of a process that was idle costs about
#: 0.2 ms of CPU on this project's 2-core VM (waking a cold vCPU, presumably; charged to
#: the process); at 20 wakes a second the probe alone was an eighth of "CPU per tap" at 4 groups.
#: Four a second still gives 600 samples in a 150 s window.
LAG_PERIOD = 0.25


async def _loop_lag(samples: list[float], stop: asyncio.Event) -> None:
    loop = asyncio.get_running_loop()
    while not stop.is_set():
        before = loop.time()
        await asyncio.sleep(LAG_PERIOD)
        samples.append(max(0.0, loop.time() - before - LAG_PERIOD))


async def _backlog(
    db: Any, samples: list[tuple[float, int]], stop: asyncio.Event, clock: Callable[[], float]
) -> None:
    from sqlalchemy import text

    def count(session: Any) -> int:
        return int(session.execute(text("SELECT count(*) FROM outbox")).scalar_one())

    while not stop.is_set():
        with contextlib.suppress(Exception):  # a sample is a bonus
            samples.append((clock(), await db.run(count)))
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), 5.0)


def _key_kind(work: Any, depth: int = 0) -> str:
    """The kind of key a handler's transaction serves, found in its closures (tracing only)."""
    from tgbot import callbacks as cb

    compose = {
        cb.PickHand: "hand card",
        cb.PickTable: "table card",
        cb.Claim: "claim",
        cb.Discard: "discard",
        cb.Clear: "clear",
    }
    values: list[Any] = []
    for cell in getattr(work, "__closure__", None) or ():
        try:
            value = cell.cell_contents
        except ValueError:
            continue
        # `Deps.run` keeps the service's arguments (the tap, the key) in a tuple.
        values.extend(value if isinstance(value, tuple) else (value,))
    for value in values:
        if type(value) in compose:
            return f"tap Compose {compose[type(value)]}"
        if isinstance(value, cb.Callback):
            return f"tap {type(value).__name__}"
        if callable(value) and depth < 3:
            found = _key_kind(value, depth + 1)
            if found != "command/other":
                return found
    return "command/other"


class DbTrace:
    """Optional (``--trace-db``): where each database transaction's time goes, by caller.

    Wraps the bot's ``Database.run`` on the instance and listens to the engine's cursor events
    (no code of the bot changes): *queue* is from the call to a worker thread starting the
    transaction, *work* the transaction itself up to its commit, of which *lock* is the time
    ``BEGIN IMMEDIATE`` waited for SQLite's write lock and *sql* the time in statements (lock
    included), *cpu* the worker thread's CPU time; *total* until the event loop has the result;
    *stmts* the statements per transaction.
    """

    FIELDS = ("queue", "work", "lock", "sql", "cpu", "total", "stmts")

    def __init__(self, db: Any) -> None:
        import threading

        from sqlalchemy import event

        self.rows: dict[str, list[tuple[float, ...]]] = {}
        local = threading.local()
        original = db.run

        @event.listens_for(db.engine, "before_cursor_execute")
        def _before(*_a: Any) -> None:
            local.t = time.perf_counter()

        @event.listens_for(db.engine, "after_cursor_execute")
        def _after(_conn: Any, _cursor: Any, statement: str, *_a: Any) -> None:
            spent = time.perf_counter() - local.t
            if getattr(local, "acc", None) is not None:
                local.acc[1] += spent
                local.acc[2] += 1
                if statement.startswith("BEGIN"):
                    local.acc[0] += spent

        async def run(work: Callable[[Any], Any], **kw: Any) -> Any:
            caller = sys._getframe(1)
            kind = caller.f_code.co_qualname
            # Deps.run (the handlers' one way to a service): the key (or command) it serves; else
            # which of the caller's transactions (the senders have several)
            kind = _key_kind(work) if kind == "Deps.run" else f"{kind}:{caller.f_lineno}"
            submitted = time.perf_counter()
            marks: dict[str, Any] = {}

            def timed(session: Any) -> Any:
                marks["start"], cpu = time.perf_counter(), time.thread_time()
                local.acc = [0.0, 0.0, 0]
                try:
                    result = work(session)
                    session.flush()
                    return result
                finally:
                    marks["end"], marks["cpu"], marks["acc"] = (
                        time.perf_counter(),
                        time.thread_time() - cpu,
                        local.acc,
                    )
                    local.acc = None

            try:
                return await original(timed, **kw)
            finally:
                done = time.perf_counter()
                if "end" in marks:
                    lock, sql, stmts = marks["acc"]
                    self.rows.setdefault(kind, []).append(
                        (
                            marks["start"] - submitted,
                            marks["end"] - marks["start"],
                            lock,
                            sql,
                            marks["cpu"],
                            done - submitted,
                            stmts,
                        )
                    )

        db.run = run

    def summary(self, seconds: float) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for kind, rows in sorted(self.rows.items(), key=lambda kv: -len(kv[1])):
            entry: dict[str, Any] = {"n": len(rows), "per_s": round(len(rows) / seconds, 1)}
            for i, name in enumerate(self.FIELDS):
                values = [r[i] for r in rows]
                scale = 1 if name == "stmts" else 1000
                entry[name] = [round(scale * (_pct(values, q) or 0), 1) for q in (0.5, 0.99)] + [
                    round(scale * max(values), 1)
                ]
            out[kind] = entry
        return out


async def run_child(args: argparse.Namespace) -> dict[str, Any]:
    from tests.bot.conftest import make_settings
    from tests.fakes.telegram import TEST_TOKEN
    from tgbot import logs
    from tgbot.app import build_application, make_deps
    from tgbot.runner import settle_heap
    from tgbot.store.db import make_engine

    logs.setup_logging("INFO", [TEST_TOKEN])
    pg_name = None
    tmp = tempfile.TemporaryDirectory(prefix="load_bench_")
    if args.db == "postgres":
        from tests.pg import create_database

        pg_name, url = create_database()
    else:
        url = f"sqlite:///{tmp.name}/bot.sqlite3"
    try:
        settings = make_settings(url)
        deps = make_deps(settings, db=make_engine(url))
        seeds = iter(range(args.seed * 100_000, args.seed * 100_000 + 10**5))
        deps.seed_source = lambda: next(seeds)
        fake = _watched_fake(args.rtt_ms / 1000.0)
        app = build_application(settings, deps=deps, request=fake)
        if args.db_workers:
            # An experiment, not the bot as shipped: another size of the bot's database thread pool.
            from concurrent.futures import ThreadPoolExecutor

            deps.db._pool.shutdown(wait=False)
            deps.db._pool = ThreadPoolExecutor(max_workers=args.db_workers, thread_name_prefix="db")
        trace = DbTrace(deps.db) if args.trace_db else None
        await app.initialize()
        if app.post_init:
            await app.post_init(app)
        await app.start()
        if not getattr(args, "no_settle", False):
            settle_heap()  # as `tgbot.runner.serve` does once the bot runs
        rss_ready = _rss_mb()
        collector = GcWatch().start()
        cpu0, wall0 = time.process_time(), time.perf_counter()
        sched0, load0 = _sched(), _loadavg()
        started = fake.timer.monotonic()
        load = Load(app, fake, args, started)
        groups = make_groups(fake, args)
        stop = asyncio.Event()
        lag: list[float] = []
        backlog: list[tuple[float, int]] = []
        monitors = [
            asyncio.create_task(_loop_lag(lag, stop)),
            asyncio.create_task(_backlog(deps.db, backlog, stop, lambda: fake.timer.monotonic() - started)),
        ]
        tasks, learner = load.start(groups)
        monitors.append(learner)
        await asyncio.wait(tasks, timeout=args.seconds + 70)
        for task in tasks:
            task.cancel()
        window_end = fake.timer.monotonic()
        cpu_window, wall_window = time.process_time() - cpu0, time.perf_counter() - wall0
        collector.stop()
        collected = collector.figures()
        sched1 = _sched()
        machine = {
            "loadavg_start": load0,
            "loadavg_end": _loadavg(),
            "runnable_waiting_per_s": (sched1[1] - sched0[1]) / wall_window,
            "sched_cpu_per_s": (sched1[0] - sched0[0]) / wall_window,
            # The process's CPU seconds in the window (bot, fake and players: one process).
            "cpu_s": cpu_window,
            "wall_s": wall_window,
            "rss_ready_mb": rss_ready,
        }
        # Let the answers still due arrive (or expire), then read what was sent.
        pending = [f for f in fake.answered.values() if not f.done()]
        if pending:
            await asyncio.wait(pending, timeout=DRAIN)
        backlog_end = backlog[-1][1] if backlog else None
        settled = await _settle(deps.db, SETTLE)
        stop.set()
        for task in monitors:
            task.cancel()
        await asyncio.gather(*monitors, return_exceptions=True)
        await app.stop()
        if app.post_stop:
            await app.post_stop(app)
        await app.shutdown()
        moves_db = _count_moves(deps)
        log_dump = _move_log(deps) if args.debug else None
        deps.db.close()
        figures = _figures(
            load,
            fake,
            groups,
            started,
            window_end,
            cpu_window,
            wall_window,
            lag,
            backlog,
            backlog_end,
            moves_db,
        )
        figures.update(machine)
        figures.update(settled)
        figures.update(collected)
        if log_dump is not None:
            figures["debug_moves"] = log_dump
        figures["peak_rss_mb"] = _peak_rss_mb()
        figures["matplotlib_loaded"] = "matplotlib" in sys.modules
        figures["code"] = code_fingerprint()
        if trace is not None:
            figures["db_trace"] = trace.summary(window_end - started)
        return figures
    finally:
        if pg_name is not None:
            from tests.pg import drop_database

            drop_database(pg_name)
        tmp.cleanup()


def _count_moves(deps: Any) -> dict[str, int]:
    """The bot's move log: moves by source; turns (a sum or a discard, whoever played it), [T!]
    cards, round and game ends; games by status."""
    from sqlalchemy import text

    with deps.db.engine.connect() as connection:
        rows = connection.execute(text("SELECT source, code, events FROM moves")).all()
        games = connection.execute(text("SELECT status, count(*) FROM games GROUP BY status")).all()
    counts: dict[str, int] = {"turns": 0, "t_cards": 0, "round_ends": 0, "game_ends": 0}
    for source, code, events in rows:
        counts[f"moves_{source}"] = counts.get(f"moves_{source}", 0) + 1
        if code[:1] in ("S", "D"):
            counts["turns"] += 1
        elif code[:1] in ("T", "J", "F", "B"):
            counts["t_cards"] += 1
        counts["round_ends"] += '"RoundEnded"' in (events or "")
        counts["game_ends"] += '"GameEnded"' in (events or "")
    return counts | {f"games_{s}": int(n) for s, n in games}


def _move_log(deps: Any) -> list[tuple[Any, ...]]:
    """(game, seq, seat, code, source, at) of every move (``--debug``)."""
    from sqlalchemy import text

    with deps.db.engine.connect() as connection:
        rows = connection.execute(
            text("SELECT game_id, seq, seat, code, source, at FROM moves ORDER BY game_id, seq")
        ).all()
    return [(int(g), int(q), s, c, src, str(at)) for g, q, s, c, src, at in rows]


async def _settle(db: Any, limit: float) -> dict[str, float]:
    """After the window: wait (at most `limit` seconds) until the outbox holds nothing but keys-off
    edits, so every turn played has had its writes; what is left then."""
    from sqlalchemy import text

    from tgbot.store.outbox import Priority

    def left(session: Any) -> dict[int, int]:
        rows = session.execute(text("SELECT priority, count(*) FROM outbox GROUP BY priority")).all()
        return {int(p): int(n) for p, n in rows}

    began = time.monotonic()
    while True:
        rows = await db.run(left)
        urgent = sum(n for p, n in rows.items() if p < Priority.CLEANUP)
        if urgent == 0 or time.monotonic() - began >= limit:
            return {
                "settle_s": time.monotonic() - began,
                "settle_rows_left": urgent,
                "keys_off_rows_left": rows.get(int(Priority.CLEANUP), 0),
            }
        await asyncio.sleep(0.5)


def _move_accepted(op: str, answer: Any) -> bool:
    """A Claim or Discard the bot played: "Done!"; a [T!] card played alone answers with what it did."""
    if op == "tc":
        return not answer.show_alert and not _refused(answer.text or "")
    return bool(answer.text == DONE)


def _per_turn(sorts: dict[str, int], moves_db: dict[str, int], t_boards: int) -> dict[str, Any]:
    """The group's writes per turn (lobbies and each game's first board apart; keys-off edits
    apart, as the goal does)."""
    turns = moves_db.get("turns", 0)
    boards = sorts.get("board", 0) + sorts.get("preview", 0)
    record = sorts.get("record", 0)
    keys_off = sorts.get("keys_off", 0)
    total = sum(sorts.values())
    if not turns:
        return {"turns": 0}
    return {
        "turns": turns,
        "writes_per_turn": (boards + record) / turns,
        "writes_per_turn_no_t_boards": (boards + record - t_boards) / turns,
        "boards_per_turn": boards / turns,
        "record_per_turn": record / turns,
        "keys_off_per_turn": keys_off / turns,
        "keys_off_share": keys_off / total if total else 0.0,
        "group_writes": total,
    }


def _pct(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    k = (len(ordered) - 1) * q
    lo, hi = math.floor(k), math.ceil(k)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def _figures(
    load: Load,
    fake: Any,
    groups: list[Group],
    started: float,
    window_end: float,
    cpu: float,
    wall: float,
    lag: list[float],
    backlog: list[tuple[float, int]],
    backlog_end: int | None,
    moves_db: dict[str, int],
) -> dict[str, Any]:
    answers = fake.answers
    latencies: list[float] = []
    # The taps made once the games are under way: the first STEADY_FROM seconds are every group's
    # /newgame, joins and start at once, a burst no real set of groups makes together.
    steady_latencies: list[float] = []
    steady_from = started + min(STEADY_FROM, 0.4 * (window_end - started))
    unanswered: dict[str, int] = {}
    kinds: dict[str, int] = {}
    for tap in load.taps:
        answer = answers[tap.query_id]
        kinds[tap.kind] = kinds.get(tap.kind, 0) + 1
        if answer.answered and not answer.expired:
            latencies.append(answer.answered_at - answer.created_at)
            if answer.created_at is not None and answer.created_at >= steady_from:
                steady_latencies.append(answer.answered_at - answer.created_at)
        else:
            unanswered[tap.kind] = unanswered.get(tap.kind, 0) + 1
    by_chat: dict[int, list[Write]] = {}
    for write in fake.writes:
        by_chat.setdefault(write.chat_id, []).append(write)
    # A move's next board: from its answer to the first write in the group with newer keys.
    turn_waits: list[float] = []  # moves that end a turn (a Joker with its sum included)
    t_board_waits: list[float] = []  # a Thief, Shifter or Bomb played on the board
    t_choice: list[float] = []  # the [T!] keys' answers
    moves = 0
    played: dict[str, int] = {}
    for tap in load.taps:
        # The second tap of a double tap can be the one that plays (updates are handled
        # concurrently: the first then hears that the next board is on its way).
        if tap.kind not in ("play", "abuse:double") or tap.version is None:
            continue
        answer = answers[tap.query_id]
        if not answer.answered or answer.expired:
            continue
        if tap.op == "tchoice":
            t_choice.append(answer.answered_at - answer.created_at)
            continue
        if tap.op not in ("c", "d", "jc", "tc") or not _move_accepted(tap.op, answer):
            continue
        played[tap.op] = played.get(tap.op, 0) + 1
        if tap.kind == "abuse:double":
            played["double"] = played.get("double", 0) + 1
        moves += 2 if tap.op == "jc" else 1
        writes = by_chat.get(groups[tap.group].chat.id, [])
        nxt = next((w for w in writes if w.at >= answer.answered_at and (w.version or 0) > tap.version), None)
        if nxt is not None:
            (t_board_waits if tap.op == "tc" else turn_waits).append(nxt.at - answer.answered_at)
    # The group writes, sorted (see the module docstring); an edit that keeps the keys' version
    # would be a draft preview (there should be none).
    group_ids = {g.chat.id for g in groups}
    sorts: dict[str, int] = {}
    first_board: set[int] = set()
    shown_version: dict[tuple[int, int], int | None] = {}
    for write in fake.writes:
        if write.chat_id not in group_ids:
            continue
        where = (write.chat_id, write.message_id or 0)
        if write.lobby:
            sort = "lobby"
        elif write.keys_off:
            sort = "keys_off"
        elif write.version is not None and write.game not in first_board:
            first_board.add(write.game or 0)
            sort = "first_board"
        elif write.version is not None:
            same = write.method.startswith("edit") and shown_version.get(where) == write.version
            sort = "preview" if same else "board"
        else:
            sort = "record"  # round summaries, standings, the chart, replies
        shown_version[where] = write.version
        sorts[sort] = sorts.get(sort, 0) + 1
    group_windows = [fake.max_writes_in_window(g.chat.id, 60.0) for g in groups]
    all_writes = [w.at for w in fake.writes]
    steady = [t for t in all_writes if steady_from <= t < window_end]
    steady_seconds = max(1e-9, window_end - steady_from)
    per_group_minute = [
        60.0 * sum(1 for w in by_chat.get(g.chat.id, []) if steady_from <= w.at < window_end) / steady_seconds
        for g in groups
    ]
    texts: dict[str, dict[str, int]] = {}
    for tap in load.taps:
        answer = answers[tap.query_id]
        label = re.sub(r"\d+", "#", (answer.text or "")[:60]) + (" [alert]" if answer.show_alert else "")
        bucket = texts.setdefault(tap.kind, {})
        bucket[label] = bucket.get(label, 0) + 1
    debug = None
    if load.args.debug:
        debug = {
            "taps": [
                (
                    round(answers[t.query_id].created_at - started, 3),
                    t.group,
                    t.kind,
                    t.data,
                    answers[t.query_id].text,
                    answers[t.query_id].answered_at and round(answers[t.query_id].answered_at - started, 3),
                )
                for t in load.taps
            ],
            "writes": [
                (round(w.at - started, 3), w.chat_id, w.method, w.message_id, w.version) for w in fake.writes
            ],
        }
    return {
        "answer_texts": texts,
        "debug": debug,
        "groups": len(groups),
        "players": sum(len(g.players) for g in groups),
        "window_s": round(window_end - started, 1),
        "taps": len(load.taps),
        "taps_by_kind": kinds,
        "answered": len(latencies),
        "unanswered_by_kind": unanswered,
        "latency_p50_ms": 1000 * (_pct(latencies, 0.5) or 0),
        "latency_p99_ms": 1000 * (_pct(latencies, 0.99) or 0),
        "latency_max_ms": 1000 * max(latencies, default=0),
        "latency_p99_steady_ms": 1000 * (_pct(steady_latencies, 0.99) or 0),
        "count_429": fake.count_429(),
        # Edits Telegram refused as "message is not modified" (a write spent on nothing).
        "not_modified_edits": sum(
            1 for c in fake.calls if c.method.startswith("edit") and "not modified" in (c.error or "")
        ),
        "flood_rejections": len(fake.flood_rejections),
        # Which limit refused them: the bot's 30 a second in all, or one chat's own.
        "flood_rejections_overall": sum(1 for r in fake.flood_rejections if r.limit == "overall"),
        "max_group_writes_60s": max(group_windows, default=0),
        "writes_total": len(all_writes),
        "writes_per_s_mean": len(steady) / steady_seconds,
        "writes_per_s_peak_1s": fake.max_writes_in_window(None, 1.0),
        "writes_per_s_peak_10s": fake.max_writes_in_window(None, 10.0) / 10.0,
        "group_writes_per_min_mean": statistics.fmean(per_group_minute) if per_group_minute else 0.0,
        "moves": moves,
        "moves_db": moves_db,
        "games_started": sum(g.games_started for g in groups),
        "moves_by_op": played,
        "turn_wait_p50_s": _pct(turn_waits, 0.5),
        "turn_wait_p99_s": _pct(turn_waits, 0.99),
        "turn_wait_max_s": max(turn_waits, default=None),
        "turn_wait_n": len(turn_waits),
        "t_board_wait_p50_s": _pct(t_board_waits, 0.5),
        "t_board_wait_p99_s": _pct(t_board_waits, 0.99),
        "t_board_wait_n": len(t_board_waits),
        "t_choice_n": len(t_choice),
        "t_choice_p50_ms": 1000 * (_pct(t_choice, 0.5) or 0),
        "t_choice_p99_ms": 1000 * (_pct(t_choice, 0.99) or 0),
        "t_choice_max_ms": 1000 * max(t_choice, default=0),
        "t_choice_within_1s": sum(1 for t in t_choice if t <= 1.0) / len(t_choice) if t_choice else None,
        "t_choice_unanswered": sum(
            1
            for t in load.taps
            if t.op == "tchoice" and not (answers[t.query_id].answered and not answers[t.query_id].expired)
        ),
        "group_writes_by_sort": sorts,
        **_per_turn(sorts, moves_db, played.get("tc", 0)),
        "cpu_percent": 100.0 * cpu / wall if wall else 0.0,
        "loop_lag_p99_ms": 1000 * (_pct(lag, 0.99) or 0),
        "loop_lag_max_ms": 1000 * max(lag, default=0),
        "backlog_end": backlog_end,
        "backlog_max": max((n for _t, n in backlog), default=None),
    }


# --------------------------------------------------------------------------------------------------
# The parent: cold runs, median and spread, the table
# --------------------------------------------------------------------------------------------------


def code_fingerprint(root: Path = ROOT) -> str:
    """A short hash of the code a run imports (engine, tgbot, the fakes and players it uses)."""
    digest = hashlib.sha256()
    files = [*sorted((root / "engine").rglob("*.py")), *sorted((root / "tgbot").rglob("*.py"))]
    files += [*sorted((root / "tests" / "fakes").rglob("*.py")), root / "tests" / "bot" / "players.py"]
    for path in files:
        digest.update(str(path.relative_to(root)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


def snapshot(into: Path) -> Path:
    """Copy the code a run imports, so edits made to the tree while the benchmark runs (it takes
    a while) cannot mix versions between runs; returns the copy of this script."""
    skip = shutil.ignore_patterns("__pycache__", "*.pyc", ".hypothesis", "*.sqlite3*")
    for name in ("engine", "tgbot", "tests"):
        shutil.copytree(ROOT / name, into / name, ignore=skip)
    (into / "benchmarks").mkdir()
    script = into / "benchmarks" / "load_bench.py"
    for name in ("load_bench.py", "coldrun.py"):
        shutil.copy2(Path(__file__).resolve().with_name(name), into / "benchmarks" / name)
    return script


def _git_head() -> str:
    try:
        head = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(ROOT), "status", "--porcelain", "--", "engine", "tgbot"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + (" + uncommitted changes" if dirty else "")


def _child_command(
    args: argparse.Namespace, script: Path, db: str, groups: int, seed: int, out: Path
) -> list[str]:
    command = [
        sys.executable,
        str(script),
        "--child",
        "--db",
        db,
        "--groups",
        str(groups),
        "--seconds",
        str(args.seconds),
        "--seed",
        str(seed),
        "--abuse-every",
        str(args.abuse_every),
        "--rtt-ms",
        str(args.rtt_ms),
        "--out",
        str(out),
    ]
    if getattr(args, "players", 0):
        command += ["--players", str(args.players)]
    if args.trace_db:
        command.append("--trace-db")
    if args.db_workers:
        command += ["--db-workers", str(args.db_workers)]
    if getattr(args, "no_settle", False):
        command.append("--no-settle")
    command += ["--event-loop", getattr(args, "event_loop", "asyncio")]
    if args.py_spy:
        spy = Path(sys.executable).with_name("py-spy")
        target = Path(args.py_spy) / f"{db}-{groups}-{seed}.txt"
        target.parent.mkdir(parents=True, exist_ok=True)
        command = [
            str(spy),
            "record",
            "--format",
            "raw",
            "--threads",
            "--rate",
            "100",
            "-o",
            str(target),
            "--",
            *command,
        ]
    return command


def run_parent(args: argparse.Namespace) -> int:
    dbs = ["sqlite", "postgres"] if args.db == "both" else [args.db]
    results: dict[tuple[str, int], list[dict[str, Any]]] = {}
    began = time.perf_counter()
    work = Path(tempfile.mkdtemp(prefix="load_bench_runs_"))
    script = Path(__file__).resolve()
    if not args.no_snapshot:
        script = snapshot(work / "code")
    args.code = (
        f"{code_fingerprint(script.parent.parent)} (git {_git_head()}, {time.strftime('%Y-%m-%d %H:%M')})"
    )
    print(f"code {args.code}; runs in {work}", flush=True)
    for db in dbs:
        db_began = time.perf_counter()
        for groups in args.groups:
            for run in range(args.runs):
                seed = args.seed + run
                out = work / f"{db}-{groups}-{seed}.json"
                log_path = work / f"{db}-{groups}-{seed}.log"
                command = _child_command(args, script, db, groups, seed, out)
                figures = coldrun.logged_run(command, out, log_path, f"{db} N={groups} run {run + 1}")
                if figures is None:
                    continue
                figures["errors_logged"] = _count_errors(log_path)
                results.setdefault((db, groups), []).append(figures)
                print(_one_line(db, groups, run + 1, figures), flush=True)
        print(
            f"-- {db}: {time.perf_counter() - db_began:.0f} s wall for {len(args.groups)} x {args.runs} runs",
            flush=True,
        )
    print(f"\nAll runs: {time.perf_counter() - began:.0f} s wall; logs and figures in {work}\n")
    if args.json:
        Path(args.json).write_text(
            json.dumps({f"{db}:{n}": runs for (db, n), runs in results.items()}, indent=1, default=str)
        )
    codes = {r.get("code") for runs in results.values() for r in runs}
    if len(codes) > 1:
        print(f"WARNING: the runs imported different code: {sorted(map(str, codes))}")
    print(_table(results, dbs, args))
    return 0


def _count_errors(log_path: Path) -> dict[str, int]:
    counts: dict[str, int] = {}
    for line in log_path.read_text(errors="replace").splitlines():
        for level in ("ERROR", "WARNING", "Traceback"):
            if f" {level} " in line or line.startswith(level):
                counts[level] = counts.get(level, 0) + 1
    return counts


def _one_line(db: str, groups: int, run: int, f: dict[str, Any]) -> str:
    answered = 100 * f["answered"] / max(1, f["taps"])
    return (
        f"{db:8} N={groups:<4} run {run}: taps {f['taps']} answered {answered:.2f} % "
        f"p50 {f['latency_p50_ms']:.0f} ms p99 {f['latency_p99_ms']:.0f} ms "
        f"max {f['latency_max_ms']:.0f} ms; 429s {f['count_429']}; "
        f"group max {f['max_group_writes_60s']}/60 s; writes/s {f['writes_per_s_mean']:.1f} "
        f"(peak {f['writes_per_s_peak_1s']}); moves {f['moves']}; next board p50 {_s(f['turn_wait_p50_s'])} "
        f"p99 {_s(f['turn_wait_p99_s'])}; [T!] choices {f['t_choice_n']} p99 {f['t_choice_p99_ms']:.0f} ms; "
        f"group writes/turn {f.get('writes_per_turn', 0):.2f}"
        f" + keys-off {f.get('keys_off_per_turn', 0):.2f}; "
        f"load {f.get('loadavg_start')}→{f.get('loadavg_end')}; CPU {f['cpu_percent']:.0f} %; "
        f"backlog {f['backlog_end']}; "
        f"errors {f.get('errors_logged', {})}; {f['run_wall_s']:.0f} s"
    )


def _s(value: float | None) -> str:
    return "—" if value is None else f"{value:.1f} s"


ROWS: list[tuple[str, Callable[[dict[str, Any]], float | None], str]] = [
    ("Players (3–4 a group)", lambda f: f["players"], "{:.0f}"),
    ("Taps sent (all kinds)", lambda f: f["taps"], "{:,.0f}"),
    (
        "  of which abusive",
        lambda f: sum(n for k, n in f["taps_by_kind"].items() if k.startswith("abuse")),
        "{:,.0f}",
    ),
    ("Taps answered", lambda f: 100 * f["answered"] / max(1, f["taps"]), "{:.2f} %"),
    ("Answer latency p50", lambda f: f["latency_p50_ms"], "{:.0f} ms"),
    ("Answer latency p99", lambda f: f["latency_p99_ms"], "{:.0f} ms"),
    ("Answer latency max", lambda f: f["latency_max_ms"], "{:.0f} ms"),
    ("429 answers", lambda f: f["count_429"], "{:.0f}"),
    ("Most writes, one group, any 60 s", lambda f: f["max_group_writes_60s"], "{:.0f}"),
    ("Writes per group per minute (mean)", lambda f: f["group_writes_per_min_mean"], "{:.1f}"),
    ("Writes/s in all, mean (steady part)", lambda f: f["writes_per_s_mean"], "{:.1f}"),
    ("Writes/s in all, peak 1 s / 10 s", lambda f: f["writes_per_s_peak_1s"], "{:.0f}"),
    ("Moves played (accepted claims, discards, [T!] cards)", lambda f: f["moves"], "{:,.0f}"),
    ("  the bot's move log (player moves)", lambda f: f["moves_db"].get("moves_player", 0), "{:,.0f}"),
    ("  played by the second tap of a double tap", lambda f: f["moves_by_op"].get("double", 0), "{:,.0f}"),
    ("Turns (sums and discards in the move log)", lambda f: f["moves_db"].get("turns"), "{:,.0f}"),
    ("  of which ended a round", lambda f: f["moves_db"].get("round_ends"), "{:,.0f}"),
    (
        "[T!] cards played on the board: Thief/Shifter/Bomb",
        lambda f: f["moves_by_op"].get("tc", 0),
        "{:,.0f}",
    ),
    ("  a Joker with its sum (one Claim)", lambda f: f["moves_by_op"].get("jc", 0), "{:,.0f}"),
    ("[T!] key taps (choices)", lambda f: f["t_choice_n"], "{:,.0f}"),
    ("[T!] choice latency p50", lambda f: f["t_choice_p50_ms"], "{:.0f} ms"),
    ("[T!] choice latency p99", lambda f: f["t_choice_p99_ms"], "{:.0f} ms"),
    ("[T!] choice latency max", lambda f: f["t_choice_max_ms"], "{:.0f} ms"),
    ("[T!] choices answered within 1 s", lambda f: _share(f.get("t_choice_within_1s")), "{:.1f} %"),
    ("Group writes per turn (keys-off apart)", lambda f: f.get("writes_per_turn"), "{:.2f}"),
    (
        "  without the boards a Thief, Shifter or Bomb brings",
        lambda f: f.get("writes_per_turn_no_t_boards"),
        "{:.2f}",
    ),
    ("  boards / other record messages", lambda f: f.get("boards_per_turn"), "{:.2f}"),
    ("Keys-off edits per turn", lambda f: f.get("keys_off_per_turn"), "{:.2f}"),
    ("  share of the group's writes", lambda f: _share(f.get("keys_off_share")), "{:.1f} %"),
    ("  still waiting at the end", lambda f: f.get("keys_off_rows_left"), "{:,.0f}"),
    (
        "Draft previews (board edits that keep the version)",
        lambda f: f["group_writes_by_sort"].get("preview", 0),
        "{:.0f}",
    ),
    ("Next board after a turn's move, p50", lambda f: f["turn_wait_p50_s"], "{:.2f} s"),
    ("Next board after a turn's move, p99", lambda f: f["turn_wait_p99_s"], "{:.2f} s"),
    ("Next board after a turn's move, max", lambda f: f.get("turn_wait_max_s"), "{:.2f} s"),
    ("Next board after a Thief/Shifter/Bomb, p50", lambda f: f.get("t_board_wait_p50_s"), "{:.2f} s"),
    ("Next board after a Thief/Shifter/Bomb, p99", lambda f: f.get("t_board_wait_p99_s"), "{:.2f} s"),
    ("Outbox rows waiting at the end", lambda f: f["backlog_end"], "{:.0f}"),
    ("CPU of the process (bot + fake + players)", lambda f: f["cpu_percent"], "{:.0f} %"),
    ("Event loop lag p99", lambda f: f["loop_lag_p99_ms"], "{:.0f} ms"),
    ("Garbage collector's CPU per tap answered", lambda f: _gc_per_tap(f), "{:.2f} ms"),
    (
        "  its longest collection (CPU)",
        lambda f: max(f["gc_longest_ms"]) if "gc_count" in f else None,
        "{:.1f} ms",
    ),
    ("  a full collection after the window (CPU)", lambda f: f.get("gc_full_ms"), "{:.0f} ms"),
    ("Its threads runnable but waiting for a core", lambda f: f.get("runnable_waiting_per_s"), "{:.2f} s/s"),
    ("Machine load average (1 min) at the start / end", lambda f: f.get("loadavg_start"), "{:.1f}"),
]

#: Rows whose cell is two figures: the second one's getter and format.
SECOND: dict[str, tuple[Callable[[dict[str, Any]], float | None], str]] = {
    "Writes/s in all, peak 1 s / 10 s": (lambda f: f["writes_per_s_peak_10s"], "{:.1f}"),
    "  boards / other record messages": (lambda f: f.get("record_per_turn"), "{:.2f}"),
    "Machine load average (1 min) at the start / end": (lambda f: f.get("loadavg_end"), "{:.1f}"),
}


def _gc_per_tap(f: dict[str, Any]) -> float | None:
    return 1000 * f["gc_cpu_s"] / f["answered"] if "gc_cpu_s" in f and f["answered"] else None


def _share(value: float | None) -> float | None:
    return None if value is None else 100 * value


def _cell(runs: list[dict[str, Any]], get: Callable[[dict[str, Any]], float | None], fmt: str) -> str:
    values = [v for v in (get(r) for r in runs) if v is not None]
    if not values:
        return "—"
    mid = statistics.median(values)
    low, high = fmt.format(min(values)), fmt.format(max(values))
    if low == high:
        return fmt.format(mid)
    unit = ""
    for suffix in (" ms", " s/s", " s", " %", " MB"):
        if low.endswith(suffix) and high.endswith(suffix):
            low, unit = low.removesuffix(suffix), suffix
            high = high.removesuffix(suffix)
    return f"{fmt.format(mid)} ({low}–{high}{unit})"


def _table(
    results: dict[tuple[str, int], list[dict[str, Any]]], dbs: list[str], args: argparse.Namespace
) -> str:
    lines = [
        f"Load: {args.seconds:.0f} s per run, {args.runs} cold runs per cell, median (min–max); "
        f"machine: {os.cpu_count()} shared cores, one bot process; code {args.code}.",
        "",
    ]
    for db in dbs:
        ns = [n for n in args.groups if (db, n) in results]
        if not ns:
            continue
        name = "SQLite" if db == "sqlite" else "PostgreSQL"
        lines.append(f"| {name} | " + " | ".join(f"N = {n} groups" for n in ns) + " |")
        lines.append("|---|" + "---|" * len(ns))
        for label, get, fmt in ROWS:
            if label in SECOND:
                second, fmt2 = SECOND[label]
                cells = [
                    f"{_cell(results[(db, n)], get, fmt)} / {_cell(results[(db, n)], second, fmt2)}"
                    for n in ns
                ]
            else:
                cells = [_cell(results[(db, n)], get, fmt) for n in ns]
            lines.append(f"| {label} | " + " | ".join(cells) + " |")
        lines.append("")
        lines.append(_capacity(results, db, [int(n) for n in ns]))
        lines.append("")
    return "\n".join(lines)


def _goals_met(f: dict[str, Any]) -> bool:
    return bool(
        f["answered"] == f["taps"]
        and f["latency_p99_ms"] < 250
        and f["count_429"] == 0
        and f["max_group_writes_60s"] <= 20
    )


def _capacity(results: dict[tuple[str, int], list[dict[str, Any]]], db: str, ns: list[int]) -> str:
    """Which N meet the goals, and where the total write rate meets the bot's own pacing (25/s)
    and Telegram's 30/s."""
    lines = []
    for n in ns:
        runs = results[(db, n)]
        met = sum(_goals_met(r) for r in runs)
        lines.append(
            f"N = {n}: goals met in {met} of {len(runs)} runs "
            f"(answered {min(100 * r['answered'] / max(1, r['taps']) for r in runs):.2f} % at worst, "
            f"p99 {statistics.median(r['latency_p99_ms'] for r in runs):.0f} ms median, "
            f"writes {statistics.median(r['writes_per_s_mean'] for r in runs):.1f}/s)"
        )
    n0 = ns[0]
    rate = statistics.median(r["writes_per_s_mean"] for r in results[(db, n0)]) / n0
    if rate > 0:
        lines.append(
            f"At N = {n0} a group writes {rate * 60:.1f} times a minute: the bot's 25 writes/s would be "
            f"reached at N ≈ {25 / rate:.0f}, Telegram's 30/s at N ≈ {30 / rate:.0f}."
        )
    name = "SQLite" if db == "sqlite" else "PostgreSQL"
    return f"{name}: " + "; ".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n\n")[0])
    parser.add_argument("--groups", type=int, nargs="+", default=[10, 25, 50, 100])
    parser.add_argument("--seconds", type=float, default=75.0, help="length of each run's window")
    parser.add_argument("--db", choices=("sqlite", "postgres", "both"), default="both")
    parser.add_argument("--runs", type=int, default=3, help="cold runs per database and N")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--abuse-every",
        type=float,
        default=6.0,
        help="mean seconds between abusive taps per group (0: no abuse)",
    )
    parser.add_argument("--players", type=int, default=0, help="players per group (0: 3 or 4 at random)")
    parser.add_argument("--rtt-ms", type=float, default=0.0, help="Bot API round trip to simulate per call")
    parser.add_argument("--py-spy", metavar="DIR", help="record each run with py-spy (raw stacks) into DIR")
    parser.add_argument("--json", metavar="FILE", help="also write every run's figures to FILE")
    parser.add_argument(
        "--event-loop",
        choices=("asyncio", "uvloop"),
        default="asyncio",
        help="the loop the child runs on (the bot's TWEAKBOT_EVENT_LOOP; default: the bot's default)",
    )
    parser.add_argument(
        "--no-settle",
        action="store_true",
        help="an experiment: leave the start-up heap to the collector (no `runner.settle_heap`)",
    )
    parser.add_argument(
        "--no-snapshot",
        action="store_true",
        help="run the tree as it is (default: a copy taken at the start)",
    )
    parser.add_argument(
        "--debug", action="store_true", help="with --child: dump every tap, write and move of the log"
    )
    parser.add_argument(
        "--trace-db", action="store_true", help="time each database transaction by caller (in --json)"
    )
    parser.add_argument(
        "--db-workers",
        type=int,
        default=0,
        help="experiment: size of the bot's database thread pool (0: as shipped)",
    )
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        args.groups = args.groups[0]
        from tgbot import event_loop

        figures = event_loop.run(run_child(args), args.event_loop)
        Path(args.out).write_text(json.dumps(figures, default=str))
        logging.shutdown()
        return 0
    return run_parent(args)


if __name__ == "__main__":
    sys.exit(main())
