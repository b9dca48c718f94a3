"""/language: the group's language (boards, lobby, results) or your own (popups, private)."""

from __future__ import annotations

from telegram import CallbackQuery, InlineKeyboardButton, InlineKeyboardMarkup, Update
from telegram.constants import ChatType

from .. import callbacks as cb
from .. import telegram_io as io
from ..deps import Deps
from ..i18n import LANGUAGES, _
from ..services import games
from ..store.db import session_scope
from .common import Context, deps_of, group_language, is_group, personal_language, tg_user


def language_keyboard() -> InlineKeyboardMarkup:
    keys = [InlineKeyboardButton(label, callback_data=cb.language(code)) for code, label in LANGUAGES.items()]
    return InlineKeyboardMarkup([keys[i : i + 2] for i in range(0, len(keys), 2)])


async def language_command(update: Update, context: Context) -> None:
    deps = deps_of(context)
    chat = update.effective_chat
    if chat is None:
        return
    lang = personal_language(deps, update)
    if is_group(update):
        lang = group_language(deps, chat.id, lang)
        text = _(lang, "Choose the language of this group's games:")
    else:
        text = _(lang, "Choose your language for private messages and popups:")
    message = update.effective_message
    thread = message.message_thread_id if message is not None and message.is_topic_message else None
    await io.send(update.get_bot(), chat.id, text, language_keyboard(), thread)


async def on_language_key(query: CallbackQuery, data: cb.Callback, deps: Deps, context: Context) -> None:
    code = data.arg
    bot = query.get_bot()
    if code not in LANGUAGES:
        await io.answer(bot, query.id, "?", alert=True)
        return
    message = query.message
    now = deps.clock.now()
    with session_scope(deps.db) as session:
        if message is not None and message.chat.type != ChatType.PRIVATE:
            chat = games.upsert_chat(session, message.chat.id, message.chat.title, now)
            chat.language = code
            session.add(chat)
            for game in games.active_games_in_chat(session, message.chat.id):
                game.language = code
                session.add(game)
        else:
            user = games.upsert_user(session, tg_user(query.from_user), now)
            user.language = code
            session.add(user)
    await io.answer(bot, query.id, _(code, "Language: {name}", name=LANGUAGES[code]))
    if message is not None:
        await io.edit(
            bot, message.chat.id, message.message_id, _(code, "Language: {name}", name=LANGUAGES[code]), None
        )
