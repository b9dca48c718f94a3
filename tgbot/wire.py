"""Text the bot writes and reads back: one typed class per kind, declared with its layout once.

Callback data, inline result ids, the query the 🎯 Play key types, a deep link's /start payload:
anyone can forge what comes back, so each kind parses strictly (within its `Limit`, a full match
of its pattern, then each field's codec with its range checks), and the services check
everything again against the stored game. A kind declares its layout (``wire="h:{game_id}"``,
a bracketed tail optional: ``"r:{page}[:{lang}]"``) and the type of each field (`GameId`, an
enum, a type annotated with its `Codec`); its pattern, `parse` and `data` are derived from them,
so the three can never disagree.

The kinds themselves: `tgbot.callbacks` (keys), `tgbot.inline_data` (inline mode and links).
"""

from __future__ import annotations

import dataclasses
import re
import string
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from types import UnionType
from typing import Annotated, Any, ClassVar, Self, Union, get_args, get_origin, get_type_hints

#: Game ids are a 32-bit integer column (PostgreSQL): a larger, forged one never reaches a query.
MAX_GAME_ID = 2**31 - 1


class BadData(ValueError):
    """Text no kind accepts: forged, garbled, or from a version of the bot long gone."""


@dataclass(frozen=True)
class Limit:
    """What Telegram takes for one kind of text: at most `size` bytes (UTF-8) or characters, each
    character in `alphabet` (a regex character class; None: any)."""

    size: int
    in_bytes: bool = True
    alphabet: str | None = None

    def holds(self, text: str) -> bool:
        length = len(text.encode()) if self.in_bytes else len(text)
        if not 0 < length <= self.size:
            return False
        return self.alphabet is None or re.fullmatch(f"{self.alphabet}*", text) is not None


#: Callback data: 1-64 bytes, ASCII only here (every kind of key is).
CALLBACK_DATA = Limit(64, alphabet=r"[\x20-\x7e]")
#: An inline result's id: 1-64 bytes.
RESULT_ID = Limit(64)
#: A deep link's /start payload: up to 64 characters of A-Z, a-z, 0-9, _ and -.
START_PAYLOAD = Limit(64, in_bytes=False, alphabet=r"[A-Za-z0-9_-]")
#: An inline query as a person types it: up to 256 characters.
INLINE_QUERY = Limit(256, in_bytes=False)


@dataclass(frozen=True)
class Codec:
    """How one field travels: the text it matches, and the value that text stands for."""

    regex: str
    read: Callable[[str], Any] = str
    write: Callable[[Any], str] = str


def _game_id(text: str) -> int:
    value = int(text)
    if not 0 < value <= MAX_GAME_ID:
        raise BadData("game id out of range")
    return value


def game_id_or_none(digits: int) -> Codec:
    """A game id a person typed or a link carried, up to `digits` digits: None when no game can
    have it (its service then answers as for any id of no game)."""

    def read(text: str) -> int | None:
        value = int(text)
        return value if 0 < value <= MAX_GAME_ID else None

    return Codec(f"[0-9]{{1,{digits}}}", read)


def choice(values: tuple[str, ...], read: Callable[[str], Any] = str) -> Codec:
    """One of a few texts (the longest first, so that none hides another)."""
    ordered = sorted(values, key=len, reverse=True)
    return Codec("|".join(re.escape(v) for v in ordered), read, str)


def coded(codes: dict[str, Any]) -> Codec:
    """A closed set of values, each travelling as its own short code (``{"c": Edition.CLASSIC}``)."""
    back = {value: code for code, value in codes.items()}
    return Codec(choice(tuple(codes)).regex, codes.__getitem__, back.__getitem__)


def flag(text: str) -> Codec:
    """A field present (as `text`) or absent: True or False."""
    return Codec(re.escape(text), lambda _text: True, lambda _value: text)


#: A game's id (a positive 32-bit integer).
GAME_ID = Codec(r"[0-9]{1,10}", _game_id)
#: A game version.
VERSION = Codec(r"[0-9]{1,10}", int)
#: A hand or table position, a rules page.
SMALL = Codec(r"[0-9]{1,2}", int)
LANG = Codec(r"[a-z]{2}")

GameId = Annotated[int, GAME_ID]
Version = Annotated[int, VERSION]
Small = Annotated[int, SMALL]
Lang = Annotated[str, LANG]


def _enum_codec(kind: type[Enum]) -> Codec:
    return choice(tuple(str(member.value) for member in kind), kind)


def _codec_of(hint: Any) -> Codec:
    if get_origin(hint) in (Union, UnionType):  # an optional field: `GameId | None = None`
        hint = next(a for a in get_args(hint) if a is not type(None))
    if get_origin(hint) is Annotated:
        return next(a for a in get_args(hint)[1:] if isinstance(a, Codec))
    if isinstance(hint, type) and issubclass(hint, Enum):
        return _enum_codec(hint)
    raise TypeError(f"field of type {hint!r} has no codec")


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


class Wire:
    """A kind of text. Subclasses are frozen dataclasses declared with their layout; a family of
    kinds (callback data, result ids…) sets its `LIMIT` once on its own base class."""

    LIMIT: ClassVar[Limit]
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
        cls.PATTERN = re.compile(regex + (f"(?:{tail})?" if tail else ""), re.DOTALL)

    @classmethod
    def parse(cls, data: str | None) -> Self:
        if not data or not cls.LIMIT.holds(data):
            raise BadData(f"not a {cls.__name__}: too long or bad characters")
        match = cls.PATTERN.fullmatch(data)
        if match is None:
            raise BadData(f"not a {cls.__name__}")
        found = {name: text for name in cls._CODECS if (text := match[name]) is not None}
        try:
            values = {name: cls._CODECS[name].read(text) for name, text in found.items()}
            return cls(**values)
        except (TypeError, ValueError, KeyError) as exc:
            raise BadData(str(exc)) from exc

    @classmethod
    def read(cls, data: str | None) -> Self | None:
        """`parse`, or None for text that is not of this kind."""
        try:
            return cls.parse(data)
        except BadData:
            return None

    @property
    def data(self) -> str:
        """The text this value travels as."""
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
        if not self.LIMIT.holds(data):
            raise ValueError(f"{type(self).__name__} too long or with bad characters: {data!r}")
        return data
