"""/language: the group's language (boards, lobby, results) or your own (popups, private).

Also the localised command menu, set once per language at start-up (`set_command_menus`).
"""

from __future__ import annotations

import logging

from telegram import Bot, BotCommand, CallbackQuery, InlineKeyboardButton, InlineKeyboardMarkup, Update
from telegram import User as TgApiUser
from telegram.constants import ChatType
from telegram.error import TelegramError

from .. import callbacks as cb
from .. import presenter
from .. import telegram_io as io
from ..deps import Deps
from ..i18n import DEFAULT_LANGUAGE, LANGUAGES, M_, _, normalize
from ..services import games, languages
from ..store.db import session_scope
from ..store.models import LOBBY, PLAYING
from .common import Context, deps_of, is_group, reply_language, tg_user
from .replies import reply

log = logging.getLogger("tweakbot.language")

#: The command menu, in menu order. Every command registered in tgbot/app.py is listed here
#: except /start (Telegram's own Start key sends it); tests/bot/test_languages.py checks this.
MENU_COMMANDS: dict[str, str] = {
    "newgame": M_("Start a new game in this group"),
    "board": M_("Post the board again"),
    "leave": M_("Leave the game (the bot plays your seat)"),
    "settings": M_("Game settings and pace"),
    "pause": M_("Pause the game"),
    "resume": M_("Resume a paused game"),
    "back": M_("I'm back: stop auto-playing my turns"),
    "quiet": M_("Quiet hours for reminders"),
    "cancel": M_("Cancel the game"),
    "stats": M_("Your stats in this group (reply to someone for theirs)"),
    "top": M_("The group's leaderboard"),
    "history": M_("Recent games and their replay files"),
    "rules": M_("The rules of TWEAK!"),
    "help": M_("How to play with the bot"),
    "language": M_("Choose the language"),
}


def menu_commands(lang: str) -> list[BotCommand]:
    return [BotCommand(command, _(lang, description)) for command, description in MENU_COMMANDS.items()]


async def set_command_menus(bot: Bot) -> None:
    """setMyCommands once per language (language_code) plus the English default without one."""
    try:
        await bot.set_my_commands(menu_commands(DEFAULT_LANGUAGE))
        for code in LANGUAGES:
            await bot.set_my_commands(menu_commands(code), language_code=code)
    except TelegramError as exc:  # the menu is a convenience: never stop the bot for it
        log.warning("setMyCommands failed: %s", exc)


def language_keyboard() -> InlineKeyboardMarkup:
    keys = [InlineKeyboardButton(label, callback_data=cb.language(code)) for code, label in LANGUAGES.items()]
    return InlineKeyboardMarkup([keys[i : i + 2] for i in range(0, len(keys), 2)])


async def language_command(update: Update, context: Context) -> None:
    lang = reply_language(deps_of(context), update)
    if is_group(update):
        text = _(lang, "Choose the language of this group's games:")
    else:
        text = _(lang, "Choose your language for private messages and popups:")
    await reply(update, text, language_keyboard())


async def on_language_key(query: CallbackQuery, data: cb.Callback, deps: Deps, context: Context) -> None:
    code = data.arg
    bot = query.get_bot()
    if code not in LANGUAGES:
        await io.answer(
            bot, query.id, _(_own_language(deps, query.from_user), "Unknown language."), alert=True
        )
        return
    message = query.message
    now = deps.clock.now()
    redraw: list[int] = []
    with session_scope(deps.db) as session:
        if message is not None and message.chat.type != ChatType.PRIVATE:
            chat = games.upsert_chat(session, message.chat.id, message.chat.title, now)
            chat.language = code
            session.add(chat)
            for game in games.active_games_in_chat(session, message.chat.id):
                game.language = code
                session.add(game)
                if game.id is not None:
                    redraw.append(game.id)
        else:
            user = games.upsert_user(session, tg_user(query.from_user), now)
            user.language = code
            session.add(user)
    done = _(code, "Language: {name}", name=LANGUAGES[code])
    await io.answer(bot, query.id, done)
    if message is not None:
        await io.edit(bot, message.chat.id, message.message_id, done, None)
    for game_id in redraw:
        await _redraw(deps, bot, game_id)


def _own_language(deps: Deps, user: TgApiUser) -> str:
    """The tapper's language for a popup: their /language choice first, like every other popup."""
    stored = languages.stored(deps.db, user.id)
    language, tg_language = stored if stored is not None else (None, user.language_code)
    return normalize(language or tg_language)


async def _redraw(deps: Deps, bot: Bot, game_id: int) -> None:
    """Show a running lobby or board in the group's new language right away."""
    async with deps.locks.hold(f"game:{game_id}"):
        with session_scope(deps.db) as session:
            ctx = games.load_context(session, game_id)
        if ctx.game.status == LOBBY and ctx.game.lobby_message_id is not None:
            await presenter.show_lobby(deps, bot, ctx)
        elif ctx.game.status == PLAYING and ctx.game.board_message_id is not None:
            await presenter.refresh_group_board(deps, bot, ctx)
