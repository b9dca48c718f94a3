"""A game's surfaces as the services name them, from what they hold (the kinds, and their text
in the database: `store.surfaces`)."""

from __future__ import annotations

from ..store.models import Game
from ..store.surfaces import Board, Lobby, Panel, Reminder


def board(game: Game) -> Board:
    """The game's live board (the newest)."""
    assert game.id is not None
    return Board(game.id, game.board_no)


def lobby(game_id: int) -> Lobby:
    return Lobby(game_id)


def panel(game_id: int, seat: int) -> Panel:
    return Panel(game_id, seat)


def reminder(game_id: int) -> Reminder:
    return Reminder(game_id)
