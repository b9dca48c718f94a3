"""A loaded game: the row, its seats and the engine state, ready to render."""

from __future__ import annotations

from dataclasses import dataclass, field

from engine import GameState

from ..store.models import Chat, Game, GamePlayer
from .pacing import QuietHours
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
    timeouts: int = 0  # consecutive turns the bot played for this seat (two make it away)

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
    #: Kept for callers that pass a chat row along; the services read what they need of the
    #: chat (title, quiet hours) with the game and never look it up again.
    chat: Chat | None = field(default=None, repr=False, compare=False)
    #: The group's quiet hours as they were read with the game (for the turn clock).
    quiet: QuietHours | None = field(default=None, repr=False, compare=False)

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
        timeouts=player.timeouts,
    )
