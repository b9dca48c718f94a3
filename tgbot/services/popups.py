"""The popups a composer reads (the answer to a callback query, never a message): the running sum
of a draft, the hand. Worked out from the seat's own view, so a popup can never show another
player's cards.
"""

from __future__ import annotations

from engine import seat_view, sum_options

from ..render import board as board_render
from ..render import glance
from .context import GameContext, SeatInfo

Draft = board_render.Draft


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
    """The 👀 My hand popup: the hand, and the live table and target (the group board is not
    redrawn after every [T!] card)."""
    return glance.hand_popup(seat.language, seat_view(ctx.playing_state(), seat.seat))
