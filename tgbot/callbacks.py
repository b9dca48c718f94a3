"""Callback data: one typed class per kind of key, short ASCII, at most 64 bytes.

Anyone can forge callback data, so each kind parses strictly (a full match of its pattern and
range checks) and the services check everything again against the stored game. A kind declares
its wire layout once (`wire="h:{game_id}"`) and the type of each field (`GameId`, `Index`, an
enum…); its pattern, `parse` and `data` are derived from them, so the three can never disagree.
Each class's `PATTERN` routes its taps to its one handler (`CallbackQueryHandler(pattern=…)`).

The layouts are those of the bot's first versions: keys already in chats still parse.

  lj|ll|ls|lc|lo|lb:<game>          lobby: join, leave, start, cancel, settings, back
  ln:<game>:<key>:<value>           a setting (lobby; the pace also in a running game)
  la:<game>:<level>[:s]             lobby: add a computer player (s: from the settings screen)
  h:<game>                          "my hand" popup
  k:<game>:<ver>:h:<i>|t:<i>        compose on the server's draft: hand card i, table card i
  k:<game>:<ver>:c|d|x              claim, discard, clear
  t:<game>:<ver>:<kind>             choose a [T!] play of that kind (again: the next choice)
  r:<page>[:<lang>]                 rules page
  lg:<code>                         language choice
  dl:<game>                         a finished game's replay file
  rm:<game>                         a finished game's rematch: a lobby with its settings and computers

Deep links (``https://t.me/<bot>?start=<payload>``: opening one sends ``/start <payload>`` in the
person's private chat) are parsed the same way (`StartLink`), within Telegram's rule for them:

  g<game>                           the board's 📱 Panel: that game's private panel
  p<game>                           the lobby's 🔔 key: this person's turns in private
"""

from __future__ import annotations

import dataclasses
import re
import string
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum, StrEnum
from typing import Annotated, Any, ClassVar, Self, get_args, get_origin, get_type_hints

from engine.ai import LEVELS
from engine.cards import T_KINDS, TKind

from .game_settings import SettingKey as SettingKey  # the keys of `Setting`, re-exported

MAX_BYTES = 64
#: Game ids are a 32-bit integer column (PostgreSQL): a larger, forged one never reaches a query.
MAX_GAME_ID = 2**31 - 1


class BadCallback(ValueError):
    pass


@dataclass(frozen=True)
class Codec:
    """How one field travels: the text it matches, and the value that text stands for."""

    regex: str
    read: Callable[[str], Any] = str
    write: Callable[[Any], str] = str


def _game_id(text: str) -> int:
    value = int(text)
    if not 0 < value <= MAX_GAME_ID:
        raise BadCallback("game id out of range")
    return value


def _choice(values: tuple[str, ...], read: Callable[[str], Any] = str) -> Codec:
    return Codec("|".join(re.escape(v) for v in values), read, str)


#: A game's id (a positive 32-bit integer).
GAME_ID = Codec(r"\d{1,10}", _game_id)
#: A game version.
VERSION = Codec(r"\d{1,10}", int)
#: A hand or table position, a rules page.
SMALL = Codec(r"\d{1,2}", int)
LANG = Codec(r"[a-z]{2}")

GameId = Annotated[int, GAME_ID]
Version = Annotated[int, VERSION]
Small = Annotated[int, SMALL]
Lang = Annotated[str, LANG]
Level = Annotated[str, _choice(tuple(LEVELS))]
SettingValue = Annotated[str, Codec(r"[a-z0-9+-]{1,8}")]


class TChoiceKind(StrEnum):
    """What a [T!] key chooses: a play of one kind, or ("any") of any kind the player holds, when
    the group cannot see which."""

    THIEF = TKind.THIEF.value
    JOKER = TKind.JOKER.value
    SHIFTER = TKind.SHIFTER.value
    BOMB = TKind.BOMB.value
    ANY = "any"

    @classmethod
    def of(cls, kind: TKind) -> TChoiceKind:
        return cls(kind.value)

    @property
    def t_kind(self) -> TKind | None:
        return None if self is TChoiceKind.ANY else TKind(self.value)


assert {k.value for k in T_KINDS} | {"any"} == {k.value for k in TChoiceKind}


def _flag(text: str) -> Codec:
    """A field present (as `text`) or absent: True or False."""
    return Codec(re.escape(text), lambda _text: True, lambda _value: text)


def _enum_codec(kind: type[Enum]) -> Codec:
    return _choice(tuple(str(member.value) for member in kind), kind)


def _codec_of(hint: Any) -> Codec:
    if get_origin(hint) is Annotated:
        return next(a for a in get_args(hint)[1:] if isinstance(a, Codec))
    if isinstance(hint, type) and issubclass(hint, Enum):
        return _enum_codec(hint)
    raise TypeError(f"callback field of type {hint!r} has no codec")


@dataclass(frozen=True)
class _Part:
    """One piece of a layout: text as it is, or a field (optional: left out at its default)."""

    literal: str = ""
    field: str = ""
    optional: bool = False


def _layout(wire: str) -> list[_Part]:
    """Parse a layout such as ``la:{game_id}:{level}[:{stay}]``: a bracketed tail is optional."""
    parts: list[_Part] = []
    optional = False
    for literal, field, _spec, _conv in string.Formatter().parse(wire):
        for char in literal:
            if char == "[":
                optional = True
            elif char != "]":
                parts.append(_Part(literal=char, optional=optional))
        if field:
            parts.append(_Part(field=field, optional=optional))
    return parts


class Callback:
    """A kind of key. Subclasses are frozen dataclasses declared with their layout."""

    WIRE: ClassVar[str]
    PATTERN: ClassVar[re.Pattern[str]]
    _PARTS: ClassVar[list[_Part]]
    _CODECS: ClassVar[dict[str, Codec]]

    def __init_subclass__(cls, wire: str = "", **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if not wire:
            return
        hints = get_type_hints(cls, include_extras=True)
        parts = _layout(wire)
        codecs = {p.field: _codec_of(hints[p.field]) for p in parts if p.field}
        regex, tail = "", ""
        for part in parts:
            if part.literal:
                piece = re.escape(part.literal)
            else:
                piece = f"(?P<{part.field}>{codecs[part.field].regex})"
            if part.optional:
                tail += piece
            else:
                regex += piece
        cls.WIRE, cls._PARTS, cls._CODECS = wire, parts, codecs
        cls.PATTERN = re.compile(regex + (f"(?:{tail})?" if tail else ""))

    @classmethod
    def parse(cls, data: str | None) -> Self:
        if not data or not data.isascii() or len(data) > MAX_BYTES:
            raise BadCallback("bad callback data")
        match = cls.PATTERN.fullmatch(data)
        if match is None:
            raise BadCallback(f"not a {cls.__name__} key")
        found = {name: text for name in cls._CODECS if (text := match[name]) is not None}
        values = {name: cls._CODECS[name].read(text) for name, text in found.items()}
        try:
            return cls(**values)
        except (TypeError, ValueError) as exc:
            raise BadCallback(str(exc)) from exc

    @property
    def data(self) -> str:
        defaults = {f.name: f.default for f in dataclasses.fields(self)}  # type: ignore[arg-type]
        head, tail, tail_set = "", "", False
        for part in self._PARTS:
            if part.literal:
                piece = part.literal
            else:
                value = getattr(self, part.field)
                tail_set = tail_set or (part.optional and value != defaults[part.field])
                piece = self._CODECS[part.field].write(value)
            if part.optional:
                tail += piece
            else:
                head += piece
        data = head + tail if tail_set else head
        if len(data.encode()) > MAX_BYTES:
            raise ValueError(f"callback data too long: {data!r}")
        return data


# The lobby.


@dataclass(frozen=True)
class Join(Callback, wire="lj:{game_id}"):
    game_id: GameId


@dataclass(frozen=True)
class Leave(Callback, wire="ll:{game_id}"):
    game_id: GameId


@dataclass(frozen=True)
class Start(Callback, wire="ls:{game_id}"):
    game_id: GameId


@dataclass(frozen=True)
class Cancel(Callback, wire="lc:{game_id}"):
    game_id: GameId


@dataclass(frozen=True)
class OpenSettings(Callback, wire="lo:{game_id}"):
    game_id: GameId


@dataclass(frozen=True)
class CloseSettings(Callback, wire="lb:{game_id}"):
    game_id: GameId


@dataclass(frozen=True)
class Setting(Callback, wire="ln:{game_id}:{key}:{value}"):
    """A setting's key (in a running game, the pace only); the value is checked by the setting."""

    game_id: GameId
    key: SettingKey
    value: SettingValue


@dataclass(frozen=True)
class AddComputer(Callback, wire="la:{game_id}:{level}[:{stay}]"):
    game_id: GameId
    level: Level
    stay: Annotated[bool, _flag("s")] = False  # tapped on the settings screen, which stays open


# A running game.


@dataclass(frozen=True)
class Hand(Callback, wire="h:{game_id}"):
    game_id: GameId


@dataclass(frozen=True)
class PickHand(Callback, wire="k:{game_id}:{version}:h:{index}"):
    """Pick hand card `index` for the draft (again: put it back)."""

    game_id: GameId
    version: Version
    index: Small


@dataclass(frozen=True)
class PickTable(Callback, wire="k:{game_id}:{version}:t:{index}"):
    """Toggle table card `index` in the draft."""

    game_id: GameId
    version: Version
    index: Small


@dataclass(frozen=True)
class Claim(Callback, wire="k:{game_id}:{version}:c"):
    """Play the draft: the chosen [T!] card, else the sum."""

    game_id: GameId
    version: Version


@dataclass(frozen=True)
class Discard(Callback, wire="k:{game_id}:{version}:d"):
    """Discard the draft's hand card."""

    game_id: GameId
    version: Version


@dataclass(frozen=True)
class Clear(Callback, wire="k:{game_id}:{version}:x"):
    """Start the draft again."""

    game_id: GameId
    version: Version


#: The compose keys, for code that reads a board's keys (tests, benchmarks).
COMPOSE_KEYS: tuple[type[Callback], ...] = (PickHand, PickTable, Claim, Discard, Clear)


@dataclass(frozen=True)
class TChoice(Callback, wire="t:{game_id}:{version}:{kind}"):
    """A [T!] key: choose a play of that kind; tapped again, the next choice. *Claim* plays it."""

    game_id: GameId
    version: Version
    kind: TChoiceKind


# Anywhere.


@dataclass(frozen=True)
class Rules(Callback, wire="r:{page}[:{lang}]"):
    page: Small
    lang: Lang = ""


@dataclass(frozen=True)
class Language(Callback, wire="lg:{code}"):
    code: Lang


@dataclass(frozen=True)
class Download(Callback, wire="dl:{game_id}"):
    game_id: GameId


@dataclass(frozen=True)
class Rematch(Callback, wire="rm:{game_id}"):
    game_id: GameId  # the finished game whose standings carry the key


# Deep links: ``https://t.me/<bot>?start=<payload>`` sends ``/start <payload>`` in the private chat.

#: What Telegram takes as a deep link's start parameter.
START_PARAMETER = re.compile(r"[A-Za-z0-9_-]{1,64}")


class StartLink(Callback):
    """A kind of deep link. Anyone can forge one, so it parses as strictly as a key; it holds only
    what Telegram takes there (letters, digits, ``_`` and ``-``)."""

    def __init_subclass__(cls, wire: str = "", **kwargs: Any) -> None:
        super().__init_subclass__(wire=wire, **kwargs)
        if wire and not START_PARAMETER.fullmatch("".join(part.literal for part in cls._PARTS)):
            raise TypeError(f"{cls.__name__}: a deep link holds letters, digits, _ and - only")

    def url(self, bot_username: str) -> str:
        if not START_PARAMETER.fullmatch(data := self.data):
            raise ValueError(f"not a deep link's payload: {data!r}")
        return f"https://t.me/{bot_username}?start={data}"


@dataclass(frozen=True)
class OpenPanel(StartLink, wire="g{game_id}"):
    game_id: GameId  # the board's 📱 Panel: the player's private panel of that game


@dataclass(frozen=True)
class PrivateTurns(StartLink, wire="p{game_id}"):
    game_id: GameId  # the lobby's 🔔: the bot may write to this person, who is told of their turns


def start_link(payload: str) -> StartLink:
    """The deep link a ``/start`` payload is; `BadCallback` for anything else."""
    kind = next((k for k in (OpenPanel, PrivateTurns) if k.PATTERN.fullmatch(payload)), None)
    if kind is None or not START_PARAMETER.fullmatch(payload):
        raise BadCallback("no such deep link")
    return kind.parse(payload)


def inline_query(game_id: int) -> str:
    """What the 🎯 Play key types into inline mode: which game the moves are for."""
    return f"g{game_id}"
