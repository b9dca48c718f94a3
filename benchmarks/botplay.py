"""Real games through the real bot, for the benchmarks: scripted players at human pace, and the
books that say what each tap cost.

The bot is `tests.bot.conftest.running_bot`: the real PTB Application (`build_application`: the
handlers, the services, the database in its worker threads, the outbox and its per-chat senders)
over the in-memory Bot API `tests/fakes/telegram.py`, with Telegram's flood limits on and inline
mode on (BotFather's /setinline and /setinlinefeedback), delivery paced on a virtual timer.

Players only use what the bot showed them: the keys and texts of the messages as the fake holds
them *now* (a board the bot has not sent yet is not there), the popups, the inline list.
Three ways of playing a turn, one per game:

* **board**: on the group board. The player peeks at their hand (*👀 My hand*), taps a hand slot,
  the table cards of a sum (each popup says the running sum; the board is not redrawn) and *✅
  Claim* (or *🗑 Discard*), which are always on the board. Now and then a [T!] card first: its key
  tapped one to three times (each tap the next choice, the popup says which), then *Claim* plays
  a Thief, Shifter or Bomb and the player goes on on the board it brings; for a Joker they
  compose a sum for the target its popup announced and *Claim* plays both (with no such sum, they
  tap the key until "No [T!] card chosen." and play as usual).
* **panel**: in the private panel (opened once with the board's *📱 Panel* deep link). The same
  taps on the panel, whose keys show the player's own cards (a [T!] card played there brings no
  board: the panel shows it).
* **inline**: the board's *🎯 Play* key opens the inline list (an inline query), and a pick plays
  the move (Telegram delivers it twice: the message posted "via" the bot, and, with inline
  feedback, a `chosen_inline_result`). Now and then a [T!] card first, then a second list.

Now and then someone taps a key that is refused: a player taps the board out of turn, or a key of
a board that is no longer live (a stale keyboard).

Time: the players act at human pace on the virtual timer (`READ` seconds before the first tap of
a turn, `STEP` between taps; `tests.fakes.timer.VirtualTimer`, moved by
`TelegramTestClient.advance`), and the bot's senders keep Telegram's budget on the same clock
(18 writes a minute per group; lobby edits and keys-off edits only below 12). A player waits for
the board (or panel) of their turn to be shown, half a second at a time. Games are events on that clock
(`Driver.run`), so several games interleave as they would in real life; the CPU runs the whole
thing as fast as it can (no real sleeping).

The books (`Ledger`), kept by wrapping the bot's seams from outside (nothing in tgbot changes):

* SQL: SQLAlchemy's ``before_cursor_execute``, ``begin`` and ``commit``/``rollback`` events on
  the bot's engine. Each transaction is told apart by who ran it: `Database.run` is given a
  function defined in `tgbot.deps` (`Deps.run`: a tap, a query, a pick: the handler's service), in
  `tgbot.delivery.sender` (a sender) or elsewhere.
* Writes: every `outbox.put` is credited to the tap being handled (or, inside a sender's
  `_finish`, to the tap whose message that sender just wrote: a post that replaces an older board
  takes the old one's keys off). A write Telegram accepted (the fake's flood ledger) is credited
  to the put whose content it carried, matched by chat and payload text. So a board that waited
  for budget and was replaced by the next content before it went out costs its tap nothing (it
  was coalesced), and one that went out late still counts for its own tap. Keys taken off an old
  message (a ``keys:<message>`` surface) are counted apart from the other group writes.
"""

from __future__ import annotations

import contextvars
import heapq
import json
import random
import re
import threading
import time
from collections import Counter
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from sqlalchemy import create_engine, event, text
from sqlalchemy.engine import Engine

from tests.bot.conftest import BotRig, running_bot
from tests.bot.players import EMOJI_VALUE, HAND_SLOT, choose_sum, target_of
from tests.fakes.flood import FloodLimits
from tests.fakes.telegram import FakeChat, FakeTelegram, FakeUser, InlineAnswer, StoredMessage
from tests.fakes.timer import VirtualTimer
from tgbot.clock import ManualClock

BOT = "@tweak_test_bot"
NAMES = ("Ana", "Ben", "Cai", "Dee", "Eva", "Fin")
#: Human pace, virtual seconds: reading the board before a turn's first tap, between two taps.
READ = (1.0, 4.0)
STEP = (0.5, 2.0)
#: How often a player plays a [T!] card first when one is offered.
T_CHANCE = 0.35
#: A [T!] key is tapped this many times at first (each tap: the next choice) ...
T_TAPS = (1, 3)
#: ... and at most this many in all to get back to "No [T!] card chosen.".
T_TAPS_MAX = 10
JOKER_TARGET = re.compile(r"the target becomes (\d+)")
NO_T_CHOSEN = "No [T!] card chosen."
#: Per turn: someone taps the board out of turn / the last mover taps their old board.
OUT_OF_TURN = 0.08
STALE = 0.08
#: A player waits at most this long (virtual seconds) for a key the bot has to show.
PATIENCE = 600.0
POLL = 0.5

WAYS = ("board", "panel", "inline")


# --------------------------------------------------------------------------------------------
# The books
# --------------------------------------------------------------------------------------------

_local = threading.local()  # .kind: who runs the transaction on this thread; .owner: a tap index
#: The outbox row (chat, surface, payload) a sender is writing: set in the sender's own task.
Key = tuple[int, str | None, str]
_row: contextvars.ContextVar[Key | None] = contextvars.ContextVar("bench_row", default=None)

TX_KINDS = {"tgbot.deps": "tap", "tgbot.delivery.sender": "delivery", "tgbot.jobs": "sweep"}


def verb(statement: str) -> str:
    word = statement.lstrip().split(None, 1)[0].upper() if statement.strip() else "?"
    if word == "RELEASE" or word == "SAVEPOINT":
        return "SAVEPOINT"
    if word == "ROLLBACK":
        return "SAVEPOINT" if "SAVEPOINT" in statement.upper() else "ROLLBACK"
    return word


@dataclass
class TapRecord:
    index: int
    kind: str
    way: str
    game: int
    turn: int | None
    started: float = 0.0
    answered: float | None = None  # perf_counter when the bot answered (callback or inline query)
    handled: float = 0.0  # perf_counter when the handler returned
    statements: Counter[str] = field(default_factory=Counter)
    transactions: int = 0
    group_now: int = 0  # group writes carrying this tap's content, made before the game's next tap
    group_total: int = 0  # ... made at any time (keys-off edits apart)
    keys_off: int = 0  # keys taken off an old message, for this tap (a group write too)
    private_total: int = 0
    outcome: str = ""  # the popup's text (callback queries)
    #: The game right after the tap (status, version, seat to move), read by the driver when it
    #: tracks turns (`Driver.track_turns`): which turn the tap's messages announce.
    after: tuple[str, int, int | None] | None = None

    @property
    def answer_seconds(self) -> float:
        return (self.answered if self.answered is not None else self.handled) - self.started

    @property
    def statement_count(self) -> int:
        return sum(n for v, n in self.statements.items() if v != "BEGIN")


@dataclass
class TurnRecord:
    way: str
    game: int
    version: int
    taps: list[int] = field(default_factory=list)
    t_card: bool = False
    #: a Thief, Shifter or Bomb played on the group board: it brings a board of its own
    t_board: bool = False
    special: bool = False  # ended a round or the game
    mover: int = -1  # the seat to move
    waited: float = 0.0  # virtual seconds the player waited for the board (or panel) of the turn


class Ledger:
    def __init__(self) -> None:
        self.taps: list[TapRecord] = []
        self.turns: list[TurnRecord] = []
        self.current: int | None = None
        self.latest_by_game: dict[int, int] = {}
        self.owners: dict[Key, int | None] = {}
        #: The statements of the first tap of each kind (``--trace``).
        self.trace: dict[str, list[str]] = {}
        self.tracing = False
        self.other_sql: dict[str, Counter[str]] = {}
        self.other_tx: Counter[str] = Counter()
        self.writes: list[tuple[int, bool, int | None]] = []  # (chat, private, owner tap)
        #: Messages Telegram delivered with sound (a send without ``disable_notification``):
        #: (chat, owner tap, virtual time).
        self.notifications: list[tuple[int, int | None, float]] = []
        self.answered_at: dict[str, float] = {}

    # -- taps --

    def begin(
        self, kind: str, way: str, game: int, turn: TurnRecord | None, *, player: bool = True
    ) -> TapRecord:
        """A tap starts; `player=False` for an update that is not a new act of the player (the
        second copy of an inline pick): the writes of the first still count as "before the next
        tap" meanwhile."""
        record = TapRecord(len(self.taps), kind, way, game, len(self.turns) - 1 if turn else None)
        self.taps.append(record)
        if turn is not None:
            turn.taps.append(record.index)
        self.current = record.index
        if player:
            self.latest_by_game[game] = record.index
        return record

    def idle(self) -> None:
        """Between taps (set-up, the driver's own reads): nothing is credited to a tap."""
        self.current = None

    # -- SQL --

    def statement(self, word: str, statement: str) -> None:
        kind = getattr(_local, "kind", None) or "driver"
        if kind == "tap" and self.current is not None:
            tap = self.taps[self.current]
            tap.statements[word] += 1
            if self.tracing and self.trace.get(tap.kind, [None])[0] in (None, f"#{tap.index}"):
                self.trace.setdefault(tap.kind, [f"#{tap.index}"]).append(" ".join(statement.split())[:160])
        else:
            self.other_sql.setdefault(kind, Counter())[word] += 1
            if self.tracing and kind == "delivery" and len(self.trace.get(kind, [])) < 120:
                self.trace.setdefault(kind, ["the senders"]).append(" ".join(statement.split())[:160])

    def transaction(self) -> None:
        kind = getattr(_local, "kind", None) or "driver"
        if kind == "tap" and self.current is not None:
            self.taps[self.current].transactions += 1
        else:
            self.other_tx[kind] += 1
            if self.tracing and kind == "delivery" and len(self.trace.get(kind, [])) < 120:
                self.trace.setdefault(kind, ["the senders"]).append("-- a transaction")

    # -- writes --

    def put(self, key: Key) -> None:
        owner = getattr(_local, "owner", None)
        if owner is None and getattr(_local, "kind", None) == "tap":
            owner = self.current
        self.owners[key] = owner

    def notified(self, chat_id: int, at: float) -> None:
        row = _row.get()
        self.notifications.append((chat_id, self.owners.get(row) if row is not None else None, at))

    def wrote(self, chat_id: int, private: bool) -> None:
        row = _row.get()
        owner = self.owners.get(row) if row is not None else None
        self.writes.append((chat_id, private, owner))
        if owner is None:
            return
        tap = self.taps[owner]
        if private:
            tap.private_total += 1
        elif row is not None and (row[1] or "").startswith("keys:"):
            tap.keys_off += 1
        else:
            tap.group_total += 1
            if self.latest_by_game.get(tap.game) == owner:
                tap.group_now += 1


def instrument(rig: BotRig, ledger: Ledger, *, writes: bool = True) -> Callable[[], None]:
    """Wrap the bot's seams (see the module docstring); returns the undo."""
    from tgbot.delivery import sender
    from tgbot.store import outbox

    engine = rig.deps.db.engine
    db = rig.deps.db

    def before(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        ledger.statement(verb(statement), statement)

    def begun(conn: Any) -> None:
        ledger.transaction()

    event.listen(engine, "before_cursor_execute", before)
    event.listen(engine, "begin", begun)
    original_tx = db._transaction

    def transaction(work: Any, *rest: Any) -> Any:
        _local.kind = TX_KINDS.get(getattr(work, "__module__", ""), "other")
        try:
            return original_tx(work, *rest)
        finally:
            _local.kind = None

    db._transaction = transaction  # type: ignore[method-assign,assignment]
    undo: list[Callable[[], None]] = [
        lambda: event.remove(engine, "before_cursor_execute", before),
        lambda: event.remove(engine, "begin", begun),
        lambda: setattr(db, "_transaction", original_tx),
    ]
    if writes:
        original_put, original_plan, original_finish = outbox.put, sender._plan, sender._finish

        def put(session: Any, message: Any, now: Any, *args: Any, **kw: Any) -> None:
            original_put(session, message, now, *args, **kw)
            payload = message.payload().to_json()
            ledger.put((message.chat_id, message.surface, payload))

        def plan(row: Any, payload: Any, batch: Any) -> Any:
            # Runs in the sender's task just before it calls Telegram: the write that follows
            # (if any) carries this row's content.
            _row.set((row.chat_id, row.surface, row.payload))
            return original_plan(row, payload, batch)

        def finish(session: Any, chat_id: int, row: Any, *args: Any) -> None:
            _local.owner = ledger.owners.get((chat_id, row.surface, row.payload))
            try:
                original_finish(session, chat_id, row, *args)
            finally:
                _local.owner = None

        outbox.put, sender._plan, sender._finish = put, plan, finish  # type: ignore[assignment]

        def restore() -> None:
            outbox.put, sender._plan, sender._finish = original_put, original_plan, original_finish  # type: ignore[assignment]

        undo.append(restore)

    def undo_all() -> None:
        for step in reversed(undo):
            step()

    return undo_all


def time_transactions(rig: BotRig) -> tuple[dict[str, list[float]], Callable[[], None]]:
    """CPU seconds (of the thread running it) and count of every transaction, by who ran it;
    returns the books and the undo."""
    db = rig.deps.db
    books: dict[str, list[float]] = {}
    original = db._transaction

    def transaction(work: Any, *rest: Any) -> Any:
        kind = TX_KINDS.get(getattr(work, "__module__", ""), "other")
        started = time.thread_time()
        try:
            return original(work, *rest)
        finally:
            entry = books.setdefault(kind, [0.0, 0.0])
            entry[0] += time.thread_time() - started
            entry[1] += 1

    db._transaction = transaction  # type: ignore[method-assign,assignment]
    return books, lambda: setattr(db, "_transaction", original)


#: The Bot API methods whose message Telegram delivers with sound unless ``disable_notification``
#: (as ``notifications()`` in tests/bot/test_notifications.py counts them).
NOTIFYING = ("sendMessage", "sendPhoto", "sendDocument")


class BenchTelegram(FakeTelegram):
    """The fake Bot API, telling the ledger when the bot answered a query and when a write was
    accepted."""

    def __init__(self, ledger: Ledger, clock: ManualClock) -> None:
        super().__init__(
            clock=clock.now,
            timer=VirtualTimer(),
            flood=FloodLimits(),
            inline_mode=True,
            inline_feedback=True,
        )
        self.ledger = ledger

    async def do_request(self, url: str, method: str, request_data: Any = None, *args: Any, **kw: Any) -> Any:  # type: ignore[override]
        api = url.rstrip("/").rsplit("/", 1)[-1]
        if api in ("answerCallbackQuery", "answerInlineQuery"):
            params, _files = self._decode(request_data)
            key = params.get("callback_query_id") or params.get("inline_query_id")
            self.ledger.answered_at.setdefault(str(key), time.perf_counter())
        status, body = await super().do_request(url, method, request_data, *args, **kw)
        if api in NOTIFYING and 200 <= status <= 299 and request_data is not None:
            params = request_data.parameters
            if params.get("disable_notification") not in (True, "true", "True"):
                self.ledger.notified(int(params["chat_id"]), self.timer.monotonic())
        return status, body

    def _admit(self, chat_id: int, private: bool, method: str) -> None:
        super()._admit(chat_id, private, method)  # raises (429) when refused
        self.ledger.wrote(chat_id, private)


# --------------------------------------------------------------------------------------------
# What players do
# --------------------------------------------------------------------------------------------


@dataclass
class Tap:
    user: FakeUser
    message: StoredMessage
    data: str
    kind: str


@dataclass
class Query:
    user: FakeUser
    chat: FakeChat
    text: str


@dataclass
class Pick:
    user: FakeUser
    chat: FakeChat
    answer: InlineAnswer
    result_id: str


@dataclass
class Wait:
    seconds: float


Step = Tap | Query | Pick | Wait
Script = Generator[Step, Any, None]


@dataclass
class Seat:
    user: FakeUser
    rng: random.Random
    #: The player has a private chat with the bot (sent /start there before the game).
    private: bool = True


@dataclass
class Table:
    way: str
    group: FakeChat
    seats: list[Seat]
    rng: random.Random
    game_id: int = 0
    last_board: tuple[StoredMessage, str] | None = None  # a key of the previous turn's board
    turn: TurnRecord | None = None  # the turn being played


class Stuck(AssertionError):
    pass


def keys_of(message: StoredMessage) -> list[tuple[str, str]]:
    return [(t, d) for t, d in message.buttons if d is not None]


class Driver:
    """Runs scripts (generators of steps) as events on the virtual clock; see the module docstring."""

    def __init__(self, rig: BotRig, ledger: Ledger) -> None:
        self.rig = rig
        self.fake = rig.fake
        self.tg = rig.tg
        self.app = rig.tg.app
        self.ledger = ledger
        self.timer = rig.timer
        self.peek: Engine = create_engine(rig.db_url)
        self.stuck: list[str] = []
        #: Read the game after every tap (`TapRecord.after`; the driver's own engine, not counted).
        self.track_turns = False

    # -- running --

    async def run(self, scripts: list[tuple[Table, Script]]) -> None:
        queue: list[tuple[float, int, int]] = []
        results: dict[int, Any] = {}
        for i, (_table, _script) in enumerate(scripts):
            heapq.heappush(queue, (self.timer.monotonic(), i, i))
        seq = len(scripts)
        while queue:
            at, _seq, i = heapq.heappop(queue)
            now = self.timer.monotonic()
            if at > now:
                self.ledger.idle()
                await self.tg.advance(at - now)
            table, script = scripts[i]
            try:
                step = script.send(results.pop(i, None))
            except StopIteration:
                continue
            if isinstance(step, Wait):
                heapq.heappush(queue, (self.timer.monotonic() + step.seconds, seq, i))
            else:
                results[i] = await self.execute(table, step)
                heapq.heappush(queue, (self.timer.monotonic(), seq, i))
            seq += 1
        self.ledger.idle()

    async def execute(self, table: Table, step: Step) -> Any:
        turn = table.turn
        if isinstance(step, Tap):
            update = self.fake.callback_update(step.user, step.message, step.data)
            query_id = update["callback_query"]["id"]
            record = self.ledger.begin(step.kind, table.way, table.game_id, turn)
            await self._process(record, update, query_id)
            self._after(record)
            answer = self.fake.answers[query_id]
            record.outcome = answer.text or ""
            if not answer.answered:
                raise AssertionError(f"{step.kind}: the callback query was not answered")
            return answer
        if isinstance(step, Query):
            update = self.fake.inline_query_update(step.user, step.text, chat=step.chat)
            query_id = update["inline_query"]["id"]
            record = self.ledger.begin("inline: 🎯 Play list (query)", table.way, table.game_id, turn)
            await self._process(record, update, query_id)
            self._after(record)
            inline = self.fake.inline_answer(query_id)
            if not inline.answered:
                raise AssertionError("the inline query was not answered")
            return inline
        assert isinstance(step, Pick)
        updates = self.fake.pick_inline_result(step.user, step.chat, step.answer, step.result_id)
        for update in updates:
            kind = (
                "inline: pick (posted message)"
                if "message" in update
                else "inline: pick (chosen result, a duplicate)"
            )
            record = self.ledger.begin(kind, table.way, table.game_id, turn, player="message" in update)
            await self._process(record, update, None)
            self._after(record)
        return None

    def _after(self, record: TapRecord) -> None:
        if self.track_turns:
            status, version, state = self.game(record.game)
            record.after = (status, version, int(state["current"]) if state is not None else None)

    async def _process(self, record: TapRecord, update: dict[str, Any], query_id: str | None) -> None:
        errors = len(self.tg.errors)
        record.started = time.perf_counter()
        await self.app.process_update(self.fake.to_update(update, self.app.bot))
        record.handled = time.perf_counter()
        if query_id is not None:
            record.answered = self.ledger.answered_at.get(query_id)
        if len(self.tg.errors) > errors:
            raise self.tg.errors[errors]

    # -- what the driver reads (its own engine: never counted) --

    def game(self, game_id: int) -> tuple[str, int, dict[str, Any] | None]:
        with self.peek.connect() as conn:
            row = conn.execute(
                text("SELECT status, version, state FROM games WHERE id = :id"), {"id": game_id}
            ).one()
        return str(row[0]), int(row[1]), json.loads(row[2]) if row[2] else None

    def close(self) -> None:
        self.peek.dispose()

    # -- what the players see --

    def board(self, table: Table, version: int) -> StoredMessage | None:
        """The group board with keys of this version, if the bot has shown it."""
        prefix = f"k:{table.game_id}:{version}:"
        for message in reversed(self.fake.messages(table.group.id)):
            if any(d.startswith(prefix) for _t, d in keys_of(message)):
                return message
        return None

    def panel(self, table: Table, user: FakeUser, version: int) -> StoredMessage | None:
        prefix = f"k:{table.game_id}:{version}:"
        for message in reversed(self.fake.messages(user.id)):
            if any(d.startswith(prefix) for _t, d in keys_of(message)):
                return message
        return None


def wait_for(
    driver: Driver, probe: Callable[[], Any], what: str, turn: TurnRecord | None = None
) -> Generator[Step, Any, Any]:
    waited = 0.0
    while (found := probe()) is None:
        if waited >= PATIENCE:
            raise Stuck(f"waited {PATIENCE:.0f} s for {what}")
        yield Wait(POLL)
        waited += POLL
    if turn is not None:
        turn.waited += waited
    return found


def pace(rng: random.Random, span: tuple[float, float]) -> Wait:
    return Wait(rng.uniform(*span))


# --------------------------------------------------------------------------------------------
# Set-up (settled step by step with the test client: not part of any figure)
# --------------------------------------------------------------------------------------------

_user_ids = iter(range(10_001, 10**7))


async def new_table(
    rig: BotRig,
    way: str,
    players: int,
    goal_steps: int,
    seed: int,
    private: Callable[[int], bool] | None = None,
) -> Table:
    """A game of `players` in a new group, started. Every player sends /start in private first
    (the bot can then write to them), or, with `private`, only the seats it says yes to (a panel
    game: every player, who opens the panel in private)."""
    fake, tg = rig.fake, rig.tg
    rng = random.Random(seed)
    users = [fake.user(next(_user_ids), NAMES[i]) for i in range(players)]
    chats = [way == "panel" or private is None or private(i) for i in range(players)]
    for user, chat in zip(users, chats, strict=True):
        if chat:
            await tg.send(fake.private(user), user, "/start")
    group = fake.group(f"{way.title()} table {seed}")
    await tg.send(group, users[0], f"/newgame{BOT}")
    lobby = fake.last_message(group.id)
    for user in users[1:]:
        await tg.tap(user, lobby, "✋ Join")
    if goal_steps or way == "inline":
        await tg.tap(users[0], lobby, "⚙️ Settings")
        for _ in range(goal_steps):
            await tg.tap(users[0], lobby, "Goal −20")
        # Inline players pick a listed sum: where sum hints are a table setting (off by default:
        # the list then offers no sums), their tables turn them on.
        hints_on = [d for _t, d in keys_of(fake.message(group.id, lobby.message_id)) if _is_hints_on(d)]
        if way == "inline" and hints_on:
            await tg.tap(users[0], lobby, lambda _text, data: data == hints_on[0])
        await tg.tap(users[0], lobby, "↩️ Back")
    await tg.tap(users[0], lobby, "▶️ Start")
    gid = next(
        int(d.split(":")[1])
        for m in reversed(fake.messages(group.id))
        for _t, d in keys_of(m)
        if d.startswith("k:")
    )
    seats = [Seat(u, random.Random(rng.random()), chat) for u, chat in zip(users, chats, strict=True)]
    table = Table(way, group, seats, rng, gid)
    if way == "panel":
        for user in users:
            await tg.send(fake.private(user), user, f"/start g{gid}")
    return table


def _is_hints_on(data: str) -> bool:
    """The lobby key that turns sum hints on (``ln:<game>:h:1``)."""
    parts = data.split(":")
    return len(parts) == 4 and parts[0] == "ln" and parts[2:] == ["h", "1"]


# --------------------------------------------------------------------------------------------
# Turns
# --------------------------------------------------------------------------------------------


def table_cards(keys: list[tuple[str, str]], prefix: str) -> list[tuple[int, str]]:
    """(value, data) of the table keys, in position order."""
    found = []
    for label, data in keys:
        if data.startswith(prefix + "t:"):
            match = EMOJI_VALUE.search(label)
            if match:
                found.append((int(match.group(2)), data))
    return found


def play_game(driver: Driver, table: Table) -> Script:
    """Turns until the game is over, each played the table's way."""
    gid = table.game_id
    while True:
        status, version, state = driver.game(gid)
        if status != "playing" or state is None:
            return
        current = int(state["current"])
        seat = table.seats[current]
        turn = TurnRecord(table.way, gid, version, mover=current)
        driver.ledger.turns.append(turn)
        table.turn = turn
        before_round = int(state["round"])
        if table.way == "inline":
            yield from inline_turn(driver, table, seat, version, turn)
        else:
            yield from key_turn(driver, table, seat, version, turn, private=table.way == "panel")
        status, after_version, after = driver.game(gid)
        if after_version == version:
            raise Stuck(f"game {gid}: the turn at version {version} did not move")
        turn.special = status != "playing" or (after is not None and int(after["round"]) != before_round)
        table.turn = None
        if status != "playing":
            return
        yield from mischief(driver, table, seat, after_version, after)


def mischief(driver: Driver, table: Table, last: Seat, version: int, state: Any) -> Script:
    """Refused taps, now and then: a key of the board that is no longer live; the live board
    tapped out of turn."""
    if table.last_board is not None and table.rng.random() < STALE:
        message, data = table.last_board
        yield pace(table.rng, STEP)
        yield Tap(last.user, message, data, "refused: a key of an old board")
    if table.rng.random() < OUT_OF_TURN and state is not None:
        board = driver.board(table, version)
        if board is not None:
            mover = int(state["current"])
            others = [s for i, s in enumerate(table.seats) if i != mover]
            yield pace(table.rng, STEP)
            yield Tap(
                table.rng.choice(others).user,
                board,
                f"k:{table.game_id}:{version}:h:0",
                "refused: out of turn",
            )


def key_turn(
    driver: Driver, table: Table, seat: Seat, version: int, turn: TurnRecord, private: bool
) -> Script:
    """Compose on the group board or in the private panel, tap by tap; a [T!] card first now and
    then (`t_card`)."""
    gid, rng, user = table.game_id, seat.rng, seat.user
    where = "panel" if private else "board"

    def surface(v: int) -> StoredMessage | None:
        return driver.panel(table, user, v) if private else driver.board(table, v)

    message = yield from wait_for(driver, lambda: surface(version), f"the {where} of version {version}", turn)
    board = driver.board(table, version)
    if board is not None:
        table.last_board = (board, f"k:{gid}:{version}:h:0")
    yield pace(rng, READ)
    prefix = f"k:{gid}:{version}:"
    hand = yield from read_hand(table, seat, message, prefix, private)
    target = target_of(message.text or "")
    t_keys = [d for _t, d in keys_of(message) if d.startswith(f"t:{gid}:{version}:")]
    if t_keys and rng.random() < T_CHANCE:
        played = yield from t_card(
            driver, table, seat, version, turn, private, message, rng.choice(t_keys), hand
        )
        if played is None:
            pass  # no [T!] card chosen in the end: the turn goes on as usual
        elif played[0] == "joker":
            return  # played with its sum
        else:
            _status, now_version, state = driver.game(gid)
            if (
                state is None
                or int(state["current"]) != table.seats.index(seat)
                or now_version != version + 1
            ):
                return  # the [T!] card ended the turn (or the game)
            version = now_version
            prefix = f"k:{gid}:{version}:"
            message = yield from wait_for(
                driver, lambda: surface(version), f"the {where} after a [T!] card", turn
            )
            yield pace(rng, STEP)
            hand = yield from read_hand(table, seat, message, prefix, private)
            target = target_of(message.text or "")
    yield from compose(driver, table, seat, version, message, hand, target, private, "")


def compose(
    driver: Driver,
    table: Table,
    seat: Seat,
    version: int,
    message: StoredMessage,
    hand: list[int],
    target: int,
    private: bool,
    joker: str,
) -> Script:
    """Tap a hand card and the table cards of a sum for `target` (a hand card to discard if there
    is none), then *Claim* (or *Discard*): always on the surface, no waiting for a key. `joker`:
    a Joker is chosen (its Claim plays both; the caller made sure a sum exists)."""
    gid, rng, user = table.game_id, seat.rng, seat.user
    where = "panel" if private else "board"
    prefix = f"k:{gid}:{version}:"

    def surface() -> StoredMessage:
        return (driver.panel(table, user, version) if private else driver.board(table, version)) or message

    keys = keys_of(message)
    hand_keys = [d for _t, d in keys if d.startswith(prefix + "h:")]
    table_keys = table_cards(keys, prefix)
    fits = len(hand) == len(hand_keys)
    choice = choose_sum(hand, [v for v, _d in table_keys], target, rng) if fits else None
    yield pace(rng, STEP)
    if choice is None:
        assert not joker, "a Joker is only kept with a sum"
        yield Tap(user, surface(), rng.choice(hand_keys), f"compose, {where}")
        final, kind = prefix + "d", f"discard, {where}"
    else:
        h, subset = choice
        yield Tap(user, surface(), hand_keys[h], f"compose, {where}")
        for position in subset:
            yield pace(rng, STEP)
            yield Tap(user, surface(), table_keys[position][1], f"compose, {where}")
        final, kind = prefix + "c", (f"claim a Joker and its sum, {where}" if joker else f"claim, {where}")
    yield pace(rng, STEP)
    answer = yield Tap(user, surface(), final, kind)
    if answer.text != "Done!":
        raise Stuck(f"{kind} refused: {answer.text!r}")


def t_card(
    driver: Driver,
    table: Table,
    seat: Seat,
    version: int,
    turn: TurnRecord,
    private: bool,
    message: StoredMessage,
    t_key: str,
    hand: list[int],
) -> Generator[Step, Any, tuple[str] | None]:
    """Choose a [T!] card with its key (one to three taps, each the next choice; the popup says
    which) and play it: ("joker",) when a Joker was played with its sum, ("card",) when a Thief,
    Shifter or Bomb was played by *Claim* (the turn goes on), None when no [T!] card is chosen in
    the end (tapped until "No [T!] card chosen.")."""
    gid, rng, user = table.game_id, seat.rng, seat.user
    where = "panel" if private else "board"
    prefix = f"k:{gid}:{version}:"
    taps = 0

    def surface() -> StoredMessage:
        return (driver.panel(table, user, version) if private else driver.board(table, version)) or message

    def choose() -> Generator[Step, Any, str]:
        nonlocal taps
        taps += 1
        yield pace(rng, STEP)
        answer = yield Tap(user, surface(), t_key, f"[T!] choice, {where}")
        if answer.show_alert:
            raise Stuck(f"[T!] key refused: {answer.text!r}")
        return str(answer.text or "")

    popup = ""
    for _ in range(rng.randint(*T_TAPS)):
        popup = yield from choose()
        if NO_T_CHOSEN in popup:
            return None
    joker = JOKER_TARGET.search(popup)
    if joker is None:  # a Thief, Shifter or Bomb: Claim plays it
        yield pace(rng, STEP)
        answer = yield Tap(user, surface(), prefix + "c", f"[T!] card played (Claim), {where}")
        if answer.show_alert or driver.game(gid)[1] == version:
            raise Stuck(f"[T!] card refused: {answer.text!r}")
        turn.t_card = True
        turn.t_board = not private
        return ("card",)
    keys = keys_of(surface())
    table_values = [v for v, _d in table_cards(keys, prefix)]
    fits = len(hand) == len([d for _t, d in keys if d.startswith(prefix + "h:")])
    if fits and choose_sum(hand, table_values, int(joker.group(1)), random.Random(0)) is not None:
        turn.t_card = True
        yield from compose(driver, table, seat, version, surface(), hand, int(joker.group(1)), private, "J")
        return ("joker",)
    while taps < T_TAPS_MAX:  # no sum for the Joker's target: back to no [T!] card
        popup = yield from choose()
        if NO_T_CHOSEN in popup:
            return None
    raise Stuck("the [T!] key never came back to no choice")


def read_hand(
    table: Table, seat: Seat, message: StoredMessage, prefix: str, private: bool
) -> Generator[Step, Any, list[int]]:
    if private:
        return [
            int(EMOJI_VALUE.search(t).group(2))  # type: ignore[union-attr]
            for t, d in keys_of(message)
            if d.startswith(prefix + "h:") and EMOJI_VALUE.search(t)
        ]
    popup = yield Tap(seat.user, message, f"h:{table.game_id}", "👀 My hand (popup)")
    yield pace(seat.rng, STEP)
    return [int(m.group(3)) for m in HAND_SLOT.finditer(popup.text or "")]


_ID = re.compile(r"g(\d+)v(\d+):(.+)")


def _codes(result_id: str) -> list[str]:
    match = _ID.fullmatch(result_id)
    return match.group(3).split(" ") if match else []


def inline_turn(driver: Driver, table: Table, seat: Seat, version: int, turn: TurnRecord) -> Script:
    """The 🎯 Play list and a pick; a [T!] card first now and then (then a second list)."""
    rng, user, gid = seat.rng, seat.user, table.game_id
    t_first = rng.random() < T_CHANCE
    board = yield from wait_for(
        driver, partial(driver.board, table, version), f"the board of version {version}", turn
    )
    table.last_board = (board, f"k:{gid}:{version}:h:0")
    for _attempt in range(3):
        # A [T!] card picked alone brings no board: the list is opened again from the same one.
        yield pace(rng, READ)
        play = next(
            (b for row in board.keyboard for b in row if "switch_inline_query_current_chat" in b), None
        )
        if play is None:
            raise Stuck("no 🎯 Play key on the board")
        answer: InlineAnswer = yield Query(user, table.group, play["switch_inline_query_current_chat"])
        results = [r for r in answer.results if _codes(r["id"])]
        cards = [r for r in results if _codes(r["id"])[-1][0] in "TFB"]
        sums = [r for r in results if _codes(r["id"])[-1][0] == "S"]
        discards = [r for r in results if _codes(r["id"])[-1][0] == "D"]
        yield pace(rng, STEP)
        if t_first and cards:
            t_first = False
            yield Pick(user, table.group, answer, rng.choice(cards)["id"])
            turn.t_card = True
            _status, _version, state = driver.game(gid)
            if state is None or int(state["current"]) != table.seats.index(seat):
                return
            continue
        choice = (sums[0] if rng.random() < 0.7 else rng.choice(sums)) if sums else discards[0]
        if _codes(choice["id"])[0].startswith("J"):
            turn.t_card = True  # a Joker with the sum
        yield Pick(user, table.group, answer, choice["id"])
        return
    raise Stuck("inline turn did not end")


# --------------------------------------------------------------------------------------------
# A bot to play with
# --------------------------------------------------------------------------------------------


class Bench:
    """A running bot (see the module docstring) with the ledger wired in."""

    def __init__(self, db_url: str, *, writes: bool = True, sql: bool = True, seed: int = 1) -> None:
        self.ledger = Ledger()
        self.sql = sql
        self.clock = ManualClock()
        self.fake = BenchTelegram(self.ledger, self.clock)
        counter = iter(range(1, 10**6))
        self._bot = running_bot(
            db_url, lambda: seed * 1_000_000 + next(counter), clock=self.clock, fake=self.fake
        )
        self.writes = writes
        self.rig: BotRig
        self.driver: Driver
        self._undo: Callable[[], None] = lambda: None

    async def __aenter__(self) -> Bench:
        self.rig = await self._bot.__aenter__()
        self.rig.tg._settle_timeout = 600.0
        self.driver = Driver(self.rig, self.ledger)
        if self.sql:
            self._undo = instrument(self.rig, self.ledger, writes=self.writes)
        return self

    async def __aexit__(self, *exc: object) -> None:
        self._undo()
        self.driver.close()
        # A 429 is a figure the scripts report (and a finding), not a reason to lose the run.
        self.rejections = list(self.fake.flood_rejections)
        self.fake.flood_ledger.rejections.clear()
        await self._bot.__aexit__(*exc)


def postgres_url() -> Iterator[str]:
    """A fresh PostgreSQL database (tests/pg.py), dropped afterwards."""
    from tests.pg import create_database, drop_database, unreachable_reason

    reason = unreachable_reason()
    if reason is not None:
        raise SystemExit(f"PostgreSQL: {reason}")
    name, url = create_database()
    try:
        yield url
    finally:
        drop_database(name)


async def quiet_minute(bench: Bench) -> None:
    """After the set-up: its burst of lobby writes leaves the budget window before play starts."""
    bench.ledger.idle()
    await bench.rig.tg.advance(61.0)


async def settle_outbox(bench: Bench, seconds: float = 120.0) -> None:
    """Let the senders finish what is still waiting for budget."""
    bench.ledger.idle()
    await bench.rig.tg.advance(seconds)
