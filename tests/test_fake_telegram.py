"""Self-test of the fake Telegram: a real PTB Application must round-trip through it.

If these fail, every end-to-end test built on the fake is suspect, so they pin down the parts of
Telegram's behaviour the bot relies on (errors included) rather than the fake's internals.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dtm
import html
import inspect
import re
import time
from collections.abc import AsyncIterator

import pytest
from telegram import (
    Bot,
    CallbackQuery,
    ChosenInlineResult,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    InlineQueryResultArticle,
    InlineQueryResultsButton,
    InputFile,
    InputTextMessageContent,
    Message,
    Update,
    WebAppInfo,
)
from telegram.error import BadRequest, ChatMigrated, Forbidden, NetworkError, RetryAfter, TimedOut
from telegram.ext import (
    Application,
    CallbackQueryHandler,
    ChatMemberHandler,
    ChosenInlineResultHandler,
    CommandHandler,
    ContextTypes,
    InlineQueryHandler,
    MessageHandler,
    filters,
)

from tests.fakes import (
    BOT_ID,
    MESSAGE_METHODS,
    FakeChat,
    FakeTelegram,
    FakeUser,
    FloodLimits,
    StoredMessage,
    TelegramTestClient,
    VirtualTimer,
    WriteLimit,
)
from tests.fakes.flood import max_in_window, retry_after
from tests.fakes.telegram import NOT_MODIFIED, TEST_TOKEN, SystemMonotonic, parse_html
from tests.fakes.timer import DEFAULT_EPOCH
from tgbot.delivery.telegram_io import retry_seconds
from tgbot.time_source import SystemTimer, Timer, Wakeup

LOBBY_KEYS = InlineKeyboardMarkup(
    [
        [
            InlineKeyboardButton("Join", callback_data="join"),
            InlineKeyboardButton("Same", callback_data="same"),
        ],
        [
            InlineKeyboardButton("Quiet", callback_data="quiet"),
            InlineKeyboardButton("Twice", callback_data="twice"),
        ],
        [InlineKeyboardButton("Rules", url="https://example.com/rules")],
    ]
)


async def newgame(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    assert update.effective_message is not None
    await update.effective_message.reply_text(
        "<b>Lobby</b>\nPlayers: nobody yet", parse_mode="HTML", reply_markup=LOBBY_KEYS
    )


async def boom(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    raise ValueError("handler exploded")


async def background(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    async def later() -> None:
        await asyncio.sleep(0.01)
        assert update.effective_chat is not None
        await context.bot.send_message(update.effective_chat.id, "from a task")

    context.application.create_task(later(), update=update)


async def on_button(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    query = update.callback_query
    assert query is not None and query.message is not None
    if query.data == "join":
        name = html.escape(query.from_user.first_name)
        await query.edit_message_text(
            f"<b>Lobby</b>\nPlayers: {name}", parse_mode="HTML", reply_markup=LOBBY_KEYS
        )
        await query.answer(f"Welcome, {query.from_user.first_name}!")
    elif query.data == "same":
        try:
            await query.edit_message_reply_markup(reply_markup=LOBBY_KEYS)
        except BadRequest as exc:
            context.chat_data["not_modified"] = str(exc)  # type: ignore[index]
        await query.answer("Nothing changed", show_alert=True)
    elif query.data == "twice":
        await query.answer("first")
        try:
            await query.answer("second")
        except BadRequest as exc:
            context.chat_data["twice"] = str(exc)  # type: ignore[index]
    elif query.data == "quiet":
        return
    else:
        await query.answer("That button is out of date", show_alert=True)


def build_app(fake: FakeTelegram) -> Application:  # type: ignore[type-arg]
    app = fake.application_builder().build()
    app.add_handler(CommandHandler("newgame", newgame))
    app.add_handler(CommandHandler("boom", boom))
    app.add_handler(CommandHandler("background", background, block=False))
    app.add_handler(CallbackQueryHandler(on_button))
    return app


@pytest.fixture
def fake() -> FakeTelegram:
    return FakeTelegram()


@pytest.fixture
async def tg(fake: FakeTelegram) -> AsyncIterator[TelegramTestClient]:
    async with TelegramTestClient(build_app(fake), fake) as client:
        yield client


async def test_get_me_identity(tg: TelegramTestClient, fake: FakeTelegram) -> None:
    bot = tg.app.bot
    assert (bot.id, bot.username, bot.first_name) == (BOT_ID, "tweak_test_bot", "TWEAK!")
    assert bot.bot.can_join_groups is True
    assert bot.bot.can_read_all_group_messages is False
    assert fake.calls[0].method == "getMe"
    assert fake.initialize_count >= 1


async def test_command_and_tap_round_trip(tg: TelegramTestClient, fake: FakeTelegram) -> None:
    alice = fake.user(1, "Alice <3", language_code="es")
    group = fake.group("Friends")

    calls = await tg.send(group, alice, "/newgame@tweak_test_bot 4")

    assert [c.method for c in calls] == ["sendMessage"]
    lobby = fake.last_message(group.id)
    assert lobby.text == "Lobby\nPlayers: nobody yet"
    assert lobby.source == "<b>Lobby</b>\nPlayers: nobody yet"
    assert lobby.entities == [{"type": "bold", "offset": 0, "length": 5}]
    assert lobby.reply_to is not None and lobby.reply_to.text == "/newgame@tweak_test_bot 4"
    assert fake.buttons(lobby) == [
        ("Join", "join"),
        ("Same", "same"),
        ("Quiet", "quiet"),
        ("Twice", "twice"),
        ("Rules", "https://example.com/rules"),
    ]

    answer = await tg.tap(alice, lobby, "Join")

    assert (answer.answered, answer.text, answer.show_alert) == (True, "Welcome, Alice <3!", False)
    assert lobby.text == "Lobby\nPlayers: Alice <3"
    assert lobby.edited and [r.method for r in lobby.history] == ["editMessageText"]
    assert lobby.history[0].text == "Lobby\nPlayers: nobody yet"
    assert fake.messages(group.id) == [lobby]


async def test_command_entity_covers_bot_username(tg: TelegramTestClient, fake: FakeTelegram) -> None:
    data = fake.command_update(fake.group(), fake.user(1, "A"), "/newgame@tweak_test_bot now")
    assert data["message"]["entities"] == [{"type": "bot_command", "offset": 0, "length": 23}]
    assert data["message"]["from"]["language_code"] == "en"
    other = fake.command_update(fake.group(), fake.user(1, "A"), "/newgame")
    assert other["update_id"] == data["update_id"] + 1


async def test_tap_missing_button_lists_the_available_ones(
    tg: TelegramTestClient, fake: FakeTelegram
) -> None:
    alice, group = fake.user(1, "Alice"), fake.group()
    await tg.send(group, alice, "/newgame")
    lobby = fake.last_message(group.id)

    with pytest.raises(AssertionError, match=r"no button 'Start'.*'Join'->'join'"):
        await tg.tap(alice, lobby, "Start")
    with pytest.raises(AssertionError, match="sends no callback"):
        await tg.tap(alice, lobby, "Rules")
    answer = await tg.tap(alice, lobby, re.compile("^J"))
    assert answer.answered
    assert fake.calls_to("answerCallbackQuery")[-1].params["text"] == "Welcome, Alice!"


async def test_identical_edit_is_not_modified(tg: TelegramTestClient, fake: FakeTelegram) -> None:
    alice, group = fake.user(1, "Alice"), fake.group()
    await tg.send(group, alice, "/newgame")
    lobby = fake.last_message(group.id)

    answer = await tg.tap(alice, lobby, "Same")

    assert (answer.text, answer.show_alert) == ("Nothing changed", True)
    failed = fake.calls_to("editMessageReplyMarkup")[-1]
    assert (failed.status, failed.error) == (400, NOT_MODIFIED)
    assert "not modified" in tg.app.chat_data[group.id]["not_modified"].lower()
    assert not lobby.edited

    bot = tg.app.bot
    # Trailing whitespace is trimmed by Telegram, so this is still the same content.
    with pytest.raises(BadRequest, match=r"(?i)message is not modified"):
        await bot.edit_message_text(
            "<b>Lobby</b>\nPlayers: nobody yet\n",
            chat_id=group.id,
            message_id=lobby.message_id,
            parse_mode="HTML",
            reply_markup=LOBBY_KEYS,
        )
    # Same text without reply_markup is a change: Telegram drops the keyboard.
    await bot.edit_message_text(
        "<b>Lobby</b>\nPlayers: nobody yet", chat_id=group.id, message_id=lobby.message_id, parse_mode="HTML"
    )
    assert lobby.buttons == []
    # Same visible text but without the bold entity is a change too.
    await bot.edit_message_text("Lobby\nPlayers: nobody yet", chat_id=group.id, message_id=lobby.message_id)
    assert lobby.entities == []


async def test_edit_or_delete_missing_message(tg: TelegramTestClient, fake: FakeTelegram) -> None:
    group = fake.group()
    bot = tg.app.bot
    sent = await bot.send_message(group.id, "hello")
    assert await bot.delete_message(group.id, sent.message_id)
    assert fake.messages(group.id) == []
    assert fake.message(group.id, sent.message_id).deleted
    with pytest.raises(BadRequest, match="Message to edit not found"):
        await bot.edit_message_text("bye", chat_id=group.id, message_id=sent.message_id)
    with pytest.raises(BadRequest, match="Message to delete not found"):
        await bot.delete_message(group.id, sent.message_id)
    with pytest.raises(BadRequest, match="Message to edit not found"):
        await bot.edit_message_reply_markup(chat_id=group.id, message_id=999_999)


async def test_callback_answered_twice_is_an_error(tg: TelegramTestClient, fake: FakeTelegram) -> None:
    alice, group = fake.user(1, "Alice"), fake.group()
    await tg.send(group, alice, "/newgame")

    answer = await tg.tap(alice, fake.last_message(group.id), "Twice")

    assert answer.text == "first"
    assert tg.app.chat_data[group.id]["twice"] == (
        "Query is too old and response timeout expired or query id is invalid"
    )
    with pytest.raises(BadRequest, match=r"(?i)query is too old"):
        await tg.app.bot.answer_callback_query(answer.query_id)


async def test_a_callback_answer_may_open_only_a_start_link_to_the_bot(
    tg: TelegramTestClient, fake: FakeTelegram
) -> None:
    """answerCallbackQuery's ``url`` opens a game (not modelled) or ``t.me/<bot>?start=…``; any
    other link is URL_INVALID. The tapper's app opens it only when the answer has no text."""
    alice, group = fake.user(1, "Alice"), fake.group()
    sent = await tg.app.bot.send_message(group.id, "lobby", reply_markup=LOBBY_KEYS)
    lobby = fake.message(group.id, sent.message_id)
    bot = tg.app.bot
    for url in (
        "https://example.com/",
        "https://t.me/tweak_test_bot",  # no start parameter
        "https://t.me/other_bot?start=p1",
        "tg://resolve?domain=tweak_test_bot&start=p1",
        "https://t.me/tweak_test_bot?start=no%20spaces",
    ):
        query_id = fake.callback_update(alice, lobby, "join")["callback_query"]["id"]
        with pytest.raises(BadRequest, match=r"(?i)url_invalid"):
            await bot.answer_callback_query(query_id, url=url)
        assert not fake.answer_for(query_id).answered

    worded = fake.callback_update(alice, lobby, "join")["callback_query"]["id"]
    assert await bot.answer_callback_query(worded, "Read me", url="https://t.me/tweak_test_bot?start=p1")
    with pytest.raises(AssertionError, match="does not open"):
        await tg.follow(alice, fake.answer_for(worded))
    linked = fake.callback_update(alice, lobby, "join")["callback_query"]["id"]
    assert await bot.answer_callback_query(linked, url="https://telegram.me/Tweak_Test_Bot?start=p1")
    await tg.follow(alice, fake.answer_for(linked))
    assert [m.text for m in fake.messages(alice.id, include_incoming=True)] == ["/start p1"]


async def test_unanswered_callback_fails_the_tap(tg: TelegramTestClient, fake: FakeTelegram) -> None:
    alice, group = fake.user(1, "Alice"), fake.group()
    await tg.send(group, alice, "/newgame")
    lobby = fake.last_message(group.id)

    with pytest.raises(AssertionError, match="never answered"):
        await tg.tap(alice, lobby, "Quiet")
    answer = await tg.tap(alice, lobby, "Quiet", expect_answer=False)
    assert not answer.answered

    forged = await tg.tap_data(alice, lobby, "g:999:v:1:xx")
    assert (forged.text, forged.show_alert) == ("That button is out of date", True)


async def test_flood_control_surfaces_as_retry_after(tg: TelegramTestClient, fake: FakeTelegram) -> None:
    group = fake.group()
    fake.fail_next("sendMessage", 429, retry_after=7, chat_id=group.id)

    with pytest.raises(RetryAfter) as raised:
        await tg.app.bot.send_message(group.id, "hi")
    assert retry_seconds(raised.value) == 7
    assert fake.calls[-1].response == {
        "ok": False,
        "error_code": 429,
        "description": "Too Many Requests: retry after 7",
        "parameters": {"retry_after": 7},
    }
    # Only once, and only that chat.
    await tg.app.bot.send_message(group.id, "hi")


async def test_injected_faults_are_scoped(tg: TelegramTestClient, fake: FakeTelegram) -> None:
    first, second = fake.group("one"), fake.group("two")
    fake.fail_next("*", 400, "Bad Request: something odd", times=2, chat_id=second.id)
    fake.fail_next("sendMessage", exception=TimedOut())
    fake.fail_next("sendMessage", exception=OSError("connection reset"))
    bot = tg.app.bot

    with pytest.raises(TimedOut):
        await bot.send_message(first.id, "a")
    with pytest.raises(NetworkError, match="connection reset"):
        await bot.send_message(first.id, "a")
    await bot.send_message(first.id, "a")
    for _ in range(2):
        with pytest.raises(BadRequest, match="Something odd"):
            await bot.send_chat_action(second.id, "typing")
    assert await bot.send_chat_action(second.id, "typing")


async def test_blocked_and_unstarted_private_chats(tg: TelegramTestClient, fake: FakeTelegram) -> None:
    alice, bob = fake.user(1, "Alice"), fake.user(2, "Bob")
    fake.private(alice)
    bot = tg.app.bot

    await bot.send_message(alice.id, "your hand")
    fake.block_user(alice.id)
    with pytest.raises(Forbidden, match="bot was blocked by the user"):
        await bot.send_message(alice.id, "your hand")
    assert fake.calls[-1].response["error_code"] == 403
    with pytest.raises(Forbidden, match="can't initiate conversation"):
        await bot.send_message(bob.id, "hi")
    with pytest.raises(BadRequest, match="Chat not found"):
        await bot.send_message(-100_999, "hi")

    # Writing to the bot (after unblocking it) opens the chat again.
    await tg.send(fake.private(alice, started=False), alice, "hello")
    await bot.send_message(alice.id, "welcome back")


async def test_bot_removed_from_group(tg: TelegramTestClient, fake: FakeTelegram) -> None:
    seen: list[tuple[str, str]] = []

    async def on_member(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        change = update.my_chat_member
        assert change is not None
        seen.append((change.old_chat_member.status, change.new_chat_member.status))

    tg.app.add_handler(ChatMemberHandler(on_member, ChatMemberHandler.MY_CHAT_MEMBER))
    alice = fake.user(1, "Alice")
    group = fake.group("Friends")

    await tg.process(fake.my_chat_member_update(group, alice, "administrator"))
    await tg.process(fake.my_chat_member_update(group, alice, "kicked"))

    assert seen == [("member", "administrator"), ("administrator", "kicked")]
    with pytest.raises(Forbidden, match="bot was kicked from the supergroup chat"):
        await tg.app.bot.send_message(group.id, "anyone?")


async def test_group_migration(tg: TelegramTestClient, fake: FakeTelegram) -> None:
    moved: list[tuple[int, int]] = []

    async def on_migrate(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        message = update.effective_message
        assert message is not None and message.migrate_to_chat_id is not None
        moved.append((message.chat.id, message.migrate_to_chat_id))

    tg.app.add_handler(MessageHandler(filters.StatusUpdate.MIGRATE, on_migrate))
    old = fake.group("Old", chat_id=-4321, kind="group")

    await tg.process(fake.migrate_update(old.id, -1_009_876))

    assert moved == [(-4321, -1_009_876)]
    with pytest.raises(ChatMigrated) as info:
        await tg.app.bot.send_message(old.id, "hello")
    assert info.value.new_chat_id == -1_009_876
    await tg.app.bot.send_message(-1_009_876, "hello")


async def test_forum_topics(tg: TelegramTestClient, fake: FakeTelegram) -> None:
    alice = fake.user(1, "Alice")
    forum = fake.forum("Games", topics={5: "TWEAK"})

    await tg.send(forum, alice, "/newgame", thread_id=5)

    lobby = fake.last_message(forum.id)
    assert lobby.message_thread_id == 5
    assert fake.calls_to("sendMessage")[-1].params["message_thread_id"] == 5
    await tg.tap(alice, lobby, "Join")
    with pytest.raises(BadRequest, match="Message thread not found"):
        await tg.app.bot.send_message(forum.id, "lost", message_thread_id=77)


async def test_handler_errors_and_background_tasks(tg: TelegramTestClient, fake: FakeTelegram) -> None:
    alice, group = fake.user(1, "Alice"), fake.group()

    with pytest.raises(ValueError, match="handler exploded"):
        await tg.send(group, alice, "/boom")

    calls = await tg.send(group, alice, "/background")
    assert [c.method for c in calls] == ["sendMessage"]
    assert fake.last_message(group.id).text == "from a task"


async def test_message_validation(tg: TelegramTestClient, fake: FakeTelegram) -> None:
    group = fake.group()
    bot = tg.app.bot
    # PTB lower-cases everything after the first letter of a BadRequest message.
    with pytest.raises(BadRequest, match=r"(?i)unclosed start tag at byte offset 6"):
        await bot.send_message(group.id, "score <3", parse_mode="HTML")
    with pytest.raises(BadRequest, match=r'(?i)unsupported start tag "x"'):
        await bot.send_message(group.id, "<x>y</x>", parse_mode="HTML")
    with pytest.raises(BadRequest, match=r"(?i)can't find end tag"):
        await bot.send_message(group.id, "<b>bold", parse_mode="HTML")
    with pytest.raises(BadRequest, match="Message text is empty"):
        await bot.send_message(group.id, "  \n ")
    with pytest.raises(BadRequest, match="Message is too long"):
        await bot.send_message(group.id, "x" * 4097)
    too_long = InlineKeyboardMarkup([[InlineKeyboardButton("x", callback_data="x" * 65)]])
    with pytest.raises(BadRequest, match="Button_data_invalid"):
        await bot.send_message(group.id, "keys", reply_markup=too_long)
    assert fake.messages(group.id) == []


async def test_documents_and_photos_are_recorded(tg: TelegramTestClient, fake: FakeTelegram) -> None:
    group = fake.group()
    bot = tg.app.bot

    doc = await bot.send_document(
        group.id, InputFile(b"seed,score\n1,42\n", filename="stats.csv"), caption="Stats"
    )
    photo = await bot.send_photo(group.id, b"\x89PNG fake", caption="<i>Board</i>", parse_mode="HTML")

    assert doc.document is not None and doc.document.file_name == "stats.csv"
    stored = fake.message(group.id, doc.message_id)
    assert (stored.kind, stored.caption) == ("document", "Stats")
    assert [(f.field, f.filename, f.data) for f in stored.files] == [
        ("document", "stats.csv", b"seed,score\n1,42\n")
    ]
    assert photo.photo and photo.caption == "Board"
    assert fake.message(group.id, photo.message_id).files[0].data == b"\x89PNG fake"
    with pytest.raises(BadRequest, match="There is no text in the message to edit"):
        await bot.edit_message_text("x", chat_id=group.id, message_id=photo.message_id)
    await bot.edit_message_caption(chat_id=group.id, message_id=photo.message_id, caption="Board 2")
    assert fake.message(group.id, photo.message_id).caption == "Board 2"


async def test_members_commands_and_misc(tg: TelegramTestClient, fake: FakeTelegram) -> None:
    from telegram import BotCommand, BotCommandScopeAllGroupChats, MenuButtonCommands

    alice, bob = fake.user(1, "Alice"), fake.user(2, "Bob")
    group = fake.group("Friends")
    fake.mark_admin(group.id, alice.id, "creator")
    fake.mark_admin(group.id, bob.id)
    bot = tg.app.bot

    assert (await bot.get_chat_member(group.id, 3)).status == "member"
    assert (await bot.get_chat_member(group.id, alice.id)).status == "creator"
    admins = await bot.get_chat_administrators(group.id)
    assert sorted((a.user.id, a.status) for a in admins) == [(1, "creator"), (2, "administrator")]

    commands = [BotCommand("newgame", "Start a lobby"), BotCommand("help", "Rules")]
    assert await bot.set_my_commands(commands, scope=BotCommandScopeAllGroupChats(), language_code="es")
    assert await bot.get_my_commands(scope=BotCommandScopeAllGroupChats(), language_code="es") == tuple(
        commands
    )
    assert await bot.get_my_commands() == ()
    assert fake.commands({"type": "all_group_chats"}, "es")[0] == {
        "command": "newgame",
        "description": "Start a lobby",
    }
    assert await bot.delete_my_commands(scope=BotCommandScopeAllGroupChats(), language_code="es")
    assert fake.commands({"type": "all_group_chats"}, "es") == []
    assert await bot.set_chat_menu_button(menu_button=MenuButtonCommands())
    assert fake.menu_buttons[None] == {"type": "commands"}

    chat = await bot.get_chat(group.id)
    assert (chat.id, chat.title, chat.type) == (group.id, "Friends", "supergroup")
    assert await bot.set_webhook("https://example.com/hook", secret_token="s3cret")
    assert fake.webhook is not None and fake.webhook["secret_token"] == "s3cret"
    assert await bot.delete_webhook()
    assert await bot.get_updates() == ()

    with pytest.raises(BadRequest, match="FakeTelegram does not implement the Bot API method sendDice"):
        await bot.send_dice(group.id)
    assert fake.unsupported == ["sendDice"]


async def test_budget_counting(tg: TelegramTestClient, fake: FakeTelegram) -> None:
    alice, group = fake.user(1, "Alice"), fake.group()
    await tg.send(group, alice, "/newgame")
    fake.reset_counts()

    await tg.tap(alice, fake.last_message(group.id), "Join")

    assert fake.count_calls(chat_id=group.id, methods=MESSAGE_METHODS) == 1
    assert fake.count_calls(methods={"answerCallbackQuery"}) == 1
    assert fake.count_calls() == 2
    method, params = fake.calls[-1]
    assert method == "answerCallbackQuery" and "callback_query_id" in params


def test_parse_html_rules() -> None:
    assert parse_html("a &lt;b&gt; &amp; &#128512; & x") == ("a <b> & 😀 & x", [])
    text, entities = parse_html(
        '😀<a href="tg://user?id=7">Al</a> <pre><code class="language-py">x</code></pre>'
    )
    assert text == "😀Al x"
    assert entities == [
        {
            "type": "text_mention",
            "offset": 2,
            "length": 2,
            "user": {"id": 7, "is_bot": False, "first_name": "User"},
        },
        {"type": "pre", "offset": 5, "length": 1, "language": "py"},
    ]
    assert parse_html("<span class=tg-spoiler>s</span>")[1] == [{"type": "spoiler", "offset": 0, "length": 1}]


async def test_concurrent_updates_and_non_blocking_handlers_are_awaited(fake: FakeTelegram) -> None:
    async def slow_reply(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        await asyncio.sleep(0.02)
        assert update.effective_chat is not None
        await update.effective_chat.send_message("done")

    app = fake.application_builder().concurrent_updates(True).build()
    app.add_handler(CommandHandler("slow", slow_reply, block=False))
    alice, group = fake.user(1, "Alice"), fake.group()
    async with TelegramTestClient(app, fake) as tg:
        calls = await tg.send(group, alice, "/slow")
    assert [c.method for c in calls] == ["sendMessage"]


@pytest.mark.filterwarnings("ignore:Tasks created via `Application.create_task`")
async def test_without_starting_the_application(fake: FakeTelegram) -> None:
    alice, group = fake.user(1, "Alice"), fake.group()
    async with TelegramTestClient(build_app(fake), fake, start=False) as tg:
        assert not tg.app.running
        await tg.send(group, alice, "/background")
    assert fake.last_message(group.id).text == "from a task"


async def test_jobs_are_paused_and_run_on_demand(fake: FakeTelegram) -> None:
    group = fake.group()

    async def sweep(context: ContextTypes.DEFAULT_TYPE) -> None:
        await context.bot.send_message(group.id, "sweep")

    async def post_init(app: Application) -> None:  # type: ignore[type-arg]
        assert app.job_queue is not None
        app.job_queue.run_repeating(sweep, interval=0.01, first=0, name="sweep")

    app = fake.application_builder().post_init(post_init).build()
    async with TelegramTestClient(app, fake) as tg:
        await asyncio.sleep(0.05)
        assert fake.messages(group.id) == []
        calls = await tg.run_job("sweep")
    assert [c.method for c in calls] == ["sendMessage"]
    assert [m.text for m in fake.messages(group.id)] == ["sweep"]


async def test_real_polling_updater_receives_queued_updates(fake: FakeTelegram) -> None:
    alice, group = fake.user(1, "Alice"), fake.group()
    async with TelegramTestClient(build_app(fake), fake) as tg:
        assert tg.app.updater is not None
        fake.queue_update(fake.command_update(group, alice, "/newgame"))
        await tg.app.updater.start_polling(poll_interval=0)
        for _ in range(200):
            if fake.messages(group.id):
                break
            await asyncio.sleep(0.01)
        await tg.app.updater.stop()
    assert fake.last_message(group.id).content.startswith("Lobby")
    assert fake.calls_to("deleteWebhook")


async def test_a_long_poll_is_held_until_an_update_comes_as_telegram_does(fake: FakeTelegram) -> None:
    """What a benchmark of a polling bot relies on: an idle bot is not polling 20 times a second."""
    alice, group = fake.user(1, "Alice"), fake.group()
    fake.long_poll_limit = 50.0
    bot = Bot(TEST_TOKEN, request=fake, get_updates_request=fake)
    began = time.monotonic()
    poll = asyncio.ensure_future(bot.get_updates(timeout=10))
    await asyncio.sleep(0.3)
    assert not poll.done()  # held: nothing to give yet
    fake.queue_update(fake.command_update(group, alice, "/newgame"))
    updates = await asyncio.wait_for(poll, 1.0)
    assert [u.message.text for u in updates if u.message] == ["/newgame"]
    assert time.monotonic() - began < 2.0
    began = time.monotonic()
    assert await bot.get_updates(offset=updates[-1].update_id + 1, timeout=1) == ()
    assert 0.9 < time.monotonic() - began < 3.0  # an empty answer once the poll's timeout ran out


# --------------------------------------------------------------------------------------------------
# Virtual time
# --------------------------------------------------------------------------------------------------


def test_virtual_timer_is_a_tgbot_timer() -> None:
    timer: Timer = VirtualTimer(start=5.0)  # structural: mypy checks this line
    assert timer.monotonic() == 5.0
    assert timer.time() == DEFAULT_EPOCH + 5.0
    assert dtm.datetime.fromtimestamp(DEFAULT_EPOCH, dtm.UTC) == dtm.datetime(2026, 1, 1, 12, tzinfo=dtm.UTC)
    assert inspect.iscoroutinefunction(VirtualTimer.sleep)
    assert list(inspect.signature(VirtualTimer.sleep).parameters) == list(
        inspect.signature(SystemTimer.sleep).parameters
    )
    protocol = {name for name in vars(Timer) if not name.startswith("_")}
    assert protocol == {"monotonic", "time", "sleep"}
    assert protocol <= set(dir(VirtualTimer))


async def test_a_wakeup_ends_a_virtual_sleep_early() -> None:
    timer, wake = VirtualTimer(), Wakeup()
    task = asyncio.create_task(timer.sleep(60, wake))
    await asyncio.sleep(0)
    assert timer.is_parked(task)
    timer.advance(3)
    wake.set()  # new work for a sender waiting for its budget
    assert await asyncio.wait_for(task, 1) is True
    assert timer.monotonic() == 3.0 and timer.sleepers() == []

    wake.clear()
    task = asyncio.create_task(timer.sleep(5, wake))
    await asyncio.sleep(0)
    timer.advance(5)
    assert await asyncio.wait_for(task, 1) is False  # the time was up
    wake.set()  # a flag set later does not touch the finished sleep
    assert await asyncio.wait_for(timer.sleep(5, wake), 1) is True  # already set: at once
    wake.clear()
    assert await asyncio.wait_for(timer.sleep(0, wake), 1) is False
    assert timer.parks == 2 and timer.monotonic() == 8.0


async def test_virtual_sleep_parks_until_time_is_advanced() -> None:
    timer = VirtualTimer()
    woke_at: list[float] = []

    async def sleeper() -> None:
        await timer.sleep(5)
        woke_at.append(timer.monotonic())

    task = asyncio.create_task(sleeper())
    await asyncio.sleep(0)
    assert timer.is_parked(task) and timer.parked_tasks() == {task}
    assert timer.next_wake() == 5.0 and timer.wake_of(task) == 5.0

    assert timer.advance(4.5) == 0
    await asyncio.sleep(0)
    assert timer.is_parked(task) and not woke_at

    assert timer.advance(0.5) == 1
    assert not timer.is_parked(task)  # woken at once, before it even ran
    await task
    assert woke_at == [5.0] and timer.next_wake() is None

    with pytest.raises(ValueError, match="only moves forward"):
        timer.advance_to(4.0)
    with pytest.raises(ValueError, match="only moves forward"):
        timer.advance(-1)


async def test_virtual_sleep_zero_only_yields_once() -> None:
    timer = VirtualTimer()
    order: list[str] = []

    async def yielder(seconds: float) -> None:
        order.append("before")
        await timer.sleep(seconds)
        order.append("after")

    for seconds in (0, -3):
        order.clear()
        task = asyncio.create_task(yielder(seconds))
        await asyncio.sleep(0)  # the task runs up to its sleep
        assert order == ["before"] and not timer.is_parked(task)
        await asyncio.sleep(0)  # one more loop iteration and it is through
        assert order == ["before", "after"] and task.done()
    assert timer.parks == 0 and timer.monotonic() == 0.0


async def test_cancelling_a_parked_task_is_clean() -> None:
    timer = VirtualTimer()
    first = asyncio.create_task(timer.sleep(10))
    second = asyncio.create_task(timer.sleep(20))
    await asyncio.sleep(0)
    assert timer.parked_tasks() == {first, second}

    first.cancel()
    with pytest.raises(asyncio.CancelledError):
        await first
    assert timer.parked_tasks() == {second}
    assert timer.next_wake() == 20.0
    assert timer.advance(15) == 0  # the cancelled wake at 10 is gone
    assert timer.advance(5) == 1
    await second
    assert timer.sleepers() == []


async def test_woken_sleepers_resume_in_wake_order() -> None:
    timer = VirtualTimer()
    order: list[int] = []

    async def sleeper(seconds: int) -> None:
        await timer.sleep(seconds)
        order.append(seconds)

    tasks = [asyncio.create_task(sleeper(s)) for s in (3, 1, 2)]
    await asyncio.sleep(0)
    assert [s.wake for s in timer.sleepers()] == [1.0, 2.0, 3.0]
    timer.advance(3)
    await asyncio.gather(*tasks)
    assert order == [1, 2, 3]


# --------------------------------------------------------------------------------------------------
# Flood limits
# --------------------------------------------------------------------------------------------------


@pytest.fixture
def timer() -> VirtualTimer:
    return VirtualTimer()


@pytest.fixture
def flooded(timer: VirtualTimer) -> FakeTelegram:
    return FakeTelegram(flood=FloodLimits(), timer=timer)


@pytest.fixture
async def ftg(flooded: FakeTelegram) -> AsyncIterator[TelegramTestClient]:
    async with TelegramTestClient(build_app(flooded), flooded) as client:
        yield client


async def test_group_allows_20_writes_in_any_60_seconds(
    ftg: TelegramTestClient, flooded: FakeTelegram, timer: VirtualTimer
) -> None:
    group = flooded.group()
    bot = ftg.app.bot
    for _ in range(20):  # one a second, t = 0 .. 19
        await bot.send_message(group.id, "tick")
        timer.advance(1)
    timer.advance_to(30)

    # The 21st write inside 60 s: the first one (t=0) leaves the window at t=60, 30 s from now.
    with pytest.raises(RetryAfter) as refused:
        await bot.send_message(group.id, "one too many")
    assert retry_seconds(refused.value) == 30
    assert flooded.calls[-1].status == 429
    assert flooded.calls[-1].response == {
        "ok": False,
        "error_code": 429,
        "description": "Too Many Requests: retry after 30",
        "parameters": {"retry_after": 30},
    }
    assert len(flooded.messages(group.id)) == 20  # not applied

    timer.advance_to(30.5)  # 29.5 s to go: whole seconds, rounded up
    with pytest.raises(RetryAfter) as refused:
        await bot.send_message(group.id, "one too many")
    assert retry_seconds(refused.value) == 30

    timer.advance_to(59.5)  # half a second to go: Telegram still says at least 1
    with pytest.raises(RetryAfter) as refused:
        await bot.send_message(group.id, "still too many")
    assert retry_seconds(refused.value) == 1

    timer.advance_to(60)  # the t=0 write has left the window; refusals never counted
    await bot.send_message(group.id, "fits")
    with pytest.raises(RetryAfter) as refused:
        await bot.send_message(group.id, "the t=1 write leaves at 61")
    assert retry_seconds(refused.value) == 1

    assert flooded.count_429(group.id) == 4 == flooded.count_429()
    assert [(r.chat_id, r.retry_after, r.limit) for r in flooded.flood_rejections] == [
        (group.id, 30, "chat"),
        (group.id, 30, "chat"),
        (group.id, 1, "chat"),
        (group.id, 1, "chat"),
    ]
    assert flooded.write_times(group.id) == [*map(float, range(20)), 60.0]
    assert flooded.max_writes_in_window(group.id, 60) == 20


async def test_edits_and_deletions_spend_the_group_budget(
    ftg: TelegramTestClient, flooded: FakeTelegram, timer: VirtualTimer
) -> None:
    group = flooded.group()
    bot = ftg.app.bot
    sent = await bot.send_message(group.id, "edit 0")
    for n in range(1, 19):
        await bot.edit_message_text(f"edit {n}", chat_id=group.id, message_id=sent.message_id)
    await bot.edit_message_reply_markup(chat_id=group.id, message_id=sent.message_id, reply_markup=LOBBY_KEYS)
    assert flooded.max_writes_in_window(group.id) == 20

    with pytest.raises(RetryAfter):
        await bot.delete_message(group.id, sent.message_id)
    with pytest.raises(RetryAfter):
        await bot.edit_message_text("edit 20", chat_id=group.id, message_id=sent.message_id)
    stored = flooded.message(group.id, sent.message_id)
    assert not stored.deleted and stored.text == "edit 18"

    # Requests Telegram refuses for other reasons come first and cost nothing.
    with pytest.raises(BadRequest, match=r"(?i)message is not modified"):
        await bot.edit_message_text(
            "edit 18", chat_id=group.id, message_id=sent.message_id, reply_markup=LOBBY_KEYS
        )
    with pytest.raises(BadRequest, match=r"(?i)can't parse entities"):
        await bot.send_message(group.id, "<b>broken", parse_mode="HTML")
    assert flooded.count_429(group.id) == 2
    timer.advance(60)
    assert await bot.delete_message(group.id, sent.message_id)


async def test_private_chat_accepts_one_message_a_second(
    ftg: TelegramTestClient, flooded: FakeTelegram, timer: VirtualTimer
) -> None:
    alice = flooded.user(1, "Alice")
    flooded.private(alice)
    bot = ftg.app.bot
    await bot.send_message(alice.id, "your hand")
    timer.advance(0.5)
    with pytest.raises(RetryAfter) as refused:
        await bot.send_message(alice.id, "your hand, again")
    assert retry_seconds(refused.value) == 1
    timer.advance(0.5)
    await bot.send_message(alice.id, "your hand, again")
    assert flooded.write_times(alice.id) == [0.0, 1.0]
    assert flooded.flood_rejections[0].limit == "chat"


async def test_a_throttled_group_does_not_slow_a_quiet_one(
    ftg: TelegramTestClient, flooded: FakeTelegram
) -> None:
    busy, quiet = flooded.group("busy"), flooded.group("quiet")
    bot = ftg.app.bot
    for _ in range(20):
        await bot.send_message(busy.id, "spam")
    with pytest.raises(RetryAfter):
        await bot.send_message(busy.id, "spam")
    await bot.send_message(quiet.id, "hello")  # same instant, other group: fine
    assert flooded.count_429(busy.id) == 1
    assert flooded.count_429(quiet.id) == 0


async def test_thirty_writes_a_second_across_the_bot(
    ftg: TelegramTestClient, flooded: FakeTelegram, timer: VirtualTimer
) -> None:
    groups = [flooded.group(f"g{n}") for n in range(31)]
    bot = ftg.app.bot
    for group in groups[:30]:
        await bot.send_message(group.id, "news")
    with pytest.raises(RetryAfter) as refused:
        await bot.send_message(groups[30].id, "news")  # its own first write, but the 31st overall
    assert retry_seconds(refused.value) == 1
    assert flooded.flood_rejections[-1].limit == "overall"
    assert flooded.max_writes_in_window(None, 1) == 30
    timer.advance(1)
    await bot.send_message(groups[30].id, "news")
    assert len(flooded.write_times()) == 31


async def test_flood_limits_are_off_by_default_but_writes_are_recorded(
    tg: TelegramTestClient, fake: FakeTelegram
) -> None:
    group = fake.group()
    for _ in range(25):
        await tg.app.bot.send_message(group.id, "burst")
    assert fake.count_429() == 0
    assert fake.max_writes_in_window(group.id, 60) == 25
    assert fake.flood_limits is None
    fake.flood_limits = FloodLimits(group=WriteLimit(30, 60.0), overall=None)  # on, mid-test
    for _ in range(5):
        await tg.app.bot.send_message(group.id, "burst")
    with pytest.raises(RetryAfter):
        await tg.app.bot.send_message(group.id, "burst")


async def test_flood_windows_use_real_time_by_default() -> None:
    fake = FakeTelegram(flood=FloodLimits())
    alice = fake.user(1, "Alice")
    fake.private(alice)
    async with TelegramTestClient(fake.application_builder().build(), fake) as tg:
        await tg.app.bot.send_message(alice.id, "one")
        with pytest.raises(RetryAfter):
            await tg.app.bot.send_message(alice.id, "two")
    assert isinstance(fake.timer, SystemMonotonic)


def test_window_arithmetic() -> None:
    assert max_in_window([0, 10, 59.9, 60, 61], 60) == 4  # (1, 61] holds 10, 59.9, 60, 61
    assert max_in_window([], 60) == 0
    limit = WriteLimit(2, 10)
    assert retry_after([0.0, 4.0], limit, 5.0) == 5  # 0 leaves at 10
    assert retry_after([0.0, 4.0], limit, 10.0) is None
    assert retry_after([0.0, 4.0], limit, 9.99) == 1
    with pytest.raises(ValueError, match="writes >= 1"):
        WriteLimit(0, 1)


# --------------------------------------------------------------------------------------------------
# Callback answers expire
# --------------------------------------------------------------------------------------------------


async def test_callback_query_expires_after_15_seconds(
    ftg: TelegramTestClient, flooded: FakeTelegram, timer: VirtualTimer
) -> None:
    alice, group = flooded.user(1, "Alice"), flooded.group()
    sent = await ftg.app.bot.send_message(group.id, "lobby", reply_markup=LOBBY_KEYS)
    lobby = flooded.message(group.id, sent.message_id)

    on_time = flooded.callback_update(alice, lobby, "join")["callback_query"]["id"]
    late = flooded.callback_update(alice, lobby, "join")["callback_query"]["id"]
    timer.advance(15)
    assert await ftg.app.bot.answer_callback_query(on_time, "just in time")
    timer.advance(0.5)
    with pytest.raises(BadRequest, match=r"(?i)query is too old and response timeout expired"):
        await ftg.app.bot.answer_callback_query(late, "too late")
    record = flooded.answer_for(late)
    assert (record.answered, record.expired, record.text) == (False, True, None)
    assert (flooded.answer_for(on_time).created_at, flooded.answer_for(on_time).answered_at) == (0.0, 15.0)


async def test_slow_handlers_leave_the_button_spinning(flooded: FakeTelegram, timer: VirtualTimer) -> None:
    async def slow(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        query = update.callback_query
        assert query is not None and query.data is not None
        await timer.sleep(float(query.data))
        with contextlib.suppress(BadRequest):  # too late: Telegram refuses the answer
            await query.answer("done")

    app = flooded.application_builder().build()
    app.add_handler(CallbackQueryHandler(slow))
    alice, group = flooded.user(1, "Alice"), flooded.group()
    async with TelegramTestClient(app, flooded) as tg:
        sent = await app.bot.send_message(group.id, "x", reply_markup=LOBBY_KEYS)
        message = flooded.message(group.id, sent.message_id)
        started = time.monotonic()
        answer = await tg.tap_data(alice, message, "10")
        assert answer.answered and answer.answered_at == 10.0
        with pytest.raises(AssertionError, match="answered too late"):
            await tg.tap_data(alice, message, "16")
        assert time.monotonic() - started < 2  # 26 virtual seconds, no real waiting
    assert timer.monotonic() == 26.0


async def test_answer_timeout_can_be_disabled(timer: VirtualTimer) -> None:
    fake = FakeTelegram(timer=timer, answer_timeout=None)
    alice, group = fake.user(1, "Alice"), fake.group()
    async with TelegramTestClient(fake.application_builder().build(), fake) as tg:
        sent = await tg.app.bot.send_message(group.id, "x", reply_markup=LOBBY_KEYS)
        query_id = fake.callback_update(alice, fake.message(group.id, sent.message_id), "join")
        timer.advance(3600)
        assert await tg.app.bot.answer_callback_query(query_id["callback_query"]["id"])


# --------------------------------------------------------------------------------------------------
# Inline mode
# --------------------------------------------------------------------------------------------------


def article(
    result_id: str, text: str, title: str | None = None, keys: InlineKeyboardMarkup | None = None
) -> InlineQueryResultArticle:
    return InlineQueryResultArticle(
        result_id,
        f"Play {result_id}" if title is None else title,
        InputTextMessageContent(text, parse_mode="HTML"),
        reply_markup=keys,
    )


@pytest.fixture
def inline_fake(timer: VirtualTimer) -> FakeTelegram:
    return FakeTelegram(timer=timer, inline_mode=True, inline_feedback=True)


async def test_get_me_reports_inline_mode(inline_fake: FakeTelegram, fake: FakeTelegram) -> None:
    for each, expected in ((inline_fake, True), (fake, False)):
        async with TelegramTestClient(each.application_builder().build(), each) as tg:
            assert tg.app.bot.supports_inline_queries is expected
    with pytest.raises(ValueError, match="inline_mode=True"):
        fake.inline_query_update(fake.user(1, "Alice"), "hand")


async def test_inline_query_updates_parse_in_ptb(inline_fake: FakeTelegram) -> None:
    alice = inline_fake.user(1, "Alice")
    group = inline_fake.group(kind="group")
    app = inline_fake.application_builder().build()
    async with TelegramTestClient(app, inline_fake):
        data = inline_fake.inline_query_update(alice, "play 7", "10", chat=group)
        update = inline_fake.to_update(data, app.bot)
        query = update.inline_query
        assert query is not None
        assert (query.query, query.offset, query.chat_type, query.from_user.id) == (
            "play 7",
            "10",
            "group",
            1,
        )
        dm = inline_fake.inline_query_update(alice, chat=inline_fake.private(alice))
        assert dm["inline_query"]["chat_type"] == "sender"
        assert inline_fake.inline_query_update(alice)["inline_query"]["chat_type"] == "supergroup"
        with pytest.raises(ValueError, match="does not match"):
            inline_fake.inline_query_update(alice, chat=group, chat_type="supergroup")


@pytest.mark.filterwarnings("ignore:Please use 'Bot.answerInlineQuery'")
async def test_answer_inline_query_is_validated_like_telegram(
    inline_fake: FakeTelegram, timer: VirtualTimer
) -> None:
    alice = inline_fake.user(1, "Alice")
    async with TelegramTestClient(inline_fake.application_builder().build(), inline_fake) as tg:
        bot = tg.app.bot
        query_id = inline_fake.inline_query_update(alice, "hand")["inline_query"]["id"]
        ok = [article("a", "<b>7♥</b>"), article("b" * 64, "8♥")]

        with pytest.raises(BadRequest, match=r"(?i)^results_too_much$"):
            await bot.answer_inline_query(query_id, [article(str(n), "x") for n in range(51)])
        with pytest.raises(BadRequest, match=r"(?i)^result_id_duplicate$"):
            await bot.answer_inline_query(query_id, [article("a", "x"), article("a", "y")])
        with pytest.raises(BadRequest, match=r"(?i)^result_id_invalid$"):
            await bot.answer_inline_query(query_id, [article("c" * 65, "x")])
        with pytest.raises(BadRequest, match=r"(?i)^article_title_empty$"):
            await bot.answer_inline_query(query_id, [article("a", "x", title=" ")])
        with pytest.raises(BadRequest, match=r"(?i)^message_too_long$"):
            await bot.answer_inline_query(query_id, [article("a", "x" * 4097)])
        with pytest.raises(BadRequest, match=r"(?i)^message_empty$"):
            await bot.answer_inline_query(query_id, [article("a", "<b> </b>")])
        with pytest.raises(BadRequest, match=r"(?i)^next_offset_invalid$"):
            await bot.answer_inline_query(query_id, ok, next_offset="9" * 65)
        with pytest.raises(
            BadRequest,
            match=r"(?i)^can't parse inline query result: can't parse entities: unclosed start tag",
        ):
            await bot.answer_inline_query(query_id, [article("a", "7 <3")])
        no_title = {"type": "article", "id": "a", "input_message_content": {"message_text": "x"}}
        with pytest.raises(
            BadRequest, match=r'(?i)^can\'t parse inline query result: can\'t find field "title"$'
        ):
            await bot.do_api_request(
                "answerInlineQuery", {"inline_query_id": query_id, "results": [no_title]}
            )
        assert not inline_fake.inline_answer(query_id).answered  # refusals leave it answerable

        timer.advance(10)
        assert await bot.answer_inline_query(
            query_id,
            ok,
            cache_time=0,
            is_personal=True,
            next_offset="2",
            button=InlineQueryResultsButton("Rules", start_parameter="rules"),
        )
        answer = inline_fake.inline_answer(query_id)
        assert answer.result_ids == ["a", "b" * 64]
        assert (answer.cache_time, answer.is_personal, answer.next_offset) == (0, True, "2")
        assert answer.button == {"text": "Rules", "start_parameter": "rules"}
        assert answer.result("a")["input_message_content"]["message_text"] == "<b>7♥</b>"
        with pytest.raises(BadRequest, match=r"(?i)query is too old"):
            await bot.answer_inline_query(query_id, ok)

        late = inline_fake.inline_query_update(alice, "hand")["inline_query"]["id"]
        timer.advance(10.5)
        with pytest.raises(BadRequest, match=r"(?i)query is too old"):
            await bot.answer_inline_query(late, ok)
        assert inline_fake.inline_answer(late).expired


def inline_app(fake: FakeTelegram, seen: list[object]) -> Application:  # type: ignore[type-arg]
    """A bot whose inline answers are your hand; picks and via-bot messages are recorded."""

    async def on_inline(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        query = update.inline_query
        assert query is not None
        keys = InlineKeyboardMarkup([[InlineKeyboardButton("Undo", callback_data="undo")]])
        await query.answer(
            [article("7h", "I play <b>7♥</b>", keys=keys), article("8s", "I play 8♠")],
            cache_time=0,
            is_personal=True,
        )

    async def on_chosen(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        seen.append(update.chosen_inline_result)

    async def on_via(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        seen.append(update.message)

    async def on_undo(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        query = update.callback_query
        assert query is not None and query.inline_message_id is not None and query.message is None
        assert await query.edit_message_text("<i>taken back</i>", parse_mode="HTML") is True
        await query.answer()

    app = fake.application_builder().build()
    app.add_handler(InlineQueryHandler(on_inline))
    app.add_handler(ChosenInlineResultHandler(on_chosen))
    app.add_handler(MessageHandler(filters.ViaBot(bot_id=BOT_ID), on_via))
    app.add_handler(CallbackQueryHandler(on_undo))
    return app


async def test_picking_an_inline_result_posts_the_users_message_via_the_bot(
    inline_fake: FakeTelegram,
) -> None:
    seen: list[object] = []
    alice, group = inline_fake.user(1, "Alice"), inline_fake.group("Table")
    async with TelegramTestClient(inline_app(inline_fake, seen), inline_fake) as tg:
        answer = await tg.inline_query(alice, "hand", chat=group)
        assert answer.result_ids == ["7h", "8s"] and answer.titles == ["Play 7h", "Play 8s"]

        calls = await tg.pick(alice, group, answer, "8s")

        assert calls == []  # the bot wrote nothing: the message is Alice's
        posted = inline_fake.messages(group.id, include_incoming=True)[-1]
        assert (posted.from_bot, posted.sender["id"], posted.text) == (False, alice.id, "I play 8♠")
        assert posted.via_bot is not None and posted.via_bot["username"] == "tweak_test_bot"
        assert posted.inline_message_id is None and inline_fake.write_times(group.id) == []
        message, chosen = seen
        assert isinstance(message, Message) and message.via_bot is not None
        assert (message.via_bot.id, message.from_user and message.from_user.id) == (BOT_ID, alice.id)
        assert isinstance(chosen, ChosenInlineResult)
        assert (chosen.result_id, chosen.query, chosen.from_user.id, chosen.inline_message_id) == (
            "8s",
            "hand",
            alice.id,
            None,
        )
        assert answer.picked == ["8s"]


async def test_an_inline_result_with_a_keyboard_becomes_an_inline_message(
    inline_fake: FakeTelegram, timer: VirtualTimer
) -> None:
    seen: list[object] = []
    alice, group = inline_fake.user(1, "Alice"), inline_fake.group("Table")
    inline_fake.flood_limits = FloodLimits()
    async with TelegramTestClient(inline_app(inline_fake, seen), inline_fake) as tg:
        answer = await tg.inline_query(alice, "hand", chat=group)
        await tg.pick(alice, group, answer, "7h")
        posted = inline_fake.messages(group.id, include_incoming=True)[-1]
        assert (posted.text, posted.entities) == ("I play 7♥", [{"type": "bold", "offset": 7, "length": 2}])
        chosen = seen[-1]
        assert isinstance(chosen, ChosenInlineResult)
        assert chosen.inline_message_id is not None
        assert chosen.inline_message_id == posted.inline_message_id
        assert inline_fake.inline_message(chosen.inline_message_id) is posted

        tap = await tg.tap(alice, posted, "Undo")

        assert tap.inline_message_id == posted.inline_message_id and tap.answered
        assert (posted.text, posted.buttons, posted.edited) == ("taken back", [], True)
        assert inline_fake.write_times(group.id) == [0.0]  # the edit is the bot's write
        (edit,) = [c for c in inline_fake.calls if c.method == "editMessageText"]
        assert edit.chat_id is None and inline_fake.chat_of_call(edit) == group.id  # its chat, all the same
        with pytest.raises(BadRequest, match=r"(?i)message_id_invalid"):
            await tg.app.bot.edit_message_text("x", inline_message_id="nope")


async def test_who_sees_a_picked_result(inline_fake: FakeTelegram) -> None:
    alice, bob = inline_fake.user(1, "Alice"), inline_fake.user(2, "Bob")
    group = inline_fake.group()

    def answered(user: FakeUser, chat: FakeChat) -> str:
        query_id = str(inline_fake.inline_query_update(user, "q", chat=chat)["inline_query"]["id"])
        record = inline_fake.inline_answer(query_id)
        result = {"type": "article", "id": "r", "title": "R", "input_message_content": {"message_text": "hi"}}
        record.answered, record.results = True, [result]
        return query_id

    # Their own chat with the bot ("sender"): the bot gets the message, and the chat opens.
    dm = inline_fake.private(alice, started=False)
    updates = inline_fake.pick_inline_result(alice, dm, answered(alice, dm), "r")
    assert [next(k for k in u if k != "update_id") for u in updates] == ["message", "chosen_inline_result"]
    # A private chat with someone else: not the bot's business, only the feedback arrives.
    with_bob = FakeChat(bob.id, "private", first_name="Bob")
    updates = inline_fake.pick_inline_result(alice, with_bob, answered(alice, with_bob), "r")
    assert [next(k for k in u if k != "update_id") for u in updates] == ["chosen_inline_result"]
    # A group the bot left; and without feedback, nothing at all.
    inline_fake.set_member_status(group.id, BOT_ID, "left")
    inline_fake.inline_feedback = False
    assert inline_fake.pick_inline_result(alice, group, answered(alice, group), "r") == []

    query_id = answered(alice, group)
    with pytest.raises(AssertionError, match="only they see its results"):
        inline_fake.pick_inline_result(bob, group, query_id, "r")
    with pytest.raises(AssertionError, match="its results are posted there"):
        inline_fake.pick_inline_result(alice, inline_fake.group(), query_id, "r")
    with pytest.raises(AssertionError, match=r"no result 'zz'.*\['r'\]"):
        inline_fake.pick_inline_result(alice, group, query_id, "zz")
    unanswered = inline_fake.inline_query_update(alice, "q")
    with pytest.raises(AssertionError, match="never answered"):
        inline_fake.pick_inline_result(alice, group, unanswered, "r")


async def test_switch_inline_button_starts_an_inline_query_in_that_chat(inline_fake: FakeTelegram) -> None:
    seen: list[object] = []
    alice, group = inline_fake.user(1, "Alice"), inline_fake.group()
    async with TelegramTestClient(inline_app(inline_fake, seen), inline_fake) as tg:
        keys = InlineKeyboardMarkup(
            [[InlineKeyboardButton("My hand", switch_inline_query_current_chat="hand")]]
        )
        sent = await tg.app.bot.send_message(group.id, "Your turn", reply_markup=keys)
        board = inline_fake.message(group.id, sent.message_id)
        with pytest.raises(AssertionError, match="use tap_switch_inline"):
            await tg.tap(alice, board, "My hand")

        answer = await tg.tap_switch_inline(alice, board, "My hand")

        assert (answer.query, answer.chat_id, answer.chat_type) == ("hand", group.id, "supergroup")
        await tg.pick(alice, group, answer, "8s")
        assert isinstance(seen[0], Message) and seen[0].text == "I play 8♠"


# --------------------------------------------------------------------------------------------------
# Games in chats the bot is not in (inline mode)
# --------------------------------------------------------------------------------------------------

GAME_KEYS = InlineKeyboardMarkup(
    [
        [InlineKeyboardButton("✋ Join", callback_data="join")],
        [InlineKeyboardButton("📖 Rules", url="https://t.me/tweak_test_bot?start=rules")],
    ]
)
#: Keys that may travel with a forward: a link, and a switch to inline mode.
SHARE_KEYS = InlineKeyboardMarkup(
    [
        [InlineKeyboardButton("📖 Rules", url="https://t.me/tweak_test_bot?start=rules")],
        [InlineKeyboardButton("🎯 Play", switch_inline_query_current_chat="play")],
    ]
)


def host_app(fake: FakeTelegram, seen: list[object]) -> Application:  # type: ignore[type-arg]
    """A bot that hosts games through inline mode: "🎴 New game here" with keys, a start button
    above the results, Join taps that edit the inline message, /start that notes its payload."""

    async def on_inline(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        query = update.inline_query
        assert query is not None
        await query.answer(
            [
                article("new", "🎴 <b>New game</b> — players: nobody", "🎴 New game here", GAME_KEYS),
                article("share", "🎴 Come and play", "🎴 Invite", SHARE_KEYS),
            ],
            cache_time=0,
            is_personal=True,
            button=InlineQueryResultsButton("How to play", start_parameter="howto"),
        )

    async def on_join(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        query = update.callback_query
        assert query is not None
        seen.append(query)
        name = query.from_user.first_name
        edited = await query.edit_message_text(f"🎴 New game — players: {name}", reply_markup=GAME_KEYS)
        # An inline message's edit answers True; any other edit answers the edited Message.
        assert (edited is True) == (query.inline_message_id is not None)
        await query.answer("You're in")

    async def on_start(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        assert update.effective_chat is not None and update.effective_message is not None
        seen.append(("start", update.effective_chat.id, context.args))
        await update.effective_message.reply_text("Welcome")

    async def on_member(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        change = update.my_chat_member
        assert change is not None
        seen.append((change.old_chat_member.status, change.new_chat_member.status))

    async def on_message(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        seen.append(update.message)

    app = fake.application_builder().build()
    app.add_handler(InlineQueryHandler(on_inline))
    app.add_handler(CallbackQueryHandler(on_join))
    app.add_handler(CommandHandler("start", on_start))
    app.add_handler(ChatMemberHandler(on_member, ChatMemberHandler.MY_CHAT_MEMBER))
    app.add_handler(MessageHandler(filters.ALL, on_message))
    return app


async def post_game(
    tg: TelegramTestClient, user: FakeUser, chat: FakeChat, result: str = "new"
) -> StoredMessage:
    """``user`` types "@bot" in ``chat`` and picks ``result``; returns the message it posted."""
    answer = await tg.inline_query(user, chat=chat)
    await tg.pick(user, chat, answer, result)
    return tg.fake.transcript(chat)[-1]


async def test_a_game_posted_where_the_bot_is_not_lives_in_that_chat_alone(inline_fake: FakeTelegram) -> None:
    seen: list[object] = []
    ana, ben = inline_fake.user(1, "Ana"), inline_fake.user(2, "Ben")
    friends = inline_fake.private_between(ana, ben)
    club = inline_fake.group("Club", with_bot=False)
    old = inline_fake.group("Old club", kind="group", with_bot=False)
    async with TelegramTestClient(host_app(inline_fake, seen), inline_fake) as tg:
        types = []
        for chat in (friends, club, old):
            answer = await tg.inline_query(ana, chat=chat)
            types.append(answer.chat_type)
            updates = inline_fake.pick_inline_result(ana, chat, answer, "new")
            # Only the feedback arrives: the bot gets no message from a chat it is not in.
            assert [next(k for k in u if k != "update_id") for u in updates] == ["chosen_inline_result"]
            await tg.process_many(updates)
            assert inline_fake.read_chat(chat) == ["Ana via @tweak_test_bot: 🎴 New game — players: nobody"]
        assert types == ["private", "supergroup", "group"]
        assert seen == []
        assert inline_fake.private_between(ben, ana) is friends  # one chat, whoever names it
        game = inline_fake.transcript(friends)[0]

        answer = await tg.tap(ben, game, "✋ Join")

        assert answer.text == "You're in"
        query = seen[-1]
        assert isinstance(query, CallbackQuery)
        assert (query.message, query.inline_message_id) == (None, game.inline_message_id)
        assert query.chat_instance == inline_fake.chat_instance(friends.id)
        assert inline_fake.read_chat(friends) == ["Ana via @tweak_test_bot: 🎴 New game — players: Ben"]
        assert [r.text for r in game.history] == ["🎴 New game — players: nobody"]


async def test_people_talk_where_the_bot_cannot_hear(inline_fake: FakeTelegram) -> None:
    ana, ben = inline_fake.user(1, "Ana"), inline_fake.user(2, "Ben")
    club = inline_fake.group("Club", with_bot=False)
    for chat in (inline_fake.private_between(ana, ben), club):
        with pytest.raises(AssertionError, match="the bot is not in chat"):
            inline_fake.text_update(chat, ana, "/newgame")
        inline_fake.say(chat, ana, "gl hf")
    # Ana's app names her chat with Ben by his id.
    inline_fake.say(FakeChat(ben.id, "private", first_name="Ben"), ana, "again?")
    assert inline_fake.read_chat(inline_fake.private_between(ana, ben)) == ["Ana: gl hf", "Ana: again?"]
    assert inline_fake.read_chat(club) == ["Ana: gl hf"]
    assert inline_fake.messages(ben.id, include_incoming=True) == []  # Ben's chat with the bot
    with pytest.raises(AssertionError, match="use text_update"):
        inline_fake.say(inline_fake.private(ana), ana, "hi bot")


async def test_the_bot_can_neither_write_nor_read_where_it_is_not(fake: FakeTelegram) -> None:
    ana, ben = fake.user(1, "Ana"), fake.user(2, "Ben")
    friends = fake.private_between(ana, ben)
    old = fake.group("Old club", kind="group", with_bot=False)
    club = fake.group("Club", with_bot=False)
    fake.group("Public", with_bot=False, username="public_club")
    left = fake.group("Left", kind="group")
    gone = fake.group("Gone")
    async with TelegramTestClient(fake.application_builder().build(), fake) as tg:
        bot = tg.app.bot
        sent = await bot.send_message(left.id, "bye")
        fake.set_member_status(left.id, BOT_ID, "left")
        fake.set_member_status(gone.id, BOT_ID, "kicked")
        # Ids the bot never saw: a chat between two people, a basic group it was never in.
        for chat_id in (friends.id, old.id):
            for attempt in (
                bot.send_message(chat_id, "hi"),
                bot.send_photo(chat_id, b"\x89PNG"),
                bot.send_document(chat_id, InputFile(b"x", filename="x.txt")),
                bot.edit_message_text("hi", chat_id=chat_id, message_id=1),
                bot.delete_message(chat_id, 1),
                bot.get_chat(chat_id),
            ):
                with pytest.raises(BadRequest, match=r"^Chat not found$"):
                    await attempt
        # A supergroup it is not in, never joined or public: not a member, even to read it,
        # unless it is public.
        for attempt in (
            bot.send_message(club.id, "hi"),
            bot.get_chat(club.id),
            bot.get_chat_member(club.id, ana.id),
            bot.send_message("@public_club", "hi"),
        ):
            with pytest.raises(Forbidden, match=r"^Forbidden: bot is not a member of the supergroup chat$"):
                await attempt
        assert (await bot.get_chat("@public_club")).title == "Public"
        # A basic group it left can be read, nothing more.
        assert (await bot.get_chat(left.id)).title == "Left"
        for attempt in (
            bot.send_message(left.id, "hi"),
            bot.delete_message(left.id, sent.message_id),
            bot.get_chat_administrators(left.id),
            bot.get_chat_member(left.id, ana.id),
        ):
            with pytest.raises(Forbidden, match=r"^Forbidden: bot is not a member of the group chat$"):
                await attempt
        # A supergroup that banned it refuses even reading.
        with pytest.raises(Forbidden, match=r"^Forbidden: bot was kicked from the supergroup chat$"):
            await bot.get_chat(gone.id)
        # Ben's own chat with the bot: he never started it.
        with pytest.raises(Forbidden, match="can't initiate conversation"):
            await bot.send_message(ben.id, "hi")

        calls = await tg.process(fake.my_chat_member_update(old, ana, "member"))

        assert calls == []
        await bot.send_message(old.id, "hello at last")
        assert fake.bot_in(old) and not fake.bot_in(club) and not fake.bot_in(friends)


async def test_chat_instance_is_one_per_chat(inline_fake: FakeTelegram) -> None:
    seen: list[object] = []
    ana, ben = inline_fake.user(1, "Ana"), inline_fake.user(2, "Ben")
    group = inline_fake.group("Table", chat_id=-2)
    dm = inline_fake.private(ben)  # id 2: the group's id without its sign
    friends = inline_fake.private_between(ana, ben)
    async with TelegramTestClient(host_app(inline_fake, seen), inline_fake) as tg:
        bot = tg.app.bot
        instances: dict[str, list[str]] = {}
        for name, chat in (("group", group), ("dm", dm)):
            for _ in range(2):
                sent = await bot.send_message(chat.id, "board", reply_markup=GAME_KEYS)
                await tg.tap(ben, inline_fake.message(chat.id, sent.message_id), "✋ Join")
                query = seen[-1]
                assert isinstance(query, CallbackQuery)
                instances.setdefault(name, []).append(query.chat_instance)
        for _ in range(2):
            await tg.tap(ana, await post_game(tg, ben, friends), "✋ Join")
            query = seen[-1]
            assert isinstance(query, CallbackQuery)
            instances.setdefault("friends", []).append(query.chat_instance)
    assert all(len(set(each)) == 1 for each in instances.values()), instances
    assert len({each[0] for each in instances.values()}) == 3, instances


async def test_a_forwarded_game_message_leaves_its_callback_keys_behind(inline_fake: FakeTelegram) -> None:
    seen: list[object] = []
    ana, ben, cai = inline_fake.user(1, "Ana"), inline_fake.user(2, "Ben"), inline_fake.user(3, "Cai")
    friends = inline_fake.private_between(ana, ben)
    table = inline_fake.group("Table")
    async with TelegramTestClient(host_app(inline_fake, seen), inline_fake) as tg:
        game = await post_game(tg, ana, friends)

        copy = await tg.forward(ben, game, table)

        assert (copy.keyboard, copy.inline_message_id) == ([], None)
        assert inline_fake.read_chat(table) == [
            "Ben (forwarded from Ana) via @tweak_test_bot: 🎴 New game — players: nobody"
        ]
        got = seen[-1]  # a group bot gets a message via itself, forwarded or not
        assert isinstance(got, Message) and got.forward_origin is not None and got.via_bot is not None
        with pytest.raises(AssertionError, match="neither the bot's nor an inline message"):
            inline_fake.callback_update(cai, copy, "join")
        # Links and switches to inline mode do travel (switch_inline_query_current_chat becomes
        # switch_inline_query); the copy is still no inline message.
        invite = await post_game(tg, ana, friends, "share")
        moved = await tg.forward(ben, invite, inline_fake.private_between(ben, cai))
        assert moved.keyboard == [
            [{"text": "📖 Rules", "url": "https://t.me/tweak_test_bot?start=rules"}],
            [{"text": "🎯 Play", "switch_inline_query": "play"}],
        ]
        assert moved.inline_message_id is None
        assert invite.keyboard[1] == [{"text": "🎯 Play", "switch_inline_query_current_chat": "play"}]


async def test_the_bot_edits_an_inline_message_and_nothing_else(inline_fake: FakeTelegram) -> None:
    ana, ben = inline_fake.user(1, "Ana"), inline_fake.user(2, "Ben")
    friends = inline_fake.private_between(ana, ben)
    async with TelegramTestClient(host_app(inline_fake, []), inline_fake) as tg:
        bot = tg.app.bot
        game = await post_game(tg, ana, friends)
        iid = game.inline_message_id
        assert iid is not None

        edited = await bot.edit_message_text("<b>Round 1</b>", inline_message_id=iid, parse_mode="HTML")

        assert edited is True
        assert (game.text, game.keyboard) == ("Round 1", [])  # no reply_markup: the keys are off
        with pytest.raises(BadRequest, match=r"(?i)message is not modified"):
            await bot.edit_message_text("<b>Round 1</b>", inline_message_id=iid, parse_mode="HTML")
        assert await bot.edit_message_reply_markup(inline_message_id=iid, reply_markup=GAME_KEYS) is True
        assert [text for text, _data in game.buttons] == ["✋ Join", "📖 Rules"]
        assert await bot.edit_message_text("Round 2", inline_message_id=iid, reply_markup=GAME_KEYS) is True
        assert (game.text, len(game.buttons)) == ("Round 2", 2)
        # The pick notified the chat; the three edits notified nobody.
        assert inline_fake.notifications(friends) == [game]
        # Not the bot's message: it cannot edit it by chat and message id even where it could.
        dm_game = await post_game(tg, ana, inline_fake.private(ana))
        with pytest.raises(BadRequest, match="Message can't be edited"):
            await bot.edit_message_text("x", chat_id=ana.id, message_id=dm_game.message_id)

        inline_fake.delete_by(ben, game)  # either of two people may delete any of their messages

        assert inline_fake.transcript(friends) == []
        for attempt in (
            bot.edit_message_text("Round 3", inline_message_id=iid),
            bot.edit_message_reply_markup(inline_message_id=iid),
        ):
            with pytest.raises(BadRequest, match=r"(?i)^message_id_invalid$"):
                await attempt


async def test_who_may_delete_a_message(inline_fake: FakeTelegram) -> None:
    ana, ben, cai = inline_fake.user(1, "Ana"), inline_fake.user(2, "Ben"), inline_fake.user(3, "Cai")
    club = inline_fake.group("Club", with_bot=False)
    async with TelegramTestClient(host_app(inline_fake, []), inline_fake) as tg:
        game = await post_game(tg, ana, club)
        with pytest.raises(AssertionError, match="Ben cannot delete"):
            inline_fake.delete_by(ben, game)
        with pytest.raises(AssertionError, match="Cai cannot delete"):
            inline_fake.delete_by(cai, await post_game(tg, ana, inline_fake.private_between(ana, ben)))
        inline_fake.mark_admin(club.id, ben.id)
        inline_fake.delete_by(ben, game)
        assert game.deleted and game.history[-1].method == "deletedByUser"
        own = await post_game(tg, cai, club)
        inline_fake.delete_by(cai, own)
        assert inline_fake.transcript(club) == []


@pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")
async def test_inline_edits_spend_the_budget_of_the_chat_they_are_in(timer: VirtualTimer) -> None:
    fake = FakeTelegram(timer=timer, flood=FloodLimits(), inline_mode=True)
    ana, ben = fake.user(1, "Ana"), fake.user(2, "Ben")
    friends = fake.private_between(ana, ben)
    club = fake.group("Club", with_bot=False)
    async with TelegramTestClient(host_app(fake, []), fake) as tg:
        bot = tg.app.bot
        in_friends, in_club = [await post_game(tg, ana, chat) for chat in (friends, club)]
        assert fake.write_times() == []  # posting via the bot costs the bot nothing

        # Between two people: a private chat's budget, one write a second.
        await bot.edit_message_text("edit 0", inline_message_id=in_friends.inline_message_id)
        timer.advance(0.5)
        with pytest.raises(RetryAfter) as refused:
            await bot.edit_message_text("edit 1", inline_message_id=in_friends.inline_message_id)
        assert retry_seconds(refused.value) == 1
        assert in_friends.text == "edit 0"
        timer.advance(0.5)
        await bot.edit_message_text("edit 1", inline_message_id=in_friends.inline_message_id)
        assert fake.write_times(friends.id) == [0.0, 1.0]
        assert fake.count_429(friends.id) == 1

        # A group the bot is not in: the group's 20 writes a minute, counted on the group.
        for n in range(20):
            await bot.edit_message_text(f"club {n}", inline_message_id=in_club.inline_message_id)
        with pytest.raises(RetryAfter) as refused:
            await bot.edit_message_text("club 20", inline_message_id=in_club.inline_message_id)
        assert retry_seconds(refused.value) == 60
        assert fake.max_writes_in_window(club.id, 60) == 20
        assert fake.count_calls(club.id, MESSAGE_METHODS, only_ok=True) == 20
        assert fake.count_429(club.id) == 1 and fake.count_429() == 2
        assert [(r.chat_id, r.limit) for r in fake.flood_rejections] == [
            (friends.id, "chat"),
            (club.id, "chat"),
        ]


async def test_the_button_above_inline_results_starts_the_bot(inline_fake: FakeTelegram) -> None:
    seen: list[object] = []
    ana, ben = inline_fake.user(1, "Ana"), inline_fake.user(2, "Ben")
    async with TelegramTestClient(host_app(inline_fake, seen), inline_fake) as tg:
        bot = tg.app.bot
        answer = await tg.inline_query(ana, chat=inline_fake.private_between(ana, ben))
        assert answer.button == {"text": "How to play", "start_parameter": "howto"}
        with pytest.raises(Forbidden, match="can't initiate conversation"):
            await bot.send_message(ana.id, "hi")

        await tg.tap_results_button(ana, answer)

        assert seen == [("start", ana.id, ["howto"])]
        assert inline_fake.read_chat(ana.id) == ["Ana: /start howto", "TWEAK!: Welcome"]
        await bot.send_message(ana.id, "the chat is open now")


@pytest.mark.filterwarnings("ignore:Please use 'Bot.answerInlineQuery'")
async def test_the_results_button_is_checked_like_telegram(inline_fake: FakeTelegram) -> None:
    ana = inline_fake.user(1, "Ana")
    async with TelegramTestClient(inline_fake.application_builder().build(), inline_fake) as tg:
        bot = tg.app.bot
        query_id = inline_fake.inline_query_update(ana, "x")["inline_query"]["id"]
        for parameter, error in (
            ("no spaces", "unallowed characters in start_parameter are used"),
            ("é", "unallowed characters in start_parameter are used"),
            ("a" * 65, "too long start_parameter specified"),
            ("", "can't use empty start_parameter"),
        ):
            with pytest.raises(BadRequest, match=f"(?i)^{error}$"):
                await bot.answer_inline_query(
                    query_id, [], button=InlineQueryResultsButton("Go", start_parameter=parameter)
                )
        for button, error in (
            ({"text": "Go"}, "inlinequeryresultsbutton must have exactly one optional field"),
            ({"start_parameter": "go"}, 'can\'t find field "text"'),
            ([1], "inlinequeryresultsbutton must be an object"),
        ):
            with pytest.raises(BadRequest, match=f"(?i)^can't parse inline query results button: {error}$"):
                await bot.do_api_request(
                    "answerInlineQuery", {"inline_query_id": query_id, "results": [], "button": button}
                )
        with pytest.raises(BadRequest, match=r"(?i)^can't parse inline query results button json object$"):
            await bot.do_api_request(
                "answerInlineQuery", {"inline_query_id": query_id, "results": [], "button": "nope"}
            )
        assert not inline_fake.inline_answer(query_id).answered
        app_button = InlineQueryResultsButton("Open", web_app=WebAppInfo("https://example.com/app"))
        assert await bot.answer_inline_query(query_id, [], button=app_button)
        assert inline_fake.inline_answer(query_id).button == {
            "text": "Open",
            "web_app": {"url": "https://example.com/app"},
        }
        with pytest.raises(AssertionError, match="Web App"):
            await tg.tap_results_button(ana, query_id)


async def test_a_deep_link_opens_the_private_chat_with_its_payload(inline_fake: FakeTelegram) -> None:
    seen: list[object] = []
    ana, ben = inline_fake.user(1, "Ana"), inline_fake.user(2, "Ben")
    table = inline_fake.group("Table")
    async with TelegramTestClient(host_app(inline_fake, seen), inline_fake) as tg:
        bot = tg.app.bot
        keys = InlineKeyboardMarkup(
            [[InlineKeyboardButton("📱 Panel", url="https://t.me/tweak_test_bot?start=g42")]]
        )
        sent = await bot.send_message(table.id, "Board", reply_markup=keys)
        board = inline_fake.message(table.id, sent.message_id)
        with pytest.raises(AssertionError, match="use tap_url"):
            await tg.tap(ana, board, "📱 Panel")

        await tg.tap_url(ana, board, "📱 Panel")

        assert seen == [("start", ana.id, ["g42"])]
        await bot.send_message(ana.id, "your panel")  # the chat is started now
        # Opened again, the chat sends /start with the payload again; a bare link only shows it.
        await tg.open_link(ana, "t.me/TWEAK_TEST_BOT?start=g42")
        assert await tg.open_link(ana, "https://t.me/tweak_test_bot") == []
        assert seen[1:] == [("start", ana.id, ["g42"])]
        # Ben never wrote to the bot: a bare link makes him press Start.
        await tg.open_link(ben, "https://telegram.me/tweak_test_bot")
        assert seen[-1] == ("start", ben.id, [])
        # Pressing Start after blocking the bot unblocks it (and Telegram says so first).
        await tg.process(inline_fake.my_chat_member_update(inline_fake.private(ana), ana, "kicked", "member"))
        await tg.open_link(ana, "tg://resolve?domain=tweak_test_bot&start=back")
        assert seen[-3:] == [("member", "kicked"), ("kicked", "member"), ("start", ana.id, ["back"])]
        for url, error in (
            ("https://t.me/other_bot?start=x", "opens @other_bot"),
            ("https://t.me/tweak_test_bot?start=a%20b", "1-64 characters"),
            ("https://example.com/?start=x", "not a Telegram link"),
        ):
            with pytest.raises(AssertionError, match=error):
                await tg.open_link(ana, url)


async def test_a_transcript_reads_a_chat_as_a_player_does(inline_fake: FakeTelegram) -> None:
    ana, ben, cai = inline_fake.user(1, "Ana"), inline_fake.user(2, "Ben"), inline_fake.user(3, "Cai")
    table = inline_fake.group("Table")
    async with TelegramTestClient(host_app(inline_fake, []), inline_fake) as tg:
        await tg.send(table, ana, "/start@tweak_test_bot")
        game = await post_game(tg, ben, table)
        await tg.tap(cai, game, "✋ Join")
        inline_fake.say(table, ana, "gl hf")
        gone = await tg.app.bot.send_message(table.id, "oops")
        await tg.app.bot.delete_message(table.id, gone.message_id)
        await tg.send(inline_fake.private(cai), cai, "/start")

    assert inline_fake.read_chat(table) == [
        "Ana: /start@tweak_test_bot",
        "TWEAK!: Welcome",
        "Ben via @tweak_test_bot: 🎴 New game — players: Cai",
        "Ana: gl hf",
    ]
    assert inline_fake.transcript(table)[2] is game and game.history[0].text == (
        "🎴 New game — players: nobody"
    )
    assert inline_fake.read_chat(cai.id) == ["Cai: /start", "TWEAK!: Welcome"]


# --------------------------------------------------------------------------------------------------
# Concurrency and virtual time in the client
# --------------------------------------------------------------------------------------------------


async def test_process_many_runs_updates_concurrently(fake: FakeTelegram) -> None:
    both_in = asyncio.Event()
    arrived: list[int] = []

    async def rendezvous(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        assert update.effective_user is not None and update.effective_chat is not None
        arrived.append(update.effective_user.id)
        if len(arrived) == 2:
            both_in.set()
        await both_in.wait()  # only returns if the other update is being processed meanwhile
        await update.effective_chat.send_message("in")

    alice, bob, group = fake.user(1, "Alice"), fake.user(2, "Bob"), fake.group()
    app = fake.application_builder().concurrent_updates(True).build()
    app.add_handler(CommandHandler("join", rendezvous))
    async with TelegramTestClient(app, fake) as tg:
        calls = await tg.process_many(
            [fake.command_update(group, alice, "/join"), fake.command_update(group, bob, "/join")]
        )
    assert [c.method for c in calls] == ["sendMessage", "sendMessage"]

    # Without concurrent_updates PTB takes them one at a time, so the rendezvous never happens.
    arrived.clear()
    both_in.clear()
    app = fake.application_builder().build()
    app.add_handler(CommandHandler("join", rendezvous))
    async with TelegramTestClient(app, fake, settle_timeout=0.3) as tg:
        with pytest.raises(AssertionError, match="tasks still running"):
            await tg.process_many(
                [fake.command_update(group, alice, "/join"), fake.command_update(group, bob, "/join")]
            )
        both_in.set()  # let them finish before the client stops
        await asyncio.wait([t for t in asyncio.all_tasks() if t.get_name().startswith("TelegramTestClient:")])


async def test_settle_runs_virtual_time_for_sleeping_tasks(
    flooded: FakeTelegram, timer: VirtualTimer
) -> None:
    async def remind(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        chat = update.effective_chat
        assert chat is not None

        async def later() -> None:
            await timer.sleep(90)
            await context.bot.send_message(chat.id, f"reminder at {timer.monotonic()}")

        context.application.create_task(later(), update=update)

    app = flooded.application_builder().build()
    app.add_handler(CommandHandler("remind", remind))
    alice, group = flooded.user(1, "Alice"), flooded.group()
    async with TelegramTestClient(app, flooded, timer=timer) as tg:
        started = time.monotonic()
        calls = await tg.send(group, alice, "/remind")
        assert time.monotonic() - started < 1
    assert [c.method for c in calls] == ["sendMessage"]
    assert flooded.last_message(group.id).text == "reminder at 90.0"
    assert timer.monotonic() == 90.0


async def test_blocking_handlers_and_waiters_behind_them_are_driven_too(
    flooded: FakeTelegram, timer: VirtualTimer
) -> None:
    async def slow(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        assert update.effective_chat is not None
        await timer.sleep(30)  # the handler itself parks
        await update.effective_chat.send_message(f"done at {timer.monotonic()}")

    app = flooded.application_builder().build()  # one update at a time: the second waits its turn
    app.add_handler(CommandHandler("slow", slow))
    alice, group = flooded.user(1, "Alice"), flooded.group()
    async with TelegramTestClient(app, flooded) as tg:  # adopts the fake's VirtualTimer
        assert tg.timer is timer
        await tg.process_many([flooded.command_update(group, alice, "/slow") for _ in range(2)])
    assert [m.text for m in flooded.messages(group.id)] == ["done at 30.0", "done at 60.0"]


async def test_settle_gives_up_past_the_virtual_limit(flooded: FakeTelegram, timer: VirtualTimer) -> None:
    naps: list[asyncio.Task[None]] = []

    async def forever(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        async def nap() -> None:
            await timer.sleep(200)

        naps.append(asyncio.create_task(nap(), name="long-nap"))

    app = flooded.application_builder().build()
    app.add_handler(CommandHandler("nap", forever))
    alice, group = flooded.user(1, "Alice"), flooded.group()
    async with TelegramTestClient(app, flooded, virtual_limit=100) as tg:
        with pytest.raises(AssertionError, match=r"stops at 100 virtual seconds.*long-nap.*until 200\.0"):
            await tg.send(group, alice, "/nap")
        assert timer.parked_tasks() == set(naps)
        naps[0].cancel()
    assert timer.monotonic() == 0.0


async def test_older_parked_tasks_are_not_waited_for(flooded: FakeTelegram, timer: VirtualTimer) -> None:
    alice, group = flooded.user(1, "Alice"), flooded.group()
    async with TelegramTestClient(build_app(flooded), flooded) as tg:
        sleeper = asyncio.create_task(timer.sleep(1000), name="older-sleeper")
        await asyncio.sleep(0)
        await tg.send(group, alice, "/newgame")
        assert timer.monotonic() == 0.0 and timer.is_parked(sleeper)
        calls = await tg.advance(1000)
        assert calls == [] and sleeper.done()


async def test_advance_steps_through_every_wake(flooded: FakeTelegram, timer: VirtualTimer) -> None:
    group = flooded.group()
    async with TelegramTestClient(build_app(flooded), flooded) as tg:
        seen: list[float] = []

        async def ticker(period: float) -> None:
            while True:
                await timer.sleep(period)
                seen.append(timer.monotonic())
                await tg.app.bot.send_message(group.id, f"tick {timer.monotonic()}")

        task = asyncio.create_task(ticker(10), name="ticker")
        await asyncio.sleep(0)
        calls = await tg.advance(25)
        # Each wake ran at its own time (10, 20), not all at once at 25.
        assert seen == [10.0, 20.0] and timer.monotonic() == 25.0
        assert [c.params["text"] for c in calls] == ["tick 10.0", "tick 20.0"]
        assert timer.wake_of(task) == 30.0
        await tg.advance(5)
        assert seen == [10.0, 20.0, 30.0]
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


async def test_ignored_workers_are_never_waited_for(flooded: FakeTelegram, timer: VirtualTimer) -> None:
    """A paced per-chat outbox: taps are answered at once, the busy group is paced within
    Telegram's limits, and the quiet group is not held up behind it."""
    queues: dict[int, asyncio.Queue[str]] = {}
    workers: list[asyncio.Task[None]] = []

    async def worker(chat_id: int, bot: Bot) -> None:
        queue = queues[chat_id]
        while True:
            text = await queue.get()  # idles here between bursts: never done
            await bot.send_message(chat_id, text)
            await timer.sleep(3.0)  # 20 a minute

    async def on_tap(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        query = update.callback_query
        assert query is not None and query.message is not None
        chat_id = query.message.chat.id
        if chat_id not in queues:
            queues[chat_id] = asyncio.Queue()
            workers.append(asyncio.create_task(worker(chat_id, context.bot), name=f"outbox:{chat_id}"))
        queues[chat_id].put_nowait(f"move by {query.from_user.first_name}")
        await query.answer()

    app = flooded.application_builder().concurrent_updates(True).build()
    app.add_handler(CallbackQueryHandler(on_tap))
    busy, quiet = flooded.group("busy"), flooded.group("quiet")
    players = [flooded.user(n, f"P{n}") for n in range(1, 26)]
    async with TelegramTestClient(
        app, flooded, ignore_tasks=lambda t: t.get_name().startswith("outbox:")
    ) as tg:
        busy_board = flooded.message(busy.id, (await app.bot.send_message(busy.id, "board")).message_id)
        quiet_board = flooded.message(quiet.id, (await app.bot.send_message(quiet.id, "board")).message_id)
        timer.advance_to(60)  # the boards' writes have left the window
        taps = [flooded.callback_update(p, busy_board, "move") for p in players]
        taps.append(flooded.callback_update(players[0], quiet_board, "move"))

        await tg.process_many(taps)  # returns without waiting for the outbox

        assert all(a.answered and a.answered_at == 60.0 for a in flooded.answers.values())
        await tg.advance(120)
        for task in workers:
            task.cancel()

    assert flooded.count_429() == 0
    assert len(flooded.messages(busy.id)) == 26 and len(flooded.messages(quiet.id)) == 2
    assert flooded.max_writes_in_window(busy.id, 60) <= 20
    assert flooded.write_times(quiet.id) == [0.0, 60.0]  # the move went out at once
    assert flooded.write_times(busy.id)[-1] == 132.0  # 25 moves, 3 s apart from t=60


async def test_a_task_waiting_on_an_older_parked_task_is_explained(
    flooded: FakeTelegram, timer: VirtualTimer
) -> None:
    delivered: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    async def old_worker() -> None:
        await timer.sleep(5)
        delivered.set_result(None)

    async def waits(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        await delivered

    app = flooded.application_builder().build()
    app.add_handler(CommandHandler("wait", waits))
    alice, group = flooded.user(1, "Alice"), flooded.group()
    async with TelegramTestClient(app, flooded, settle_timeout=0.3) as tg:
        worker = asyncio.create_task(old_worker(), name="old-worker")
        await asyncio.sleep(0)
        with pytest.raises(AssertionError, match=r"tasks it does not wait for are: old-worker.*advance\(\)"):
            await tg.send(group, alice, "/wait")
        await tg.advance(5)
        assert worker.done() and delivered.done()


async def test_stopping_runs_parked_tasks_out_or_cancels_them(
    flooded: FakeTelegram, timer: VirtualTimer
) -> None:
    later: list[asyncio.Task[None]] = []

    async def schedule(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        assert update.effective_chat is not None and context.args is not None
        chat_id, delay = update.effective_chat.id, float(context.args[0])

        async def remind() -> None:
            await timer.sleep(delay)
            await context.bot.send_message(chat_id, f"at {timer.monotonic()}")

        later.append(context.application.create_task(remind(), update=update, name=f"remind-{delay}"))

    app = flooded.application_builder().build()
    app.add_handler(CommandHandler("remind", schedule))
    alice, group = flooded.user(1, "Alice"), flooded.group()
    # Settle leaves these alone; Application.stop() waits for them (PTB's create_task).
    ignore = lambda task: task.get_name().startswith("remind-")  # noqa: E731
    async with TelegramTestClient(app, flooded, ignore_tasks=ignore, virtual_limit=100) as tg:
        await tg.send(group, alice, "/remind 50")
        await tg.send(group, alice, "/remind 5000")
        assert timer.monotonic() == 0.0 and flooded.messages(group.id) == []
    # Stopping ran the first out on virtual time and cancelled the one past the limit.
    assert [m.text for m in flooded.messages(group.id)] == ["at 50.0"]
    assert later[1].cancelled() and timer.parked_tasks() == set()


async def test_virtual_time_does_not_jump_while_a_thread_works(
    flooded: FakeTelegram, timer: VirtualTimer
) -> None:
    """The bot's database calls run in a thread pool: virtual time must wait for them, or the
    quiet group's reply would be stamped with the busy group's wake time."""
    busy, quiet = flooded.group("busy"), flooded.group("quiet")
    later: list[asyncio.Task[None]] = []

    async def go(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        async def throttled() -> None:
            await timer.sleep(57)
            await context.bot.send_message(busy.id, "at last")

        later.append(context.application.create_task(throttled(), update=update))
        await asyncio.to_thread(time.sleep, 0.05)  # a database transaction
        await context.bot.send_message(quiet.id, "at once")

    app = flooded.application_builder().build()
    app.add_handler(CommandHandler("go", go))
    async with TelegramTestClient(app, flooded) as tg:
        await tg.send(quiet, flooded.user(1, "Alice"), "/go")
    assert flooded.write_times(quiet.id) == [0.0]
    assert flooded.write_times(busy.id) == [57.0]
