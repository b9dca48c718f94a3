"""Keys of a running game: composing a move on the server's draft, playing it, the hand popup.

Each tap is one transaction: the game is read and locked, the tap is checked (right chat, a
player, their turn, the version the key was drawn for), the draft or the game changes, and what
the chats should show goes to the outbox. The answer (the popup the tapper sees) comes from the
database alone, before any message is sent.

A refused tap changes nothing but this: any tap by a player brings them back from being away, and
a key on a message that is no longer live loses its keys.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field, replace
from typing import ClassVar

from sqlmodel import Session

from engine import seat_view
from engine.actions import Discard, Sum, encode, t_kind
from engine.cards import TKind
from engine.game import t_actions

from .. import callbacks as cb
from ..errors import Refusal, ServiceError
from ..render import board as board_render
from ..render.board import Draft
from ..store import db, outbox
from ..store import seats as seat_rows
from ..store.models import PAUSED, PLAYING
from . import drafts, inline_table, moves, output, panels, popups, record, surfaces
from .call import Answer, KeyCall, key_service
from .context import GameContext, SeatInfo, require_game
from .env import Env
from .origins import Tap
from .table_view import table_of
from .tables import presenter_of


@dataclass
class GameKey(KeyCall):
    """A key of a running game being answered: the game and seat once read, so a refusal answers
    in the tapper's language and acts on what was read without reading it again.

    No savepoint: a service checks everything before it writes (the engine refuses a move before
    anything of it is recorded), so a refusal has nothing to undo. The game's changes are written
    in one go when the transaction ends (no flush in between: each would be another UPDATE)."""

    #: The game as read, then as the tap's move left it (what a person's own view shows next).
    ctx: GameContext | None = field(default=None, init=False)
    seat: SeatInfo | None = field(default=None, init=False)
    savepoint: ClassVar[bool] = False
    #: The key is on the tapper's own view (🃏 My cards), which shows what a [T!] card did.
    own_view: ClassVar[bool] = False

    @property
    def language(self) -> str:
        """The tapper's language: their seat's (read with the game), else looked up."""
        return self.seat.language if self.seat is not None else super().language

    def checked(self, game_id: int) -> tuple[GameContext, SeatInfo]:
        """The game, locked, and the tapper's seat, after the checks every game key gets."""
        ctx = self.ctx = require_game(self.session, game_id, lock=True)
        tap = self.tap
        elsewhere = tap.chat_id is not None and ctx.game.chat_id != tap.chat_id
        if elsewhere and not in_panel(ctx, tap):
            # a forged key from another chat (a group's keys are in its private panels too; a
            # practice table's only in its own chat)
            raise ServiceError(Refusal.MALFORMED)
        inline_table.check_tap(self.session, self.env, ctx, tap)
        seat = self.seat = ctx.seat_of(tap.person.id)
        if seat is None and inline_table.is_inline(ctx):  # no /newgame where the bot cannot read it
            raise ServiceError(Refusal.NOT_IN_GAME_HERE, bot=self.env.bot_username)
        if seat is None:
            raise ServiceError(Refusal.NOT_IN_GAME)
        if ctx.state is None or ctx.game.status not in (PLAYING, PAUSED):
            raise ServiceError(Refusal.NOT_PLAYING)
        return ctx, seat

    def guard(self) -> AbstractContextManager[object]:
        return db.writes_held(self.session)

    def refused(self, error: ServiceError) -> Answer:
        """What a refused tap still does: brings its player back, takes keys off a dead message. A
        tap on the last board shown while the next one waits for the group's budget is early, not
        stale: it says the board is on its way."""
        session, env, tap, ctx = self.session, self.env, self.tap, self.ctx
        if ctx is not None and self.seat is not None:
            moves.clear_idle(session, ctx, self.seat)
        on_message = tap.chat_id is not None and bool(tap.message_id)  # 0: an ephemeral message
        if ctx is not None and error.reason is Refusal.STALE and tap.inline_id is not None:
            if not inline_table.is_live(ctx, tap):  # an older message of a game played via inline mode
                inline_table.drop_keys(session, env, ctx, tap.inline_id)
        elif ctx is not None and error.reason is Refusal.STALE and on_message:
            if not in_panel(ctx, tap) and presenter_of(ctx).board_on_its_way(session, ctx):
                error = ServiceError(Refusal.ON_ITS_WAY)
            else:
                _drop_dead_keys(session, env, ctx, tap)
        return super().refused(error)


def in_panel(ctx: GameContext, tap: Tap) -> bool:
    """The tap is on its player's private panel: in private, for a game played elsewhere (a
    practice table's board is in that very chat, and it has no panel)."""
    return presenter_of(ctx).on_panel(tap)


def _turn(ctx: GameContext, seat: SeatInfo, version: int) -> None:
    """The tapper's turn, and a key drawn for it: a key of the board before a [T!] card of this
    turn still counts (the card moves its player's hand and table positions nowhere)."""
    if ctx.game.status == PAUSED:
        raise ServiceError(Refusal.PAUSED)
    state = ctx.playing_state()
    if version != ctx.game.version and not (state.t_played is not None and version == ctx.game.version - 1):
        raise ServiceError(Refusal.STALE)
    if state.current != seat.seat:
        raise ServiceError(Refusal.NOT_YOUR_TURN, name=ctx.seats[state.current].name)


def _drop_dead_keys(session: Session, env: Env, ctx: GameContext, tap: Tap) -> None:
    """A tap on an old board or panel: that message loses its keys (the live one keeps its own)."""
    assert tap.chat_id is not None and tap.message_id is not None
    if in_panel(ctx, tap):
        seat = ctx.seat_of(tap.person.id)
        shown = (
            outbox.shown_message(session, tap.chat_id, surfaces.panel(ctx.game_id, seat.seat))
            if seat is not None
            else None
        )
        live = shown.message_id if shown is not None else None
    else:
        live = record.live_board(session, ctx)
    if tap.message_id != live:
        output.drop_keys(session, env, tap.chat_id, tap.message_id, ctx.game_id)


def use_panel(
    session: Session, env: Env, ctx: GameContext, seat: SeatInfo, private: bool
) -> tuple[GameContext, SeatInfo]:
    """Composing in private turns the panel on for this player; on the group board, off (and the
    panel already shown loses its keys: it no longer follows the move). The game and the seat
    come back as they are now, so what follows in the transaction (closing the mover's panel
    after the move, bringing them back from idle) sees the change."""
    seat = ctx.seats[seat.seat]
    if seat.panel == private:
        return ctx, seat
    seat_rows.use_panel(session, ctx.game_id, seat.seat, private)
    if not private:
        panels.retire(session, env, ctx, seat)
    seat = replace(seat, panel=private)
    return ctx.with_seat(seat), seat


def your_turn(call: GameKey, game_id: int, version: int) -> tuple[GameContext, SeatInfo]:
    """The checks of a key that acts on the turn: the game (locked), the tapper's seat (back from
    idle), their turn, the key's version."""
    ctx, seat = call.checked(game_id)
    return on_turn(call, ctx, seat, version)


def on_turn(call: GameKey, ctx: GameContext, seat: SeatInfo, version: int) -> tuple[GameContext, SeatInfo]:
    """The tapper (back from idle) is to move, and the key was drawn for this turn."""
    ctx = moves.clear_idle(call.session, ctx, seat)
    _turn(ctx, seat, version)
    return ctx, seat


# The compose keys change the draft as it is now, or play it (claim, discard). On the group
# board the popup is the only thing that changes: the board is not redrawn, so composing costs
# the group nothing. A private panel shows the draft, and so does a practice table's board.


@key_service(GameKey)
def pick_hand(call: GameKey, key: cb.PickHand) -> Answer:
    """Hand card `index` is the draft's (tapped again: none is)."""
    ctx, seat = your_turn(call, key.game_id, key.version)
    return _sum_hint(ctx, seat, toggle_hand(call, ctx, seat, key.index))


@key_service(GameKey)
def pick_table(call: GameKey, key: cb.PickTable) -> Answer:
    """Table card `index` is in the draft, or out of it again."""
    ctx, seat = your_turn(call, key.game_id, key.version)
    return _sum_hint(ctx, seat, toggle_table(call, ctx, seat, key.index))


@key_service(GameKey)
def clear(call: GameKey, key: cb.Clear) -> Answer:
    """The draft starts again."""
    ctx, seat = your_turn(call, key.game_id, key.version)
    return _sum_hint(ctx, seat, edit_draft(call, ctx, seat, lambda _d: Draft()))


@key_service(GameKey)
def claim(call: GameKey, key: cb.Claim) -> Answer:
    ctx, seat = your_turn(call, key.game_id, key.version)
    return play_draft(call, ctx, seat, claim=True)


@key_service(GameKey)
def discard(call: GameKey, key: cb.Discard) -> Answer:
    ctx, seat = your_turn(call, key.game_id, key.version)
    return play_draft(call, ctx, seat, claim=False)


# What the compose keys do, whichever surface they are on (the group board, a panel, a person's
# own view: `services.hand`): each returns the draft as it is now.


def toggle_hand(call: GameKey, ctx: GameContext, seat: SeatInfo, index: int) -> Draft:
    if index >= len(ctx.playing_state().hands[seat.seat]):
        raise ServiceError(Refusal.ILLEGAL, rule="bad_hand_index")
    return edit_draft(call, ctx, seat, lambda d: replace(d, hand=None if d.hand == index else index))


def toggle_table(call: GameKey, ctx: GameContext, seat: SeatInfo, index: int) -> Draft:
    if index >= len(ctx.playing_state().table):
        raise ServiceError(Refusal.ILLEGAL, rule="bad_table_index")
    return edit_draft(call, ctx, seat, lambda d: replace(d, mask=d.mask ^ (1 << index)))


def _sum_hint(ctx: GameContext, seat: SeatInfo, draft: Draft) -> Answer:
    return Answer(popups.sum_hint(ctx, seat, draft))


def edit_draft(call: GameKey, ctx: GameContext, seat: SeatInfo, change: Callable[[Draft], Draft]) -> Draft:
    """A compose key toggles the draft; the seam applies its tap once (a second delivery would
    toggle it back)."""
    session, env, tap = call.session, call.env, call.tap
    draft = drafts.load(session, ctx.game_id, seat.seat, ctx.game.version)
    ctx, seat = use_panel(session, env, ctx, seat, in_panel(ctx, tap))
    draft = change(draft)
    _save_draft(session, env, ctx, seat, draft, tap)
    return draft


def _save_draft(session: Session, env: Env, ctx: GameContext, seat: SeatInfo, draft: Draft, tap: Tap) -> None:
    """The draft is kept; a surface that shows it follows: the private panel, or a practice
    table's board (both in a private chat, with its own budget). The group board does not."""
    drafts.save(session, env, ctx.game_id, seat.seat, ctx.game.version, draft)
    presenter_of(ctx).show_draft(session, env, ctx, seat, draft, tap.private)


def t_options(ctx: GameContext, seat: SeatInfo, wanted: TKind | None) -> list[str]:
    """The [T!] plays the mover may choose now, of kind `wanted` (None: any kind held)."""
    state = ctx.playing_state()
    if state.t_played is not None:
        raise ServiceError(Refusal.ILLEGAL, rule="one_t_per_turn")
    if not state.hands[seat.seat]:
        raise ServiceError(Refusal.ILLEGAL, rule="empty_hand")
    held = [encode(action) for action in t_actions(state, seat.seat)]
    options = [code for code in held if wanted is None or t_kind(code) == wanted]
    if not options:
        raise ServiceError(Refusal.ILLEGAL, rule="t_not_held")
    return options


@key_service(GameKey)
def choose_t(call: GameKey, key: cb.TChoice) -> Answer:
    """A [T!] key: the draft takes the next play of that kind ("any": of any kind held), after the
    last none; nothing is played until *Claim*. Answered by the popup alone."""
    ctx, seat = your_turn(call, key.game_id, key.version)
    options = t_options(ctx, seat, key.kind.t_kind)
    draft = edit_draft(call, ctx, seat, lambda d: replace(d, t_code=_next_choice(options, d.t_code)))
    chosen = draft.t_code
    view = seat_view(ctx.playing_state(), seat.seat)
    more = len(options) > 1 and chosen != options[-1]
    table = table_of(ctx, call.env, seat.seat)
    return Answer(board_render.t_choice_popup(call.language, view, table, chosen, more))


def _next_choice(options: list[str], current: str | None) -> str | None:
    """The choice after `current`: the first, the next, then none (a way back without a key)."""
    if current not in options:
        return options[0]
    at = options.index(current) + 1
    return options[at] if at < len(options) else None


def play_draft(
    call: GameKey, ctx: GameContext, seat: SeatInfo, claim: bool, draft: Draft | None = None
) -> Answer:
    """The draft kept (or `draft`) as the move. *Claim* plays the chosen [T!] card (and, after a
    Joker, the sum composed with it), else the sum; *Discard* discards the chosen hand card. The
    engine refuses a wrong move before any of it is recorded."""
    session, env, tap = call.session, call.env, call.tap
    if draft is None:
        draft = drafts.load(session, ctx.game_id, seat.seat, ctx.game.version)
    state = ctx.playing_state()
    if claim and draft.t_code is not None:
        return _play_t(call, ctx, seat, draft)
    if draft.hand is None:
        raise ServiceError(Refusal.PICK_HAND)
    chosen = draft.chosen(len(state.table))
    if claim and not chosen:
        raise ServiceError(Refusal.ILLEGAL, rule="no_table_cards")
    action = Sum(draft.hand, chosen) if claim else Discard(draft.hand)
    result = moves.play(session, env, ctx, seat, action)
    result.ctx, _seat = use_panel(session, env, result.ctx, seat, in_panel(ctx, tap))
    call.ctx = result.ctx
    drafts.clear(session, ctx.game_id)
    presenter_of(result.ctx).report(session, env, result)
    return Answer(board_render.done_popup(call.language))


def _play_t(call: GameKey, ctx: GameContext, seat: SeatInfo, draft: Draft) -> Answer:
    """The chosen [T!] card. A Joker with a sum composed is played with it, in one report (both
    checked first, so a wrong sum plays nothing). Alone, the turn goes on: the popup says what
    happened, a panel or the player's own view shows it, and on the group board a card that
    changed the table brings a new board (the player needs its keys); a Joker does not (the
    popups count with the new target). A practice table's board is redrawn in place, as a panel is."""
    session, env, tap = call.session, call.env, call.tap
    assert draft.t_code is not None
    state = ctx.playing_state()
    chosen = draft.chosen(len(state.table))
    with_sum = bool(draft.joker and draft.hand is not None and chosen)
    if with_sum and draft.hand is not None:
        after_joker, _events = moves.apply_action(state, seat.seat, draft.t_code)
        moves.apply_action(after_joker, seat.seat, Sum(draft.hand, chosen))
    result = moves.play(session, env, ctx, seat, draft.t_code)
    result.ctx, seat = use_panel(session, env, result.ctx, seat, in_panel(ctx, tap))
    drafts.clear(session, ctx.game_id)
    if with_sum and draft.hand is not None:
        after = moves.play(session, env, result.ctx, seat, Sum(draft.hand, chosen))
        after.outcomes = result.outcomes + after.outcomes
        call.ctx = after.ctx
        presenter_of(after.ctx).report(session, env, after)
        return Answer(board_render.done_popup(call.language))
    ctx = call.ctx = result.ctx
    me = ctx.seats[seat.seat]
    kept = Draft(draft.hand, draft.mask)  # the cards chosen keep their places on the table
    drafts.save(session, env, ctx.game_id, me.seat, ctx.game.version, kept)
    if not call.own_view:  # a view is redrawn by its tap; the next board reports the card
        presenter_of(ctx).show_t_played(
            session, env, ctx, me, kept, result.outcomes, tap.private, bool(draft.joker)
        )
    lines = record.report_lines(call.language, ctx, result.outcomes)
    return Answer("\n".join(lines) or board_render.done_popup(call.language))


@dataclass
class LookKey(GameKey):
    """A key that only shows (👀 My hand): nothing to apply twice (bringing its player back from
    away is done by the first), so it is not recorded, and a second delivery shows the popup
    again, where the empty answer to a repeat could reach the person first (two instances)."""

    recorded: ClassVar[bool] = False


@key_service(LookKey)
def hand(call: LookKey, key: cb.Hand) -> Answer:
    """The 👀 My hand popup (read only, apart from bringing an away player back)."""
    ctx, seat = call.checked(key.game_id)
    moves.clear_idle(call.session, ctx, seat)
    return Answer(popups.hand_popup(ctx, seat), alert=True)
