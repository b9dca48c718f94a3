"""A game in a chat the bot is not in, through inline mode: a private chat between two friends,
a group without the bot.

There the bot can post nothing: every game message is one a person posted from its inline list
(the lobby, each turn's pick, the board brought back), which the bot then edits. These tests
play through the fake Telegram, which refuses the bot any message into such a chat, answers
taps there without the message (only its inline id and `chat_instance`), and keeps the chat's
transcript as its people read it; they re-add the scores from that transcript alone.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass

import pytest
from sqlmodel import Session, col, select

from engine.actions import decode
from tests.bot.conftest import BotRig, running_bot
from tests.bot.helpers import drain, game_row, open_private_chats, players_of, state_of
from tests.bot.test_record_readds import Entry, reading
from tests.fakes.flood import FloodLimits
from tests.fakes.telegram import FakeChat, FakeTelegram, FakeUser, StoredMessage
from tests.fakes.timer import VirtualTimer
from tgbot.clock import ManualClock
from tgbot.render.inline_table import DIVIDER
from tgbot.store.models import FINISHED, Game
from tgbot.tables import TableKind

PLAY, HAND = "🎯 Play", "👀 My hand"
MAX_TURNS = 300


def inline_fake(feedback: bool = True) -> FakeTelegram:
    clock = ManualClock()
    return FakeTelegram(
        clock=clock.now, timer=VirtualTimer(), flood=FloodLimits(), inline_mode=True, inline_feedback=feedback
    )


@pytest.fixture
async def rig(db_url: str, seeds: Callable[[], int]) -> AsyncIterator[BotRig]:
    async with running_bot(db_url, seeds, fake=inline_fake()) as bot:
        yield bot


def games(rig: BotRig) -> list[Game]:
    with Session(rig.deps.db.engine) as session:
        return list(session.exec(select(Game).order_by(col(Game.id))).all())


def via_bot(fake: FakeTelegram, chat: FakeChat) -> list[StoredMessage]:
    return [m for m in fake.transcript(chat) if m.via_bot is not None]


def transcript_entries(fake: FakeTelegram, chat: FakeChat) -> list[Entry]:
    """The chat as its people read it: each game message (a person's post the bot has edited) in
    its parts — what a group would have read as messages of their own (`DIVIDER`)."""
    entries: list[Entry] = []
    for message in fake.transcript(chat):
        if message.via_bot is None:
            entries.append(Entry(message.content, by_bot=False))
            continue
        for part in message.content.split(f"\n{DIVIDER}\n"):
            entries.append(Entry(part))
    return entries


@dataclass
class Table:
    """A table in a chat the bot is not in, driven as its people would."""

    rig: BotRig
    chat: FakeChat
    people: list[FakeUser]

    @property
    def fake(self) -> FakeTelegram:
        return self.rig.fake

    def live(self) -> StoredMessage:
        """The newest game message: the live board."""
        return via_bot(self.fake, self.chat)[-1]

    async def post_lobby(self, creator: FakeUser) -> StoredMessage:
        listed = await self.rig.tg.inline_query(creator, "", chat=self.chat)
        assert listed.titles[0] == "🎴 New game here"
        await self.rig.tg.pick(creator, self.chat, listed, "new")
        await drain(self.rig)
        return self.live()

    async def lobby_to_start(self, creator: FakeUser, goal_down: int = 6, hints: bool = True) -> Game:
        lobby = self.live()
        for person in self.people:
            if person is not creator:
                await self.rig.tg.tap(person, lobby, "✋ Join")
        await self.rig.tg.tap(creator, lobby, "⚙️ Settings")
        await drain(self.rig)
        for _ in range(goal_down):
            await self.rig.tg.tap(creator, lobby, "Goal −20")
        if hints:
            await self.rig.tg.tap(creator, lobby, "💡 Hints on")
        await self.rig.tg.tap(creator, lobby, "↩️ Back")
        await self.rig.tg.tap(creator, lobby, "▶️ Start")
        await drain(self.rig)
        (game,) = [g for g in games(self.rig) if g.status != "cancelled"]
        return game

    async def play_turn(self, game_id: int) -> None:
        """The player to move opens 🎯 Play on the live board and posts the first move listed."""
        game = game_row(self.rig, game_id)
        state = state_of(game)
        mover = next(p for p in self.people if p.id == _user_of(self.rig, game_id, state.current))
        answer = await self.rig.tg.tap_switch_inline(mover, self.live(), PLAY)
        move = next(rid for rid in answer.result_ids if not rid.startswith(("info:", "board:")))
        for code in move.split(":", 1)[1].split(" "):
            decode(code)  # a move, as the engine writes it
        await self.rig.tg.pick(mover, self.chat, answer, move)
        await drain(self.rig)


def _user_of(rig: BotRig, game_id: int, seat: int) -> int:
    user_id = players_of(rig, game_id)[seat].user_id
    assert user_id is not None
    return user_id


async def play_out(table: Table, game_id: int) -> int:
    """Turns until the game is over; how many were played."""
    for turn in range(MAX_TURNS):
        if game_row(table.rig, game_id).status == FINISHED:
            return turn
        await table.play_turn(game_id)
    raise AssertionError("the game did not end")


async def test_two_friends_play_a_whole_game_in_their_own_chat(rig: BotRig) -> None:
    fake, tg = rig.fake, rig.tg
    ana, ben = fake.user(1, "Ana"), fake.user(2, "Ben")
    await open_private_chats(rig, [ana])  # Ben never started the bot
    chat = fake.private_between(ana, ben)
    table = Table(rig, chat, [ana, ben])

    await table.post_lobby(ana)
    lobby = table.live()
    assert "Players (1/6)" in lobby.content and "✋ Join" in [t for t, _d in lobby.buttons]
    game = await table.lobby_to_start(ana)
    assert TableKind.of_chat(game.chat_id) is TableKind.INLINE
    assert game.chat_instance == fake.chat_instance(chat.id)
    posts_before = len(via_bot(fake, chat))

    turns = await play_out(table, game.id or 0)

    # The bot never wrote into the chat: every message there is a person's, via the bot.
    assert all(m.via_bot is not None for m in fake.transcript(chat))
    assert not [c for c in fake.calls_to("sendMessage") if c.chat_id == chat.id]
    # One message a turn: the mover's own post, which the bot made the next board.
    assert len(via_bot(fake, chat)) - posts_before == turns
    # The chat alone re-adds to every round summary and the standings.
    record, problems = reading(transcript_entries(fake, chat))
    assert problems == []
    assert record.standings is not None and record.summaries
    # Only the last message keeps keys (the standings' rematch); every older one lost them.
    assert [m.buttons for m in via_bot(fake, chat)[:-1] if m.buttons] == []
    assert [t for t, _d in table.live().buttons] == ["🔁 Rematch"]
