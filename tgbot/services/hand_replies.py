"""A person's messages to their own view in a group (issue 61): `/cards` sent as an ephemeral
command, and the card values of a sum typed in an ephemeral reply to the view ("5 3 1").

Both are messages nobody else in the group sees, and both are answered with the person's own view
(`hand.own_view`), which the handler shows as an ephemeral message only they see: a new one in
reply to /cards, or the view they replied to redrawn in place for typed values. So a refusal
(no game here, not their turn) is an ephemeral note too, never a reply in the group: whatever the
command was, a reply there is everyone's.

Typed values are kept beside the draft (`drafts.save`), so the sums they make stay offered while
the person composes with the keys, until ↩️ *Clear* or the move. They are checked, never
completed (`render/hand_sums.typed_sums`): with sum hints off, the person finds the sum.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import Refusal, ServiceError
from ..render.refusals import refusal
from ..store.models import LOBBY, PAUSED
from . import drafts, lobby, moves
from .call import CommandCall, Replied, command_service
from .context import GameContext, SeatInfo, require_game
from .hand import EphemeralView, own_view
from .inline_moves import typed_values


@dataclass(frozen=True)
class ViewReplied(Replied):
    """A message's answer for its sender alone: `view` to show; `redraw`: it is their view as it
    is now, to edit in place of the one they replied to; `note`: no view but a line (a refusal)."""

    view: EphemeralView | None = None
    redraw: bool = False
    note: bool = False


@dataclass
class ViewCall(CommandCall):
    """A refusal is the sender's ephemeral note, not a reply in the group."""

    def refused(self, error: ServiceError) -> Replied:
        text = refusal(self.language, error)
        return ViewReplied(error.reason, view=EphemeralView(text), note=True)


def _seat_here(call: CommandCall, lock: bool = False) -> tuple[GameContext, SeatInfo]:
    """The running game of the message's chat and topic, and the sender's seat in it."""
    command = call.command
    game = lobby.active_game(call.session, command.chat_id, command.thread_id)
    if game is None or game.id is None:
        raise ServiceError(Refusal.NO_GAME_HERE)
    if game.status == LOBBY:
        raise ServiceError(Refusal.NOT_STARTED)
    ctx = require_game(call.session, game.id, lock=lock)
    seat = ctx.seat_of(command.person.id)
    if seat is None or ctx.state is None:
        raise ServiceError(Refusal.NOT_IN_GAME)
    return ctx, seat


def cards_view(call: CommandCall) -> Replied:
    """/cards, sent unseen: the sender's own view, as 🃏 My cards opens it."""
    ctx, seat = _seat_here(call)
    view = own_view(call.session, call.env, call.language, ctx, seat, opens=True)
    return ViewReplied(game_id=ctx.game_id, view=view)


def typed_sum(call: CommandCall) -> Replied:
    """Values typed in reply to the view: kept with the draft; the view shows the sums they make
    (or why they make none). A text without a digit is values that are none (the view says what
    values are)."""
    session, env = call.session, call.env
    ctx, seat = _seat_here(call, lock=True)
    if ctx.game.status == PAUSED:
        raise ServiceError(Refusal.PAUSED)
    state = ctx.playing_state()
    if state.current != seat.seat:
        raise ServiceError(Refusal.NOT_YOUR_TURN, name=ctx.seats[state.current].name)
    ctx = moves.clear_idle(session, ctx, seat)
    values = tuple(typed_values(call.command.args) or ())
    gid, version = ctx.game_id, ctx.game.version
    draft = drafts.load(session, gid, seat.seat, version)
    drafts.save(session, env, gid, seat.seat, version, draft, typed=values)
    view = own_view(session, env, call.language, ctx, seat)
    return ViewReplied(game_id=gid, view=view, redraw=True)


#: The services the handlers call (`handlers/own_views.py`).
open_cards = command_service(cards_view, ViewCall)
typed_reply = command_service(typed_sum, ViewCall)
