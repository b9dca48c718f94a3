"""A player's private panel: their turn in their chat with the bot, with their real cards on the
keys (DESIGN §3).

Panels go only to players who use them (`SeatInfo.gets_panel`); a panel is edited in place while
it is the chat's latest message, and says what was played, without keys, when the turn is over.
Private chats have their own budget, so a panel follows every tap of its player.
"""

from __future__ import annotations

from sqlmodel import Session

from engine import seat_view

from ..render import board as board_render
from ..render import turn_notice
from ..render.keys import Keyboard
from ..render.limits import chunks
from ..store import outbox
from ..store.models import PLAYING
from ..store.outbox import Message, Payload, Priority
from . import output, surfaces
from .context import GameContext, SeatInfo
from .env import Env
from .table_view import table_of


def view(
    ctx: GameContext,
    env: Env,
    seat: SeatInfo,
    draft: board_render.Draft | None = None,
    header: str = "",
    lang: str | None = None,
    *,
    practice: bool = False,
) -> tuple[str, Keyboard | None]:
    """The panel's text and keys (keys only while it is this player's move). A practice table's
    board is drawn the same way, under its report (`header`), in the game's language (`lang`)."""
    lang = lang or seat.language
    state = ctx.playing_state()
    seen = seat_view(state, seat.seat)
    table = table_of(ctx, env, seat.seat, practice=practice)
    text = board_render.board_text(lang, seen, table, draft, header)
    my_move = state.current == seat.seat and not state.is_over and ctx.game.status == PLAYING
    return text, board_render.keyboard(lang, seen, table, draft) if my_move else None


def show(
    session: Session,
    env: Env,
    ctx: GameContext,
    seat: SeatInfo,
    draft: board_render.Draft | None = None,
    priority: Priority = Priority.INFO,
    fresh: bool = False,
    notify: bool = False,
) -> None:
    """The player's panel, kept at the bottom of their chat with the bot (`fresh`: posted anew
    even if it is, e.g. when they asked for it or their turn starts; `notify`: it is their turn's
    one notification)."""
    assert seat.user_id is not None
    text, keys = view(ctx, env, seat, draft)
    fallback = group_call(ctx, seat).as_fallback() if notify else None
    payload = Payload(text, keys, bottom=True, fresh=fresh, notify=notify, fallback=fallback)
    message = Message(seat.user_id, payload, surfaces.panel(ctx.game_id, seat.seat), priority, ctx.game_id)
    outbox.put(session, message, env.now)


def ping(
    session: Session,
    env: Env,
    ctx: GameContext,
    seat: SeatInfo,
    text: str,
    call: Message | None,
) -> None:
    """The player to move is told in their chat with the bot: their turn's one notification (the
    group board goes silently, so nobody else is woken). If that chat refuses the bot, the group
    mention (`call`, none where the bot cannot post) notifies them instead."""
    assert seat.user_id is not None
    payload = Payload(text, notify=True, fallback=call.as_fallback() if call is not None else None)
    outbox.put(session, Message(seat.user_id, payload, priority=Priority.TURN, game_id=ctx.game_id), env.now)


def group_call(ctx: GameContext, seat: SeatInfo) -> Message:
    """The mention that notifies the player in the group, under the board: what a private
    notification falls back to when the private chat refuses the bot."""
    text = turn_notice.call(ctx.language, seat.user_id, seat.name)
    return output.to_group(ctx, text, notify=True, reply_to=surfaces.board(ctx.game))


def reached_privately(seat: SeatInfo | None) -> bool:
    """The player can be notified in private: the group need not wake everyone for them."""
    return seat is not None and seat.can_dm and seat.user_id is not None and not seat.autoplayed


def close(session: Session, env: Env, ctx: GameContext, seat: SeatInfo, lines: list[str]) -> None:
    """The turn is over: the panel says what was played and loses its keys (if it was shown)."""
    if seat.user_id is None:
        return
    text = board_render.closed_panel_text(seat.language, ctx.chat_title, chunks(lines)[-1])
    _edit_only(session, env, ctx, seat, text)


def retire(session: Session, env: Env, ctx: GameContext, seat: SeatInfo) -> None:
    """The player composes on the group board now: their panel (if shown) says so, without keys."""
    if seat.user_id is None or not seat.can_dm:
        return
    text = board_render.retired_panel_text(seat.language)
    _edit_only(session, env, ctx, seat, text)


def _edit_only(session: Session, env: Env, ctx: GameContext, seat: SeatInfo, text: str) -> None:
    """The panel, if it is shown, says `text` and loses its keys; nothing is posted."""
    assert seat.user_id is not None
    panel = surfaces.panel(ctx.game_id, seat.seat)
    outbox.put(session, Message(seat.user_id, Payload(text, edit_only=True), panel, Priority.INFO), env.now)
