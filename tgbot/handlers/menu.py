"""The command menu, set once per language at start-up (setMyCommands); its entries and texts
are tgbot/command_menu.py's."""

from __future__ import annotations

import logging

from telegram import Bot, BotCommand
from telegram.error import TelegramError

from ..command_menu import EPHEMERAL_COMMANDS, menu_texts
from ..delivery.ephemeral_api import ephemeral_command
from ..i18n import DEFAULT_LANGUAGE, LANGUAGES

log = logging.getLogger("tweakbot.menu")


def menu_commands(lang: str) -> list[BotCommand]:
    """The menu of one language; a command in `EPHEMERAL_COMMANDS` is declared `is_ephemeral`."""
    return [
        ephemeral_command(command, description)
        if command in EPHEMERAL_COMMANDS
        else BotCommand(command, description)
        for command, description in menu_texts()[lang]
    ]


async def set_command_menus(bot: Bot) -> None:
    """setMyCommands once per language (language_code) plus the English default without one."""
    try:
        await bot.set_my_commands(menu_commands(DEFAULT_LANGUAGE))
        for code in LANGUAGES:
            await bot.set_my_commands(menu_commands(code), language_code=code)
    except TelegramError as exc:  # the menu is a convenience: never stop the bot for it
        log.warning("setMyCommands failed: %s", exc)
