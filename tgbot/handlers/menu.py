"""The command menu, set once per language at start-up (setMyCommands)."""

from __future__ import annotations

import logging

from telegram import Bot, BotCommand
from telegram.error import TelegramError

from ..i18n import DEFAULT_LANGUAGE, LANGUAGES, M_, _

log = logging.getLogger("tweakbot.menu")

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
