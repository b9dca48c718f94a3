"""Slash commands: each names the service that answers it. They work in groups with privacy
mode on (``/cmd@botname``); replies go through the outbox like every other message."""

from __future__ import annotations

from typing import Any

from telegram.ext import BaseHandler, CommandHandler

from ..services import cards, info, lobby, stats_commands, table_control
from ..services.call import CommandService
from . import own_views
from .seam import on_command

#: Every command and the service that answers it (a command's arguments, and the person it
#: replied to, travel in the `Command`: `handlers.context.command_of`).
COMMANDS: dict[str, CommandService] = {
    "newgame": lobby.newgame,
    "start": info.start,
    "cancel": table_control.cancel,
    "board": table_control.board,
    "cards": cards.cards,
    "leave": table_control.leave,
    "help": info.help_text,
    "rules": info.rules,
    "language": info.language_menu,
    "pause": table_control.pause,
    "resume": table_control.resume,
    "quiet": table_control.quiet,
    "back": table_control.back,
    "settings": table_control.settings,
    "stats": stats_commands.my_stats,
    "top": stats_commands.top,
    "history": stats_commands.recent,
}


def handlers() -> list[BaseHandler[Any, Any, Any]]:
    """/cards sent unseen opens the person's own view (`own_views`); the others reply as ever."""
    special = {"cards": own_views.on_cards}
    return [
        CommandHandler(name, special.get(name) or on_command(name, service))
        for name, service in COMMANDS.items()
    ]


#: Every command `handlers()` answers (computed once: it labels every update's log line).
COMMAND_NAMES = frozenset(COMMANDS)
