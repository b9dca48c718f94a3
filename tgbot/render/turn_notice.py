"""The turn notice, every form of it: who is to move, as the board says it; the notification that
a turn is someone's (in private, or as a mention under the group board when the private chat
refuses the bot); and the reminders and last calls the sweep sends before the deadline.

One module, so the words a player is called with stay alike wherever they are called: the
services choose which form (`services.panels`, `services.sweep`, `services.record`), these say it.
"""

from __future__ import annotations

from ..i18n import _
from .cards import mention, name

#: Chat titles in a private notice are cut to this many characters.
TITLE_LENGTH = 40


# --- on the board ----------------------------------------------------------------------------


def your_move(lang: str) -> str:
    """The last line of a board its reader is to move on (a panel, a practice table's board)."""
    return _(lang, "👉 Your move!")


def played_by_bot(lang: str, player: str) -> str:
    """The last line of a board whose seat to move the bot plays (a computer, away, gone)."""
    return _(lang, "⏩ {name} is played by the bot.", name=name(player))


def call(lang: str, user_id: int | None, player: str) -> str:
    """The mention of the player to move: the group board's last line, and the group's call
    when their private notification cannot reach them."""
    return _(lang, "👉 {mention}, your move!", mention=mention(user_id, player))


# --- in the player's private chat ------------------------------------------------------------


def your_move_in(lang: str, chat_title: str) -> str:
    """The turn's one notification, in private: the group board goes silently."""
    return _(lang, "🔔 Your move in <b>{chat}</b>.", chat=name(chat_title, TITLE_LENGTH))


def reminder(lang: str) -> str:
    """A reminder over the player's panel (or under a practice table's board): the turn is theirs."""
    return _(lang, "⏳ Reminder: it's your turn!")


def reminder_in(lang: str, chat_title: str) -> str:
    """A reminder in private to a player who plays on the group board."""
    return _(lang, "⏳ Reminder: it's your move in <b>{chat}</b>.", chat=name(chat_title, TITLE_LENGTH))


def last_call_in(lang: str, chat_title: str, left: str) -> str:
    """The last reminder, in private: the bot plays the turn in `left` (a duration, worded)."""
    chat = name(chat_title, TITLE_LENGTH)
    return _(lang, "⏰ Last call in <b>{chat}</b>: the bot plays in {left}.", chat=chat, left=left)


# --- in the game's chat ----------------------------------------------------------------------


def reminder_for(lang: str, user_id: int | None, player: str) -> str:
    """A reminder under the group board, mentioning the player."""
    return _(lang, "⏳ {who}, it's your turn!", who=mention(user_id, player))


def last_call(lang: str, left: str) -> str:
    """The last reminder at a practice table, under its board."""
    return _(lang, "⏰ Last call: your turn will be played for you in {left}.", left=left)


def last_call_for(lang: str, user_id: int | None, player: str, left: str) -> str:
    """The last reminder under the group board, mentioning the player."""
    who = mention(user_id, player)
    return _(lang, "⏰ Last call, {who}: your turn will be played for you in {left}.", who=who, left=left)
