"""Turns told in private, as a lobby shows them, whatever table it is on: a 🔔 by each player the
bot may write to, a line saying what the others get, and the key that fixes it in one tap.

A chat's message notifies all its members or none (Telegram's rule), so the bot tells the player
to move in their private chat when it may write to them, and the board goes silently; for anyone
else the board's mention is the notification, and it rings the whole chat. Only the person can
give the bot the right to write to them, by opening it: the key is a deep link
(`inline_data.PrivateTurns`) that does it and brings the 🔔 back to the lobby. A key shows to
everyone and a popup cannot hold a link, so the key stays on the lobby while someone seated has
no 🔔, and the Join popup points at it.

In a chat the bot is not in (inline mode) every game message is an edit, which notifies nobody:
there a private notice is a player's only one. So the line says the others are told nothing, and
the Join of a person the bot may not write to is answered with the link itself (a tap's answer
may open a ``t.me/<bot>?start=…`` link, only when it has no text): their app opens the bot's chat.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..i18n import M_, _
from ..inline_data import PrivateTurns as PrivateTurnsLink
from .board import Player
from .cards import name
from .keys import Key, link

MARK = "🔔"
KEY = M_("🔔 Get my turns in private")


@dataclass(frozen=True)
class PrivateTurns:
    """What a lobby shows of it: the line under its players, and the key (None: nobody needs it)."""

    line: str | None
    key: Key | None


def marked(player: Player) -> str:
    """What follows a player's name in the lobby: the 🔔 of a person the bot may write to."""
    return f" {MARK}" if player.can_dm and player.computer is None else ""


def private_turns(
    lang: str, game_id: int, players: Sequence[Player], bot_username: str, inline: bool = False
) -> PrivateTurns:
    """The line and the key for a lobby with these players (no line before a person sits);
    `inline`: a lobby in a chat the bot is not in, whose board is only ever edited."""
    people = [p for p in players if p.computer is None]
    if not people:
        return PrivateTurns(None, None)
    if all(p.can_dm for p in people):
        return PrivateTurns(
            _(lang, "🔔 Everyone here is told of their turns in private: the chat stays quiet."), None
        )
    if inline:
        line = _(
            lang,
            "🔔 = told of their turns in private. Nobody else is told of their turns: here the bot "
            "can only edit the board, and an edit notifies nobody.",
        )
    else:
        line = _(
            lang,
            "🔔 = told of their turns in private. The others' turns are called on the board, which "
            "notifies everyone in the chat.",
        )
    return PrivateTurns(line, link(_(lang, KEY), turns_link(game_id, bot_username)))


def turns_link(game_id: int, bot_username: str) -> str:
    """The link that opens the person's chat with the bot and tells it to write to them there."""
    return PrivateTurnsLink(game_id).link(bot_username)


def joined(lang: str, can_dm: bool) -> str:
    """The Join popup: for a person the bot may not write to yet, where the one tap is."""
    if can_dm:
        return _(lang, "You're in!")
    return _(
        lang,
        "You're in! Tap 🔔 Get my turns in private: your turns then come to you in private and "
        "the chat stays quiet.",
    )


def confirmed(lang: str, game_id: int, chat_title: str) -> str:
    """The answer in private to the key's link, naming the game and its chat."""
    return _(
        lang,
        "🔔 Done! Your turns in game #{id} in <b>{chat}</b> will come here, in private, and the "
        "chat stays quiet for them.",
        id=game_id,
        chat=name(chat_title, 40),
    )
