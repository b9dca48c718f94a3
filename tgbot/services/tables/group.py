"""A group the bot is in: the bot posts one board a turn (DESIGN §6), mentions the player to
move, and a player may play from their private panel. The other kinds override this class."""

from __future__ import annotations

from typing import ClassVar

from ...errors import Refusal
from ...render.keys import Keyboard
from ...tables import TableKind
from ..context import GameContext, SeatInfo

#: Telegram's `chat_type` of an inline query sent in a group.
GROUP_CHATS = ("group", "supergroup")


class GroupTable:
    kind: ClassVar[TableKind] = TableKind.GROUP
    #: Where a move may be picked from the inline list (🎯 Play): the query's `chat_type`.
    picked_in: ClassVar[tuple[str, ...]] = GROUP_CHATS
    #: The game is carried by the posts people make via the bot (the bot posts nothing of its own
    #: there, it edits those posts, and an edit notifies nobody): what the bot says goes into the
    #: live board's report, a posted pick is the next board, and nobody can be mentioned there.
    carried_by_posts: ClassVar[bool] = False
    #: The table is its one person's private chat with the bot: the board is drawn as their panel
    #: (their real cards), it notifies them itself, nobody else can join, and a computer must play.
    in_players_chat: ClassVar[bool] = False
    #: Who a person tapping the lobby's or the pace's keys must be, when they may not.
    not_manager: ClassVar[Refusal] = Refusal.NOT_CREATOR

    def player_seat(self, ctx: GameContext) -> SeatInfo | None:
        """The seat whose private chat the table is (None: a table of a shared chat)."""
        return None

    def chat_name(self, ctx: GameContext, lang: str) -> str:
        """How a private message, in its reader's language, names the game's chat."""
        return ctx.chat_title

    def pick_keys(self, lang: str, game_id: int) -> Keyboard | None:
        """The keys a move posted from the inline list carries (none: it is only a message)."""
        return None
