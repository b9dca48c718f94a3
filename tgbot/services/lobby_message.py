"""The lobby message: posted as a reply to /newgame, edited as people join and change settings,
posted again at the bottom by /board, closed with its last words (started, cancelled, expired).

Apart from `lobby` (the rules of joining and starting) because redrawing it is a matter of the
outbox and its budget, not of the game.
"""

from __future__ import annotations

from sqlmodel import Session

from ..render import lobby as lobby_render
from ..store import outbox
from ..store.outbox import Priority
from . import inline_table, output, surfaces
from .context import GameContext
from .env import Env
from .table_view import players
from .tables import presenter_of


def show_lobby(session: Session, env: Env, ctx: GameContext, settings_screen: bool = False) -> None:
    """The lobby: posted as a reply to /newgame, then edited as people join and change settings.
    The edits are cosmetic (they wait for spare budget and coalesce), so a burst of lobby taps
    never delays the first board."""
    lang = ctx.language
    table = presenter_of(ctx)
    practice, inline = table.in_players_chat, table.carried_by_posts
    view = lobby_render.LobbyView(ctx.game_id, players(ctx), ctx.settings, env.bot_username, practice, inline)
    text = lobby_render.lobby_text(lang, view, env.custom_pace)
    keys = (
        lobby_render.settings_keyboard(lang, view, env.custom_pace)
        if settings_screen
        else lobby_render.lobby_keyboard(lang, view)
    )
    if table.carried_by_posts:
        if ctx.game.chat_instance is not None:  # (until its first tap, the post shows it as drawn)
            outbox.put(session, inline_table.lobby_message(ctx, text, keys), env.now)
        return
    surface = surfaces.lobby(ctx.game_id)
    shown = outbox.shown_message(session, ctx.game.chat_id, surface) is not None
    priority = Priority.COSMETIC if shown else Priority.TURN
    outbox.put(session, output.to_group(ctx, text, keys=keys, surface=surface, priority=priority), env.now)


def repost_lobby(session: Session, env: Env, ctx: GameContext) -> None:
    """/board in a lobby: the lobby again at the bottom; the old message loses its keys."""
    surface = surfaces.lobby(ctx.game_id)
    shown = outbox.shown_message(session, ctx.game.chat_id, surface)
    if shown is not None:
        output.drop_keys(session, env, ctx.game.chat_id, shown.message_id)
        outbox.forget_shown(session, ctx.game.chat_id, surface)
    show_lobby(session, env, ctx)


def close_lobby(
    session: Session, env: Env, ctx: GameContext, text: str, priority: Priority = Priority.TURN
) -> None:
    """The lobby's last words (started, cancelled, expired), without keys; posted if it never was.
    "Started" is cosmetic: the first board says it all, and goes first."""
    if presenter_of(ctx).carried_by_posts:
        outbox.put(session, inline_table.lobby_message(ctx, text, None), env.now)
        return
    message = output.to_group(ctx, text, surface=surfaces.lobby(ctx.game_id), priority=priority)
    outbox.put(session, message, env.now)
