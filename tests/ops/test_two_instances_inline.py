"""Two bot instances on one PostgreSQL database, playing games in chats the bot is not in
(inline mode, `tgbot.services.inline_table`): every post is played at most once, and each chat
keeps one live board.

Two real Applications, each in its own thread, on one database and one fake Telegram
(`tests/ops/instances.py`). Three tables: a private chat between two friends of whom one never
started the bot, a group without the bot with a computer seat, and a second such group of three
people. Every update a chat sends — the posted lobby's chosen result (twice), every tap on the
lobby's keys (an inline message's: its id, no message; Join and Start tapped twice), every turn's
posted pick — goes to both instances at once; an inline query goes to one of them (it is
answerable once), and so does 🤖 Add computer (not a move: no version guards it). The tables
move together: all their updates of a step go out at the same time. A step is one of these:

* a plain pick;
* the same chosen result delivered again once it was handled (a webhook retried late);
* two moves posted from one list in a row (one plays, the other is stale);
* with this turn's pick, another move of the mover's list of their last turn ("old"), or the very
  move that played from it posted again ("repost"): a message of its own, which plays nothing;
* 👀 My hand tapped twice before the pick (popups only).

After every step the moves it logged are exactly one of its picks (then the computers'), the
game's only message with keys is its live board (🎯 Play, or 🔁 Rematch once it is over) and
only posts that played nothing come after it, each saying so, without keys. At the end each
posted lobby made one game, played to its end; every move log is 1..version with no gap or
duplicate and replays from the seed to the stored state; each chat alone re-adds to its round
summaries and standings, and shows each logged sum and discard once.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from sqlmodel import Session, col, select

from tests.bot.helpers import state_of
from tests.bot.test_inline_table import PLAY, transcript_entries, via_bot
from tests.bot.test_record_readds import reading
from tests.fakes.telegram import FakeChat, FakeUser, InlineAnswer, StoredMessage
from tests.ops.instances import (
    STEP_TIMEOUT,
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
from tests.pg import fresh_database
from tgbot import migrations
from tgbot.game_settings import GameSettings
from tgbot.inline_data import PickedMoves
from tgbot.store.db import make_engine
from tgbot.store.models import FINISHED, PLAYING, Game, GamePlayer, Move

HAND = "👀 My hand"
STALE = "that pick came from an old list: nothing was played"
#: What each table does turn after turn (a step that cannot be done, e.g. no list of an earlier
#: turn yet, is a plain pick).
SCHEDULE = ("plain", "race", "hand", "again", "old", "repost", "race", "plain")
MAX_STEPS = 200
#: Each kind of step must have been played this often, over all tables.
AT_LEAST = 3


@dataclass
class Table:
    label: str
    chat: FakeChat
    people: list[FakeUser]
    computers: int = 0
    game_id: int = 0
    steps: int = 0
    #: Posts that played nothing (each must say so).
    refused: int = 0
    #: Per person, the list of their last turn and the move that played from it.
    kept: dict[int, tuple[InlineAnswer, str]] = field(default_factory=dict)


@dataclass
class Step:
    """One table's updates of a step, and what they may do."""

    table: Table
    kind: str
    version: int
    updates: list[dict[str, Any]]
    mover: FakeUser
    listed: InlineAnswer
    #: The moves posted this step from this turn's list, exactly one of which must play.
    posted: list[str]
    refused: int = 0
    again: list[dict[str, Any]] = field(default_factory=list)


class Players:
    """The people of every table, at their apps: what they type, post and tap becomes updates."""

    def __init__(self, fake: SharedFake, instances: list[Instance]) -> None:
        self.fake = fake
        self.both = Both(fake, instances)
        self.db = instances[0].deps.db.engine
        self.one = itertools.cycle(instances)

    async def ask(self, user: FakeUser, chat: FakeChat, query: str = "") -> InlineAnswer:
        """`user` types "@bot `query`" in `chat`: one instance answers (a query is answerable once)."""
        with self.fake.lock:
            update = self.fake.inline_query_update(user, query, chat=chat)
        instance = next(self.one)
        await all_done([instance.submit(instance.tg.process(update))])
        with self.fake.lock:
            answer = self.fake.inline_answer(update["inline_query"]["id"])
        assert answer.answered, query
        return answer

    def post(
        self, user: FakeUser, chat: FakeChat, answer: InlineAnswer, result_id: str
    ) -> list[dict[str, Any]]:
        """`user` posts a result of `answer`: the updates Telegram sends (the chosen result)."""
        with self.fake.lock:
            return self.fake.pick_inline_result(user, chat, answer, result_id)

    def taps(self, user: FakeUser, message: StoredMessage, text: str, times: int = 1) -> list[dict[str, Any]]:
        """`user` taps the key `text` on `message` as it is now, `times` times."""
        with self.fake.lock:
            found = [b["callback_data"] for row in message.keyboard for b in row if b["text"] == text]
            assert found, (text, message.buttons)
            return [self.fake.callback_update(user, message, found[0]) for _ in range(times)]

    async def to_one(self, updates: list[dict[str, Any]]) -> None:
        """Updates that are not guarded against a second delivery (adding a computer is not a
        move: no version guards it), to one instance."""
        instance = next(self.one)
        for update in updates:
            await all_done([instance.submit(instance.tg.process(update))])
        await until_delivered(instance)

    def game(self, table: Table) -> Game:
        with Session(self.db) as session:
            game = session.get(Game, table.game_id)
            assert game is not None
            return game

    def seats(self, table: Table) -> list[GamePlayer]:
        with Session(self.db) as session:
            query = (
                select(GamePlayer).where(GamePlayer.game_id == table.game_id).order_by(col(GamePlayer.seat))
            )
            return list(session.exec(query).all())

    def moves_after(self, table: Table, version: int) -> list[Move]:
        with Session(self.db) as session:
            query = (
                select(Move).where(Move.game_id == table.game_id, Move.seq > version).order_by(col(Move.seq))
            )
            return list(session.exec(query).all())

    async def settled(self, table: Table) -> Game:
        """The game once the computers after a person's move have played (after the commit, on
        whichever instance committed it) and everything said is in the chat."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + STEP_TIMEOUT
        while True:
            game = self.game(table)
            if game.status != PLAYING or self.seats(table)[state_of(game).current].ai_level is None:
                break
            assert loop.time() < deadline, f"{table.label}: the computer never moved"
            await asyncio.sleep(0.05)
        await until_delivered(self.both.instances[0])
        return self.game(table)

    def mover(self, table: Table, game: Game) -> FakeUser:
        user_id = self.seats(table)[state_of(game).current].user_id
        return next(p for p in table.people if p.id == user_id)

    def messages(self, table: Table) -> list[StoredMessage]:
        with self.fake.lock:
            return via_bot(self.fake, table.chat)

    def live(self, table: Table) -> StoredMessage:
        game = self.game(table)
        assert game.inline_id is not None
        with self.fake.lock:
            return self.fake.inline_message(game.inline_id)


async def open_table(players: Players, table: Table) -> None:
    """The lobby posted from the inline list (its chosen result to both instances, and again),
    joined (each tap twice), set to a goal of 20 and started (twice)."""
    both, creator = players.both, table.people[0]
    before = len(games_of(both.instances[0]))
    listed = await players.ask(creator, table.chat)
    assert listed.titles[0] == "🎴 New game here"
    chosen = players.post(creator, table.chat, listed, "new")
    await both.process_all(chosen)
    await both.process_all(chosen)  # Telegram delivers it again
    lobby = players.messages(table)[-1]
    made = games_of(both.instances[0])
    # One game for the posted message, though each instance got its chosen result twice.
    assert len(made) == before + 1 and [g.inline_id for g in made].count(lobby.inline_message_id) == 1
    table.game_id = made[-1].id or 0
    for person in table.people[1:]:
        await both.process_all(players.taps(person, lobby, "✋ Join", times=2))
    for _ in range(table.computers):
        await players.to_one(players.taps(creator, lobby, "🤖 Add computer"))
    await both.process_all(players.taps(creator, lobby, "⚙️ Settings"))
    for _ in range(6):  # (each delivered twice: past the lowest goal either way)
        await both.process_all(players.taps(creator, lobby, "Goal −20"))
    await both.process_all(players.taps(creator, lobby, "💡 Hints on"))
    await both.process_all(players.taps(creator, lobby, "↩️ Back"))
    await both.process_all(players.taps(creator, lobby, "▶️ Start", times=2))
    game = await players.settled(table)
    assert game.status == PLAYING and game.inline_id == lobby.inline_message_id
    assert len(players.seats(table)) == len(table.people) + table.computers
    assert GameSettings.from_json(game.settings).threshold(len(players.seats(table))) == 20


def moves_of(answer: InlineAnswer) -> list[str]:
    return [rid for rid in answer.result_ids if PickedMoves.read(rid) is not None]


def codes(result_id: str) -> tuple[str, ...]:
    picked = PickedMoves.read(result_id)
    assert picked is not None
    return picked.codes


async def prepare(players: Players, table: Table) -> Step | None:
    """The table's next step, its posts made (None: the game is over)."""
    game = players.game(table)
    if game.status != PLAYING:
        return None
    kind = SCHEDULE[table.steps % len(SCHEDULE)]
    table.steps += 1
    mover = players.mover(table, game)
    board = players.live(table)
    kept = table.kept.get(mover.id)
    if kind in ("old", "repost") and kept is None:
        kind = "plain"
    updates = players.taps(mover, board, HAND, times=2) if kind == "hand" else []
    with players.fake.lock:
        query = next(
            b["switch_inline_query_current_chat"] for row in board.keyboard for b in row if b["text"] == PLAY
        )
    listed = await players.ask(mover, table.chat, query)
    offered = moves_of(listed)
    assert offered, listed.titles
    if kind == "race" and len(offered) < 2:
        kind = "plain"
    step = Step(table, kind, game.version, updates, mover, listed, offered[: 2 if kind == "race" else 1])
    if kind in ("old", "repost"):
        # From the list of their last turn, still open in their app: another move of it, or the
        # very move that played from it, posted again (a message of its own). Neither plays.
        assert kept is not None
        old, played = kept
        other = next((r for r in moves_of(old) if r != played), played)
        step.updates += players.post(mover, table.chat, old, played if kind == "repost" else other)
        step.refused += 1
    for result_id in step.posted:  # (two in a race: one plays, the other is stale)
        step.updates += players.post(mover, table.chat, listed, result_id)
    step.refused += len(step.posted) - 1
    if kind == "again":
        step.again = step.updates[:]
    return step


async def check(players: Players, step: Step) -> None:
    """After a step: exactly one of its picks played, once; one live board; refusals said."""
    table = step.table
    game = await players.settled(table)
    new = players.moves_after(table, step.version)
    person = tuple(m.code for m in new if m.source == "player")
    played = [r for r in step.posted if codes(r) == person]
    assert played, (table.label, step.kind, person, step.posted)
    assert [m.source for m in new[len(person) :]] == ["ai"] * (len(new) - len(person)), table.label
    table.kept[step.mover.id] = (step.listed, played[0])
    table.refused += step.refused
    messages = players.messages(table)
    said = [m for m in messages if STALE in m.content]
    assert len(said) == table.refused, (table.label, step.kind, len(said), table.refused)
    assert [m.buttons for m in said if m.buttons] == []
    # The game's one message with keys is its live board; older game messages have none, and
    # only posts that played nothing may come after it.
    keyed = [m for m in messages if m.buttons]
    assert [m.inline_message_id for m in keyed] == [game.inline_id], (table.label, step.kind)
    live = keyed[0]
    assert all(STALE in m.content for m in messages[messages.index(live) + 1 :]), table.label
    expected = ["🔁 Rematch"] if game.status == FINISHED else [PLAY, HAND]
    assert [t for t, _d in live.buttons] == expected, (table.label, live.buttons)


@pytest.fixture
def database() -> Iterator[str]:
    with fresh_database() as url:
        yield url


async def test_two_instances_play_each_inline_post_once(
    database: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.ERROR)
    migrations.upgrade(database)
    fake = SharedFake(inline_mode=True, inline_feedback=True)
    _clock, instances = start_pair(database, fake, 3000)
    players = Players(fake, instances)
    done: dict[str, int] = dict.fromkeys(SCHEDULE, 0)
    try:
        ana, ben = fake.user(1, "Ana"), fake.user(2, "Ben")
        cy, dan, eve = fake.user(3, "Cy"), fake.user(4, "Dan"), fake.user(5, "Eve")
        fay, gus, hal = fake.user(6, "Fay"), fake.user(7, "Gus"), fake.user(8, "Hal")
        for person in (ana, dan):  # Ben never started the bot; nor did anyone of the third table
            with fake.lock:
                start = fake.command_update(fake.private(person), person, "/start")
            await players.to_one([start])
        tables = [
            Table("friends", fake.private_between(ana, ben), [ana, ben]),
            Table("club", fake.group("Club", with_bot=False), [cy, dan, eve], computers=1),
            Table("trio", fake.group("Trio", with_bot=False), [fay, gus, hal]),
        ]
        for table in tables:
            await open_table(players, table)

        for _ in range(MAX_STEPS):
            steps = [s for s in [await prepare(players, t) for t in tables] if s is not None]
            if not steps:
                break
            # Every table's posts and taps of this step, to both instances at once.
            await players.both.process_all([u for s in steps for u in s.updates])
            again = [u for s in steps for u in s.again]
            if again:
                await players.both.process_all(again)
            for step in steps:
                await check(players, step)
                done[step.kind] += 1
        else:
            raise AssertionError("the games did not end")
    finally:
        for instance in instances:
            instance.stop()

    assert_nothing_failed(instances, caplog)
    assert all(n >= AT_LEAST for n in done.values()), done

    db = make_engine(database)
    try:
        with Session(db) as session:
            games = list(session.exec(select(Game).order_by(col(Game.id))).all())
            # A game per posted lobby, every one played to its end.
            assert [g.id for g in games] == [t.game_id for t in tables]
            assert [g.status for g in games] == [FINISHED] * len(tables)
            for table, game in zip(tables, games, strict=True):
                moves = verified_moves(session, game)
                with fake.lock:
                    record, problems = reading(transcript_entries(fake, table.chat))
                assert problems == [], (table.label, problems)
                assert record.standings is not None and record.summaries, table.label
                # Each logged sum and discard is in the chat once.
                shown = sum(1 for m in record.moves if m.kind in ("sum", "discard", "idle"))
                assert shown == sum(count_main_events(m) for m in moves), table.label
    finally:
        db.dispose()
