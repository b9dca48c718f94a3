"""Messages into chats, written to the outbox in the transaction that decided them: replies,
notices, the lobby, and the popups a composer reads.

The game's record (boards, reports, summaries) is `record`; private panels are `panels`.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from sqlmodel import Session

from engine import seat_view, sum_options

from ..render import board as board_render
from ..render import lobby as lobby_render
from ..render.keys import Keyboard
from ..store import outbox
from ..store.models import Notice
from ..store.outbox import Message, Priority
from . import surfaces
from .context import GameContext, SeatInfo
from .env import Env
from .table_view import players

Draft = board_render.Draft
#: A refusal repeated within this window (sixty /newgame in a row) is answered once.
REPEAT_WINDOW = timedelta(minutes=1)


def drop_reminder(session: Session, ctx: GameContext) -> None:
    """The player acted, the turn is over or the clock stopped: a group reminder that has not
    gone out yet would only mislead."""
    # (the next reminder forgets the message of the last one itself: `sweep._remind`)
    outbox.discard_surface(session, ctx.game.chat_id, surfaces.reminder(ctx.game_id))


def to_group(ctx: GameContext, text: str, **kw: Any) -> Message:
    """A message into the game's group (and forum topic)."""
    return Message(ctx.game.chat_id, text, thread_id=ctx.game.thread_id, game_id=ctx.game_id, **kw)


def say(
    session: Session,
    env: Env,
    chat_id: int,
    text: str,
    *,
    thread_id: int | None = None,
    keys: Keyboard | None = None,
    notify: bool = False,
    priority: Priority = Priority.TURN,
    surface: str | None = None,
) -> None:
    """A plain message into a chat (a reply to a command, a notice)."""
    message = Message(
        chat_id, text, keys, thread_id=thread_id, notify=notify, priority=priority, surface=surface
    )
    outbox.put(session, message, env.now)


def send_file(
    session: Session,
    env: Env,
    chat_id: int,
    caption: str,
    media: dict[str, Any],
    thread_id: int | None = None,
) -> None:
    message = Message(chat_id, caption, thread_id=thread_id, priority=Priority.INFO, media=media)
    outbox.put(session, message, env.now)


def say_once(
    session: Session,
    env: Env,
    chat_id: int,
    key: str,
    text: str,
    *,
    thread_id: int | None = None,
    reply_to: str | None = None,
    window: timedelta = REPEAT_WINDOW,
) -> bool:
    """Say `text` unless the same `key` was said in this chat within `window`; True when said."""
    notice = session.get(Notice, (chat_id, key))
    if notice is not None and env.now - notice.said_at < window:
        return False
    if notice is None:
        notice = Notice(chat_id=chat_id, key=key, said_at=env.now)
    notice.said_at = env.now
    session.add(notice)
    message = Message(chat_id, text, thread_id=thread_id, reply_to=reply_to)
    outbox.put(session, message, env.now)
    return True


def say_in_game(session: Session, env: Env, ctx: GameContext, text: str, *, notify: bool = False) -> None:
    outbox.put(session, to_group(ctx, text, notify=notify), env.now)


def edit_message(
    session: Session, env: Env, chat_id: int, message_id: int, text: str, keys: Keyboard | None
) -> None:
    """Change the message a key was tapped on (a rules page, the language picker)."""
    outbox.put(
        session, Message(chat_id, text, keys, message_id=message_id, surface=f"msg:{message_id}"), env.now
    )


def drop_keys(session: Session, env: Env, chat_id: int, message_id: int, game_id: int | None = None) -> None:
    """Take the keys off a message that is no longer live (an old board), last of all."""
    outbox.drop_keys(session, chat_id, message_id, env.now, game_id=game_id)


# --- lobby ------------------------------------------------------------------------------------


def show_lobby(session: Session, env: Env, ctx: GameContext, settings_screen: bool = False) -> None:
    """The lobby: posted as a reply to /newgame, then edited as people join and change settings.
    The edits are cosmetic (they wait for spare budget and coalesce), so a burst of lobby taps
    never delays the first board."""
    lang = ctx.language
    view = lobby_render.LobbyView(ctx.game_id, players(ctx), ctx.settings)
    text = lobby_render.lobby_text(lang, view, env.custom_pace)
    keys = (
        lobby_render.settings_keyboard(lang, view, env.custom_pace)
        if settings_screen
        else lobby_render.lobby_keyboard(lang, view)
    )
    surface = surfaces.lobby(ctx.game_id)
    shown = outbox.shown_message(session, ctx.game.chat_id, surface) is not None
    priority = Priority.COSMETIC if shown else Priority.TURN
    outbox.put(session, to_group(ctx, text, keys=keys, surface=surface, priority=priority), env.now)


def repost_lobby(session: Session, env: Env, ctx: GameContext) -> None:
    """/board in a lobby: the lobby again at the bottom; the old message loses its keys."""
    surface = surfaces.lobby(ctx.game_id)
    shown = outbox.shown_message(session, ctx.game.chat_id, surface)
    if shown is not None:
        drop_keys(session, env, ctx.game.chat_id, shown.message_id)
        outbox.forget_shown(session, ctx.game.chat_id, surface)
    show_lobby(session, env, ctx)


def close_lobby(
    session: Session, env: Env, ctx: GameContext, text: str, priority: Priority = Priority.TURN
) -> None:
    """The lobby's last words (started, cancelled, expired), without keys; posted if it never was.
    "Started" is cosmetic: the first board says it all, and goes first."""
    message = to_group(ctx, text, surface=surfaces.lobby(ctx.game_id), priority=priority)
    outbox.put(session, message, env.now)


# --- hints for the composer -------------------------------------------------------------------


def sum_hint(ctx: GameContext, seat: SeatInfo, draft: Draft) -> str:
    """The popup after a compose tap: the draft's running sum against the target. With sum hints
    on it also says when the hand card picked alone makes no sum at all; off, it never helps."""
    view = seat_view(ctx.playing_state(), seat.seat)
    hand = view.hand or ()
    target = view.target + draft.joker
    can_sum: bool | None = None
    # The search only matters for the hint of a hand card picked alone.
    alone = draft.hand is not None and draft.hand < len(hand) and not draft.chosen(len(view.table))
    if ctx.settings.hints and alone and draft.hand is not None:
        can_sum = bool(sum_options([hand[draft.hand]], list(view.table), target))
    return board_render.sum_hint(seat.language, view, draft, can_sum)


def hand_popup(ctx: GameContext, seat: SeatInfo) -> str:
    return board_render.hand_popup(seat.language, seat_view(ctx.playing_state(), seat.seat))
