"""Load benchmark: groups playing at human speed, with abuse, under Telegram's flood limits.

``python benchmarks/load_bench.py [--groups 4 50] [--seconds 150] [--db sqlite|postgres|both]
[--runs 3] [--inline-share 0] [--computers hard:3] [--json FILE]`` (``--help``: all the options)

One process, in real time: the bot's real ``Application`` (handlers, services, database threads,
senders, sweep) over the fake Bot API with Telegram's flood limits (20 writes a minute per group,
30 a second in all; queries unanswerable after 15 s), and the players (`instances.py` drives them
against bot processes over HTTP). N groups of 3 or 4 (``--players K``), one game each on the
board: the lobby, then the mover reads the board (1–4 s), peeks at their hand, taps a hand slot
and the table cards of a sum 0.5–2 s apart and *✅ Claim* (*🗑 Discard* without a sum), a [T!]
card first in a quarter of the turns that offer one; the others peek every 5–20 s. Abuse, a tap
every ``--abuse-every`` s per group: forged data, stale keys, a bystander, taps out of turn; and
double taps.

``--inline-share F`` (inline mode on): that share of the groups are chats without the bot (the
lobby posted from the inline list, each turn 🎯 Play and a pick; abuse: picks from old lists, a
bystander's 👀 My hand), with rows of their own: answers, waits, old keys, writes, 429s.

``--computers LEVEL:N`` adds, next to each cell of people, a cell whose groups are one person
(``--players`` people) and N computers at LEVEL: the person's answer time against a table of
people's, and the next board after their move, which comes after the computers' moves.

Cold runs, interleaved across the cells so all see the machine's drift, on a copy of the code
(``--no-snapshot``: the tree as it is); per cell, the median (min–max) of each figure.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import json
import logging
import random
import re
import shlex
import sys
import tempfile
import time
from collections import namedtuple
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import common
from common import NO_T_CHOSEN, READ, STEP, Figures, Row, keys_of, pct

from tests.bot.players import EMOJI_VALUE, HAND_SLOT, choose_sum

PEEK, JOIN = (5.0, 20.0), (1.0, 3.0)  # human speed, seconds (READ, STEP: common's)
T_CHANCE = 0.25
#: The final Claim/Discard is tapped twice this often (a double tap).
DOUBLE_CHANCE = 0.15
#: Groups start over this many seconds; the write rate's mean is taken from STEADY_FROM on.
RAMP, STEADY_FROM = 10.0, 25.0
#: After the window: answers still due (the fake refuses them after 15 s), then the senders'
#: rows but keys-off edits (so that the writes counted per turn are those of the turns played).
DRAIN, SETTLE, ANSWER_TIMEOUT = 16.0, 60.0, 15.0
BYSTANDER = "Zed"
MAX_GAME_ID = 2**31 - 1  # a game id that exists nowhere

KEY_VERSION = re.compile(r"^[kt]:(\d+):(\d+):")
#: The game of an inline table's keys: 👀 My hand, 🎯 Play, 🔁 Rematch.
INLINE_GAME = re.compile(r"(?:h:|(?:rematch )?g)(\d+)")
TARGET = re.compile(r"Target (\d+)")
DONE = "Done!"
#: Forged callback data: garbage, ids out of range, another game's keys, a card position or a
#: [T!] kind that does not exist, lobby keys of a game under way.
_FORGED = "💥 k: k:0:0:c h:{big} k:{g}:{v}:h:9 k:{g}:{v}:t:63 k:{g}:{v}:q k:{g}:{later}:c k:{other}:{v}:c"
_FORGED_TOO = "h:{other} t:{g}:{later}:joker t:{other}:{v}:any t:{g}:{v}:T9 k:{g}:{v}:b lc:{g} ls:{g} dl:{g}"
FORGED = (_FORGED + " " + _FORGED_TOO + " r:99 lg:zz ln:{g}:t:-").split()
LOBBY_KEY = re.compile(r"^(lj|ll|ls|lc|lo|lb|ln|la):")
NOTIFYING = ("sendMessage", "sendPhoto", "sendDocument")
SWITCH = "switch_inline_query_current_chat"
LIVE = ({"🎯 Play", "👀 My hand"}, {"🎯 Play"})  # an inline table's board keys; of them, a board's


@dataclass
class Tap:
    query_id: str
    group: int
    kind: str  # lobby | play | peek | abuse:<what>
    data: str
    version: int | None = None  # for moves: the game version the tap was made on
    #: compose op (h, t, c, d, x); "tchoice" a [T!] key; "tc" the Claim that plays a Thief,
    #: Shifter or Bomb; "jc" the Claim that plays a Joker and its sum
    op: str = ""


@dataclass
class Write:
    at: float
    chat_id: int
    method: str
    message_id: int | None
    version: int | None  # the game version of the keys it carries
    game: int | None
    lobby: bool  # a lobby message (sent with lobby keys, or a later write to one)
    keys_off: bool  # it leaves no keys on a board (editMessageReplyMarkup; an inline table's old board)
    notify: bool  # a message Telegram delivers with sound
    inline: bool = False  # an edit by inline_message_id (an inline table's: its keys carry no version)


def watched_fake(**options: Any) -> Any:
    """The fake Bot API with Telegram's flood limits, that also keeps every accepted write
    (`Write`, an inline table's edits under their chat), when each query was answered
    (``answer_times``, perf_counter), wakes the players waiting on a chat and resolves a future
    when a query is answered."""
    from tests.fakes.flood import FloodLimits
    from tests.fakes.telegram import MESSAGE_METHODS, FakeTelegram

    class WatchedTelegram(FakeTelegram):
        def __init__(self) -> None:
            super().__init__(flood=FloodLimits(), **options)
            self.writes: list[Write] = []
            self.lobbies: set[tuple[int, int | None]] = set()
            self.changed: dict[int, asyncio.Event] = {}
            self.answered: dict[str, asyncio.Future[None]] = {}
            self.answer_times: dict[str, float] = {}

        def event(self, chat_id: int) -> asyncio.Event:
            return self.changed.setdefault(chat_id, asyncio.Event())

        async def do_request(self, url: str, method: str, request_data: Any = None, *args: Any, **kw: Any):  # type: ignore[no-untyped-def,override]
            status, body = await super().do_request(url, method, request_data, *args, **kw)
            call = self.calls[-1]  # every method but getUpdates answers at once in the fake
            chat_id = self.chat_of_call(call) if call.method in MESSAGE_METHODS and call.ok else None
            if chat_id is not None:
                self._wrote(call, chat_id)
            elif call.method in ("answerCallbackQuery", "answerInlineQuery"):
                key = str(call.params.get("callback_query_id") or call.params.get("inline_query_id"))
                self.answer_times.setdefault(key, time.perf_counter())
                future = self.answered.pop(key, None)
                if future is not None and not future.done():
                    future.set_result(None)
            return status, body

        def _wrote(self, call: Any, chat_id: int) -> None:
            inline_id = call.params.get("inline_message_id")
            message = self.inline_message(str(inline_id)) if inline_id is not None else None
            result, message_id = call.response.get("result"), call.params.get("message_id")
            message_id = result.get("message_id") if isinstance(result, dict) else message_id
            message_id = message.message_id if message is not None else message_id
            keys = _markup_keys(call.params)
            data = [str(key["callback_data"]) for key in keys if key.get("callback_data")]
            found = next((m for m in map(KEY_VERSION.match, data) if m), None)
            version, game = (int(found.group(2)), int(found.group(1))) if found else (None, None)
            where = (chat_id, message_id)
            if any(LOBBY_KEY.match(item) for item in data):
                self.lobbies.add(where)
            elif message is not None and keys:  # an inline table's lobby became its first board
                self.lobbies.discard(where)
            keys_off = call.method == "editMessageReplyMarkup" and not data
            if message is not None:  # an inline board loses its keys (🎯 Play) to the next post
                before = json.dumps(message.history[-1].reply_markup if message.history else None)
                keys_off = not keys and SWITCH in before
                codes = (str(k.get("callback_data") or k.get(SWITCH)) for k in keys)
                game = next((int(m.group(1)) for m in map(INLINE_GAME.fullmatch, codes) if m), None)
            quiet = call.params.get("disable_notification") in (True, "true")
            notify = call.method in NOTIFYING and not quiet
            at, lobby = self.timer.monotonic(), where in self.lobbies
            sort = (version, game, lobby, keys_off, notify, message is not None)
            self.writes.append(Write(at, chat_id, call.method, message_id, *sort))
            changed = self.changed.pop(chat_id, None)
            if changed is not None:
                changed.set()

    return WatchedTelegram()


def sort_writes(writes: Sequence[Write]) -> list[tuple[Write, str]]:
    """Each write with its sort: lobby, keys_off, first_board (a game's first), board, or record
    (round summaries, standings, charts, replies; at an inline table, notes on stale picks)."""
    first_board: set[int | None] = set()
    found = []
    for write in writes:
        sort = "lobby" if write.lobby else "keys_off" if write.keys_off else "record"
        if sort == "record" and (write.version is not None or (write.inline and write.game is not None)):
            sort = "board" if write.game in first_board else "first_board"
            first_board.add(write.game)
        found.append((write, sort))
    return found


def _markup_keys(params: dict[str, Any]) -> list[dict[str, Any]]:
    """The keys a write leaves on its message."""
    markup = params.get("reply_markup")
    if isinstance(markup, str):
        markup = json.loads(markup)
    rows = markup.get("inline_keyboard", []) if isinstance(markup, dict) else []
    return [key for row in rows for key in row]


def _version(buttons: Sequence[tuple[str, str | None]]) -> int | None:
    found = next((m for m in (KEY_VERSION.match(d or "") for _t, d in buttons) if m), None)
    return int(found.group(2)) if found else None


Member = namedtuple("Member", "user name")
#: What a mover saw on their turn: the board, its version, their hand and the table's cards
#: (position, value).
Seen = namedtuple("Seen", "board version hand table")
Choice = tuple[int, tuple[int, ...]] | None  # a hand card and table positions (choose_sum)


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
    #: A turn stopped after some compose taps: the draft it left is cleared on the next try.
    dirty: bool = False
    #: Computers added in the lobby: (level, how many).
    computers: tuple[str, int] | None = None
    #: An inline table (`--inline-share`): a chat without the bot, played by posts from its inline
    #: list; `picks` are the moves of old lists not picked, (who, list, result id): stale picks.
    inline: bool = False
    picks: list[tuple[Member, Any, str]] = field(default_factory=list)


class Load:
    """Drives the groups against the running Application and records every tap. Updates go onto
    ``app``'s update queue, or to ``deliver`` (`instances.py` posts them to webhooks)."""

    def __init__(
        self, app: Any, fake: Any, args: argparse.Namespace, started: float, deliver: Any = None
    ) -> None:
        self.app, self.fake, self.args, self.deliver = app, fake, args, deliver
        self.deadline = started + args.seconds
        self.taps: list[Tap] = []
        self.other_games: list[int] = []
        self.posts: dict[str, int] = {}  # picks posted at inline tables, by kind
        self.inline_waits: list[float] = []  # a pick posted → the bot made it the next board

    def now(self) -> float:
        return float(self.fake.timer.monotonic())

    def running(self) -> bool:
        return bool(self.now() < self.deadline)

    def put(self, data: dict[str, Any]) -> None:
        if self.deliver is not None:
            self.deliver(data)
        else:
            self.app.update_queue.put_nowait(self.fake.to_update(data, self.app.bot))

    def tap_nowait(self, g: Group, who: Member, message: Any, data: str, kind: str, op: str = "") -> Tap:
        update = self.fake.callback_update(who.user, message, data)
        match = KEY_VERSION.match(data)
        version = int(match.group(2)) if match else None
        return self.ask(Tap(update["callback_query"]["id"], g.index, kind, data, version, op=op), update)

    def ask(self, record: Tap, update: dict[str, Any]) -> Tap:
        """Send an update the bot answers (a tap, an inline query), booked as `record`."""
        self.fake.answered[record.query_id] = asyncio.get_running_loop().create_future()
        self.taps.append(record)
        self.put(update)
        return record

    async def answer(self, record: Tap) -> Any:
        """Wait for the answer to `record` (what the user sees); None when none came in time."""
        with contextlib.suppress(TimeoutError, KeyError):
            await asyncio.wait_for(asyncio.shield(self.fake.answered[record.query_id]), ANSWER_TIMEOUT + 1)
        answer = self.fake.answers.get(record.query_id) or self.fake.inline_answer(record.query_id)
        return answer if answer.answered else None

    async def tap(self, g: Group, who: Member, message: Any, data: str, kind: str, op: str = "") -> Any:
        return await self.answer(self.tap_nowait(g, who, message, data, kind, op))

    async def query(self, g: Group, who: Member, text: str, kind: str) -> Any:
        """Type "@bot `text`" in the group's chat (🎯 Play types ``g<game>``) and wait for the list."""
        update = self.fake.inline_query_update(who.user, text, chat=g.chat)
        return await self.answer(self.ask(Tap(update["inline_query"]["id"], g.index, kind, text), update))

    def pick(self, g: Group, who: Member, listed: Any, result_id: str, kind: str) -> Any:
        """Post a result of `listed` in the chat (the bot hears only of its chosen result); the post."""
        self.posts[kind] = self.posts.get(kind, 0) + 1
        for update in self.fake.pick_inline_result(who.user, g.chat, listed, result_id):
            self.put(update)
        return self.fake.transcript(g.chat)[-1]

    async def pause(self, bounds: tuple[float, float], rng: random.Random) -> None:
        await asyncio.sleep(rng.uniform(*bounds))

    async def wait_chat(self, chat_id: int, predicate: Callable[[], Any], limit: float | None = None) -> Any:
        """Wait until ``predicate()`` is truthy, re-checking whenever the bot writes to the chat."""
        end = self.deadline if limit is None else min(self.deadline, self.now() + limit)
        while not (found := predicate()):
            remaining = end - self.now()
            if remaining <= 0:
                return None
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.fake.event(chat_id).wait(), min(remaining, 5.0))
        return found

    # -- reading what the bot shows ----------------------------------------------------------------

    def board(self, g: Group) -> Any:
        """The group's live board: the newest bot message with the game's *My hand* key."""
        if g.game_id is None:
            return None
        if g.inline:  # its live post, while it is a board (not the standings)
            post = common.live_post(self.fake, g.chat.id)
            return post if post is not None and common.switch_query(post) == f"g{g.game_id}" else None
        want = f"h:{g.game_id}"
        found = (m for m in reversed(self.fake.messages(g.chat.id)) if any(d == want for _t, d in keys_of(m)))
        return next(found, None)

    def remember(self, g: Group, message: Any) -> None:
        """Keep the keys of each board version seen: the stale keys of later abuse."""
        version = _version(keys_of(message))
        if version is None or version in g.seen_versions:
            return
        g.seen_versions.add(version)
        g.stale.extend((message, d) for _t, d in keys_of(message) if d and KEY_VERSION.match(d))
        if len(g.stale) > 200:
            del g.stale[:-200]

    @staticmethod
    def mover(board: Any, g: Group) -> Member | None:
        return next((m for m in g.players if f"👉 {m.name}, your move!" in (board.text or "")), None)

    # -- one group ---------------------------------------------------------------------------------

    async def run(self, groups: list[Group]) -> None:
        """Play every group (started over the ramp) for the window, telling the abusers the other
        groups' games; an idle window without groups. A group that failed is logged (an ERROR)."""
        step = min(RAMP, self.args.seconds / 5) / max(1, len(groups))
        tasks = [asyncio.create_task(self.group_main(g, step * i)) for i, g in enumerate(groups)]

        async def learn_games() -> None:  # other groups' game ids, for forged keys
            while self.running():
                self.other_games = [g.game_id for g in groups if g.game_id is not None]
                await asyncio.sleep(2)

        tasks.append(asyncio.create_task(learn_games()))
        await asyncio.wait(tasks, timeout=self.args.seconds + (70 if groups else 0))
        for task in tasks:
            if task.done() and task.exception() is not None:
                logging.getLogger("load_bench").error("a group failed", exc_info=task.exception())
            task.cancel()

    async def drain(self) -> None:
        """After the window: wait for the answers still due (the fake refuses them after 15 s)."""
        pending = [f for f in self.fake.answered.values() if not f.done()]
        if pending:
            await asyncio.wait(pending, timeout=DRAIN)

    async def group_main(self, g: Group, delay: float) -> None:
        await asyncio.sleep(delay)
        while self.running():
            if not await (self.inline_lobby(g) if g.inline else self.lobby(g)):
                return
            helpers = [asyncio.create_task(self.peeker(g, member)) for member in g.players] + [
                asyncio.create_task(self.abuser(g))
            ]
            try:
                await (self.inline_play(g) if g.inline else self.play(g))
            finally:
                for task in helpers:
                    task.cancel()

    async def lobby(self, g: Group) -> bool:
        creator = g.players[0]
        self.put(self.fake.command_update(g.chat, creator.user, "/newgame@tweak_test_bot"))

        def lobby_message() -> Any:
            messages = reversed(self.fake.messages(g.chat.id))
            return next((m for m in messages if any(d.startswith("lj:") for _t, d in keys_of(m))), None)

        lobby = await self.wait_chat(g.chat.id, lobby_message, 60)
        if lobby is None:
            return False
        join = next(d for _t, d in keys_of(lobby) if d and d.startswith("lj:"))
        g.game_id = int(join.split(":")[1])
        for member in g.players[1:]:
            await self.pause(JOIN, g.rng)
            double = g.rng.random() < DOUBLE_CHANCE
            await self.tap(g, member, lobby, join, "lobby")
            if double:
                self.tap_nowait(g, member, lobby, join, "abuse:double")
        if g.computers is not None:
            from tgbot.callbacks import AddComputer

            level, count = g.computers
            for _ in range(count):
                await self.pause(JOIN, g.rng)
                await self.tap(g, creator, lobby, AddComputer(g.game_id, level).data, "lobby")
        await self.pause(JOIN, g.rng)
        start = next((d for _t, d in keys_of(lobby) if d and d.startswith("ls:")), None)
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
            version = _version(keys_of(board))
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
        board = self.board(g)
        return board is None or (board.message_id, _version(keys_of(board))) != seen

    def keys_now(self, g: Group, version: int) -> tuple[Any, list[tuple[str, str]]] | None:
        """The live board's keys, if they still belong to ``version``."""
        board = self.board(g)
        keys = [] if board is None else keys_of(board)
        return (board, keys) if keys and _version(keys) == version else None

    async def turn(self, g: Group, who: Member, board: Any, version: int) -> bool:
        """One turn at human speed; False when it ended without a move (to be tried again). A
        Thief, Shifter or Bomb played is a move: the player goes on on the board it brings."""
        rng, gid = g.rng, g.game_id
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
        cards = ((d, EMOJI_VALUE.search(t)) for t, d in keys if d.startswith(f"k:{gid}:{version}:t:"))
        table = [(int(d.rsplit(":", 1)[1]), int(value.group(2))) for d, value in cards if value]
        t_keys = [d for _t, d in keys if d.startswith(f"t:{gid}:{version}:")]
        seen = Seen(board, version, hand, table)
        if t_keys and rng.random() < T_CHANCE:
            played = await self.t_card(g, who, seen, rng.choice(t_keys))
            if played is not None:
                return played
        choice = choose_sum(hand, [v for _p, v in table], int(target.group(1)), rng)
        return await self.compose(g, who, seen, choice, "c" if choice else "d")

    async def compose(self, g: Group, who: Member, seen: Seen, choice: Choice, op: str) -> bool:
        """Tap the hand card and table cards of `choice` (a random hand card to discard when
        None), then *Claim* (``op`` "c", or "jc" for a Joker chosen before) or *Discard* ("d");
        True when the bot played it."""
        rng, gid, (board, version, hand, table) = g.rng, g.game_id, seen
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

    async def t_card(self, g: Group, who: Member, seen: Seen, t_key: str) -> bool | None:
        """Choose a [T!] card with its key (one to three taps, each the next choice) and play it:
        True when it was played (a Joker with its sum), False when the turn stopped, None when
        no [T!] card is chosen in the end (the turn goes on as usual)."""
        rng, gid, (board, version, hand, table) = g.rng, g.game_id, seen
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
        for _ in range(rng.randint(*common.T_TAPS)):
            got = await choose()
            if got is None:
                return False
            popup = got
            g.dirty = True  # a choice in the draft: cleared if this attempt stops
            if NO_T_CHOSEN in popup:
                return None
        joker = common.JOKER_TARGET.search(popup)
        if joker is None:  # a Thief, Shifter or Bomb chosen: Claim plays it, a new board comes
            await self.pause(STEP, rng)
            if not self.running():
                return False
            answer = await self.tap(g, who, board, f"k:{gid}:{version}:c", "play", "tc")
            played = answer is not None and not answer.show_alert and not _refused(answer.text or "")
            g.dirty = not played
            return played
        choice = choose_sum(hand, [v for _p, v in table], int(joker.group(1)), rng)
        if choice is not None:  # the sum for the Joker's target; Claim plays both
            g.dirty = True
            return await self.compose(g, who, seen, choice, "jc")
        while taps < common.T_TAPS_MAX:  # no sum for it: back to no [T!] card, then as usual
            got = await choose()
            if got is None:
                return False
            if NO_T_CHOSEN in got:
                return None
        return False

    # -- an inline table ------------------------------------------------------------------------------

    async def inline_lobby(self, g: Group) -> bool:
        """The players start the bot (to be told of their turns); the first posts a lobby from the
        inline list, the others join; hints on (the list offers sums), start."""
        creator = g.players[0]
        for member in g.players if g.game_id is None else []:  # before their first game
            self.put(self.fake.command_update(self.fake.private(member.user), member.user, "/start"))
        listed = await self.query(g, creator, "", "lobby")
        if listed is None:
            return False
        lobby = self.pick(g, creator, listed, "new", "lobby")
        steps = [(m, "✋ Join") for m in g.players[1:]]
        for who, text in steps + [(creator, t) for t in ("⚙️ Settings", "💡 Hints on", "↩️ Back", "▶️ Start")]:
            await self.pause(JOIN, g.rng)
            key = functools.partial(next, (d for t, d in keys_of(lobby) if t == text), None)
            if (data := await self.wait_chat(g.chat.id, key, 60)) is None:
                return False
            await self.tap(g, who, lobby, data, "lobby")
        if await self.wait_chat(g.chat.id, functools.partial(common.switch_query, lobby), 60) is None:
            return False
        g.game_id = next(int(d[2:]) for _t, d in keys_of(lobby) if d.startswith("h:"))
        return True

    async def inline_play(self, g: Group) -> None:
        seen: int | None = None
        while self.running():
            post = common.live_post(self.fake, g.chat.id)
            if post is not None and str(common.switch_query(post)).startswith("rematch"):
                return  # the standings: a new game
            board = self.board(g)
            mover = self.mover(board, g) if board is not None else None
            if board is None or mover is None or board.message_id == seen:  # wait for the bot
                shown = (post.message_id, post.text) if post is not None else None
                await self.wait_chat(g.chat.id, functools.partial(self._moved_on, g, shown), 30)
                continue
            seen = board.message_id if await self.inline_turn(g, mover, board) else None

    def _moved_on(self, g: Group, shown: tuple[int, str] | None) -> bool:
        post = common.live_post(self.fake, g.chat.id)
        return (post.message_id, post.text) != shown if post is not None else shown is not None

    async def inline_turn(self, g: Group, who: Member, board: Any) -> bool:
        """The hand read one turn in two, then 🎯 Play and a pick (a [T!] card first now and then,
        then the list again); True when the pick's post became the next board."""
        rng, gid = g.rng, g.game_id
        t_first = rng.random() < T_CHANCE
        await self.pause(READ, rng)
        if rng.random() < 0.5:
            await self.tap(g, who, board, f"h:{gid}", "play")
        for _attempt in range(3):
            await self.pause(STEP, rng)
            listed = await self.query(g, who, f"g{gid}", "play")
            await self.pause(STEP, rng)
            picked = common.choose_pick(listed.results, rng, t_first) if listed is not None else None
            if picked is None or not self.running():
                return False
            t_first = False
            posted, post = self.now(), self.pick(g, who, listed, picked[0], "move")
            if await self.wait_chat(g.chat.id, functools.partial(common.switch_query, post), 60) is None:
                return False
            self.inline_waits.append(self.now() - posted)
            others = [(who, listed, r["id"]) for r in listed.results if r["id"] != picked[0]]
            g.picks = [*g.picks[-200:], *others]
            if not picked[1] or self.mover(post, g) is not who:
                return True
        return True

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
            if g.inline:  # a pick from an old list; a bystander's 👀 My hand on the live board
                if g.picks and rng.random() < 0.5:
                    self.pick(g, *rng.choice(g.picks), "abuse:stale pick")
                else:
                    self.tap_nowait(g, g.bystander, board, f"h:{gid}", "abuse:bystander")
                continue
            version = _version(keys_of(board)) or 1
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
                keys = [d for _t, d in keys_of(board) if d]
                self.tap_nowait(g, g.bystander, board, rng.choice(keys), "abuse:bystander")
                continue
            if kind == "out_of_turn":
                mover = self.mover(board, g)
                others = [m for m in g.players if m is not mover]
                keys = [d for _t, d in keys_of(board) if d and d.startswith(("k:", "t:"))]
                if others and keys:
                    self.tap_nowait(g, rng.choice(others), board, rng.choice(keys), "abuse:out_of_turn")
                    continue
            others_games = [game for game in self.other_games if game != gid]
            other = rng.choice(others_games) if others_games else MAX_GAME_ID  # never this game's
            forged = rng.choice(FORGED).format(g=gid, v=version, later=version + 5, other=other, big=2**31)
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
    return text == "⚠️" or _refusals().search(text) is not None


def make_groups(fake: Any, args: argparse.Namespace) -> list[Group]:
    """The N groups of a run: 3 or 4 players each (``args.players`` fixes it), and a bystander."""
    rng = random.Random(args.seed)
    level, _sep, count = getattr(args, "computers", "").partition(":")  # hard:3
    groups: list[Group] = []
    share = getattr(args, "inline_share", 0.0)
    for i in range(args.groups):
        inline = int((i + 1) * share) > int(i * share)  # spread over the ramp
        computers = (level, int(count or 1)) if level and not inline else None
        chat = fake.group(f"Load {i}", with_bot=not inline)
        size = getattr(args, "players", 0) or (1 if computers else rng.choice((3, 4)))
        base, names = 1_000_000 + i * 100, common.NAMES
        players = [Member(fake.user(base + j, names[j]), names[j]) for j in range(size)]
        bystander = Member(fake.user(base + 9, BYSTANDER), BYSTANDER)
        rng_i = random.Random(args.seed * 7919 + i)
        groups.append(Group(i, chat, players, bystander, rng_i, computers=computers, inline=inline))
    return groups


def _waiting_for_a_core() -> float:
    """Seconds this process's threads were runnable but got no core (``schedstat``; 0 where none)."""
    waited = 0.0
    with contextlib.suppress(OSError):
        for task in Path("/proc/self/task").iterdir():
            with contextlib.suppress(OSError, IndexError, ValueError):
                waited += int((task / "schedstat").read_text().split()[1]) / 1e9
    return waited


async def run_child(args: argparse.Namespace) -> Figures:
    import resource

    from tests.bot.conftest import make_settings
    from tests.fakes.telegram import TEST_TOKEN
    from tgbot import event_loop, logs
    from tgbot.app import build_application, make_deps
    from tgbot.runner import settle_heap
    from tgbot.store.db import make_engine, outbox_waiting

    logs.setup_logging("INFO", [TEST_TOKEN])
    event_loop.take_turns_often()  # as `tweakbot` does for the process it runs
    with common.fresh_database(args.db) as url:
        settings = make_settings(url)
        deps = make_deps(settings, db=make_engine(url))
        seeds = iter(range(args.seed * 100_000, args.seed * 100_000 + 10**5))
        deps.seed_source = lambda: next(seeds)
        inline = args.inline_share > 0  # inline mode on only then: it adds 🎯 Play to the groups' boards
        fake = watched_fake(inline_mode=inline, inline_feedback=inline)
        app = build_application(settings, deps=deps, request=fake)
        await app.initialize()
        if app.post_init:
            await app.post_init(app)
        await app.start()
        settle_heap()  # as the runner does once the bot runs
        rss_ready = common.proc_mb("VmRSS")
        cpu0, wall0, waited0 = time.process_time(), time.perf_counter(), _waiting_for_a_core()
        started = fake.timer.monotonic()
        load = Load(app, fake, args, started)
        groups = make_groups(fake, args)
        await load.run(groups)
        window_end = fake.timer.monotonic()
        live = {g.chat.id: common.live_post(fake, g.chat.id) for g in groups if g.inline}
        old = [set(dict(keys_of(m))) for c in live for m in fake.transcript(c) if m.via_bot and m != live[c]]
        old_keys, old_boards = (sum(bool(k & keys) for keys in old) for k in LIVE)
        cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
        waited = (_waiting_for_a_core() - waited0) / wall
        backlog_end = await asyncio.to_thread(outbox_waiting, deps.db.engine)
        await load.drain()
        settled = await _settle(deps.db.engine, SETTLE)
        await app.stop()
        if app.post_stop:
            await app.post_stop(app)
        await app.shutdown()
        moves_db = _count_moves(deps.db.engine)
        deps.db.close()
    figures = _figures(load, groups, started, window_end, cpu, wall, moves_db)
    return (
        figures
        | settled
        | {
            "backlog_end": backlog_end,
            "inline_old_keys_end": old_keys,
            "inline_old_boards_end": old_boards,
            "runnable_waiting_per_s": waited,
            "rss_ready_mb": rss_ready,
            "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            "code": common.code_fingerprint(),
        }
    )


def _count_moves(engine: Any) -> dict[str, int]:
    """The bot's move log: moves by source, turns (a sum or a discard, whoever played it; those of
    inline tables apart too), round ends."""
    from sqlalchemy import text

    from tgbot.tables import TableKind

    with engine.connect() as connection:
        sql = "SELECT m.source, m.code, m.events, g.chat_id FROM moves m JOIN games g ON g.id = m.game_id"
        rows = connection.execute(text(sql)).all()
    counts: dict[str, int] = {"turns": 0, "turns_inline": 0, "round_ends": 0}
    for source, code, events, chat_id in rows:
        counts[f"moves_{source}"] = counts.get(f"moves_{source}", 0) + 1
        counts["turns"] += code[:1] in ("S", "D")
        counts["turns_inline"] += code[:1] in ("S", "D") and TableKind.of_chat(chat_id) is TableKind.INLINE
        counts["round_ends"] += '"RoundEnded"' in (events or "")
    return counts


async def _settle(engine: Any, limit: float) -> dict[str, float]:
    """After the window: wait (at most `limit` seconds) until the outbox holds nothing but keys-off
    edits (its lowest priority), so every turn played has had its writes."""
    from sqlalchemy import text

    from tgbot.store.outbox import Priority

    def left() -> dict[int, int]:
        with engine.connect() as connection:
            return dict(
                connection.execute(text("SELECT priority, count(*) FROM outbox GROUP BY priority")).all()
            )

    began, rows = time.monotonic(), await asyncio.to_thread(left)
    while any(p < Priority.CLEANUP for p in rows) and time.monotonic() - began < limit:
        await asyncio.sleep(0.5)
        rows = await asyncio.to_thread(left)
    return {"keys_off_rows_left": rows.get(int(Priority.CLEANUP), 0)}


def _figures(
    load: Load, groups: list[Group], started: float, end: float, cpu: float, wall: float, moves: Figures
) -> Figures:
    """What a run measured in its window (`started` to `end`), from the taps, the fake's writes and
    the bot's move log; the bot's groups and the inline tables apart."""
    fake = load.fake
    steady_from = started + min(STEADY_FROM, 0.4 * (end - started))
    latencies, steady, turn_waits, move_answers = [], [], [], []
    inline_latencies: list[float] = []
    kinds: dict[str, int] = dict(load.posts)
    played: dict[str, int] = {}
    by_chat: dict[int, list[Write]] = {}
    for write in fake.writes:
        by_chat.setdefault(write.chat_id, []).append(write)
    for tap in load.taps:
        answer = fake.answers.get(tap.query_id) or fake.inline_answer(tap.query_id)
        kinds[tap.kind] = kinds.get(tap.kind, 0) + 1
        if not answer.answered or answer.expired:
            continue
        took = answer.answered_at - answer.created_at
        latencies.append(took)
        if groups[tap.group].inline:
            inline_latencies.append(took)
        if answer.created_at >= steady_from:
            steady.append(took)
        # The second tap of a double tap can be the one that plays.
        if tap.kind not in ("play", "abuse:double") or tap.version is None:
            continue
        if tap.op in ("c", "d", "jc", "tc") and _move_accepted(tap.op, answer):
            played[tap.op] = played.get(tap.op, 0) + 1 + (tap.op == "jc")
            move_answers.append(took)
            writes = by_chat.get(groups[tap.group].chat.id, [])
            version = tap.version
            nxt = next((w for w in writes if w.at >= answer.answered_at and (w.version or 0) > version), None)
            if nxt is not None and tap.op != "tc":
                turn_waits.append(nxt.at - answer.answered_at)
    sorts: dict[bool, dict[str, int]] = {False: {}, True: {}}  # by inline table or not
    chats = {g.chat.id: g.inline for g in groups}
    for write, sort in sort_writes(fake.writes):
        if write.chat_id in chats:
            sorts[chats[write.chat_id]][sort] = sorts[chats[write.chat_id]].get(sort, 0) + 1
    inline_turns = moves.get("turns_inline", 0) or 1
    turns = moves.get("turns", 0) - moves.get("turns_inline", 0) or 1
    boards, record = sorts[False].get("board", 0), sorts[False].get("record", 0)
    steady_writes = [w.at for w in fake.writes if steady_from <= w.at < end]
    inline = [g for g in groups if g.inline]
    figures = {
        "groups": len(groups),
        "players": sum(len(g.players) for g in groups),
        "taps": len(load.taps),
        "taps_by_kind": kinds,
        "answered": len(latencies),
        "latency_p50_ms": 1000 * (pct(latencies, 0.5) or 0),
        "latency_p99_ms": 1000 * (pct(latencies, 0.99) or 0),
        "latency_max_ms": 1000 * max(latencies, default=0),
        "latency_p99_steady_ms": 1000 * (pct(steady, 0.99) or 0),
        "move_answer_p50_ms": 1000 * (pct(move_answers, 0.5) or 0),
        "move_answer_p99_ms": 1000 * (pct(move_answers, 0.99) or 0),
        "count_429": fake.count_429(),
        "flood_rejections_overall": sum(1 for r in fake.flood_rejections if r.limit == "overall"),
        "not_modified_edits": sum(
            1 for c in fake.calls if c.method.startswith("edit") and "not modified" in (c.error or "")
        ),
        "max_group_writes_60s": max((fake.max_writes_in_window(g.chat.id, 60.0) for g in groups), default=0),
        "writes_per_s_mean": len(steady_writes) / max(1e-9, end - steady_from),
        "writes_per_s_peak_1s": fake.max_writes_in_window(None, 1.0),
        "moves": sum(played.values()),
        "moves_by_op": played,
        "moves_db": moves,
        "group_writes_by_sort": sorts[False],
        "writes_per_turn": (boards + record) / turns,
        "writes_per_turn_no_t_boards": (boards + record - played.get("tc", 0)) / turns,
        "keys_off_per_turn": sorts[False].get("keys_off", 0) / turns,
        "turn_wait_p50_s": pct(turn_waits, 0.5),
        "turn_wait_p99_s": pct(turn_waits, 0.99),
        "cpu_s": cpu,
        "cpu_percent": 100.0 * cpu / wall if wall else 0.0,
        "wall_s": wall,
    }
    if not inline:
        return figures
    return figures | {
        "inline_tables": len(inline),
        "inline_latency_p50_ms": 1000 * (pct(inline_latencies, 0.5) or 0),
        "inline_latency_p99_ms": 1000 * (pct(inline_latencies, 0.99) or 0),
        "inline_wait_p50_s": pct(load.inline_waits, 0.5),
        "inline_wait_p99_s": pct(load.inline_waits, 0.99),
        "inline_wait_max_s": max(load.inline_waits, default=None),
        "inline_writes_by_sort": sorts[True],
        "inline_writes_per_turn": sorts[True].get("board", 0) / inline_turns,
        "inline_keys_off_per_turn": sorts[True].get("keys_off", 0) / inline_turns,
        "inline_stale_notes": sorts[True].get("record", 0),
        "inline_429": sum(fake.count_429(g.chat.id) for g in inline),
    }


def _move_accepted(op: str, answer: Any) -> bool:
    """A Claim or Discard the bot played says "Done!"; a [T!] card played alone says what it did."""
    if op == "tc":
        return not answer.show_alert and not _refused(answer.text or "")
    return bool(answer.text == DONE)


# --- the parent: cold runs, median and spread, the table -----------------------------------------


def _per_tap(f: Figures) -> float | None:
    return 1000 * f["cpu_s"] / f["answered"] if f.get("answered") else None


ROWS: list[Row] = [
    ("Players", lambda f: f["players"], "{:.0f}"),
    ("Taps sent (all kinds)", lambda f: f["taps"], "{:,.0f}"),
    ("Taps answered", lambda f: 100 * f["answered"] / max(1, f["taps"]), "{:.2f} %"),
    ("Answer latency p50", lambda f: f["latency_p50_ms"], "{:,.0f} ms"),
    ("**Answer latency p99**", lambda f: f["latency_p99_ms"], "{:,.0f} ms"),
    ("Answer latency p99, taps after the first 25 s", lambda f: f["latency_p99_steady_ms"], "{:,.0f} ms"),
    ("Answer latency of the moves (Claim, Discard) p50", lambda f: f.get("move_answer_p50_ms"), "{:,.0f} ms"),
    ("**Answer latency of the moves p99**", lambda f: f.get("move_answer_p99_ms"), "{:,.0f} ms"),
    ("**CPU per tap answered** (bot, fake and players)", _per_tap, "{:.1f} ms"),
    ("CPU of the process (share of one core)", lambda f: f["cpu_percent"], "{:.0f} %"),
    ("RSS once started, before the load", lambda f: f.get("rss_ready_mb"), "{:.1f} MB"),
    ("Peak RSS of the process (bot and harness)", lambda f: f.get("peak_rss_mb"), "{:.1f} MB"),
    ("Moves played", lambda f: f["moves"], "{:,.0f}"),
    ("**Group writes per turn** (keys-off apart)", lambda f: f["writes_per_turn"], "{:.2f}"),
    (
        "  without the boards a Thief, Shifter or Bomb brings",
        lambda f: f["writes_per_turn_no_t_boards"],
        "{:.2f}",
    ),
    ("Keys-off edits per turn", lambda f: f["keys_off_per_turn"], "{:.2f}"),
    ("Next board after a move, p50", lambda f: f["turn_wait_p50_s"], "{:.2f} s"),
    ("Next board after a move, p99", lambda f: f["turn_wait_p99_s"], "{:.2f} s"),
    ("429 answers", lambda f: f["count_429"], "{:.0f}"),
    ('Edits refused as "message is not modified"', lambda f: f["not_modified_edits"], "{:.0f}"),
    ("Most writes, one group, any 60 s", lambda f: f["max_group_writes_60s"], "{:.0f}"),
    ("Writes/s in all, mean (after the first 25 s)", lambda f: f["writes_per_s_mean"], "{:.1f}"),
    ("Writes/s in all, busiest second", lambda f: f["writes_per_s_peak_1s"], "{:.0f}"),
    ("Outbox rows waiting at the window's end", lambda f: f["backlog_end"], "{:.0f}"),
    ("Its threads runnable but waiting for a core", lambda f: f["runnable_waiting_per_s"], "{:.2f} s/s"),
    ("Machine load average (1 min) at the start", lambda f: f["_load"][0], "{:.1f}"),
]
#: Rows of the inline tables (``--inline-share``), whose figures are not in the rows above but
#: for the answers, CPU, 429s and writes in all.
INLINE_ROWS: list[Row] = [
    ("Inline tables", lambda f: f.get("inline_tables"), "{:.0f}"),
    ("  their taps and 🎯 Play lists, answer p50", lambda f: f["inline_latency_p50_ms"], "{:,.0f} ms"),
    ("  **answer p99**", lambda f: f["inline_latency_p99_ms"], "{:,.0f} ms"),
    ("  a pick posted → the bot made it the next board, p50", lambda f: f["inline_wait_p50_s"], "{:.2f} s"),
    ("  the same, p99", lambda f: f["inline_wait_p99_s"], "{:.2f} s"),
    ("  the same, the longest", lambda f: f.get("inline_wait_max_s"), "{:.2f} s"),
    ("  old posts with 🎯 Play or 👀 My hand at the end", lambda f: f.get("inline_old_keys_end"), "{:.0f}"),
    ("  of them old boards (🎯 Play)", lambda f: f.get("inline_old_boards_end"), "{:.0f}"),
    ("  **writes into the chat per turn**: the post's", lambda f: f["inline_writes_per_turn"], "{:.2f}"),
    ("  the old board's keys-off edits per turn", lambda f: f["inline_keys_off_per_turn"], "{:.2f}"),
    ("  edits that note a stale pick", lambda f: f["inline_stale_notes"], "{:.0f}"),
    ("  429 answers", lambda f: f["inline_429"], "{:.0f}"),
]


def count_errors(log_path: Path) -> dict[str, int]:
    counts: dict[str, int] = {}
    for line in log_path.read_text(errors="replace").splitlines():
        for level in ("ERROR", "WARNING", "Traceback"):
            if f" {level} " in line or line.startswith(level):
                counts[level] = counts.get(level, 0) + 1
    return counts


def run_cells(
    args: argparse.Namespace, script: Path, cells: list[tuple[str, str]]
) -> tuple[str, dict[str, list[Figures]]]:
    """Cold runs of `script`'s child for every cell (its name, its options), run 1 of each cell,
    then run 2, ..., on a copy of the code unless ``--no-snapshot``; each run's log kept."""
    work = Path(tempfile.mkdtemp(prefix=f"{script.stem}_runs_"))
    script = script if args.no_snapshot else common.snapshot(script, work / "code")
    code = common.code_label(script.parent.parent)
    print(f"{code}; runs in {work}", flush=True)
    shared = f"--seconds {args.seconds} --abuse-every {args.abuse_every} --players {args.players}"
    results: dict[str, list[Figures]] = {}
    for run in range(args.runs):
        for name, options in cells:
            out, log = work / f"{len(results)}-{run}.json", work / f"{len(results)}-{run}.log"
            command = shlex.split(f"--child --seed {args.seed + run} --out {out} {shared} {options}")
            if f := common.logged_run(
                [sys.executable, str(script), *command], out, log, f"{name}, run {run + 1}"
            ):
                f["errors_logged"] = count_errors(log)
                results.setdefault(name, []).append(f)
                print(
                    f"{name}, run {run + 1}: taps {f['taps']}, answered {f['answered']}, p99 "
                    f"{f['latency_p99_ms']:.0f} ms, 429s {f['count_429']}, errors {f['errors_logged']}",
                    flush=True,
                )
    return code, results


def run_parent(args: argparse.Namespace) -> int:
    dbs, share = common.databases(args.db), f"--inline-share {args.inline_share}"
    cells = [
        (f"{common.label(db)}, {n} groups", f"--db {db} --groups {n} {share}")
        for n in args.groups
        for db in dbs
    ]
    computers = args.computers
    if computers:  # each cell of people, then the same groups with the computers
        cells = [
            cell
            for name, options in cells
            for cell in ((name, options), (f"{name}, {computers}", f"{options} --computers {computers}"))
        ]
    code, results = run_cells(args, Path(__file__).resolve(), cells)
    runs = [r for rs in results.values() for r in rs]
    print(
        f"\nLoad: {args.seconds:.0f} s per run, {args.runs} cold runs per cell, median (min–max); "
        f"one process; {code}; {common.machine(runs)}.\n"
    )
    print(common.table("Load", results, ROWS + INLINE_ROWS * (args.inline_share > 0)))
    common.write_json(args.json, {"code": code, "machine": common.machine(runs), **results})
    return 0


def parser(doc: str | None, groups: list[int], seconds: float, db: bool = True) -> argparse.ArgumentParser:
    """The options of a script that runs these players (this one, `instances.py`)."""
    options = common.parser(doc, db=db)
    options.add_argument("--groups", type=int, nargs="+", default=groups)
    options.add_argument("--seconds", type=float, default=seconds, help="length of each run's window")
    options.add_argument("--seed", type=int, default=1)
    options.add_argument("--abuse-every", type=float, default=6.0, help="mean seconds between abusive taps")
    options.add_argument("--players", type=int, default=0, help="players per group (0: 3 or 4 at random)")
    options.add_argument("--no-snapshot", action="store_true", help="run the tree as it is (default: a copy)")
    return options


def main(argv: list[str] | None = None) -> int:
    options = parser(__doc__, [4, 50], 150.0)
    options.add_argument("--computers", default="", help="LEVEL:N (hard:3): a person and N computers too")
    options.add_argument("--inline-share", type=float, default=0.0, help="groups that are inline tables")
    args = options.parse_args(argv)
    if args.child:
        args.groups = args.groups[0]
        from tgbot import event_loop

        figures = event_loop.run(run_child(args))  # on the bot's own default loop
        Path(args.out).write_text(json.dumps(figures, default=str))
        logging.shutdown()
        return 0
    return run_parent(args)


if __name__ == "__main__":
    sys.exit(main())
