"""The keys of what is done once, each kind built here and nowhere else: a notice a chat hears once
in a while (`NoticeKey`, the rows of `models.Notice`, claimed by `notices.claim`) and a tap,
pick or post the bot acts on once (`SeenKey`, the rows of `models.SeenTap`). A key is a string
in the database, so a row written by an earlier version is the same key; a distinct type in the
code, so a function that claims one takes nothing spelled by hand. Both columns keep 64
characters: a longer key is cut there (as it always was)."""

from __future__ import annotations

from typing import NewType

from ..errors import Refusal

NoticeKey = NewType("NoticeKey", str)
SeenKey = NewType("SeenKey", str)

LIMIT = 64


def _notice(text: str) -> NoticeKey:
    return NoticeKey(text[:LIMIT])


def _seen(text: str) -> SeenKey:
    return SeenKey(text[:LIMIT])


# --- notices (once a minute or so, per chat) ------------------------------------------------


def answer(name: str, thread_id: int | None) -> NoticeKey:
    """A command's answer a group needs once in a while (`CommandCall.reply`), per topic."""
    return _notice(f"{name}:{thread_id or 0}")


def stats_of(user_id: int) -> str:
    """The name of /mystats' answer about one person (an `answer`'s name)."""
    return f"stats:{user_id}"


def refused(reason: Refusal) -> str:
    """The name of a command's refusal (an `answer`'s name)."""
    return f"no:{reason.value}"


def reposted(game_id: int) -> NoticeKey:
    """/board posted the game's board again at the bottom."""
    return _notice(f"reposted:{game_id}")


def replay(game_id: int) -> NoticeKey:
    """A game's replay file sent in a group."""
    return _notice(f"replay:{game_id}")


def pace(game_id: int) -> NoticeKey:
    """The pace of a running game changed: said in its group."""
    return _notice(f"pace:{game_id}")


def exists(game_id: int) -> NoticeKey:
    """A second /newgame pointed at the game already there."""
    return _notice(f"exists:{game_id}")


#: A private message that is no command: pointed at the commands.
TEXT = _notice("text")


# --- seen (once ever, forgotten by the sweep after a day) -------------------------------------


def update(update_id: int, service: str) -> SeenKey:
    """An update as applied by one service (an update reaches one service; the name keeps two
    apart should one ever reach two)."""
    return _seen(f"update:{update_id}:{service}")


def tap(query_id: str) -> SeenKey:
    """A key's tap, by Telegram's id of it (the same when the update is delivered twice)."""
    return _seen(query_id)


def pick(game_id: int, version: int, seat: int, codes: tuple[str, ...]) -> SeenKey:
    """An inline pick played: its turn (the game's version, the seat) and its moves."""
    return _seen(f"pick:{game_id}:{version}:{seat}:{'.'.join(codes)}")


def post(inline_id: str) -> SeenKey:
    """A pick posted in a chat the bot is not in, by the message it posted."""
    return _seen(f"post:{inline_id}")


def stale_note(game_id: int, round_no: int, turn: int, seat: int) -> SeenKey:
    """The group told that a player's stale pick played nothing, once per player and turn."""
    return _seen(f"stale:{game_id}:{round_no}.{turn}:{seat}")


def elsewhere(inline_id: str) -> SeenKey:
    """A 📋 Board here post tapped in a chat that is not its game's: said there once."""
    return _seen(f"elsewhere:{inline_id}")


def no_feedback(inline_id: str) -> SeenKey:
    """A posted lobby no game took up (inline feedback off): said on it once."""
    return _seen(f"nofeedback:{inline_id}")
