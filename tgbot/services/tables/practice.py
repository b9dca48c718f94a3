"""Practice in the bot's private chat: its person against computers. The chat is theirs (its id
is their id), so its board is their panel, showing their real cards, and it has a private
chat's budget, not a group's."""

from __future__ import annotations

from typing import ClassVar

from ...tables import TableKind
from ..context import GameContext, SeatInfo
from .group import GroupTable


class PracticeTable(GroupTable):
    kind: ClassVar[TableKind] = TableKind.PRACTICE
    picked_in: ClassVar[tuple[str, ...]] = ("sender",)  # the bot's own chat with its person
    in_players_chat: ClassVar[bool] = True

    def player_seat(self, ctx: GameContext) -> SeatInfo | None:
        return ctx.seat_of(ctx.game.chat_id)
