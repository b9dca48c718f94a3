"""The fake Telegram's ephemeral messages (Bot API 10.2/10.3) hold to Telegram's rules.

Each test states one rule of ``tests/fakes/bot_api/ephemeral.py`` (whose docstring quotes the
Bot API) through a real PTB bot's calls, so a fake that drifts from Telegram fails here before a
bot test trusts it. The calls use PTB's public escape hatches (``api_kwargs``,
``do_api_request``) directly, not the bot's own module, so they check the fake alone.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from telegram import BotCommand, InlineKeyboardButton, InlineKeyboardMarkup, Message, Update
from telegram.error import BadRequest, EndPointNotFound, RetryAfter
from telegram.ext import (
    Application,
    CallbackQueryHandler,
    CommandHandler,
    ContextTypes,
    MessageHandler,
    filters,
)

from tests.fakes import (
    BOT_ID,
    FakeChat,
    FakeTelegram,
    FakeUser,
    FloodLimits,
    TelegramTestClient,
    VirtualTimer,
)
from tests.fakes.telegram import StoredEphemeral, StoredMessage

KEYS = InlineKeyboardMarkup([[InlineKeyboardButton("Pick", callback_data="pick")]])
OTHER_KEYS = InlineKeyboardMarkup([[InlineKeyboardButton("Other", callback_data="other")]])


class World:
    """A group with Ana and Ben, a bot that records what it gets, on virtual time."""

    def __init__(self, fake: FakeTelegram, tg: TelegramTestClient, timer: VirtualTimer) -> None:
        self.fake, self.tg, self.timer = fake, tg, timer
        self.ana = fake.user(11, "Ana")
        self.ben = fake.user(12, "Ben")
        self.group = fake.group("Table")
        self.updates: list[Update] = []

    @property
    def bot(self) -> Any:
        return self.tg.app.bot

    async def board(self) -> StoredMessage:
        """A public message with a key, in the group."""
        await self.bot.send_message(self.group.id, "Board", reply_markup=KEYS)
        return self.fake.last_message(self.group.id)

    def tap(self, user: FakeUser, message: StoredMessage) -> str:
        """``user`` taps ``message``'s key now; the query id (the bot does not answer here)."""
        return str(self.fake.callback_update(user, message, "pick")["callback_query"]["id"])

    async def send(
        self,
        user: FakeUser,
        text: str = "Only you",
        *,
        chat: FakeChat | None = None,
        query: str | None = None,
        replace: bool | None = None,
        reply_to: int | None = None,
        markup: InlineKeyboardMarkup | None = None,
    ) -> Message:
        parameters: dict[str, Any] = {"receiver_user_id": user.id}
        if query is not None:
            parameters["callback_query_id"] = query
        if replace is not None:
            parameters["replace_callback_query_message"] = replace
        extra: dict[str, Any] = {"ephemeral_message_parameters": parameters}
        if reply_to is not None:
            extra["reply_parameters"] = {"ephemeral_message_id": reply_to}
        message: Message = await self.bot.send_message(
            (chat or self.group).id, text, reply_markup=markup, api_kwargs=extra
        )
        return message

    async def call(self, method: str, **params: Any) -> Any:
        return await self.bot.do_api_request(method, api_kwargs=params)

    def admin(self) -> None:
        self.fake.mark_admin(self.group.id, BOT_ID)


async def record(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    context.bot_data.setdefault("updates", []).append(update)
    if update.callback_query is not None:
        await update.callback_query.answer()


@pytest.fixture
async def world() -> AsyncIterator[World]:
    timer = VirtualTimer()
    fake = FakeTelegram(timer=timer)
    app: Application[Any, Any, Any, Any, Any, Any] = fake.application_builder().build()
    app.add_handler(CommandHandler("cards", record))
    app.add_handler(CallbackQueryHandler(record))
    app.add_handler(MessageHandler(filters.ALL, record))
    async with TelegramTestClient(app, fake, timer=timer) as tg:
        yield World(fake, tg, timer)


def ephemeral_id(message: Message) -> int:
    value = message.api_kwargs["ephemeral_message_id"]
    assert isinstance(value, int)
    return value


# -- who may send, to whom, where ------------------------------------------------------------------


async def test_an_answer_to_a_tap_is_seen_by_the_tapper_alone(world: World) -> None:
    board = await world.board()
    sent = await world.send(world.ana, "Your cards", query=world.tap(world.ana, board))
    assert sent.message_id == 0
    assert ephemeral_id(sent) == 1
    assert sent.api_kwargs["receiver_user"]["id"] == world.ana.id
    assert world.fake.read_chat(world.group) == ["TWEAK!: Board"]
    assert world.fake.read_chat(world.group, world.ana) == ["TWEAK!: Board", "TWEAK! (only you): Your cards"]
    assert world.fake.read_chat(world.group, world.ben) == ["TWEAK!: Board"]
    assert all(m.message_id != 0 for m in world.fake.transcript(world.group))


async def test_without_an_eligible_action_only_an_admin_bot_may_send(world: World) -> None:
    with pytest.raises(BadRequest, match=r"(?i)BOT_NOT_ADMIN"):
        await world.send(world.ana)
    world.admin()
    sent = await world.send(world.ana)
    assert ephemeral_id(sent) == 1
    assert world.fake.read_chat(world.group, world.ana) == ["TWEAK! (only you): Only you"]


async def test_receivers_are_people_of_the_group(world: World) -> None:
    world.admin()
    with pytest.raises(BadRequest, match=r"(?i)USER_IS_BOT"):
        await world.send(world.fake.other_bot(555, "Dice"))
    world.fake.set_member_status(world.group.id, world.ben.id, "left")
    with pytest.raises(BadRequest, match=r"(?i)USER_NOT_PARTICIPANT"):
        await world.send(world.ben)
    stranger = FakeUser(99, "Nobody")
    with pytest.raises(BadRequest, match=r"(?i)user not found"):
        await world.send(stranger)


async def test_a_tap_opens_fifteen_seconds_for_the_tapper_only(world: World) -> None:
    board = await world.board()
    query = world.tap(world.ana, board)
    with pytest.raises(BadRequest, match=r"(?i)query is too old"):
        await world.send(world.ben, query=query)  # Ana tapped, not Ben
    world.timer.advance(15)
    await world.send(world.ana, query=query)  # at 15 s, still in time
    late = world.tap(world.ana, board)
    world.timer.advance(15.5)
    with pytest.raises(BadRequest, match=r"(?i)query is too old"):
        await world.send(world.ana, query=late)
    world.admin()  # an administrator may send at any time, but a stale query is still stale
    with pytest.raises(BadRequest, match=r"(?i)query is too old"):
        await world.send(world.ana, query=late)
    await world.send(world.ana)


async def test_group_and_supergroup_chats_only(world: World) -> None:
    private = world.fake.private(world.ana)
    with pytest.raises(BadRequest, match=r"(?i)BOT_NOT_ADMIN"):
        await world.send(world.ana, chat=private)
    channel = world.fake.register_chat(FakeChat(-1_009_000_000_001, "channel", title="News"))
    world.fake.mark_admin(channel.id, BOT_ID)
    with pytest.raises(BadRequest, match=r"(?i)CHAT_TYPE_INVALID"):
        await world.send(world.ana, chat=channel)
    basic = world.fake.group("Basic", kind="group")
    world.fake.mark_admin(basic.id, BOT_ID)
    assert ephemeral_id(await world.send(world.ana, chat=basic)) == 1
    assert world.fake.read_chat(private, world.ana) == []


async def test_a_chat_where_telegram_refuses_them(world: World) -> None:
    world.admin()
    world.fake.refuse_ephemeral(world.group)
    with pytest.raises(BadRequest, match=r"(?i)not enough rights to send ephemeral messages"):
        await world.send(world.ana)
    world.fake.refuse_ephemeral(world.group, None)
    await world.send(world.ana)


# -- in place of the tapped message --------------------------------------------------------------------


async def test_replace_shows_it_in_place_of_the_tapped_message_for_the_tapper(world: World) -> None:
    board = await world.board()
    await world.bot.send_message(world.group.id, "Later")
    sent = await world.send(world.ana, "Your move", query=world.tap(world.ana, board), replace=True)
    assert world.fake.read_chat(world.group, world.ana) == ["TWEAK! (only you): Your move", "TWEAK!: Later"]
    assert world.fake.read_chat(world.group, world.ben) == ["TWEAK!: Board", "TWEAK!: Later"]
    with pytest.raises(AssertionError, match=r"(?i)cannot tap the original"):
        world.tap(world.ana, board)
    world.tap(world.ben, board)  # Ben still has the board
    await world.call(
        "deleteEphemeralMessage", chat_id=world.group.id, receiver_user_id=world.ana.id,
        ephemeral_message_id=ephemeral_id(sent),
    )  # fmt: skip
    assert world.fake.read_chat(world.group, world.ana) == ["TWEAK!: Board", "TWEAK!: Later"]


async def test_replace_needs_a_tap_on_an_ordinary_message(world: World) -> None:
    world.admin()
    with pytest.raises(BadRequest, match=r"(?i)REPLACE_CALLBACK_QUERY_MESSAGE_INVALID"):
        await world.send(world.ana, replace=True)
    await world.send(world.ana, markup=KEYS)
    tapped = world.fake.last_ephemeral(world.group, world.ana)
    query = world.tap(world.ana, tapped)
    with pytest.raises(BadRequest, match=r"(?i)REPLACE_CALLBACK_QUERY_MESSAGE_INVALID"):
        await world.send(world.ana, query=query, replace=True)
    await world.send(world.ana, query=query, replace=False)


# -- ids ------------------------------------------------------------------------------------------------


async def test_ids_count_per_chat_and_receiver_and_are_reused_once_free(world: World) -> None:
    world.admin()
    other = world.fake.group("Other")
    world.fake.mark_admin(other.id, BOT_ID)
    assert [ephemeral_id(await world.send(world.ana)) for _ in range(3)] == [1, 2, 3]
    assert ephemeral_id(await world.send(world.ben)) == 1
    assert ephemeral_id(await world.send(world.ana, chat=other)) == 1
    await world.call(
        "deleteEphemeralMessage",
        chat_id=world.group.id,
        receiver_user_id=world.ana.id,
        ephemeral_message_id=2,
    )
    assert ephemeral_id(await world.send(world.ana)) == 2
    assert ephemeral_id(await world.send(world.ana)) == 4


# -- edits and deletions -------------------------------------------------------------------------------


async def test_edits_return_true_and_refuse_what_changes_nothing(world: World) -> None:
    world.admin()
    sent = await world.send(world.ana, "One", markup=KEYS)
    where = {
        "chat_id": world.group.id,
        "receiver_user_id": world.ana.id,
        "ephemeral_message_id": ephemeral_id(sent),
    }
    assert await world.call("editEphemeralMessageText", text="Two", reply_markup=KEYS, **where) is True
    with pytest.raises(BadRequest, match=r"(?i)not modified"):
        await world.call("editEphemeralMessageText", text="Two", reply_markup=KEYS, **where)
    assert await world.call("editEphemeralMessageReplyMarkup", reply_markup=OTHER_KEYS, **where) is True
    shown = world.fake.last_ephemeral(world.group, world.ana)
    assert (shown.text, shown.buttons) == ("Two", [("Other", "other")])
    assert await world.call("editEphemeralMessageText", text="Three", **where) is True
    assert shown.buttons == []  # an edit without reply_markup takes the keys off, as Telegram's do
    with pytest.raises(BadRequest, match=r"(?i)there is no caption"):
        await world.call("editEphemeralMessageCaption", caption="x", **where)
    with pytest.raises(BadRequest, match=r"(?i)message to edit not found"):
        await world.call(
            "editEphemeralMessageText", text="Four", **{**where, "receiver_user_id": world.ben.id}
        )
    assert [r.text for r in shown.history] == ["One", "Two", "Two"]


async def test_photos_have_captions_and_media_edits_take_no_upload(world: World) -> None:
    world.admin()
    sent = await world.bot.send_photo(
        world.group.id, "https://example.com/a.png", caption="Hand",
        api_kwargs={"ephemeral_message_parameters": {"receiver_user_id": world.ana.id}},
    )  # fmt: skip
    where = {
        "chat_id": world.group.id,
        "receiver_user_id": world.ana.id,
        "ephemeral_message_id": ephemeral_id(sent),
    }
    assert sent.photo and sent.caption == "Hand"
    with pytest.raises(BadRequest, match=r"(?i)there is no text"):
        await world.call("editEphemeralMessageText", text="x", **where)
    assert await world.call("editEphemeralMessageCaption", caption="New hand", **where) is True
    with pytest.raises(BadRequest, match=r"(?i)a new file can't be uploaded"):
        await world.call(
            "editEphemeralMessageMedia", media={"type": "photo", "media": "attach://file"}, **where
        )
    media = {"type": "document", "media": "https://example.com/b.pdf", "caption": "Rules"}
    assert await world.call("editEphemeralMessageMedia", media=media, **where) is True
    shown = world.fake.last_ephemeral(world.group, world.ana)
    assert (shown.kind, shown.caption) == ("document", "Rules")
    with pytest.raises(BadRequest, match=r"(?i)not modified"):
        await world.call("editEphemeralMessageMedia", media=media, **where)


async def test_deleted_messages_cannot_be_edited_or_deleted_again(world: World) -> None:
    world.admin()
    sent = await world.send(world.ana)
    where = {
        "chat_id": world.group.id,
        "receiver_user_id": world.ana.id,
        "ephemeral_message_id": ephemeral_id(sent),
    }
    assert await world.call("deleteEphemeralMessage", **where) is True
    with pytest.raises(BadRequest, match=r"(?i)message to edit not found"):
        await world.call("editEphemeralMessageText", text="Again", **where)
    with pytest.raises(BadRequest, match=r"(?i)message to delete not found"):
        await world.call("deleteEphemeralMessage", **where)
    assert world.fake.read_chat(world.group, world.ana) == []


# -- delivery is not guaranteed --------------------------------------------------------------------------


async def test_an_offline_person_never_sees_it_though_the_send_succeeds(world: World) -> None:
    world.admin()
    world.fake.set_offline(world.ana)
    sent = await world.send(world.ana, "Lost", markup=KEYS)
    assert ephemeral_id(sent) == 1
    assert world.fake.read_chat(world.group, world.ana) == []
    with pytest.raises(AssertionError, match=r"(?i)never delivered"):
        world.tap(world.ana, world.fake.last_ephemeral(world.group, world.ana))
    world.fake.set_offline(world.ana, False)
    assert world.fake.read_chat(world.group, world.ana) == []  # not delivered later either


async def test_they_expire_after_some_time_and_their_ids_come_free(world: World) -> None:
    world.admin()
    world.fake.ephemeral_lifetime = 60.0
    sent = await world.send(world.ana, "Soon gone")
    where = {
        "chat_id": world.group.id,
        "receiver_user_id": world.ana.id,
        "ephemeral_message_id": ephemeral_id(sent),
    }
    world.timer.advance(59)
    assert await world.call("editEphemeralMessageText", text="Still here", **where) is True
    world.timer.advance(1)
    with pytest.raises(BadRequest, match=r"(?i)message to edit not found"):
        await world.call("editEphemeralMessageText", text="Gone", **where)
    assert world.fake.read_chat(world.group, world.ana) == []
    assert ephemeral_id(await world.send(world.ana)) == 1


async def test_an_app_restart_takes_that_persons_messages_away(world: World) -> None:
    world.admin()
    ana_id = ephemeral_id(await world.send(world.ana, "For Ana"))
    await world.send(world.ben, "For Ben")
    world.fake.restart_app(world.ana)
    assert world.fake.read_chat(world.group, world.ana) == []
    assert world.fake.read_chat(world.group, world.ben) == ["TWEAK! (only you): For Ben"]
    with pytest.raises(BadRequest, match=r"(?i)message to edit not found"):
        await world.call(
            "editEphemeralMessageText", chat_id=world.group.id, receiver_user_id=world.ana.id,
            ephemeral_message_id=ana_id, text="Back?",
        )  # fmt: skip


# -- what people send --------------------------------------------------------------------------------------


async def test_a_tap_on_an_ephemeral_key_carries_the_ephemeral_message(world: World) -> None:
    world.admin()
    await world.send(world.ana, "Choose", markup=KEYS)
    shown = world.fake.last_ephemeral(world.group, world.ana)
    with pytest.raises(AssertionError, match=r"(?i)never sees another person's"):
        await world.tg.tap(world.ben, shown, "Pick")
    await world.tg.tap(world.ana, shown, "Pick")
    query = world.tg.app.bot_data["updates"][-1].callback_query
    assert query.message.message_id == 0
    assert query.message.api_kwargs["ephemeral_message_id"] == shown.ephemeral_message_id
    assert query.message.api_kwargs["receiver_user"]["id"] == world.ana.id
    assert query.message.text == "Choose"


async def test_an_ephemeral_command_is_seen_by_its_sender_and_the_bot(world: World) -> None:
    with pytest.raises(AssertionError, match=r"(?i)not a command the bot declared ephemeral"):
        world.fake.ephemeral_command_update(world.group, world.ana, "/cards")
    await world.bot.set_my_commands([BotCommand("cards", "Your cards", api_kwargs={"is_ephemeral": True})])
    await world.tg.process(world.fake.ephemeral_command_update(world.group, world.ana, "/cards"))
    command = world.tg.app.bot_data["updates"][-1].message
    assert command.text == "/cards" and command.message_id == 0
    assert command.api_kwargs["receiver_user"]["id"] == BOT_ID
    assert world.fake.read_chat(world.group) == []
    assert world.fake.read_chat(world.group, world.ana) == ["Ana (only you): /cards"]
    assert world.fake.read_chat(world.group, world.ben) == []
    # Replying to it is the eligible action: within 15 s, ephemerally, with no admin rights.
    with pytest.raises(BadRequest, match=r"(?i)must be ephemeral"):
        await world.bot.send_message(
            world.group.id,
            "x",
            api_kwargs={"reply_parameters": {"ephemeral_message_id": ephemeral_id(command)}},
        )
    world.timer.advance(10)
    await world.send(world.ana, "Here they are", reply_to=ephemeral_id(command))
    with pytest.raises(BadRequest, match=r"(?i)message to be replied not found"):
        await world.send(world.ben, reply_to=ephemeral_id(command))  # it was Ana's
    world.timer.advance(6)
    with pytest.raises(BadRequest, match=r"(?i)message to be replied not found"):
        await world.send(world.ana, reply_to=ephemeral_id(command))


async def test_a_reply_to_the_bots_ephemeral_message_is_ephemeral(world: World) -> None:
    board = await world.board()
    await world.send(world.ana, "Which card?", query=world.tap(world.ana, board))
    asked = world.fake.last_ephemeral(world.group, world.ana)
    await world.tg.process(world.fake.ephemeral_reply_update(world.ana, asked, "The 7"))
    reply = world.tg.app.bot_data["updates"][-1].message
    assert reply.message_id == 0 and reply.text == "The 7"
    assert reply.api_kwargs["ephemeral_message_id"] == 1  # the bot's own count: it receives it
    assert reply.reply_to_message is None  # "may be omitted"
    assert world.fake.read_chat(world.group, world.ben) == ["TWEAK!: Board"]
    assert world.fake.read_chat(world.group, world.ana)[-1] == "Ana (only you): The 7"
    world.timer.advance(16)
    with pytest.raises(AssertionError, match=r"(?i)no longer lets it be replied to"):
        world.fake.ephemeral_reply_update(world.ana, asked, "Too late")
    incoming = {"chat_id": world.group.id, "receiver_user_id": BOT_ID, "ephemeral_message_id": 1}
    with pytest.raises(BadRequest, match=r"(?i)message can't be edited"):
        await world.call("editEphemeralMessageText", text="x", **incoming)


# -- budgets and old servers -----------------------------------------------------------------------


@pytest.mark.parametrize("spends", [False, True])
async def test_the_group_budget_is_a_setting_the_bots_is_not(world: World, spends: bool) -> None:
    world.admin()
    world.fake.flood_limits = FloodLimits()
    world.fake.ephemeral_spends_group_budget = spends
    for _ in range(20):
        await world.bot.send_message(world.group.id, "public")
        world.timer.advance(0.1)
    if spends:
        with pytest.raises(RetryAfter):
            await world.send(world.ana)
    else:
        for _ in range(20):
            await world.send(world.ana)
        assert len(world.fake.ephemeral_write_times(world.group.id)) == 20
        with pytest.raises(RetryAfter):  # 30 a second in all
            for _ in range(30):
                await world.send(world.ben)
        assert world.fake.flood_rejections[-1].limit == "overall"


async def test_an_old_server_posts_publicly_and_knows_no_edit(world: World) -> None:
    world.admin()
    world.fake.ephemeral_supported = False
    sent = await world.send(world.ana, "Meant for Ana")
    assert sent.message_id != 0 and "ephemeral_message_id" not in sent.api_kwargs
    assert world.fake.read_chat(world.group) == ["TWEAK!: Meant for Ana"]
    with pytest.raises(EndPointNotFound):
        await world.call(
            "editEphemeralMessageText", chat_id=world.group.id, receiver_user_id=world.ana.id,
            ephemeral_message_id=1, text="x",
        )  # fmt: skip


def test_stored_ephemeral_messages_are_marked() -> None:
    message = StoredEphemeral(
        chat_id=-1, message_id=0, date=0, from_bot=True, sender={"first_name": "B"}, kind="text"
    )
    message.text = "hi"
    assert message.reads_as == "B (only you): hi" and message.live
