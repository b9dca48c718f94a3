"""`tgbot.delivery.ephemeral_api` over the fake Telegram, with the real bot's PTB Application.

A round trip as the group turn will make it: a tap, the tapper's ephemeral answer in place of the
tapped board, an edit, the person's tap on it (``message_id`` 0, its ephemeral id read back), the
deletion; an ephemeral command and the reply to it; an old Bot API server.
"""

from __future__ import annotations

import pytest
from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Update
from telegram.error import BadRequest

from tests.bot.conftest import BotRig
from tests.fakes import BOT_ID
from tests.fakes.telegram import StoredMessage
from tgbot.delivery.ephemeral_api import (
    EphemeralMessage,
    EphemeralUnsupported,
    command_is_ephemeral,
    delete_ephemeral,
    edit_ephemeral_markup,
    edit_ephemeral_text,
    ephemeral_command,
    is_ephemeral,
    read_ephemeral,
    send_ephemeral,
)

KEYS = InlineKeyboardMarkup([[InlineKeyboardButton("7♥", callback_data="x:7h")]])


async def board(rig: BotRig, chat_id: int) -> StoredMessage:
    await rig.tg.app.bot.send_message(chat_id, "Board", reply_markup=KEYS)
    return rig.fake.last_message(chat_id)


async def test_send_edit_tap_delete(rig: BotRig) -> None:
    fake, bot = rig.fake, rig.tg.app.bot
    ana, ben = fake.user(21, "Ana"), fake.user(22, "Ben")
    group = fake.group("Table")
    tapped = await board(rig, group.id)
    query = fake.callback_update(ana, tapped, "x:7h")["callback_query"]["id"]

    sent = await send_ephemeral(
        bot, group.id, ana.id, "<b>Your hand</b>", KEYS, callback_query_id=query, replace_tapped=True
    )
    assert sent == EphemeralMessage(group.id, ana.id, 1, BOT_ID)
    assert fake.read_chat(group, ana) == ["TWEAK! (only you): Your hand"]
    assert fake.read_chat(group, ben) == ["TWEAK!: Board"]

    await edit_ephemeral_text(bot, sent, "Your hand: 7♥", KEYS)
    await edit_ephemeral_text(bot, sent, "Your hand: 7♥", KEYS)  # not modified: already so
    shown = fake.last_ephemeral(group, ana)
    assert (shown.text, shown.buttons) == ("Your hand: 7♥", [("7♥", "x:7h")])

    tap = Update.de_json(fake.callback_update(ana, shown, "x:7h"), bot)
    assert tap is not None and tap.callback_query is not None
    message = tap.callback_query.message
    assert message is not None and message.message_id == 0
    assert read_ephemeral(message) == sent and is_ephemeral(message)

    await edit_ephemeral_markup(bot, sent, None)
    assert shown.buttons == []
    await delete_ephemeral(bot, sent)
    assert fake.read_chat(group, ana) == ["TWEAK!: Board"]
    with pytest.raises(BadRequest, match=r"(?i)message to delete not found"):
        await delete_ephemeral(bot, sent)
    with pytest.raises(BadRequest, match=r"(?i)message to edit not found"):
        await edit_ephemeral_text(bot, sent, "Gone")


async def test_an_ephemeral_command_and_its_answer(rig: BotRig) -> None:
    fake, bot = rig.fake, rig.tg.app.bot
    ana = fake.user(21, "Ana")
    group = fake.group("Table")
    await bot.set_my_commands([ephemeral_command("cards", "Your cards")])
    assert [command_is_ephemeral(c) for c in await bot.get_my_commands()] == [True]

    update = Update.de_json(fake.ephemeral_command_update(group, ana, "/cards"), bot)
    assert update is not None
    command = read_ephemeral(update.message)
    assert command == EphemeralMessage(group.id, BOT_ID, 1, ana.id)
    assert command.sender_user_id is not None

    answer = await send_ephemeral(
        bot,
        group.id,
        command.sender_user_id,
        "Your cards",
        reply_to_ephemeral_id=command.ephemeral_message_id,
    )
    assert answer == EphemeralMessage(group.id, ana.id, 1, BOT_ID)
    assert fake.read_chat(group) == []
    assert fake.read_chat(group, ana) == ["Ana (only you): /cards", "TWEAK! (only you): Your cards"]


async def test_ordinary_messages_and_misuse(rig: BotRig) -> None:
    fake, bot = rig.fake, rig.tg.app.bot
    group = fake.group("Table")
    public = await bot.send_message(group.id, "Hello")
    assert read_ephemeral(public) is None and not is_ephemeral(public) and not is_ephemeral(None)
    with pytest.raises(ValueError):
        await send_ephemeral(bot, group.id, fake.user(21, "Ana").id, "x", replace_tapped=True)
    with pytest.raises(BadRequest, match=r"(?i)bot_not_admin"):  # no tap to answer, not an admin
        await send_ephemeral(bot, group.id, 21, "x")


async def test_an_old_server(rig: BotRig) -> None:
    fake, bot = rig.fake, rig.tg.app.bot
    ana = fake.user(21, "Ana")
    group = fake.group("Table")
    fake.mark_admin(group.id, BOT_ID)
    fake.ephemeral_supported = False
    with pytest.raises(EphemeralUnsupported) as sent:
        await send_ephemeral(bot, group.id, ana.id, "Meant for Ana")
    assert sent.value.public_message_id == fake.last_message(group.id).message_id
    with pytest.raises(EphemeralUnsupported):
        await edit_ephemeral_text(bot, EphemeralMessage(group.id, ana.id, 1), "x")
    with pytest.raises(EphemeralUnsupported):
        await delete_ephemeral(bot, EphemeralMessage(group.id, ana.id, 1))
