"""Two bot instances on one PostgreSQL database get the same update at the same moment (a webhook
retried while its first delivery is still at work, behind one address): the kinds no version
guards are applied once (issue 62, item 7).

Each update goes to both instances at once (`instances.Both`): /newgame, a lobby's Goal −20 and
🤖 Add computer in a group, the same keys of a lobby posted via inline mode, and an edited /pause.
Each shows its effect once: one lobby and no "A game is already running here", the goal 20 lower,
one computer seated, the game paused with one answer.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest
from sqlmodel import Session, col, select

from tests.fakes.telegram import FakeChat, FakeUser, StoredMessage
from tests.ops.instances import Both, Instance, SharedFake, all_done, assert_nothing_failed, start_pair
from tests.pg import fresh_database
from tgbot import migrations
from tgbot.game_settings import GameSettings
from tgbot.store.models import Game, GamePlayer

BOT = "@tweak_test_bot"


@pytest.fixture
def database() -> Iterator[str]:
    with fresh_database() as url:
        yield url


class People:
    def __init__(self, fake: SharedFake, instances: list[Instance]) -> None:
        self.fake = fake
        self.both = Both(fake, instances)
        self.db = instances[0].deps.db.engine

    async def command(self, chat: FakeChat, user: FakeUser, text: str, edited: bool = False) -> None:
        with self.fake.lock:
            update = self.fake.command_update(chat, user, text)
        if edited:
            message = update.pop("message")
            update["edited_message"] = {**message, "edit_date": message["date"] + 5}
        await self.both.process(update)

    async def tap(self, user: FakeUser, message: StoredMessage, text: str) -> None:
        with self.fake.lock:
            now = self.current(message)
            found = [b["callback_data"] for row in now.keyboard for b in row if b["text"] == text]
            assert found, (text, now.buttons)
            update = self.fake.callback_update(user, now, found[0])
        await self.both.process(update)

    def current(self, message: StoredMessage) -> StoredMessage:
        if message.inline_message_id is not None:
            return self.fake.inline_message(message.inline_message_id)
        return self.fake.message(message.chat_id, message.message_id)

    def said(self, chat: FakeChat) -> list[str]:
        with self.fake.lock:
            return [m.text or "" for m in self.fake.messages(chat.id)]

    def games(self) -> list[Game]:
        with Session(self.db) as session:
            return list(session.exec(select(Game).order_by(col(Game.id))).all())

    def seats(self, game: Game) -> list[GamePlayer]:
        with Session(self.db) as session:
            query = select(GamePlayer).where(GamePlayer.game_id == game.id).order_by(col(GamePlayer.seat))
            return list(session.exec(query).all())

    def goal(self, game: Game) -> int:
        (now,) = [g for g in self.games() if g.id == game.id]
        return GameSettings.from_json(now.settings).threshold(2)


async def test_two_instances_apply_each_unguarded_update_once(
    database: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.ERROR)
    migrations.upgrade(database)
    fake = SharedFake(inline_mode=True, inline_feedback=True)
    _clock, instances = start_pair(database, fake, 9100)
    people = People(fake, instances)
    try:
        ana, ben = fake.user(1, "Ana"), fake.user(2, "Ben")
        group = fake.group("Friends")

        # /newgame: one lobby, and no "A game is already running here" after it.
        await people.command(group, ana, f"/newgame{BOT}")
        said = people.said(group)
        assert len(said) == 1 and "already" not in said[0], said
        (game,) = people.games()
        with fake.lock:
            lobby = fake.last_message(group.id)
        await people.tap(ben, lobby, "✋ Join")
        await people.tap(ana, lobby, "⚙️ Settings")
        goal = people.goal(game)
        await people.tap(ana, lobby, "Goal −20")
        assert people.goal(game) == goal - 20
        await people.tap(ana, lobby, "↩️ Back")
        await people.tap(ana, lobby, "🤖 Add computer")
        assert [s.ai_level for s in people.seats(game)] == [None, None, "normal"]

        # An edited /pause of the running game: paused, and said once.
        await people.tap(ana, lobby, "▶️ Start")
        before = len(people.said(group))
        await people.command(group, ana, f"/pause{BOT}", edited=True)
        (game,) = people.games()
        assert game.status == "paused"
        answers = people.said(group)[before:]
        assert len([t for t in answers if "Game paused" in t]) == 1, answers
        assert not [t for t in answers if "already" in t.lower()], answers

        # A lobby posted via inline mode in a chat the bot is not in: its 🤖 key seats one.
        chat = fake.private_between(ana, ben)
        with fake.lock:
            query = fake.inline_query_update(ana, "", chat=chat)
        await all_done([instances[0].submit(instances[0].tg.process(query))])  # answerable once
        with fake.lock:
            listed = fake.inline_answer(query["inline_query"]["id"])
            chosen = fake.pick_inline_result(ana, chat, listed, "new")
        await people.both.process_all(chosen)
        inline_games = [g for g in people.games() if g.inline_id is not None]
        assert len(inline_games) == 1
        with fake.lock:
            posted = fake.inline_message(inline_games[0].inline_id or "")
        await people.tap(ana, posted, "🤖 Add computer")
        assert [s.ai_level for s in people.seats(inline_games[0])] == [None, "normal"]
        assert_nothing_failed(instances, caplog)
    finally:
        for instance in instances:
            instance.stop()
