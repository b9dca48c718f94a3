"""What each kind of table does, in one place: a group the bot is in (`group`), practice in the
bot's private chat (`practice`), a chat the bot is not in, reached through inline mode
(`inline`). One class per kind, as python-chess has one board class per variant: the group's is
the base, and the others override what they do differently. A use case decides (the engine, the
table's rules) and saves, then hands what it decided to the game's table — chosen once, here,
from the kind stored on the game (`games.table_kind`) — with one call per step (`report`,
`post_board`, `say`, `show_lobby`, `remind`, `show_draft`, …), which the table turns into outbox
rows in its own way. The table sits above the modules it draws on (`record`, `panels`,
`lobby_message`, `reminders`, `inline_table`): they are each one surface's or one kind's, and
never ask which kind a game is (`record.Table` is what the record leaves to the kind).
"""

from __future__ import annotations

from ...store.models import Game
from ...tables import TableKind
from ..context import GameContext
from .group import GroupTable
from .inline import InlineTable
from .practice import PracticeTable

__all__ = [
    "GroupTable",
    "InlineTable",
    "PracticeTable",
    "kind_of_new",
    "presenter_for",
    "presenter_of",
    "table_of_game",
]

_TABLES: dict[str, GroupTable] = {
    TableKind.GROUP: GroupTable(),
    TableKind.PRACTICE: PracticeTable(),
    TableKind.INLINE: InlineTable(),
}


def presenter_of(ctx: GameContext) -> GroupTable:
    """The game's table: what its kind does."""
    return _TABLES[ctx.game.table_kind]


def table_of_game(game: Game) -> GroupTable:
    """A game row's table (for what reads rows without a context: the stats)."""
    return _TABLES[game.table_kind]


def presenter_for(kind: TableKind) -> GroupTable:
    """The table of a kind (a lobby about to open)."""
    return _TABLES[kind]


def kind_of_new(chat_id: int, inline_id: str | None) -> TableKind:
    """The kind of a lobby opening now, stored on its game for good: posted via inline mode, or
    else told by the chat it opens in (a person's own chat with the bot is practice)."""
    return TableKind.INLINE if inline_id is not None else TableKind.of_chat(chat_id)
