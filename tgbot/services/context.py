"""A loaded game: the row, its seats and the engine state, ready to render."""

from __future__ import annotations

from dataclasses import dataclass, field

from engine import GameState

from ..store.models import Chat, Game, GamePlayer
from .settings import GameSettings


@dataclass
class SeatInfo:
    seat: int
    user_id: int | None
    name: str
    ai_level: str | None
    away: bool
    left: bool
    can_dm: bool
    language: str
    panel_message_id: int | None

    @property
    def is_human(self) -> bool:
        return self.ai_level is None

    @property
    def autoplayed(self) -> bool:
        """Seats whose turns the bot plays at once (computer, left, away)."""
        return self.ai_level is not None or self.left or self.away


@dataclass
class GameContext:
    game: Game
    seats: list[SeatInfo]
    state: GameState | None
    settings: GameSettings
    chat_title: str
    #: The chat row, kept referenced so later lookups in the same session hit SQLAlchemy's
    #: identity map (it only holds objects weakly) instead of the database.
    chat: Chat | None = field(default=None, repr=False, compare=False)

    @property
    def game_id(self) -> int:
        assert self.game.id is not None
        return self.game.id

    def seat_of(self, user_id: int) -> SeatInfo | None:
        for s in self.seats:
            if s.user_id == user_id:
                return s
        return None

    @property
    def current(self) -> SeatInfo | None:
        if self.state is None or self.state.is_over:
            return None
        return self.seats[self.state.current]


def seat_info(player: GamePlayer, can_dm: bool, language: str) -> SeatInfo:
    return SeatInfo(
        seat=player.seat,
        user_id=player.user_id,
        name=player.name,
        ai_level=player.ai_level,
        away=player.away,
        left=player.left,
        can_dm=can_dm,
        language=language,
        panel_message_id=player.panel_message_id,
    )
