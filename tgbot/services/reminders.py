"""A turn's reminders, as each kind of table gives them (`services.tables`, `remind`): in the
player's chat with the bot, like the turn's own notification, or in the game's chat under its
board. When one is due is the turn clock's (`services.sweep`)."""

from __future__ import annotations

from dataclasses import replace

from sqlmodel import Session

from .. import pacing
from ..render import turn_notice
from ..store import outbox
from ..store.outbox import Message, Payload
from . import output, panels, surfaces
from .context import GameContext, SeatInfo
from .env import Env


def in_private(
    session: Session,
    env: Env,
    ctx: GameContext,
    seat: SeatInfo,
    last_call: bool,
    chat: str,
    fallback: Message | None,
) -> None:
    """A reminder in the player's chat with the bot (which names the game's chat `chat`): their
    panel posted again under it if they play there, else a note; the group mention (`fallback`,
    none where nobody can be mentioned) if that chat refuses the bot."""
    assert seat.user_id is not None
    lang = seat.language
    if last_call and ctx.game.deadline_at is not None:
        left = pacing.format_duration(ctx.game.deadline_at - env.now, lang)
        text = turn_notice.last_call_in(lang, chat, left)
    elif seat.gets_panel:
        text = turn_notice.reminder(lang)
    else:
        text = turn_notice.reminder_in(lang, chat)
    if not seat.gets_panel:
        panels.ping(session, env, ctx, seat, text, fallback)
        return
    view, keys = panels.view(ctx, env, seat)
    back = fallback.as_fallback() if fallback is not None else None
    payload = Payload(text + "\n\n" + view, keys, fresh=True, notify=True, fallback=back)
    message = Message(seat.user_id, payload, surfaces.panel(ctx.game_id, seat.seat), game_id=ctx.game_id)
    outbox.put(session, message, env.now)


def in_chat(
    session: Session, env: Env, ctx: GameContext, seat: SeatInfo, last_call: bool, practice: bool
) -> None:
    """A reminder in the game's chat, a message of its own (a waiting one is replaced, and dropped
    if the turn moves on before it is sent: `output.drop_reminder`)."""
    outbox.forget_shown(session, ctx.game.chat_id, surfaces.reminder(ctx.game_id))
    message = replace(
        in_chat_message(ctx, env, seat, last_call, practice), surface=surfaces.reminder(ctx.game_id)
    )
    outbox.put(session, message, env.now)


def in_chat_message(ctx: GameContext, env: Env, seat: SeatInfo, last_call: bool, practice: bool) -> Message:
    """A reminder in the game's chat, under its board: a mention in a group; at a practice table
    (`practice`), its person's own chat, a word to them."""
    lang = ctx.language
    if last_call and ctx.game.deadline_at is not None:
        left = pacing.format_duration(ctx.game.deadline_at - env.now, lang)
        if practice:
            text = turn_notice.last_call(lang, left)
        else:
            text = turn_notice.last_call_for(lang, seat.user_id, seat.name, left)
    else:
        text = (
            turn_notice.reminder(lang)
            if practice
            else turn_notice.reminder_for(lang, seat.user_id, seat.name)
        )
    return output.to_group(ctx, text, notify=True, reply_to=surfaces.board(ctx.game))
