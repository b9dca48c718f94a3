"""What inline mode and the bot's links carry, declared on `tgbot.wire` as the callback data is.

  g<game>v<version>:<code> <code>…    a listed move's result id, which its pick comes back with:
                                      the engine's action codes, in play order (a Joker first)
  info:<topic>[<game>]                a line of the list that plays nothing
  new, here:<game>, rematch:<game>    the list's lines that post a lobby, a board, a rematch's
                                      lobby in a chat the bot is not in (inline mode)
  g<game>[ <typed values>]            the query the 🎯 Play key types (the player types the values)
  rematch g<game>                     the query of the 🔁 Rematch key of a game played via inline
  g<game>, p<game>                    the /start payloads of the 📱 Panel link and the lobby's 🔔
  howto                               the /start payload of the button above a list with nothing
                                      to post (the help)
  …?start=g<game>#pick=g<game>v<version>:<code>_<code>
                                      a pick's posted message links to the panel and carries the
                                      pick after the mark, spaces as _, so the message alone can
                                      play it when inline feedback is off

Each kind keeps Telegram's limit for its text (a result id 64 bytes, a /start payload 64
characters of A-Z a-z 0-9 _ -, a query 256 characters); the layouts are those of the bot's
first versions, so ids and links already posted still parse.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from typing import Annotated, ClassVar

from engine.actions import Action, decode, encode
from engine.errors import MalformedActionError

from .wire import (
    CALLBACK_DATA,
    INLINE_QUERY,
    RESULT_ID,
    START_PAYLOAD,
    Codec,
    GameId,
    Limit,
    Version,
    Wire,
    game_id_or_none,
)

_CODE = r"T[0-9]|J[+-]|F|B|S[0-9]\.[1-9a-f][0-9a-f]{0,15}|D[0-9]"


def _decoded(code: str) -> Action:
    try:
        return decode(code)
    except MalformedActionError as exc:
        raise ValueError(str(exc)) from exc


def _moves(separator: str) -> Codec:
    """The engine's actions as their codes, `separator` between two."""
    sep = re.escape(separator)
    return Codec(
        f"(?:{_CODE})(?:{sep}(?:{_CODE}))*",
        lambda text: tuple(_decoded(code) for code in text.split(separator)),
        lambda moves: separator.join(encode(move) for move in moves),
    )


Moves = Annotated[tuple[Action, ...], _moves(" ")]
LinkedMoves = Annotated[tuple[Action, ...], _moves("_")]


class ResultId(Wire):
    """An inline result's id (1-64 bytes)."""

    LIMIT: ClassVar[Limit] = RESULT_ID


@dataclass(frozen=True)
class PickedMoves(ResultId, wire="g{game_id}v{version}:{moves}"):
    """A move of the 🎯 Play list: its game, the version it was listed for, its actions."""

    game_id: GameId
    version: Version
    moves: Moves

    @property
    def codes(self) -> tuple[str, ...]:
        return tuple(encode(move) for move in self.moves)


class InfoTopic(StrEnum):
    """What a line of the list that plays nothing says."""

    NONE = "none"  # no game of the person's to play here
    TURN = "turn"  # someone else's turn
    SUM = "sum"  # the typed values make no sum here
    HOW = "how"  # how to type a sum
    TROUBLE = "trouble"  # the bot cannot answer now (the database)


@dataclass(frozen=True)
class InfoLine(ResultId, wire="info:{topic}[{game_id}]"):
    topic: InfoTopic
    game_id: GameId | None = None


@dataclass(frozen=True)
class NewLobby(ResultId, wire="new"):
    """The list's 🎴 New game here: posts a lobby in the chat (`services.inline_posts`)."""


@dataclass(frozen=True)
class BoardHere(ResultId, wire="here:{game_id}"):
    """The list's 📋 Board here: posts the live board of a game played via inline mode."""

    game_id: GameId


@dataclass(frozen=True)
class RematchHere(ResultId, wire="rematch:{game_id}"):
    """The list's 🔁 Rematch here: posts a lobby with a finished game's settings and computers."""

    game_id: GameId


#: What a posted result of the list is, besides a listed move (`PickedMoves`).
Posted = NewLobby | BoardHere | RematchHere


def posted(result_id: str) -> Posted | None:
    return NewLobby.read(result_id) or BoardHere.read(result_id) or RematchHere.read(result_id)


class QueryText(Wire):
    """An inline query as a person types it (up to 256 characters)."""

    LIMIT: ClassVar[Limit] = INLINE_QUERY


@dataclass(frozen=True)
class GameQuery(QueryText, wire="g{game_id}[{typed}]"):
    """What the 🎯 Play key types (``g<game>``), and what the player typed after it."""

    game_id: Annotated[int | None, game_id_or_none(10)]  # None: typed, but no game has it
    typed: Annotated[str, Codec(r"\W.*")] = ""

    @classmethod
    def of(cls, query: str) -> GameQuery | None:
        """The game a query names, spaces before it ignored; None when it names none."""
        return cls.read(query.lstrip())


@dataclass(frozen=True)
class RematchQuery(QueryText, wire="rematch g{game_id}"):
    """What the 🔁 Rematch key of a game played via inline mode types: its rematch, to post."""

    game_id: GameId

    @classmethod
    def of(cls, query: str) -> RematchQuery | None:
        return cls.read(query.strip())


class StartPayload(Wire):
    """A deep link's /start payload (up to 64 characters of A-Z a-z 0-9 _ -)."""

    LIMIT: ClassVar[Limit] = START_PAYLOAD


class DeepLink(StartPayload):
    """A link that opens the person's private chat with the bot, sending ``/start <payload>``.
    Anyone can forge one: a payload no kind reads, or a game id no game can have, is no link of
    the bot's (`start_link`)."""

    def link(self, bot_username: str) -> str:
        return f"https://t.me/{bot_username}?start={self.data}"


@dataclass(frozen=True)
class OpenPanel(DeepLink, wire="g{game_id}"):
    """The 📱 Panel key's link: the game's private panel, turned on."""

    game_id: GameId


@dataclass(frozen=True)
class PrivateTurns(DeepLink, wire="p{game_id}"):
    """The lobby's 🔔 key's link: the bot may write to this person, who is told of their turns."""

    game_id: GameId


@dataclass(frozen=True)
class HowToPlay(DeepLink, wire="howto"):
    """The button above an inline list that has nothing to post (a refusal, no game of the
    person's, a game played in another chat): the help, in the person's private chat."""


def start_link(payload: str) -> OpenPanel | PrivateTurns | HowToPlay | None:
    """The link a ``/start`` payload comes from; None for anything else."""
    return OpenPanel.read(payload) or PrivateTurns.read(payload) or HowToPlay.read(payload)


class PickMark(Wire):
    """The pick a posted message carries in its link, after `PICK_MARK` (64 bytes of ASCII)."""

    LIMIT: ClassVar[Limit] = CALLBACK_DATA


@dataclass(frozen=True)
class LinkedPick(PickMark, wire="g{game_id}v{version}:{moves}"):
    game_id: GameId
    version: Version
    moves: LinkedMoves


#: What separates the panel link from the pick it carries.
PICK_MARK = "#pick="


def pick_link(bot_username: str, picked: PickedMoves) -> str:
    """The link a pick's posted message carries: the game's panel, then the pick."""
    carried = LinkedPick(picked.game_id, picked.version, picked.moves)
    return OpenPanel(picked.game_id).link(bot_username) + PICK_MARK + carried.data


def picked_from_link(url: str) -> PickedMoves | None:
    """The pick a posted message's link carries, if it is one."""
    _link, mark, carried = url.partition(PICK_MARK)
    found = LinkedPick.read(carried) if mark else None
    return None if found is None else PickedMoves(found.game_id, found.version, found.moves)
