"""Standings a newer game made old lose their 🔁 Rematch key when that game starts.

Once a game was played in a chat (or forum topic) after another ended, the earlier one's rematch
is refused (decision B15, `rematch.REMATCH_OLD`): its standings are history. They say so by
losing the key the moment the newer game starts, a rematch or not, at every kind of table, rather
than keeping a key that looks alive until someone taps it. The edit is clean-up: it takes only the
chat's spare budget, behind the new game's first board.

The standings are found by what shows them: at a group or practice table, the game's last board
surface (`record` puts them there); in a chat the bot is not in, the game's last post.
"""

from __future__ import annotations

from sqlmodel import Session, col, select

from ..store import outbox
from ..store.models import FINISHED, Game
from ..store.outbox import Message, Payload, Priority
from ..store.surfaces import InlineKeysOff
from ..tables import TableKind
from . import surfaces
from .context import GameContext
from .env import Env


def retire(session: Session, env: Env, ctx: GameContext) -> None:
    """`ctx`'s game has just started: the standings of the game that ended before it in its chat
    and topic lose their key (those of earlier games lost it when the one after them started)."""
    old = _finished_before(session, ctx.game)
    if old is None or old.id is None:
        return
    if TableKind.of_chat(old.chat_id) is TableKind.INLINE:
        if old.inline_id is not None:
            payload = Payload(inline_id=old.inline_id, keys_only=True)
            message = Message(old.chat_id, payload, InlineKeysOff(old.inline_id), Priority.CLEANUP, old.id)
            outbox.put(session, message, env.now)
        return
    shown = outbox.shown_message(session, old.chat_id, surfaces.board(old))
    if shown is not None:
        outbox.drop_keys(session, old.chat_id, shown.message_id, env.now, game_id=old.id)


def _finished_before(session: Session, game: Game) -> Game | None:
    query = select(Game).where(
        Game.chat_id == game.chat_id, Game.status == FINISHED, col(Game.id) < (game.id or 0)
    )
    if game.thread_id is None:
        query = query.where(col(Game.thread_id).is_(None))
    else:
        query = query.where(Game.thread_id == game.thread_id)
    return session.exec(query.order_by(col(Game.id).desc()).limit(1)).first()
