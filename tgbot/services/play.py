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
from dataclasses import dataclass, replace

from sqlalchemy import update
from sqlmodel import Session, col

from engine.actions import Discard, Sum

from ..errors import ServiceError
from ..i18n import _
from ..render.board import Draft
from ..render.refusals import refusal
from ..store import outbox
from ..store.models import PAUSED, PLAYING, GamePlayer, SeenTap
from ..store.outbox import Priority
from . import drafts, moves, output, people
from .context import GameContext, SeatInfo, load_game, require_game
from .env import Env
from .people import Person


@dataclass(frozen=True)
class Tap:
    """A key press, as the services need it."""

    person: Person
    chat_id: int | None  # the chat of the message the key is on
    message_id: int | None
    private: bool  # the key is on a message in a private chat
    thread_id: int | None = None  # the forum topic of that message
    query_id: str = ""  # Telegram's id of this tap (the same if the update is delivered twice)


@dataclass(frozen=True)
class Answer:
    """The popup for the tapper."""

    text: str = ""
    alert: bool = False
    #: Refused for want of rights the tapper may have as a group admin: the handler asks
    #: Telegram (one getChatMember, only then) and tries again.
    need_admin: bool = False


def answer_refusal(lang: str, error: ServiceError) -> Answer:
    return Answer(refusal(lang, error), alert=error.reason == "illegal")


def first_time(session: Session, env: Env, tap: Tap) -> bool:
    """Record this tap; False when it was recorded before (a duplicate delivery)."""
    if not tap.query_id:
        return True  # nothing to tell it by
    if session.get(SeenTap, tap.query_id[:64]) is not None:
        return False
    session.add(SeenTap(query_id=tap.query_id[:64], seen_at=env.now))
    session.flush()
    return True


def _checked(session: Session, tap: Tap, game_id: int) -> tuple[GameContext, SeatInfo]:
    """The game, locked, and the tapper's seat, after the checks every game key gets."""
    ctx = require_game(session, game_id, lock=True)
    if tap.chat_id is not None and not tap.private and ctx.game.chat_id != tap.chat_id:
        raise ServiceError("malformed")  # a forged key from another chat
    seat = ctx.seat_of(tap.person.id)
    if seat is None:
        raise ServiceError("not_in_game")
    if ctx.state is None or ctx.game.status not in (PLAYING, PAUSED):
        raise ServiceError("not_playing")
    return ctx, seat


def _turn(ctx: GameContext, seat: SeatInfo, version: int) -> None:
    if ctx.game.status == PAUSED:
        raise ServiceError("paused")
    if version != ctx.game.version:
        raise ServiceError("stale")
    state = ctx.playing_state()
    if state.current != seat.seat:
        raise ServiceError("not_your_turn", name=ctx.seats[state.current].name)


def _refused(session: Session, env: Env, tap: Tap, game_id: int, error: ServiceError, lang: str) -> Answer:
    """What a refused tap still does: brings its player back, takes keys off a dead message."""
    ctx = load_game(session, game_id)
    if ctx is not None:
        seat = ctx.seat_of(tap.person.id)
        if seat is not None:
            moves.clear_idle(session, ctx, seat)
        if error.reason == "stale" and tap.chat_id is not None and tap.message_id is not None:
            _drop_dead_keys(session, env, ctx, tap)
    return answer_refusal(lang, error)


def _drop_dead_keys(session: Session, env: Env, ctx: GameContext, tap: Tap) -> None:
    """A tap on an old board or panel: that message loses its keys (the live one keeps its own)."""
    assert tap.chat_id is not None and tap.message_id is not None
    live = set()
    board = outbox.shown_message(session, tap.chat_id, output.board_surface(ctx.game))
    if board is not None:
        live.add(board.message_id)
    for seat in ctx.seats:
        panel = outbox.shown_message(session, tap.chat_id, output.panel_surface(ctx.game_id, seat.seat))
        if panel is not None:
            live.add(panel.message_id)
    if tap.message_id not in live:
        output.drop_keys(session, env, tap.chat_id, tap.message_id)


def _guarded(session: Session, env: Env, tap: Tap, game_id: int, act: Callable[[str], Answer]) -> Answer:
    """Run `act` in a savepoint: a refusal undoes its writes but keeps the refusal's own."""
    lang = people.language_of(session, tap.person.id, tap.person.language_code)
    try:
        with session.begin_nested():
            return act(lang)
    except ServiceError as error:
        return _refused(session, env, tap, game_id, error, lang)


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
    session.execute(
        update(GamePlayer)
        .where(col(GamePlayer.game_id) == ctx.game_id, col(GamePlayer.seat) == seat.seat)
        .values(panel=private)
    )
    if not private:
        output.retire_panel(session, env, ctx, seat)
    seat = replace(seat, panel=private)
    return ctx.with_seat(seat), seat


def _show_draft(
    session: Session, env: Env, ctx: GameContext, seat: SeatInfo, draft: Draft, private: bool
) -> None:
    if private:
        output.show_panel(session, env, ctx, seat, draft, Priority.PREVIEW)
    else:
        output.refresh_board(session, env, ctx, draft, _turn_header(session, ctx))


def _turn_header(session: Session, ctx: GameContext) -> list[str] | None:
    """A [T!] card played earlier this turn stays on the board while the move is composed."""
    earlier = moves.earlier_in_turn(session, ctx)
    return output.report_lines(ctx.language, ctx, earlier) if earlier else None


def compose(
    session: Session, env: Env, tap: Tap, game_id: int, version: int, op: str, index: int | None
) -> Answer:
    """One compose key: change the draft as it is now, or play it (claim, discard)."""

    def act(lang: str) -> Answer:
        ctx, seat = _checked(session, tap, game_id)
        ctx = moves.clear_idle(session, ctx, seat)
        _turn(ctx, seat, version)
        if op in ("h", "t") and not first_time(session, env, tap):
            return Answer()  # the same tap delivered again: it was applied already
        ctx, seat = use_panel(session, env, ctx, seat, tap.private)
        state = ctx.playing_state()
        draft = drafts.load(session, game_id, seat.seat, version)
        if op in ("c", "d"):
            return _play_draft(session, env, ctx, seat, draft, op, lang)
        if op == "h":
            if index is None or index >= len(state.hands[seat.seat]):
                raise ServiceError("illegal", rule="bad_hand_index")
            draft = replace(draft, hand=None if draft.hand == index else index, menu=None)
        elif op == "t":
            if index is None or index >= len(state.table):
                raise ServiceError("illegal", rule="bad_table_index")
            draft = replace(draft, mask=draft.mask ^ (1 << index), menu=None)
        elif op == "x":
            draft = Draft()
        else:  # "b": back from a [T!] menu, the selection kept
            draft = replace(draft, menu=None)
        drafts.save(session, env, game_id, seat.seat, version, draft)
        _show_draft(session, env, ctx, seat, draft, tap.private)
        return Answer(output.sum_hint(ctx, seat, draft))

    return _guarded(session, env, tap, game_id, act)


def _play_draft(
    session: Session, env: Env, ctx: GameContext, seat: SeatInfo, draft: Draft, op: str, lang: str
) -> Answer:
    state = ctx.playing_state()
    if draft.hand is None:
        raise ServiceError("pick_hand")
    chosen = draft.chosen(len(state.table))
    if op == "c" and not chosen:
        raise ServiceError("illegal", rule="no_table_cards")
    action = Sum(draft.hand, chosen) if op == "c" else Discard(draft.hand)
    result = moves.play(session, env, ctx, seat, action)
    drafts.clear(session, ctx.game_id)
    output.report(session, env, result)
    return Answer(_(lang, "Done!"))


def open_t_menu(session: Session, env: Env, tap: Tap, game_id: int, version: int, kind: str) -> Answer:
    def act(lang: str) -> Answer:
        ctx, seat = _checked(session, tap, game_id)
        ctx = moves.clear_idle(session, ctx, seat)
        _turn(ctx, seat, version)
        state = ctx.playing_state()
        if state.t_played is not None:
            raise ServiceError("illegal", rule="one_t_per_turn")
        if kind != "any" and kind not in state.holdings[seat.seat]:
            raise ServiceError("illegal", rule="t_not_held")
        if not state.hands[seat.seat]:
            raise ServiceError("illegal", rule="empty_hand")
        ctx, seat = use_panel(session, env, ctx, seat, tap.private)
        draft = replace(drafts.load(session, game_id, seat.seat, version), menu=kind)
        drafts.save(session, env, game_id, seat.seat, version, draft)
        _show_draft(session, env, ctx, seat, draft, tap.private)
        return Answer()

    return _guarded(session, env, tap, game_id, act)


def play_t(session: Session, env: Env, tap: Tap, game_id: int, version: int, code: str) -> Answer:
    """A [T!] card from its menu; the turn goes on (the board shows its effect)."""

    def act(lang: str) -> Answer:
        ctx, seat = _checked(session, tap, game_id)
        ctx = moves.clear_idle(session, ctx, seat)
        _turn(ctx, seat, version)
        ctx, seat = use_panel(session, env, ctx, seat, tap.private)
        result = moves.play(session, env, ctx, seat, code)
        drafts.clear(session, game_id)
        output.report(session, env, result)
        if tap.private and not result.turn_over:
            me = result.ctx.seat_of(tap.person.id)
            if me is not None:
                output.show_panel(session, env, result.ctx, me, priority=Priority.TURN)
        return Answer(_(lang, "Done!"))

    return _guarded(session, env, tap, game_id, act)


def hand(session: Session, env: Env, tap: Tap, game_id: int) -> Answer:
    """The 👀 My hand popup (read only, apart from bringing an away player back)."""

    def act(lang: str) -> Answer:
        ctx, seat = _checked(session, tap, game_id)
        moves.clear_idle(session, ctx, seat)
        return Answer(output.hand_popup(ctx, seat), alert=True)

    return _guarded(session, env, tap, game_id, act)
