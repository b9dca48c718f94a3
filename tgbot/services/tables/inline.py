"""A chat the bot is not in, reached through inline mode (`services.inline_table`): the game is
carried by the posts people make via the bot, which it edits; people are told of their turn
privately, where the bot may write to them, or not at all."""

from __future__ import annotations

from typing import ClassVar

from ...errors import Refusal
from ...render import inline_table as render
from ...render.keys import Keyboard
from ...tables import TableKind
from ..context import GameContext
from .group import GROUP_CHATS, GroupTable


class InlineTable(GroupTable):
    kind: ClassVar[TableKind] = TableKind.INLINE
    # any chat but a person's own with the bot
    picked_in: ClassVar[tuple[str, ...]] = ("private", *GROUP_CHATS)
    carried_by_posts: ClassVar[bool] = True
    # nobody can be asked about there: the lobby's keys are its poster's alone
    not_manager: ClassVar[Refusal] = Refusal.NOT_POSTER

    def chat_name(self, ctx: GameContext, lang: str) -> str:
        # the bot may not know its title: the game's players name it, as the inline list does
        return ctx.chat_title or render.table_name(lang, [s.name for s in ctx.seats if s.is_human])

    def pick_keys(self, lang: str, game_id: int) -> Keyboard | None:
        # with a key, Telegram gives the bot the posted pick's inline id: it becomes the next board
        return render.pick_keys(lang, game_id)
