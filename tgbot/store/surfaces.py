"""Surfaces: the messages the bot keeps up to date, one small frozen type per kind, and the one
place that writes them to and reads them from the `surface` column of `outbox` and
`shown_messages` (`SurfaceColumn`, on the layouts the kinds declare on `tgbot.wire`).

  board:<game>:<n>      a game's n-th board in its group (a new board takes the next n)
  lobby:<game>          its lobby
  panel:<game>:<seat>   a player's private panel
  reminder:<game>       a group reminder while it waits to be sent
  keys:<message>        an old message's keys being taken off (shown once they are)
  ikeys:<inline id>     the same, of a message posted via the bot (inline mode)
  msg:<message>         a message a key rewrites (a rules page, the language picker)
  said:<key>            a reply or notice said at most once in a while, edited meanwhile

The texts are those every version has written: rows of a database written by an earlier version
read as the same surfaces. A text no kind reads (a newer version's, beside this one for a while)
reads as `Unknown`, kept as it is.

Each surface is shown by a message in its chat, by that message's id; except in a chat the bot
is not in (inline mode), where each row names the message it edits (`Payload.inline_id`), which
the game keeps (`games.inline_id`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, ClassVar, cast

from sqlalchemy import String
from sqlalchemy.types import TypeDecorator

from ..wire import Codec, GameId, Limit, Small, Wire

#: The column's size: every kind's text fits.
MAX_LENGTH = 64
Count = Annotated[int, Codec(r"[0-9]{1,10}", int)]
MessageId = Annotated[int, Codec(r"[0-9]{1,15}", int)]


class Named(Wire):
    """A kind of surface, named in the column by its layout."""

    LIMIT: ClassVar[Limit] = Limit(MAX_LENGTH)


@dataclass(frozen=True)
class Board(Named, wire="board:{game_id}:{number}"):
    """A game's n-th board in its group: the live one is `Game.board_no`."""

    game_id: GameId
    number: Count


@dataclass(frozen=True)
class Lobby(Named, wire="lobby:{game_id}"):
    game_id: GameId


@dataclass(frozen=True)
class Panel(Named, wire="panel:{game_id}:{seat}"):
    """A player's private panel, in their chat with the bot."""

    game_id: GameId
    seat: Small


@dataclass(frozen=True)
class Reminder(Named, wire="reminder:{game_id}"):
    """A group reminder of the turn, while it waits to be sent (a newer one replaces it)."""

    game_id: GameId


@dataclass(frozen=True)
class KeysOff(Named, wire="keys:{message_id}"):
    """An old message's keys being taken off: recorded as shown once they are, so it is asked
    once however many stale taps come."""

    message_id: MessageId


@dataclass(frozen=True)
class InlineKeysOff(Named, wire="ikeys:{inline_id}"):
    """As `KeysOff`, for a message posted via the bot in a chat it is not in, known by its
    inline message id."""

    inline_id: Annotated[str, Codec(r"[A-Za-z0-9_-]{1,58}")]


@dataclass(frozen=True)
class KeyEdit(Named, wire="msg:{message_id}"):
    """A message a key rewrites in place (a rules page, the language picker)."""

    message_id: MessageId


@dataclass(frozen=True)
class Said(Named, wire="said:{key}"):
    """A reply or notice said at most once in a while (`output.say_capped`): a second one in the
    while is this message, edited."""

    key: Annotated[str, Codec(r"[A-Za-z0-9_:.-]{1,59}")]


@dataclass(frozen=True)
class Unknown:
    """A surface no kind here reads (a newer version's): kept, and sent, as it is."""

    text: str


Surface = Board | Lobby | Panel | Reminder | KeysOff | InlineKeysOff | KeyEdit | Said | Unknown
#: A game's own surfaces.
GameSurface = Board | Lobby | Panel | Reminder
KINDS: tuple[type[Named], ...] = (Board, Lobby, Panel, Reminder, KeysOff, InlineKeysOff, KeyEdit, Said)


def text_of(surface: Surface) -> str:
    """The surface's text in the column."""
    return surface.text if isinstance(surface, Unknown) else surface.data


def surface_of(text: str) -> Surface:
    """The surface a column's text names."""
    for kind in KINDS:
        found = kind.read(text)
        if found is not None:
            return cast(Surface, found)
    return Unknown(text)


class SurfaceColumn(TypeDecorator[Surface]):
    """The `surface` column: a `Surface` in the bot, its text in the database."""

    impl = String(MAX_LENGTH)
    cache_ok = True

    def process_bind_param(self, value: Surface | None, dialect: Any) -> str | None:
        return None if value is None else text_of(value)

    def process_result_value(self, value: str | None, dialect: Any) -> Surface | None:
        return None if value is None else surface_of(value)
