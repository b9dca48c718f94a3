"""The names of the messages the bot keeps up to date (outbox surfaces), made and read here only.

``board:<game>:<n>`` is a game's n-th board in its group (a new board takes the next n),
``lobby:<game>`` its lobby, ``panel:<game>:<seat>`` a player's private panel, and
``reminder:<game>`` a group reminder while it waits to be sent, ``said:<key>`` a reply or notice
said at most once in a while.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..store.models import Game


def board(game: Game) -> str:
    """The game's live board (the newest)."""
    return f"board:{game.id}:{game.board_no}"


def lobby(game_id: int) -> str:
    return f"lobby:{game_id}"


def panel(game_id: int, seat: int) -> str:
    return f"panel:{game_id}:{seat}"


def reminder(game_id: int) -> str:
    return f"reminder:{game_id}"


def said(key: str) -> str:
    """A reply or notice said at most once in a while (`output.say_capped`), edited meanwhile."""
    return f"said:{key}"[:64]


@dataclass(frozen=True)
class Named:
    """A surface name read back: its kind, its game, and the board's number or the panel's seat."""

    kind: str
    game_id: int
    number: int | None = None


def parse(surface: str) -> Named | None:
    """The parts of a game's surface name; None for any other surface (a rules page, old keys)."""
    kind, _sep, rest = surface.partition(":")
    if kind not in ("board", "lobby", "panel", "reminder"):
        return None
    parts = rest.split(":")
    if not all(p.isdigit() for p in parts) or len(parts) > 2:
        return None
    number = int(parts[1]) if len(parts) == 2 else None
    return Named(kind, int(parts[0]), number)
