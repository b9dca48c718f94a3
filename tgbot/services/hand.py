"""🃏 My cards in a group: a person's own view of the game, an ephemeral message only they see
(issue 61), and the keys on it.

The services decide and save exactly as the board's keys do (`services.play`: the same checks,
the same draft on the server, the same move path, one board a turn in the group), then answer
with what the tapper's view shows now (`ViewAnswer.view`). Services never call Telegram: the
handler shows the view (sends it in answer to the tap, edits the view tapped, or deletes it once
the move is played) before it answers the tap, since Telegram lets a bot answer a tap
ephemerally within 15 seconds of it. Delivery of an ephemeral message is not guaranteed, so the
answer's text (the toast) always carries the person's cards, and `fallback` is the popup for when
the view cannot be shown at all (an old Bot API server, a chat that refuses them, a view that
expired or vanished with an app restart).

A view's keys carry the seat they were drawn for and the game's version: a key of another seat's
view (forged) or of an earlier turn is refused, and the draft and the game stay as they are.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import ClassVar

from sqlmodel import Session

from engine import seat_view
from engine.actions import PlayJoker, Sum, encode

from .. import callbacks as cb
from ..errors import Refusal, ServiceError
from ..render import hand_view
from ..render.board import Draft
from ..render.keys import Keyboard
from ..store import once, once_keys
from . import drafts, moves, play, popups
from .call import Answer, KeyCall, key_service
from .context import GameContext, SeatInfo
from .env import Env
from .table_view import table_of


@dataclass(frozen=True)
class EphemeralView:
    """What the tapper's own view is to show: `text` (HTML) and `keys`; `opens`: the tap may
    bring a new view (🃏 My cards), where a compose key only edits the view it is on; `close`:
    the move was played, the view the tap came from goes."""

    text: str = ""
    keys: Keyboard = field(default_factory=list)
    opens: bool = False
    close: bool = False


@dataclass(frozen=True)
class ViewAnswer(Answer):
    """A tap's answer with the view to show first; `fallback`: the answer instead when it cannot
    be shown (today's popups)."""

    view: EphemeralView | None = None
    fallback: Answer | None = None


@dataclass
class ViewKey(play.GameKey):
    """A key of a person's own view. It is on an ephemeral message (no message id in the group),
    so a refusal takes no keys off any board; it still brings its player back from away. A [T!]
    card played on it is shown by the view redrawn, as a panel shows it: the group gets no
    board in the middle of the turn (one message a turn), the next board reports the card."""

    own_view: ClassVar[bool] = True

    def refused(self, error: ServiceError) -> Answer:
        if self.ctx is not None and self.seat is not None:
            moves.clear_idle(self.session, self.ctx, self.seat)
        return KeyCall.refused(self, error)


@dataclass
class LookView(ViewKey):
    """🃏 My cards only shows: as 👀 My hand, not recorded (`play.LookKey`), so a second delivery
    of the tap answers with the cards again. It opens a view once, though: Telegram delivers a
    tap again (a webhook retried, maybe to another instance while the first is still at work),
    and each delivery's view would be one more before the person."""

    recorded: ClassVar[bool] = False

    def opens_first(self) -> bool:
        """Whether this delivery of the tap is the first to open a view (recorded, as a move's
        tap is: on PostgreSQL a second instance waits for the first's transaction, then finds it)."""
        update_id = self.origin.update_id
        if update_id is None:
            return True
        return once.first_time(self.session, once_keys.update(update_id, "my_cards"), self.env.now)


@key_service(LookView)
def my_cards(call: LookView, key: cb.MyCards) -> Answer:
    """The tapper's own view of the live game (from any board of it, however old)."""
    ctx, seat = call.checked(key.game_id)
    ctx = moves.clear_idle(call.session, ctx, seat)
    popup = Answer(popups.hand_popup(ctx, seat), alert=True, game_id=ctx.game_id)
    if not call.opens_first():
        return popup  # its view is (being) shown by the first delivery: the cards, no second view
    return _shown(call, ctx, seat, popup, opens=True)


def _shown(
    call: ViewKey, ctx: GameContext, seat: SeatInfo, fallback: Answer, note: str = "", opens: bool = False
) -> ViewAnswer:
    """The seat's view as the game and its draft are now, the toast with `note` and the cards."""
    view = own_view(call.session, call.env, call.language, ctx, seat, opens)
    v = seat_view(ctx.playing_state(), seat.seat)
    return ViewAnswer(
        hand_view.toast(call.language, v, note), view=view, fallback=fallback, game_id=ctx.game_id
    )


def own_view(
    session: Session, env: Env, lang: str, ctx: GameContext, seat: SeatInfo, opens: bool = False
) -> EphemeralView:
    """The seat's view as the game, its draft and the values it typed are now."""
    state = ctx.playing_state()
    v = seat_view(state, seat.seat)
    composing = hand_view.Composing()
    if state.current == seat.seat:
        gid, version = ctx.game_id, ctx.game.version
        draft = drafts.load(session, gid, seat.seat, version)
        composing = hand_view.Composing(draft, drafts.load_typed(session, gid, seat.seat, version))
    shown = hand_view.hand_view(lang, v, table_of(ctx, env, seat.seat), composing)
    return EphemeralView(shown.text, shown.keys, opens=opens)


def _own_turn(call: ViewKey, key: cb.CardsKey) -> tuple[GameContext, SeatInfo]:
    """The board's checks, and first this one: the view the key is on was the tapper's."""
    ctx, seat = call.checked(key.game_id)
    if key.seat != seat.seat:
        raise ServiceError(Refusal.MALFORMED)
    return play.on_turn(call, ctx, seat, key.version)


def _composed(call: ViewKey, ctx: GameContext, seat: SeatInfo, draft: Draft) -> Answer:
    hint = popups.sum_hint(ctx, seat, draft)
    return _shown(call, ctx, seat, Answer(hint, game_id=ctx.game_id), note=hint)


@key_service(ViewKey)
def pick_hand(call: ViewKey, key: cb.CardsPickHand) -> Answer:
    ctx, seat = _own_turn(call, key)
    return _composed(call, ctx, seat, play.toggle_hand(call, ctx, seat, key.index))


@key_service(ViewKey)
def pick_table(call: ViewKey, key: cb.CardsPickTable) -> Answer:
    ctx, seat = _own_turn(call, key)
    return _composed(call, ctx, seat, play.toggle_table(call, ctx, seat, key.index))


@key_service(ViewKey)
def clear(call: ViewKey, key: cb.CardsClear) -> Answer:
    """The draft and the values typed go: the view invites a sum again."""
    ctx, seat = _own_turn(call, key)
    drafts.forget_typed(call.session, ctx.game_id, seat.seat)
    return _composed(call, ctx, seat, play.edit_draft(call, ctx, seat, lambda _d: Draft()))


@key_service(ViewKey)
def choose_t(call: ViewKey, key: cb.CardsChooseT) -> Answer:
    """That [T!] play is the draft's (tapped again: none is); *Claim* plays it."""
    ctx, seat = _own_turn(call, key)
    if key.play not in play.t_options(ctx, seat, None):
        raise ServiceError(Refusal.ILLEGAL, rule="t_not_held")
    draft = play.edit_draft(
        call, ctx, seat, lambda d: replace(d, t_code=None if d.t_code == key.play else key.play)
    )
    return _composed(call, ctx, seat, draft)


@key_service(ViewKey)
def claim(call: ViewKey, key: cb.CardsClaim) -> Answer:
    ctx, seat = _own_turn(call, key)
    return _played(call, seat, play.play_draft(call, ctx, seat, claim=True))


@key_service(ViewKey)
def discard(call: ViewKey, key: cb.CardsDiscard) -> Answer:
    ctx, seat = _own_turn(call, key)
    return _played(call, seat, play.play_draft(call, ctx, seat, claim=False))


@key_service(ViewKey)
def play_sum(call: ViewKey, key: cb.CardsPlay) -> Answer:
    """A sum the view offered (a Joker first when it needs one), played as the draft it is."""
    ctx, seat = _own_turn(call, key)
    match key.moves:
        case (Sum() as made,):
            joker = None
        case (PlayJoker() as first, Sum() as made):
            joker = encode(first)
        case _:
            raise ServiceError(Refusal.MALFORMED)
    draft = Draft(made.hand, sum(1 << p for p in made.table), joker)
    return _played(call, seat, play.play_draft(call, ctx, seat, claim=True, draft=draft))


def _played(call: ViewKey, seat: SeatInfo, done: Answer) -> Answer:
    """After a move: a [T!] card leaves the turn to its player, whose view follows it; else the
    view closes (the next board goes to the group as ever). The toast still carries the cards."""
    ctx = call.ctx
    assert ctx is not None
    state = ctx.playing_state()
    if state.is_over:
        return ViewAnswer(done.text, view=EphemeralView(close=True), fallback=done, game_id=ctx.game_id)
    me = ctx.seats[seat.seat]
    if state.current == seat.seat:
        return _shown(call, ctx, me, done, note=done.text)
    v = seat_view(state, seat.seat)
    toast = hand_view.toast(call.language, v, done.text)
    return ViewAnswer(toast, view=EphemeralView(close=True), fallback=done, game_id=ctx.game_id)
