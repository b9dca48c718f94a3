"""Every update is applied once (issue 62, item 7): Telegram delivers an update again when a
webhook's answer did not reach it, or when a poller stopped before its next getUpdates confirmed
the offset. Here every kind of update the bot handles is delivered, then delivered again, the
same update (its `update_id`), and the second delivery must change nothing: no row of the
database (the record of what was applied aside) and no call to Telegram but the answer a key or
an inline query is owed. Where a second application would show, the effect is checked once too
(a Goal step of 20, not 40; one computer seated; one lobby and no "already running"; paused once).

Two instances at once and a restart after kill -9 are in tests/ops (`test_two_instances_once.py`,
`test_crash_restart.py`).
"""

from __future__ import annotations

import copy
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import pytest
from sqlmodel import Session, SQLModel, col, select
from telegram import Update

from tests.bot.conftest import BotRig, running_bot
from tests.bot.helpers import (
    current_game,
    drain,
    inline_fake,
    moves_of,
    new_lobby,
    players_of,
    start_game,
    state_of,
)
from tests.fakes.bot_api.records import ApiCall
from tests.fakes.telegram import FakeChat, FakeUser
from tgbot.game_settings import GameSettings
from tgbot.store.models import Game, SeenTap

#: What a second delivery may still call: the answer a key or an inline query waits for.
ANSWERS = {"answerCallbackQuery", "answerInlineQuery"}
#: Tables a second delivery may touch: the record of what was applied, the senders' leases.
BOOKKEEPING = {"seen_taps", "delivery_chats"}
BOT = "@tweak_test_bot"


def database(rig: BotRig) -> dict[str, list[str]]:
    """Every row of every table but the bookkeeping, comparable."""
    with rig.deps.db.engine.connect() as conn:
        return {
            table.name: sorted(repr(tuple(row)) for row in conn.execute(select(table)))
            for table in SQLModel.metadata.sorted_tables
            if table.name not in BOOKKEEPING
        }


@dataclass
class Twice:
    """Records the updates the client processes, so that they can be delivered again."""

    rig: BotRig
    updates: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        tg = self.rig.tg
        self.process = tg.process

        async def recording(update: Mapping[str, Any] | Update) -> list[ApiCall]:
            if not isinstance(update, Update):
                self.updates.append(copy.deepcopy(dict(update)))
            return await self.process(update)

        tg.process = recording  # type: ignore[method-assign]

    async def __call__(self, action: Awaitable[Any]) -> list[ApiCall]:
        """`action` (what a person does, or what Telegram tells), processed and delivered; then
        every update it brought delivered again. The second delivery changes nothing: its calls
        to Telegram (returned) are only answers, and the database holds what it held."""
        first = len(self.updates)
        await action
        await drain(self.rig)
        brought = self.updates[first:]
        assert brought, "the action brought no update"
        before = database(self.rig)
        calls: list[ApiCall] = []
        for update in brought:
            calls += await self.process(copy.deepcopy(update))
        await drain(self.rig)
        assert [c.method for c in calls if c.method not in ANSWERS] == []
        assert database(self.rig) == before
        return calls


@pytest.fixture
async def rig(db_url: str, seeds: Callable[[], int]) -> AsyncIterator[BotRig]:
    async with running_bot(db_url, seeds, fake=inline_fake()) as bot:
        yield bot


@pytest.fixture
def twice(rig: BotRig) -> Twice:
    return Twice(rig)


@dataclass
class People:
    ana: FakeUser
    ben: FakeUser
    cai: FakeUser
    group: FakeChat


@pytest.fixture
def people(rig: BotRig) -> People:
    fake = rig.fake
    return People(fake.user(1, "Ana"), fake.user(2, "Ben"), fake.user(3, "Cai"), fake.group("Friends"))


def bot_texts(rig: BotRig, chat_id: int) -> list[str]:
    return [m.text or "" for m in rig.fake.messages(chat_id)]


# --- keys ------------------------------------------------------------------------------------


async def test_a_goal_key_twice_moves_the_goal_once(rig: BotRig, twice: Twice, people: People) -> None:
    lobby = await new_lobby(rig, people.group, people.ana, [people.ben])
    await rig.tg.tap(people.ana, lobby, "⚙️ Settings")
    before = GameSettings.from_json(current_game(rig, people.group.id).settings).threshold(2)
    await twice(rig.tg.tap(people.ana, rig.fake.message(people.group.id, lobby.message_id), "Goal −20"))
    after = GameSettings.from_json(current_game(rig, people.group.id).settings).threshold(2)
    assert after == before - 20


async def test_add_computer_twice_seats_one(rig: BotRig, twice: Twice, people: People) -> None:
    lobby = await new_lobby(rig, people.group, people.ana, [])
    await twice(rig.tg.tap(people.ana, lobby, "🤖 Add computer"))
    game = current_game(rig, people.group.id)
    assert [p.ai_level for p in players_of(rig, game.id or 0)] == [None, "normal"]


async def test_add_computer_twice_in_an_inline_lobby_seats_one(
    rig: BotRig, twice: Twice, people: People
) -> None:
    """A lobby posted via inline mode in a chat the bot is not in: its 🤖 key as posted."""
    chat = rig.fake.private_between(people.ana, people.ben)
    listed = await rig.tg.inline_query(people.ana, "", chat=chat)
    await rig.tg.pick(people.ana, chat, listed, "new")
    await drain(rig)
    lobby = [m for m in rig.fake.transcript(chat) if m.via_bot is not None][-1]
    await twice(rig.tg.tap(people.ana, lobby, "🤖 Add computer"))
    (game,) = current_inline_games(rig)
    assert [p.ai_level for p in players_of(rig, game.id or 0)] == [None, "normal"]


def current_inline_games(rig: BotRig) -> list[Game]:
    with Session(rig.deps.db.engine) as session:
        return list(session.exec(select(Game).where(col(Game.inline_id).is_not(None))).all())


@pytest.mark.parametrize("key", ["✋ Join", "🚪 Leave", "⚙️ Settings", "▶️ Start", "✖️ Cancel"])
async def test_each_lobby_key_twice_acts_once(rig: BotRig, twice: Twice, people: People, key: str) -> None:
    lobby = await new_lobby(rig, people.group, people.ana, [] if key == "✋ Join" else [people.ben])
    who = people.ben if key in ("✋ Join", "🚪 Leave") else people.ana
    await twice(rig.tg.tap(who, lobby, key))


async def test_a_compose_key_twice_toggles_once(rig: BotRig, twice: Twice, people: People) -> None:
    game, board = await start_game(rig, people.group, people.ana, [people.ben])
    mover = people.ana if state_of(game).current == 0 else people.ben
    await twice(rig.tg.tap_data(mover, board, f"k:{game.id}:{game.version}:h:0"))
    await rig.tg.tap_data(mover, board, f"k:{game.id}:{game.version}:d")
    # The card stayed chosen: the discard plays it.
    assert [m.code for m in moves_of(rig, game.id or 0)][-1] == "D0"


async def test_a_move_and_the_hand_popup_twice_act_once(rig: BotRig, twice: Twice, people: People) -> None:
    game, board = await start_game(rig, people.group, people.ana, [people.ben])
    mover = people.ana if state_of(game).current == 0 else people.ben
    await twice(rig.tg.tap(mover, board, "👀 My hand"))
    await rig.tg.tap_data(mover, board, f"k:{game.id}:{game.version}:h:0")
    await twice(rig.tg.tap_data(mover, board, f"k:{game.id}:{game.version}:d"))
    assert current_game(rig, people.group.id).version == game.version + 1


async def test_a_page_key_twice(rig: BotRig, twice: Twice, people: People) -> None:
    private = rig.fake.private(people.ana)
    await rig.tg.send(private, people.ana, "/rules")
    page = rig.fake.last_message(private.id)
    data = next(d for _t, d in page.buttons if d and d.startswith("r:"))
    await twice(rig.tg.tap_data(people.ana, page, data))


# --- commands --------------------------------------------------------------------------------


async def test_newgame_twice_posts_one_lobby(rig: BotRig, twice: Twice, people: People) -> None:
    await twice(rig.tg.send(people.group, people.ana, f"/newgame{BOT}"))
    texts = bot_texts(rig, people.group.id)
    assert len(texts) == 1 and "already" not in texts[0], texts


async def test_an_edited_pause_twice_pauses_once(rig: BotRig, twice: Twice, people: People) -> None:
    """The message /pause was edited (an edited command is a command): delivered twice, the game
    is paused once and the group reads one answer, not "already paused" after it."""
    await start_game(rig, people.group, people.ana, [people.ben])
    await drain(rig)
    said = len(bot_texts(rig, people.group.id))
    update = rig.fake.command_update(people.group, people.ana, f"/pause{BOT}")
    message = update.pop("message")
    update["edited_message"] = {**message, "edit_date": message["date"] + 5}
    await twice(rig.tg.process(update))
    assert current_game(rig, people.group.id).status == "paused"
    answers = bot_texts(rig, people.group.id)[said:]
    assert len([t for t in answers if "Game paused" in t]) == 1, answers
    assert not [t for t in answers if "already" in t.lower()], answers


@pytest.mark.parametrize(
    "command",
    [
        "/resume",
        "/board",
        "/quiet 23-08",
        "/settings",
        "/leave",
        "/cancel",
        "/back",
        "/stats",
        "/top",
        "/help",
    ],
)
async def test_each_game_command_twice_acts_once(
    rig: BotRig, twice: Twice, people: People, command: str
) -> None:
    await start_game(rig, people.group, people.ana, [people.ben])
    if command == "/resume":
        await rig.tg.send(people.group, people.ana, f"/pause{BOT}")
    name, _space, args = command.partition(" ")
    await twice(rig.tg.send(people.group, people.ana, f"{name}{BOT} {args}".strip()))


@pytest.mark.parametrize("text", ["/start", "/language", "/history", "/foo", "hello"])
async def test_each_private_message_twice_acts_once(
    rig: BotRig, twice: Twice, people: People, text: str
) -> None:
    await twice(rig.tg.send(rig.fake.private(people.ana), people.ana, text))


# --- inline mode -----------------------------------------------------------------------------


async def test_an_inline_query_and_a_picked_move_twice_act_once(
    rig: BotRig, twice: Twice, people: People
) -> None:
    game, board = await start_game(rig, people.group, people.ana, [people.ben])
    mover = people.ana if state_of(game).current == 0 else people.ben
    answers: list[Any] = []

    async def query() -> None:
        answers.append(await rig.tg.tap_switch_inline(mover, board, "🎯 Play"))

    await twice(query())
    move = next(r["id"] for r in answers[0].results if r["title"].startswith("🗑"))
    await twice(rig.tg.pick(mover, people.group, answers[0], move))  # the chosen result and the message
    assert current_game(rig, people.group.id).version == game.version + 1


async def test_a_lobby_posted_via_inline_mode_twice_is_one_game(
    rig: BotRig, twice: Twice, people: People
) -> None:
    chat = rig.fake.private_between(people.ana, people.ben)
    listed = await rig.tg.inline_query(people.ana, "", chat=chat)
    await twice(rig.tg.pick(people.ana, chat, listed, "new"))
    assert len(current_inline_games(rig)) == 1


# --- changes of a chat -----------------------------------------------------------------------


async def test_a_migration_twice_moves_the_games_once(rig: BotRig, twice: Twice, people: People) -> None:
    await start_game(rig, people.group, people.ana, [people.ben])
    await twice(rig.tg.process(rig.fake.migrate_update(people.group.id, -100_555)))


async def test_the_bot_removed_and_added_again_twice(rig: BotRig, twice: Twice, people: People) -> None:
    await start_game(rig, people.group, people.ana, [people.ben])
    await twice(rig.tg.process(rig.fake.my_chat_member_update(people.group, people.ana, "left", "member")))
    await twice(rig.tg.process(rig.fake.my_chat_member_update(people.group, people.ana, "member", "left")))


async def test_a_private_chat_blocked_and_unblocked_twice(rig: BotRig, twice: Twice, people: People) -> None:
    private = rig.fake.private(people.ana)
    await rig.tg.send(private, people.ana, "/start")
    await twice(rig.tg.process(rig.fake.my_chat_member_update(private, people.ana, "kicked", "member")))
    await twice(rig.tg.process(rig.fake.my_chat_member_update(private, people.ana, "member", "kicked")))


@pytest.mark.parametrize("how", ["left_chat_member", "chat_member"])
async def test_a_player_leaving_the_group_twice(rig: BotRig, twice: Twice, people: People, how: str) -> None:
    await start_game(rig, people.group, people.ana, [people.ben, people.cai])
    fake = rig.fake
    update = (
        fake.left_member_update(people.group, people.cai)
        if how == "left_chat_member"
        else fake.chat_member_update(people.group, people.cai, "left")
    )
    await twice(rig.tg.process(update))


# --- kept for a day --------------------------------------------------------------------------


def recorded_updates(rig: BotRig) -> list[str]:
    with Session(rig.deps.db.engine) as session:
        keys = [seen.query_id for seen in session.exec(select(SeenTap))]
    return [key for key in keys if key.startswith("update:")]


async def test_what_was_applied_is_forgotten_after_a_day(rig: BotRig, people: People) -> None:
    """Telegram keeps an update it could not deliver for 24 hours: the record of each update
    applied is kept a day, then the sweep forgets it."""
    await rig.tg.send(rig.fake.private(people.ana), people.ana, "/help")
    assert len(recorded_updates(rig)) == 1
    rig.clock.advance(timedelta(hours=23))
    await rig.tg.run_job("sweep")
    assert len(recorded_updates(rig)) == 1
    rig.clock.advance(timedelta(hours=1, seconds=1))
    await rig.tg.run_job("sweep")
    assert recorded_updates(rig) == []
