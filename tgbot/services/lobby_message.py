"""The lobby message: posted as a reply to /newgame, edited as people join and change settings,
posted again at the bottom by /board, closed with its last words (started, cancelled, expired).

Apart from `lobby` (the rules of joining and starting) because redrawing it is a matter of the
outbox and its budget, not of the game. Where it goes is the table's (`services.tables`): this
is a chat the bot posts in; a chat reached through inline mode has its post (`inline_table`).
"""

from __future__ import annotations

from sqlmodel import Session

from ..render import lobby as lobby_render
from ..render.keys import Keyboard
from ..store import outbox
from ..store.outbox import Priority
from . import output, surfaces
from .context import GameContext
from .env import Env
from .table_view import players


def draw(
    ctx: GameContext, env: Env, settings_screen: bool, *, practice: bool, inline: bool
) -> tuple[str, Keyboard]:
    """The lobby's text and keys (`settings_screen`: its settings page)."""
    lang = ctx.language
    view = lobby_render.LobbyView(ctx.game_id, players(ctx), ctx.settings, env.bot_username, practice, inline)
    text = lobby_render.lobby_text(lang, view, env.custom_pace)
    keys = (
        lobby_render.settings_keyboard(lang, view, env.custom_pace)
        if settings_screen
        else lobby_render.lobby_keyboard(lang, view)
    )
    return text, keys


def post_lobby(session: Session, env: Env, ctx: GameContext, text: str, keys: Keyboard) -> None:
    """The lobby: posted as a reply to /newgame, then edited as people join and change settings.
    The edits are cosmetic (they wait for spare budget and coalesce), so a burst of lobby taps
    never delays the first board."""
    surface = surfaces.lobby(ctx.game_id)
    shown = outbox.shown_message(session, ctx.game.chat_id, surface) is not None
    priority = Priority.COSMETIC if shown else Priority.TURN
    outbox.put(session, output.to_group(ctx, text, keys=keys, surface=surface, priority=priority), env.now)


def forget_lobby(session: Session, env: Env, ctx: GameContext) -> None:
    """/board in a lobby: the old message loses its keys, and the lobby goes again at the bottom."""
    surface = surfaces.lobby(ctx.game_id)
    shown = outbox.shown_message(session, ctx.game.chat_id, surface)
    if shown is not None:
        output.drop_keys(session, env, ctx.game.chat_id, shown.message_id)
        outbox.forget_shown(session, ctx.game.chat_id, surface)


def close_lobby(
    session: Session, env: Env, ctx: GameContext, text: str, priority: Priority = Priority.TURN
) -> None:
    """The lobby's last words (started, cancelled, expired), without keys; posted if it never was.
    "Started" is cosmetic: the first board says it all, and goes first."""
    message = output.to_group(ctx, text, surface=surfaces.lobby(ctx.game_id), priority=priority)
    outbox.put(session, message, env.now)
