"""What a running table is told when it changes around the game: a pause and its end, a player
away, back or gone, the group's quiet hours, the chat itself changing (a supergroup now, the bot
back in it). The services decide when (`services.table_control`, `sweep`, `chat_events`); these
say it, in the game's language or the reader's.
"""

from __future__ import annotations

from ..i18n import _, _n
from .cards import name

# --- a pause ---------------------------------------------------------------------------------


def paused(lang: str, days: int) -> str:
    """/pause: what stops, and when the pause ends by itself."""
    return _n(
        lang,
        "⏸ Game paused: no reminders and no deadlines. Send /resume to go on; the pause ends "
        "by itself in {n} day.",
        "⏸ Game paused: no reminders and no deadlines. Send /resume to go on; the pause ends "
        "by itself in {n} days.",
        days,
    )


def goes_on(lang: str) -> str:
    """/resume, or /board in a game held while the bot was out of the group."""
    return _(lang, "▶️ The game goes on!")


def pause_over(lang: str) -> str:
    """A pause that ran out (the sweep lifts it)."""
    return _(lang, "▶️ The pause is over: the game goes on.")


# --- players away, back, gone ----------------------------------------------------------------


def now_away(lang: str, player: str) -> str:
    """A player missed two turns in a row, at a table whose chat the bot reads (/back there)."""
    return _(
        lang,
        "💤 {name} missed two turns and is now away: their turns are played at once until they "
        "tap any key of the game or send /back.",
        name=name(player),
    )


def now_away_inline(lang: str, player: str, bot: str) -> str:
    """As `now_away`, in a chat the bot cannot read: /back goes to the bot in private."""
    return _(
        lang,
        "💤 {name} missed two turns and is now away: their turns are played at once until they "
        "tap any key of the game or send /back to @{bot} in private.",
        name=name(player),
        bot=bot,
    )


def welcome_back(lang: str) -> str:
    """/back answered to the player who was away."""
    return _(lang, "👋 Welcome back! Your turns wait for you again.")


def is_back(lang: str, player: str) -> str:
    """The table told that a player who was away plays again (/back in private)."""
    return _(lang, "👋 {name} is back.", name=name(player))


def left_game(lang: str, player: str) -> str:
    """/leave in a running game."""
    return _(
        lang,
        "🚪 {name} left the game: the bot plays their seat from now on (points kept).",
        name=name(player),
    )


def left_group(lang: str, player: str) -> str:
    """A player left (or was removed from) the group during the game."""
    return _(
        lang,
        "🚪 {name} left the group: the bot plays their seat from now on (points kept).",
        name=name(player),
    )


# --- the group's quiet hours -----------------------------------------------------------------


def quiet_off(lang: str) -> str:
    return _(lang, "🔔 Quiet hours are off.")


def quiet_hours(lang: str, start: int, end: int, utc: str) -> str:
    """/quiet 23-08 +7: the hours (`utc`: the offset as people write it, 'UTC+7')."""
    return _(
        lang,
        "🌙 Quiet hours: {start:02d}:00–{end:02d}:00 ({utc}). "
        "Reminders wait until they end, and deadlines move to their end.",
        start=start,
        end=end,
        utc=utc,
    )


# --- the chat itself -------------------------------------------------------------------------


def now_supergroup(lang: str) -> str:
    """The group became a supergroup (a new chat id): the game's board is posted there again."""
    return _(lang, "🔄 This group is now a supergroup: the game goes on here.")


def bot_back(lang: str) -> str:
    """The bot was added back to a group whose game waits for /board."""
    return _(lang, "👋 I'm back! The game is paused: send /board to go on.")
