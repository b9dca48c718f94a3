"""Standings a newer game made old lose their 🔁 Rematch key when that game starts.

Once a game was played in a chat (or forum topic) after another ended, the earlier one's rematch
is refused (decision B15, `rematch.REMATCH_OLD`): its standings are history. They say so by
losing the key the moment the newer game starts, a rematch or not, at every kind of table, rather
than keeping a key that looks alive until someone taps it. The edit is clean-up: it takes only the
chat's spare budget, behind the new game's first board.

The standings are found by what shows them (the old game's table knows: `retire_standings`): at
a group or practice table, the game's last board surface (`record.put` puts them there); in a
chat the bot is not in, the game's last post.
"""

from __future__ import annotations

from sqlmodel import Session

from ..store import games as game_rows
from .context import GameContext
from .env import Env
from .tables import table_of_game


def retire(session: Session, env: Env, ctx: GameContext) -> None:
    """`ctx`'s game has just started: the standings of the game that ended before it at its table
    lose their key (those of earlier games lost it when the one after them started)."""
    old = game_rows.finished_before(session, ctx.game)
    if old is not None and old.id is not None:
        table_of_game(old).retire_standings(session, env, old)
