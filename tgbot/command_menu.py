"""The command menu's entries, and their texts in every language (set at start-up by
tgbot/handlers/menu.py).

The texts are read from the catalogs once, by `menu_texts`, which `python -m tgbot` calls before
it imports the big libraries (`tgbot.__main__`): the catalogs are freed right after, and the
imports that follow reuse their memory. Read once the bot is up, the catalogs of languages no
group speaks cost the process 0.7 MB for its whole life (decisions.md B30). So this module needs
nothing but the catalogs.
"""

from __future__ import annotations

from functools import cache

from .i18n import LANGUAGES, M_, read_catalog

#: The command menu, in menu order. Every command registered in tgbot/app.py is listed here
#: except /start (Telegram's own Start key sends it); tests/bot/test_languages.py checks this.
MENU_COMMANDS: dict[str, str] = {
    "newgame": M_("Start a new game in this group"),
    "board": M_("Post the board again"),
    "cards": M_("Your cards in this group's game, seen by you alone"),
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

#: The commands a person sends ephemerally (Bot API 10.2 `BotCommand.is_ephemeral`): nobody else
#: in the group sees them, and the bot may answer with an ephemeral message of its own.
EPHEMERAL_COMMANDS: frozenset[str] = frozenset({"cards"})


@cache
def menu_texts() -> dict[str, tuple[tuple[str, str], ...]]:
    """Each supported language's menu: (command, description) in menu order."""
    menus: dict[str, tuple[tuple[str, str], ...]] = {}
    for lang in LANGUAGES:
        catalog = read_catalog(lang)  # not `translations`: kept by no one once read
        menus[lang] = tuple((command, catalog.gettext(text)) for command, text in MENU_COMMANDS.items())
    return menus
