"""What a board or a lobby shows besides the engine's view: the seats as people see them, and
which [T!] plays the reader may be offered."""

from __future__ import annotations

from engine.actions import encode
from engine.game import t_actions

from ..render import board as board_render
from .context import GameContext
from .env import Env


def players(ctx: GameContext) -> tuple[board_render.Player, ...]:
    return tuple(
        board_render.Player(s.name, s.user_id, s.ai_level, s.left, s.away, can_dm=s.can_dm) for s in ctx.seats
    )


def table_of(
    ctx: GameContext, env: Env, viewer: int | None, *, practice: bool = False, own_views: bool = False
) -> board_render.Table:
    """The mover's legal [T!] plays are offered to the mover, and on the group board only while
    [T!] cards are face up (they are public then). `practice`: drawn in its player's own chat
    (`services.tables.practice`); `own_views`: a group where a person sees their own view."""
    state = ctx.playing_state()
    visible = viewer == state.current or (viewer is None and not ctx.settings.face_down)
    choices = (
        tuple(encode(a) for a in t_actions(state, state.current)) if visible and not state.is_over else ()
    )
    return board_render.Table(
        game_id=ctx.game_id,
        version=ctx.game.version,
        players=players(ctx),
        face_down=ctx.settings.face_down,
        chat_title=ctx.chat_title,
        bot_username=env.bot_username,
        inline=env.inline,
        t_choices=choices,
        hints=ctx.settings.hints,
        practice=practice,
        own_views=own_views,
    )
