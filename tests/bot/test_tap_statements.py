"""What a tap costs the database: the SQL statements of its one transaction, per kind of tap, on
SQLite and on PostgreSQL (issue 20: a handful per tap, no per-seat loops, nothing read twice).

Each figure below is the list of what that tap must do, and nothing more:

* every tap that acts is first recorded as applied, by its update's id (`store.once`: a second
  delivery of the same update changes nothing): **1**;
* the game's read: the game row with its chat's (locked on PostgreSQL), then its seats with
  their people and their drafts: **2** (the 👀 My hand popup is only these: it shows, and has
  nothing to record);
* a compose tap also saves the draft: **4** (its record is the tap's, which a key that toggles
  needs anyway); in a panel the panel shows the draft: one outbox statement, **5**;
* a move (a sum or a discard that ends the turn, no round end) reads the game, clears the drafts,
  looks up the live board (is it in the chat yet?), writes the game row (its version's
  compare-and-set) and the move, and queues everything the chats should show in one outbox
  statement (the next board, the keys off the old one, the mover's closed panel, the next
  player's panel): **8** with the record, from a panel or from the group board alike; a move
  that ends a round too (the summary is one more row of the same outbox statement, and the
  board it retires is the only one looked up: the next one is new);
* a key of a board that is no longer live is refused after the game's read, the live board
  looked up once (is the next one on its way? if not, is the tapped message the live one?) and
  the old message's keys (taken off already here: the senders finish between taps): **5** (one
  more when its keys still wait to be taken off: that row is looked for);
* the move that ends the game: the move's 8, less the board lookup's place taken by the stats:
  the game's moves read back for its TWEAKs and [T!] plays (this transaction's own written
  first) and one upsert of the people's counters: **10** (the seats are the ones read already,
  and the game row is still written once).

benchmarks/tap_cost.py measures the same over whole games (BENCHMARKS.md).
"""

from __future__ import annotations

import random
import threading
from collections import defaultdict
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from sqlalchemy import event

from tests.bot.conftest import BotRig, running_bot
from tests.bot.helpers import (
    board_of,
    current_game,
    next_turn,
    open_panel,
    open_private_chats,
    panel_of,
    start_game,
    state_of,
)
from tests.bot.players import Player, play_turn
from tests.fakes.telegram import CallbackAnswer, FakeUser, StoredMessage
from tests.pg import pg_url  # noqa: F401  (fixture)

TURNS = 60
HANDLERS = "tgbot.deps"  # where the handlers' transactions are started (Deps.run)
COMPOSE_OPS = ("h", "t", "x")

#: Statements per tap kind, as the module docstring counts them.
EXPECTED = {
    "hand popup": 2,
    "compose, board": 4,
    "compose, panel": 5,
    "move, board": 8,
    "move, panel": 8,
    "move ending a round": 8,
    "refused: an old board's key": 5,
}
GAME_END = 10


@pytest.fixture(params=["sqlite", "postgresql"])
async def any_rig(
    request: pytest.FixtureRequest, db_url: str, seeds: Callable[[], int]
) -> AsyncIterator[BotRig]:
    url = db_url if request.param == "sqlite" else request.getfixturevalue("pg_url")
    async with running_bot(url, seeds) as bot:
        yield bot


class StatementBooks:
    """The statements of every handler transaction, by the tap that ran it."""

    def __init__(self, rig: BotRig) -> None:
        self.rig = rig
        self.local = threading.local()
        self.transactions: list[tuple[str, list[str]]] = []
        self.by_kind: dict[str, list[int]] = defaultdict(list)
        db = rig.deps.db
        original = db._transaction

        def transaction(work: Any, *rest: Any) -> Any:
            statements: list[str] = []
            self.transactions.append((getattr(work, "__module__", "?"), statements))
            self.local.statements = statements
            try:
                return original(work, *rest)
            finally:
                self.local.statements = None

        def before(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
            found = getattr(self.local, "statements", None)
            if found is not None and not statement.lstrip().upper().startswith("BEGIN"):
                found.append(statement)

        db._transaction = transaction  # type: ignore[method-assign,assignment]
        event.listen(db.engine, "before_cursor_execute", before)
        tap_data = rig.tg.tap_data

        async def counted(
            user: FakeUser, message: StoredMessage, data: str | None, *, expect_answer: bool = True
        ) -> CallbackAnswer:
            first = len(self.transactions)
            before_tap = current_game(rig)
            answer = await tap_data(user, message, data, expect_answer=expect_answer)
            after_tap = current_game(rig)
            mine = [s for module, s in self.transactions[first:] if module == HANDLERS]
            assert len(mine) == 1, (data, [m for m, _ in self.transactions[first:]])
            kind = self.kind(data, message.chat_id > 0, before_tap, after_tap)
            if kind is not None:
                self.by_kind[kind].append(len(mine[0]))
                if len(mine[0]) != EXPECTED[kind]:
                    self.odd.append((kind, mine[0]))
            return answer

        self.odd: list[tuple[str, list[str]]] = []
        rig.tg.tap_data = counted  # type: ignore[method-assign]

    @staticmethod
    def kind(data: str | None, private: bool, before: Any, after: Any) -> str | None:
        """The tap's kind, or None for one this test does not pin (a lobby key, a move that ends
        the game or plays more than one move)."""
        where = "panel" if private else "board"
        parts = (data or "").split(":")
        if parts[0] == "h":
            return "hand popup"
        if parts[0] != "k" or len(parts) < 4:
            return None
        if parts[2] != str(before.version):
            return "refused: an old board's key" if not private else None
        if parts[3] in COMPOSE_OPS:
            return f"compose, {where}"
        if parts[3] in ("c", "d"):
            old, new = state_of(before), state_of(after)
            if after.version != before.version + 1 or new.is_over:
                return None
            if new.round != old.round:
                return "move ending a round"
            return f"move, {where}" if new.current != old.current else None
        return None


async def test_each_kind_of_tap_costs_its_handful_of_statements(any_rig: BotRig) -> None:
    """Two players compose in their panels and one on the group board, so a move is followed by
    the next player's panel, or the next board alone; every tap of a kind costs the same."""
    rig = any_rig
    fake, tg = rig.fake, rig.tg
    ana, ben, cai = fake.user(1, "Ana"), fake.user(2, "Ben"), fake.user(3, "Cai")
    await open_private_chats(rig, [ana, ben])
    group = fake.group("Friends")
    await tg.send(group, ana, "/newgame@tweak_test_bot")
    lobby = fake.last_message(group.id)
    for user in (ben, cai):
        await tg.tap(user, lobby, "✋ Join")
    await tg.tap(ana, lobby, "▶️ Start")
    game = current_game(rig, group.id)
    for user in (ana, ben):
        await open_panel(rig, user, board_of(rig, current_game(rig, group.id)))
    books = StatementBooks(rig)
    players = [Player(u, random.Random(70 + i), use_t_cards=False) for i, u in enumerate((ana, ben, cai))]
    for _turn in range(TURNS):
        turn = next_turn(rig, group.id, players)
        if turn is None:
            break
        game, board, player = turn
        seat = players.index(player)
        surface = panel_of(rig, game, seat, player.user) if player.user in (ana, ben) else board
        await play_turn(tg, fake, surface, player, private=player.user in (ana, ben))
        if current_game(rig, group.id).version > game.version:  # the board tapped is an old one now
            await tg.tap_data(player.user, board, f"k:{game.id}:{game.version}:h:0")

    assert set(books.by_kind) == set(EXPECTED), dict(books.by_kind)
    least = {"move, panel": 5, "move, board": 3, "move ending a round": 1}
    taps = {kind: len(books.by_kind[kind]) for kind in least}
    assert all(taps[kind] >= n for kind, n in least.items()), taps
    assert books.odd == [], books.odd


class GameEndBooks(StatementBooks):
    """Only the move that ends the game is pinned here."""

    @staticmethod
    def kind(data: str | None, private: bool, before: Any, after: Any) -> str | None:
        parts = (data or "").split(":")
        moved = len(parts) >= 4 and parts[0] == "k" and parts[3] in ("c", "d")
        return "game end" if moved and after.version > before.version and state_of(after).is_over else None


async def test_the_move_that_ends_the_game_costs_its_handful_too(
    any_rig: BotRig, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two people play a whole game on the board; the last move also writes the stats, without
    reading the seats again or writing the game row twice."""
    rig = any_rig
    monkeypatch.setitem(EXPECTED, "game end", GAME_END)
    fake, tg = rig.fake, rig.tg
    ana, ben = fake.user(1, "Ana"), fake.user(2, "Ben")
    group = fake.group("Friends")
    await start_game(rig, group, ana, [ben])
    books = GameEndBooks(rig)
    players = [Player(u, random.Random(80 + i), use_t_cards=False) for i, u in enumerate((ana, ben))]
    while (turn := next_turn(rig, group.id, players)) is not None:
        _game, board, player = turn
        await play_turn(tg, fake, board, player, private=False)
    assert current_game(rig, group.id).status == "finished"
    assert books.by_kind["game end"] == [GAME_END], (books.by_kind, books.odd)


async def test_a_sender_writes_its_chat_row_once_per_message(any_rig: BotRig) -> None:
    """Recording a message sent (the budget spent, the last message id, the shown surface, the row
    delivered) and taking the next one writes the chat's delivery row in one UPDATE."""
    rig = any_rig
    fake = rig.fake
    ana, ben = fake.user(1, "Ana"), fake.user(2, "Ben")
    group = fake.group("Friends")
    books = StatementBooks(rig)
    await start_game(rig, group, ana, [ben])
    players = [Player(u, random.Random(90 + i), use_t_cards=False) for i, u in enumerate((ana, ben))]
    for _turn in range(6):
        turn = next_turn(rig, group.id, players)
        assert turn is not None
        _game, board, player = turn
        await play_turn(rig.tg, fake, board, player, private=False)
    recorded = [
        statements
        for module, statements in books.transactions
        if module == "tgbot.delivery.sender" and any(s.startswith("DELETE FROM outbox") for s in statements)
    ]
    assert len(recorded) >= 6
    chat_writes = [sum(s.startswith("UPDATE delivery_chats") for s in statements) for statements in recorded]
    assert set(chat_writes) == {1}, chat_writes
    # The next row comes with the message that shows its surface: no look of its own for it.
    senders = [statements for module, statements in books.transactions if module == "tgbot.delivery.sender"]
    assert not [s for statements in senders for s in statements if s.startswith("SELECT shown_messages")]
    # A board that starts its turn's clock reads the game with its chat (the quiet hours) in one
    # statement, and writes the clock in one.
    started = [statements for statements in recorded if any(s.startswith("UPDATE games") for s in statements)]
    assert len(started) >= 6
    for statements in started:
        reads = [s for s in statements if s.startswith("SELECT") and (" games" in s or " chats" in s)]
        assert len(reads) == 1 and "JOIN chats" in reads[0], reads
        assert sum(s.startswith("UPDATE games") for s in statements) == 1, statements
