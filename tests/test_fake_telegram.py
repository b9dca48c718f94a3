"""Self-test of the fake Telegram: a real PTB Application must round-trip through it.

If these fail, every end-to-end test built on the fake is suspect, so they pin down the parts of
Telegram's behaviour the bot relies on (errors included) rather than the fake's internals.
"""

from __future__ import annotations

import asyncio
import html
import re
from collections.abc import AsyncIterator

import pytest
from telegram import InlineKeyboardButton, InlineKeyboardMarkup, InputFile, Update
from telegram.error import BadRequest, ChatMigrated, Forbidden, NetworkError, RetryAfter, TimedOut
from telegram.ext import (
    Application,
    CallbackQueryHandler,
    ChatMemberHandler,
    CommandHandler,
    ContextTypes,
    MessageHandler,
    filters,
)

from tests.fakes import BOT_ID, MESSAGE_METHODS, FakeTelegram, TelegramTestClient
from tests.fakes.telegram import NOT_MODIFIED, parse_html

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


@pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")
async def test_flood_control_surfaces_as_retry_after(tg: TelegramTestClient, fake: FakeTelegram) -> None:
    group = fake.group()
    fake.fail_next("sendMessage", 429, retry_after=7, chat_id=group.id)

    with pytest.raises(RetryAfter, match="Retry in 7 seconds"):
        await tg.app.bot.send_message(group.id, "hi")
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
