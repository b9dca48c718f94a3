"""Two bot instances on one PostgreSQL database (DESIGN §5, §8): every move applied exactly once.

Two real Applications, each in its own thread, on one database and one fake Telegram
(`tests/ops/instances.py`). Every tap is delivered to both instances at the same time, and both
sweeps run at once, also while final taps (Claim/Discard) race them. Afterwards, for every game:
the move log is 1..version with no gap and no duplicate, replaying it from the seed gives exactly
the stored state, and each move tap that was not raced by a sweep was applied once.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import random
import re
from collections.abc import Iterator
from concurrent.futures import Future
from datetime import timedelta
from typing import Any

import pytest
from sqlmodel import Session, select

from engine import GameState
from tests.bot.helpers import board_id, lobby_id
from tests.bot.players import Player, play_turn, to_move
from tests.fakes.telegram import CallbackAnswer, FakeChat, FakeUser, StoredMessage
from tests.ops.instances import (
    Both,
    Instance,
    SharedFake,
    all_done,
    assert_nothing_failed,
    count_main_events,
    games_of,
    start_pair,
    until_delivered,
    verified_moves,
)
from tests.pg import create_database, drop_database
from tgbot import callbacks as cb
from tgbot import jobs, metrics, migrations
from tgbot.jobs import run_sweep
from tgbot.store.db import AfterCommit, make_engine
from tgbot.store.models import PLAYING, Game
from tgbot.turn_clock import AUTOPLAY_TAKEOVER

GAMES = 12  # all swept by both instances
TAPPED = 6  # of which these also get taps
RACE_ROUNDS = 3


class Tapping(Both):
    """`Both` as the scripted players tap a group's keys (`tests.bot.players`), recording the
    keys that end a turn, and holding them back while asked to, to race them against the sweeps."""

    def __init__(self, fake: SharedFake, instances: list[Instance]) -> None:
        super().__init__(fake, instances)
        #: Final keys (Claim/Discard) held back while `holding`, to race them against the sweeps.
        self.holding = False
        self.held: list[tuple[dict[str, Any], int, int, str]] = []  # (update, game, version, code)
        #: Final taps (claim "c" or discard "d") delivered while no sweep ran: (game, version, op).
        self.delivered: list[tuple[int, int, str]] = []

    async def tap(
        self, user: FakeUser, message: StoredMessage, button: Any, expect_answer: bool = True
    ) -> CallbackAnswer:
        with self.fake.lock:
            keys = [b for row in message.keyboard for b in row if "callback_data" in b]

        def matches(b: dict[str, Any]) -> bool:
            if isinstance(button, str):
                return bool(b["text"] == button)
            if isinstance(button, re.Pattern):
                return button.search(b["text"]) is not None
            return bool(button(b["text"], b["callback_data"]))

        found = [b for b in keys if matches(b)]
        assert found, (button, [b["text"] for b in keys])
        data = found[0]["callback_data"]
        with self.fake.lock:
            update = self.fake.callback_update(user, message, data)
        query_id = update["callback_query"]["id"]
        # The keys that end the turn ([T!] cards do not).
        for kind, op in ((cb.Claim, "c"), (cb.Discard, "d")):
            if kind.PATTERN.fullmatch(data):
                key = kind.parse(data)
                move = (key.game_id, key.version, op)
                if self.holding:
                    self.held.append((update, *move))
                    return CallbackAnswer(query_id, user.id, message.chat_id, message.message_id, data)
                self.delivered.append(move)
        await self.process(update)
        return self.fake.answers[query_id]


MOVE_LINE = re.compile(r"^(?:⏰ |🤖 |💤 |🚪 )?.+(?: = \d+(?: · |$)| discards .+| was idle: .+)", re.MULTILINE)


def count_move_lines(text: str) -> int:
    """Lines of a group message that report a sum or a discard."""
    return len(MOVE_LINE.findall(text))


@pytest.fixture
def pg_database() -> Iterator[str]:
    name, url = create_database()
    try:
        yield url
    finally:
        drop_database(name)


async def test_two_instances_apply_every_move_exactly_once(
    pg_database: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.ERROR)
    migrations.upgrade(pg_database)
    metrics.enable()  # as a webhook instance does (these instances serve no HTTP themselves)
    moves_counted = metrics.total("tweakbot_moves_applied_total")
    fake = SharedFake()
    clock, instances = start_pair(pg_database, fake, 7000)
    both = Tapping(fake, instances)
    rng = random.Random(5)
    try:
        tables: list[tuple[FakeChat, list[Player]]] = []
        for n in range(GAMES):
            group = fake.group(f"Table {n}")
            users = [fake.user(100 * n + k + 1, f"P{n}x{k}") for k in range(2 + n % 2)]
            players = [Player(u, random.Random(n * 10 + k)) for k, u in enumerate(users)]
            await both.send(group, users[0], "/newgame@tweak_test_bot")
            # (the other bot answers "a game is already running here": only one lobby exists)
            created = [g for g in games_of(instances[0]) if g.chat_id == group.id]
            lobby_message = lobby_id(instances[0].deps.db.engine, created[0]) if len(created) == 1 else None
            assert lobby_message is not None
            lobby = fake.message(group.id, lobby_message)
            for user in users[1:]:
                await both.tap(user, lobby, "✋ Join")
            await both.tap(users[0], lobby, "▶️ Start")
            tables.append((group, players))
        games = games_of(instances[0])
        assert len(games) == GAMES and all(g.status == PLAYING for g in games)

        async def turn(group: FakeChat, players: list[Player]) -> None:
            game = next(g for g in games_of(instances[0]) if g.chat_id == group.id)
            live = board_id(instances[0].deps.db.engine, game)
            if game.status != PLAYING or live is None:
                return
            with fake.lock:
                board = fake.message(group.id, live)
            player = to_move(board.text, players)
            if player is not None:
                await play_turn(both, fake, board, player, private=False)  # type: ignore[arg-type]

        for _round in range(RACE_ROUNDS):
            # Ordinary turns: every tap (compose keys, Claim/Discard, [T!]) goes to both bots.
            for group, players in tables[:TAPPED]:
                await turn(group, players)
            # The race: compose a move everywhere but hold back its final key; let the turn time
            # run out; then fire the final keys to both bots while both sweeps run.
            both.holding = True
            for group, players in tables[:TAPPED]:
                if rng.random() < 0.8:
                    await turn(group, players)
            both.holding = False
            clock.advance(rng.choice([timedelta(days=3), timedelta(0)]))
            futures: list[Future[Any]] = []
            for update, *_move in both.held:
                futures += both.futures(update)
            futures += [i.submit(run_sweep(i.deps)) for i in instances]
            await all_done(futures)
            both.held.clear()
        await until_delivered(instances[0])
        final_boards = {g.id: board_id(instances[0].deps.db.engine, g) for g in games_of(instances[0])}
    finally:
        for instance in instances:
            instance.stop()

    # Nothing went wrong anywhere: no unhandled error in a handler, no failed sweep.
    assert_nothing_failed(instances, caplog)

    db = make_engine(pg_database)
    try:
        with Session(db) as session:
            total = 0
            final = {}
            for game in session.exec(select(Game)).all():
                moves = verified_moves(session, game)
                total += len(moves) - 1
                final[game.id] = {m.seq: m for m in moves}
            # Each final tap delivered while no sweep ran was applied, once, as that player's move.
            for game_id, version, op in both.delivered:
                applied = final[game_id].get(version + 1)
                assert applied is not None and applied.source == "player", (game_id, version, op)
                assert applied.code[0] == ("S" if op == "c" else "D"), (game_id, version, op, applied.code)
            # Each group shows exactly one live board (the game's), and every move's line.
            for group, _players in tables:
                game = next(g for g in session.exec(select(Game)).all() if g.chat_id == group.id)
                assert game.id is not None
                live = [
                    m.message_id
                    for m in fake.messages(group.id)
                    if any((d or "").startswith("k:") for _t, d in m.buttons)
                ]
                expected = [final_boards[game.id]] if game.status == PLAYING else []
                assert live == expected, (game.id, live, expected)
                shown_lines = sum(
                    count_move_lines(m.text or "") for m in fake.messages(group.id) if m.from_bot
                )
                logged = sum(count_main_events(m) for m in final[game.id].values())
                assert shown_lines == logged, (game.id, shown_lines, logged)
            assert total >= GAMES * RACE_ROUNDS
            # The moves metric agrees: each move was committed once (start moves are not moves).
            assert metrics.total("tweakbot_moves_applied_total") - moves_counted == total
    finally:
        db.dispose()


# --- computers after the commit ---------------------------------------------------------------

COMPUTER_TABLES = 4
COMPUTER_ROUNDS = 3


class Forgetful:
    """An instance's after-commit work, which can lose the turns the bot plays at once that its
    commits leave to it: the instance dies right after such a commit, as far as they know."""

    def __init__(self, instance: Instance) -> None:
        self.original = instance.deps.db.on_commit
        self.losing = False
        self.lost: dict[int, int] = {}
        instance.deps.db.on_commit = self

    def __call__(self, notes: AfterCommit) -> None:
        assert self.original is not None
        if self.losing and notes.autoplay:
            self.lost.update(notes.autoplay)
            notes = dataclasses.replace(notes, autoplay={})
        self.original(notes)


async def race_computers(instance: Instance, due: dict[int, int]) -> None:
    """This instance plays the turns the bot owes in `due`, as a commit of its own would ask."""
    jobs.autoplay(instance.app, instance.deps, due)
    playing = list(instance.deps.autoplaying.tasks.values())
    if playing:
        await asyncio.wait(playing)


async def test_two_instances_play_each_computer_move_once_after_a_lost_commit(
    pg_database: str, caplog: pytest.LogCaptureFixture
) -> None:
    """A person and three Hard computers at each table; every update goes to both instances. Each
    person's move commits, and the instance that committed it dies before playing the computers
    after it (what the commit asked of the process is lost). With those turns past their wake-up,
    both instances' sweeps and both instances' turn-players go at once, on every game: each
    computer move is applied exactly once (the log is 1..version and replays to the stored state,
    each move's line is in the group once), and each table is back at its person's turn."""
    caplog.set_level(logging.ERROR)
    migrations.upgrade(pg_database)
    fake = SharedFake()
    clock, instances = start_pair(pg_database, fake, 9000)
    forgetful = [Forgetful(i) for i in instances]
    both = Tapping(fake, instances)
    first = instances[0]
    try:
        tables: list[tuple[FakeChat, Player]] = []
        for n in range(COMPUTER_TABLES):
            group = fake.group(f"Computers {n}")
            user = fake.user(5000 + n, f"Solo{n}")
            await both.send(group, user, "/newgame@tweak_test_bot")
            created = [g for g in games_of(first) if g.chat_id == group.id]
            lobby = fake.message(group.id, lobby_id(first.deps.db.engine, created[0]) or 0)
            # the lobby's keys on one instance (adding a computer is not a move: no version guards it)
            for key in ("⚙️ Settings", "🤖 Hard", "🤖 Hard", "🤖 Hard", "↩️ Back", "▶️ Start"):
                await all_done([first.submit(first.tg.tap(user, lobby, key))])
            await until_delivered(first)
            tables.append((group, Player(user, random.Random(n))))
        games = games_of(first)
        assert len(games) == COMPUTER_TABLES and all(g.status == PLAYING for g in games)

        for _round in range(COMPUTER_ROUNDS):
            for f in forgetful:
                f.losing = True
            for group, player in tables:
                game = next(g for g in games_of(first) if g.chat_id == group.id)
                live = board_id(first.deps.db.engine, game)
                if game.status != PLAYING or live is None:
                    continue
                with fake.lock:
                    board = fake.message(group.id, live)
                assert to_move(board.text, [player]) is player, board.text
                await play_turn(both, fake, board, player, private=False)  # type: ignore[arg-type]
            for f in forgetful:
                f.losing = False
            due = {gid: v for f in forgetful for gid, v in f.lost.items()}
            for f in forgetful:
                f.lost.clear()
            running = [g for g in games_of(first) if g.status == PLAYING]
            assert {g.id for g in running} <= set(due), "every person's move left the computers due"
            clock.advance(AUTOPLAY_TAKEOVER)
            futures: list[Future[Any]] = [i.submit(run_sweep(i.deps)) for i in instances]
            futures += [i.submit(race_computers(i, due)) for i in instances]
            await all_done(futures)
            await until_delivered(first)
            for game in games_of(first):
                if game.status == PLAYING:
                    assert game.state is not None
                    assert GameState.from_json(json.loads(game.state)).current == 0, "the person's turn"
    finally:
        for instance in instances:
            instance.stop()

    assert_nothing_failed(instances, caplog)
    db = make_engine(pg_database)
    try:
        with Session(db) as session:
            computer_moves = 0
            for game in session.exec(select(Game)).all():
                moves = verified_moves(session, game)
                computer_moves += sum(1 for m in moves if m.source == "ai")
                group = next(g for g, _p in tables if g.id == game.chat_id)
                shown = sum(count_move_lines(m.text or "") for m in fake.messages(group.id) if m.from_bot)
                assert shown == sum(count_main_events(m) for m in moves), game.id
            assert computer_moves >= COMPUTER_TABLES * COMPUTER_ROUNDS * 3
    finally:
        db.dispose()
