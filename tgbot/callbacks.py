"""Callback data: short ASCII strings, at most 64 bytes, validated on every tap.

Anyone can forge callback data, so decoding is strict and everything decoded is
checked again by the services against the stored game.

Formats (fields separated by ':'):

  lj:<gid>  ll:<gid>  ls:<gid>  lc:<gid>  lo:<gid>     lobby join/leave/start/cancel/settings
  ln:<gid>:<key>:<value>                              lobby setting (edition, length, score, pace)
  la:<gid>:<level>                                    lobby: add a computer player
  h:<gid>                                             "my hand" popup
  c:<gid>:<ver>:<hand|x>:<mask hex>                   compose: the whole draft after this tap
  t:<gid>:<ver>:<kind>                                open the [T!] sub-menu
  m:<gid>:<ver>:<action code>                         play an engine action
  r:<page>                                            rules page
  lg:<code>                                           language choice
  dl:<gid>                                            /history: send a finished game's replay file
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_BYTES = 64

_INT = r"(\d{1,12})"
_PATTERNS: dict[str, re.Pattern[str]] = {
    "lobby": re.compile(rf"(lj|ll|ls|lc|lo|lb):{_INT}"),
    "setting": re.compile(rf"ln:{_INT}:([a-z]{{1,3}}):([a-z0-9+-]{{1,8}})"),
    "add_ai": re.compile(rf"la:{_INT}:(easy|normal|hard)"),
    "hand": re.compile(rf"h:{_INT}"),
    "compose": re.compile(rf"c:{_INT}:{_INT}:([0-9x]):([0-9a-f]{{1,16}})"),
    "tmenu": re.compile(rf"t:{_INT}:{_INT}:(thief|joker|shifter|bomb|any)"),
    "move": re.compile(rf"m:{_INT}:{_INT}:([A-Za-z0-9.+-]{{1,20}})"),
    "rules": re.compile(r"r:(\d{1,2})(?::([a-z]{2}))?"),
    "language": re.compile(r"lg:([a-z]{2})"),
    "download": re.compile(rf"dl:{_INT}"),
}


@dataclass(frozen=True)
class Callback:
    kind: str
    game_id: int | None = None
    version: int | None = None
    op: str = ""
    hand: int | None = None
    mask: int = 0
    arg: str = ""
    value: str = ""


class BadCallback(ValueError):
    pass


#: Game ids are a 32-bit integer column (PostgreSQL): a larger, forged one must never reach a query.
MAX_GAME_ID = 2**31 - 1


def decode(data: str | None) -> Callback:
    callback = _parse(data)
    if callback.game_id is not None and callback.game_id > MAX_GAME_ID:
        raise BadCallback("game id out of range")
    return callback


def _parse(data: str | None) -> Callback:
    if not data or len(data.encode()) > MAX_BYTES or not data.isascii():
        raise BadCallback("bad callback data")
    for kind, pattern in _PATTERNS.items():
        m = pattern.fullmatch(data)
        if not m:
            continue
        g = m.groups()
        if kind == "lobby":
            return Callback(kind, game_id=int(g[1]), op=g[0])
        if kind == "setting":
            return Callback(kind, game_id=int(g[0]), arg=g[1], value=g[2])
        if kind == "add_ai":
            return Callback(kind, game_id=int(g[0]), value=g[1])
        if kind == "hand":
            return Callback(kind, game_id=int(g[0]))
        if kind == "compose":
            hand = None if g[2] == "x" else int(g[2])
            return Callback(kind, game_id=int(g[0]), version=int(g[1]), hand=hand, mask=int(g[3], 16))
        if kind in ("tmenu", "move"):
            return Callback(kind, game_id=int(g[0]), version=int(g[1]), arg=g[2])
        if kind == "download":
            return Callback(kind, game_id=int(g[0]))
        if kind == "rules":
            return Callback(kind, arg=g[0], value=g[1] or "")
        return Callback(kind, arg=g[0])
    raise BadCallback("unknown callback data")


def _checked(data: str) -> str:
    if len(data.encode()) > MAX_BYTES:
        raise ValueError(f"callback data too long: {data!r}")
    return data


def lobby(op: str, game_id: int) -> str:
    return _checked(f"{op}:{game_id}")


def setting(game_id: int, key: str, value: str) -> str:
    return _checked(f"ln:{game_id}:{key}:{value}")


def add_ai(game_id: int, level: str) -> str:
    return _checked(f"la:{game_id}:{level}")


def hand(game_id: int) -> str:
    return _checked(f"h:{game_id}")


def compose(game_id: int, version: int, hand_index: int | None, mask: int) -> str:
    h = "x" if hand_index is None else str(hand_index)
    return _checked(f"c:{game_id}:{version}:{h}:{mask:x}")


def tmenu(game_id: int, version: int, kind: str) -> str:
    return _checked(f"t:{game_id}:{version}:{kind}")


def move(game_id: int, version: int, code: str) -> str:
    return _checked(f"m:{game_id}:{version}:{code}")


def rules(page: int, lang: str = "") -> str:
    return _checked(f"r:{page}:{lang}" if lang else f"r:{page}")


def language(code: str) -> str:
    return _checked(f"lg:{code}")


def download(game_id: int) -> str:
    return _checked(f"dl:{game_id}")
