"""Callback data: one typed class per kind of key, short ASCII, at most 64 bytes.

Anyone can forge callback data, so each kind parses strictly (`parse`, a full regex match and
range checks) and the services check everything again against the stored game. Each class's
`PATTERN` routes its taps to its handler (`CallbackQueryHandler(pattern=…)`).

  lj|ll|ls|lc|lo|lb:<game>          lobby: join, leave, start, cancel, settings, back
  ln:<game>:<key>:<value>           a setting (lobby; the pace also in a running game)
  la:<game>:<level>[:s]             lobby: add a computer player (s: from the settings screen)
  h:<game>                          "my hand" popup
  k:<game>:<ver>:<op>[:<i>]         compose a move on the server's draft: h(and card i),
                                    t(able card i), c(laim), d(iscard), x (clear)
  t:<game>:<ver>:<kind>             choose a [T!] play of that kind (again: the next choice)
  r:<page>[:<lang>]                 rules page
  lg:<code>                         language choice
  dl:<game>                         a finished game's replay file
  rm:<game>                         a finished game's rematch: a lobby with its settings and computers
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar, Self

from engine.ai import LEVELS

MAX_BYTES = 64
#: Game ids are a 32-bit integer column (PostgreSQL): a larger, forged one never reaches a query.
MAX_GAME_ID = 2**31 - 1
_ID = r"(\d{1,10})"


class BadCallback(ValueError):
    pass


def _game_id(text: str) -> int:
    value = int(text)
    if not 0 < value <= MAX_GAME_ID:
        raise BadCallback("game id out of range")
    return value


def _checked(data: str) -> str:
    if len(data.encode()) > MAX_BYTES:
        raise ValueError(f"callback data too long: {data!r}")
    return data


class Callback:
    PATTERN: ClassVar[re.Pattern[str]]

    @classmethod
    def parse(cls, data: str | None) -> Self:
        if not data or not data.isascii() or len(data) > MAX_BYTES:
            raise BadCallback("bad callback data")
        match = cls.PATTERN.fullmatch(data)
        if match is None:
            raise BadCallback(f"not a {cls.__name__} key")
        return cls._from(match.groups())

    @classmethod
    def _from(cls, groups: tuple[str, ...]) -> Self:
        raise NotImplementedError

    @property
    def data(self) -> str:
        raise NotImplementedError


LOBBY_OPS = {"lj": "join", "ll": "leave", "ls": "start", "lc": "cancel", "lo": "settings", "lb": "back"}


@dataclass(frozen=True)
class Lobby(Callback):
    op: str  # join | leave | start | cancel | settings | back
    game_id: int
    PATTERN = re.compile(rf"(lj|ll|ls|lc|lo|lb):{_ID}")

    @classmethod
    def _from(cls, g: tuple[str, ...]) -> Self:
        return cls(LOBBY_OPS[g[0]], _game_id(g[1]))

    @property
    def data(self) -> str:
        code = next(k for k, v in LOBBY_OPS.items() if v == self.op)
        return _checked(f"{code}:{self.game_id}")


@dataclass(frozen=True)
class Setting(Callback):
    game_id: int
    key: str
    value: str
    PATTERN = re.compile(rf"ln:{_ID}:([a-z]{{1,3}}):([a-z0-9+-]{{1,8}})")

    @classmethod
    def _from(cls, g: tuple[str, ...]) -> Self:
        return cls(_game_id(g[0]), g[1], g[2])

    @property
    def data(self) -> str:
        return _checked(f"ln:{self.game_id}:{self.key}:{self.value}")


@dataclass(frozen=True)
class AddComputer(Callback):
    game_id: int
    level: str
    stay: bool = False  # tapped on the settings screen, which stays open
    PATTERN = re.compile(rf"la:{_ID}:({'|'.join(LEVELS)})(:s)?")

    @classmethod
    def _from(cls, g: tuple[str, ...]) -> Self:
        return cls(_game_id(g[0]), g[1], g[2] is not None)

    @property
    def data(self) -> str:
        return _checked(f"la:{self.game_id}:{self.level}" + (":s" if self.stay else ""))


@dataclass(frozen=True)
class Hand(Callback):
    game_id: int
    PATTERN = re.compile(rf"h:{_ID}")

    @classmethod
    def _from(cls, g: tuple[str, ...]) -> Self:
        return cls(_game_id(g[0]))

    @property
    def data(self) -> str:
        return _checked(f"h:{self.game_id}")


@dataclass(frozen=True)
class Compose(Callback):
    game_id: int
    version: int
    op: str  # h(and card), t(able card), c(laim), d(iscard), x (clear)
    index: int | None = None  # the hand or table position for h and t
    PATTERN = re.compile(rf"k:{_ID}:{_ID}:([htcdx])(?::(\d{{1,2}}))?")

    @classmethod
    def _from(cls, g: tuple[str, ...]) -> Self:
        op, index = g[2], g[3]
        if (op in "ht") != (index is not None):
            raise BadCallback("a hand or table key names a position, the others none")
        return cls(_game_id(g[0]), int(g[1]), op, int(index) if index is not None else None)

    @property
    def data(self) -> str:
        tail = f":{self.index}" if self.index is not None else ""
        return _checked(f"k:{self.game_id}:{self.version}:{self.op}{tail}")


@dataclass(frozen=True)
class TChoice(Callback):
    """A [T!] key: choose a play of that kind ("any": of any kind the player holds, when the
    group cannot see which); tapped again, the next choice. *Claim* plays it."""

    game_id: int
    version: int
    kind: str
    PATTERN = re.compile(rf"t:{_ID}:{_ID}:(thief|joker|shifter|bomb|any)")

    @classmethod
    def _from(cls, g: tuple[str, ...]) -> Self:
        return cls(_game_id(g[0]), int(g[1]), g[2])

    @property
    def data(self) -> str:
        return _checked(f"t:{self.game_id}:{self.version}:{self.kind}")


@dataclass(frozen=True)
class Rules(Callback):
    page: int
    lang: str = ""
    PATTERN = re.compile(r"r:(\d{1,2})(?::([a-z]{2}))?")

    @classmethod
    def _from(cls, g: tuple[str, ...]) -> Self:
        return cls(int(g[0]), g[1] or "")

    @property
    def data(self) -> str:
        return _checked(f"r:{self.page}:{self.lang}" if self.lang else f"r:{self.page}")


@dataclass(frozen=True)
class Language(Callback):
    code: str
    PATTERN = re.compile(r"lg:([a-z]{2})")

    @classmethod
    def _from(cls, g: tuple[str, ...]) -> Self:
        return cls(g[0])

    @property
    def data(self) -> str:
        return _checked(f"lg:{self.code}")


@dataclass(frozen=True)
class Download(Callback):
    game_id: int
    PATTERN = re.compile(rf"dl:{_ID}")

    @classmethod
    def _from(cls, g: tuple[str, ...]) -> Self:
        return cls(_game_id(g[0]))

    @property
    def data(self) -> str:
        return _checked(f"dl:{self.game_id}")


@dataclass(frozen=True)
class Rematch(Callback):
    game_id: int  # the finished game whose standings carry the key
    PATTERN = re.compile(rf"rm:{_ID}")

    @classmethod
    def _from(cls, g: tuple[str, ...]) -> Self:
        return cls(_game_id(g[0]))

    @property
    def data(self) -> str:
        return _checked(f"rm:{self.game_id}")


def inline_query(game_id: int) -> str:
    """What the 🎯 Play key types into inline mode: which game the moves are for."""
    return f"g{game_id}"
