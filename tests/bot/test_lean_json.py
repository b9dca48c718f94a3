"""The bot reads of Telegram's JSON what it uses (tgbot/bot.py): a tap's update without the text,
entities and keyboard of the message its key is on (the keyboard kept for a key that rewrites
its own message), and a sent or edited message without its text and keys (the sender reads its
id). Telegram's errors still reach the sender as before."""

from __future__ import annotations

import json

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Message

from tests.bot.conftest import BotRig
from tests.bot.helpers import BOT, start_game
from tests.fakes.telegram import FakeTelegram
from tgbot.bot import TweakBot
from tgbot.delivery import telegram_io as io
from tgbot.delivery.telegram_io import OutcomeKind
from tgbot.store.outbox import Payload


def bot_of(rig: BotRig) -> TweakBot:
    bot = rig.tg.app.bot
    assert isinstance(bot, TweakBot)
    return bot


async def test_a_board_tap_is_read_without_the_boards_text_entities_and_keys(rig: BotRig) -> None:
    fake = rig.fake
    ana, ben = fake.user(1, "Ana"), fake.user(2, "Ben")
    group = fake.group("Friends")
    game, board = await start_game(rig, group, ana, [ben])
    assert board.text and fake.buttons(board)  # what Telegram sends along with a tap
    bot = bot_of(rig)
    data = fake.callback_update(ana, board, f"h:{game.id}")
    assert data["callback_query"]["message"]["reply_markup"]["inline_keyboard"]

    for update in (
        bot.parse_update(json.loads(json.dumps(data))),  # the webhook's reading (tgbot/web.py)
        FakeTelegram.to_update(data, bot),  # the test client's, the same
    ):
        assert update is not None and update.callback_query is not None
        message = update.callback_query.message
        assert isinstance(message, Message)
        assert (message.chat.id, message.message_id) == (group.id, board.message_id)
        assert message.date is not None and update.callback_query.data == f"h:{game.id}"
        assert message.text is None and message.entities == () and message.reply_markup is None

    # getUpdates (polling) reads it the same way
    fake.queue_update(data)
    polled = await bot.get_updates(timeout=0)
    assert len(polled) == 1 and polled[0].callback_query is not None
    message = polled[0].callback_query.message
    assert isinstance(message, Message) and message.message_id == board.message_id
    assert message.text is None and message.reply_markup is None

    # a key that rewrites its own message reads that message's keys
    await rig.tg.send(group, ana, f"/rules{BOT}")
    page = fake.last_message(group.id)
    rules_tap = bot.parse_update(fake.callback_update(ana, page, "r:1"))
    assert rules_tap is not None and rules_tap.callback_query is not None
    on_page = rules_tap.callback_query.message
    assert isinstance(on_page, Message) and on_page.reply_markup is not None
    assert [b.callback_data for row in on_page.reply_markup.inline_keyboard for b in row] == [
        data for _text, data in fake.buttons(page) if data is not None
    ]
    assert on_page.text is None


async def test_a_sent_or_edited_message_is_read_for_its_id_only(rig: BotRig) -> None:
    fake = rig.fake
    group = fake.group("Friends")
    bot = bot_of(rig)
    keys = InlineKeyboardMarkup([[InlineKeyboardButton("A", callback_data="h:1")]])
    sent = await bot.send_message(group.id, "<b>hello</b>", reply_markup=keys)
    stored = fake.last_message(group.id)
    assert sent.message_id == stored.message_id and sent.chat.id == group.id
    assert stored.text == "hello" and fake.buttons(stored) == [("A", "h:1")]
    assert sent.text is None and sent.entities == () and sent.reply_markup is None
    edited = await bot.edit_message_text("<i>bye</i>", chat_id=group.id, message_id=sent.message_id)
    assert isinstance(edited, Message) and edited.message_id == sent.message_id
    assert edited.text is None and fake.message(group.id, sent.message_id).text == "bye"


async def test_the_sender_still_gets_ids_and_telegrams_refusals(rig: BotRig) -> None:
    fake = rig.fake
    group = fake.group("Friends")
    bot = bot_of(rig)
    keys = [[{"text": "A", "callback_data": "h:1"}]]
    outcome = await io.deliver(bot, group.id, Payload(text="board", keys=keys))
    assert outcome.kind == OutcomeKind.SENT and outcome.message_id == fake.last_message(group.id).message_id
    again = await io.deliver(bot, group.id, Payload(text="board", keys=keys), edit_id=outcome.message_id)
    assert again.kind == OutcomeKind.EDITED and again.message_id == outcome.message_id  # "not modified"
    gone = await io.deliver(bot, group.id, Payload(text="new"), edit_id=10**9)
    assert gone.kind == OutcomeKind.GONE
