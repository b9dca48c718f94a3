"""Every inline key lands here: decode strictly, check against the store, act.

Forged, garbled, stale or other players' taps get a popup and change nothing.
Every callback query is answered exactly once.
"""

from __future__ import annotations

import contextlib
import time

from sqlalchemy.engine import Connection
from sqlmodel import Session
from telegram import CallbackQuery, Update
from telegram.constants import ChatType

from .. import callbacks as cb
from .. import presenter
from .. import telegram_io as io
from ..deps import Deps
from ..i18n import _
from ..render import board as board_render
from ..render import cards as cards_render
from ..services import games, table_control
from ..services.context import GameContext
from ..services.errors import ServiceError
from ..store.db import session_scope
from ..store.models import LOBBY, PAUSED, PLAYING, Game
from .common import Context, deps_of, error_text, is_admin, log_update, personal_language, tg_user
from .info import rules_page
from .table import change_pace_key


async def on_callback(update: Update, context: Context) -> None:
    query = update.callback_query
    if query is None:
        return
    started = time.perf_counter()
    deps = deps_of(context)
    lang = personal_language(deps, update)
    try:
        data = cb.decode(query.data)
    except cb.BadCallback:
        await io.answer(query.get_bot(), query.id, _(lang, "That key is not valid any more."), alert=True)
        log_update(None, "callback", "bad_data", started)
        return
    outcome = "ok"
    try:
        if data.game_id is not None:
            async with deps.locks.hold(f"game:{data.game_id}"):
                await _dispatch(query, data, deps, context, lang)
        else:
            await _dispatch(query, data, deps, context, lang)
    except ServiceError as exc:
        outcome = exc.reason
        await io.answer(query.get_bot(), query.id, error_text(lang, exc), alert=exc.reason in ("illegal",))
        if exc.reason == "stale" and data.game_id is not None:
            await _refresh_surface(query, deps, data.game_id)
    log_update(data.game_id, data.kind, outcome, started)


_PAGE_KEYS = {"rules": "r:", "language": "lg:"}


def _on_own_page(query: CallbackQuery, kind: str) -> bool:
    """A rules or language key only acts on a message made of such keys, never on a board or lobby.

    Those keys edit the message they are on: forged onto a board, they would wipe it out.
    """
    markup = getattr(query.message, "reply_markup", None)
    if markup is None:
        return False
    keys = [b.callback_data for row in markup.inline_keyboard for b in row if b.callback_data is not None]
    return bool(keys) and all(isinstance(k, str) and k.startswith(_PAGE_KEYS[kind]) for k in keys)


async def _dispatch(query: CallbackQuery, data: cb.Callback, deps: Deps, context: Context, lang: str) -> None:
    if data.kind in _PAGE_KEYS and not _on_own_page(query, data.kind):
        raise ServiceError("malformed")
    if data.kind == "rules":
        page_lang = data.value or lang
        text, markup = rules_page(page_lang, int(data.arg))
        if query.message is not None:
            await io.edit(query.get_bot(), query.message.chat.id, query.message.message_id, text, markup)
        await io.answer(query.get_bot(), query.id)
        return
    if data.kind == "language":
        from .language import on_language_key

        await on_language_key(query, data, deps, context)
        return
    if data.kind == "download":
        from .stats import on_download_key

        await on_download_key(query, data, deps, lang)
        return
    assert data.game_id is not None
    if data.kind == "move":
        await _move_key(query, data, deps, lang)  # the checks share the move's transaction
        return
    # One short transaction (no ORM session) for the checks and the game as it is now.
    with deps.db.begin() as conn:
        ctx = _checked(conn, query, data)
    if data.kind in ("lobby", "setting", "add_ai"):
        await _lobby_key(query, data, deps, context, lang)
    elif data.kind == "hand":
        await _hand_key(query, data.game_id, deps, lang, _found(ctx))
    elif data.kind in ("compose", "tmenu"):
        await _compose_key(query, data, deps, lang, _found(ctx))


def _found(ctx: GameContext | None) -> GameContext:
    if ctx is None:
        raise ServiceError("no_game")
    return ctx


def _checked(db: Session | Connection, query: CallbackQuery, data: cb.Callback) -> GameContext | None:
    """The tapped game as it is now (None when it is gone), after the checks every key of a game
    gets: the key's chat, and an away player coming back."""
    assert data.game_id is not None
    ctx = games.load_snapshot(db, data.game_id)
    _check_origin(query, data, ctx)
    if ctx is not None:
        _clear_away(db, ctx, query.from_user.id)
    return ctx


def _check_origin(query: CallbackQuery, data: cb.Callback, ctx: GameContext | None) -> None:
    """A key of a game is only on a message in that game's group, or in a private panel.

    Anyone can forge callback data: a lobby key sent from another chat must not join that lobby.
    """
    message = query.message
    if message is None:
        return
    if message.chat.type == ChatType.PRIVATE:
        if data.kind in ("lobby", "setting", "add_ai"):
            raise ServiceError("malformed")
        return
    if ctx is not None and ctx.game.chat_id != message.chat.id:
        raise ServiceError("malformed")


def _clear_away(db: Session | Connection, ctx: GameContext, user_id: int) -> bool:
    """Any tap in a game brings an away player back; True when that was written."""
    return table_control.come_back_loaded(db, ctx, user_id)


# --- lobby ----------------------------------------------------------------


async def _lobby_key(
    query: CallbackQuery, data: cb.Callback, deps: Deps, context: Context, lang: str
) -> None:
    assert data.game_id is not None
    bot = query.get_bot()
    user = tg_user(query.from_user)
    now = deps.clock.now()
    op = data.op
    settings_screen = False
    toast = ""
    if data.kind == "setting" and data.arg == "p":
        with session_scope(deps.db) as session:
            game = session.get(Game, data.game_id)
            running = game is not None and game.status != LOBBY
            creator = game.creator_id if game else 0
            chat_id = game.chat_id if game else 0
        if running:
            admin = creator != user.id and await is_admin(context, chat_id, user.id)
            toast = await change_pace_key(data.game_id, data.value, user.id, admin, context, lang)
            await io.answer(bot, query.id, toast)
            if query.message is not None:
                await io.drop_keyboard(bot, query.message.chat.id, query.message.message_id)
            return
    if op in ("ls", "lc"):
        with session_scope(deps.db) as session:
            game = session.get(Game, data.game_id)
            if game is None:
                raise ServiceError("no_game")
            chat_id, creator = game.chat_id, game.creator_id
        admin = creator != user.id and await is_admin(context, chat_id, user.id)
    with session_scope(deps.db) as session:
        games.upsert_user(session, user, now)
        if data.kind == "add_ai":
            games.lobby_add_ai(session, data.game_id, data.value, now)
            toast = _(lang, "A computer player joined.")
        elif data.kind == "setting":
            games.lobby_setting(session, data.game_id, data.arg, data.value, now)
            settings_screen = True
        elif op == "lj":
            games.lobby_join(session, data.game_id, user, now)
            toast = _(lang, "You're in!")
        elif op == "ll":
            games.lobby_leave(session, data.game_id, user.id, now)
            toast = _(lang, "You left the lobby.")
        elif op in ("lo", "lb"):
            game = session.get(Game, data.game_id)
            if game is None or game.status != LOBBY:
                raise ServiceError("not_lobby")
            settings_screen = op == "lo"
        elif op == "ls":
            ctx = games.start_game(
                session, data.game_id, user.id, admin, now, deps.seed_source(), deps.custom_pace
            )
        elif op == "lc":
            games.cancel_game(session, data.game_id, user.id, admin, now)
        ctx = games.load_context(session, data.game_id)
    await io.answer(bot, query.id, toast)
    if op == "ls":
        if ctx.game.lobby_message_id is not None:
            glang = presenter.group_language(ctx)
            names = ", ".join(cards_render.name(s.name) for s in ctx.seats)
            await io.edit(
                bot,
                ctx.game.chat_id,
                ctx.game.lobby_message_id,
                _(glang, "🃏 <b>TWEAK!</b> has started: {names}", names=names),
                None,
            )
        await presenter.post_board(deps, bot, ctx)
        if ctx.current is not None and ctx.current.autoplayed:
            await _run_autoplay(deps, bot, ctx)
        return
    if op == "lc":
        glang = presenter.group_language(ctx)
        if ctx.game.lobby_message_id is not None:
            await io.edit(
                bot, ctx.game.chat_id, ctx.game.lobby_message_id, _(glang, "✖️ The game was cancelled."), None
            )
        return
    await presenter.show_lobby(deps, bot, ctx, settings_screen=settings_screen)


async def _run_autoplay(deps: Deps, bot: object, ctx: GameContext) -> None:
    """A computer seat may move first: let it play right after the board appears."""
    from telegram import Bot

    assert isinstance(bot, Bot)
    with session_scope(deps.db) as session:
        result = games.run_autoplay(session, ctx.game_id, deps.clock.now(), deps.custom_pace)
    if result.outcomes:
        await presenter.announce(deps, bot, result, ctx.game.board_message_id)


# --- in game --------------------------------------------------------------


def _load(deps: Deps, game_id: int) -> GameContext:
    with deps.db.begin() as conn:
        return _found(games.load_snapshot(conn, game_id))


async def _hand_key(
    query: CallbackQuery, game_id: int, deps: Deps, lang: str, ctx: GameContext | None = None
) -> None:
    ctx = ctx or _load(deps, game_id)
    me = ctx.seat_of(query.from_user.id)
    if me is None:
        raise ServiceError("not_in_game")
    if ctx.state is None or ctx.game.status not in (PLAYING, PAUSED):
        raise ServiceError("not_playing")
    await io.answer(query.get_bot(), query.id, board_render.hand_popup(lang, ctx, me.seat), alert=True)


def _surface(query: CallbackQuery) -> str:
    message = query.message
    if message is not None and message.chat.type == ChatType.PRIVATE:
        return board_render.PRIVATE
    return board_render.GROUP


def _check_turn(ctx: GameContext, user_id: int, version: int | None) -> int:
    if ctx.state is None or ctx.game.status == LOBBY:
        raise ServiceError("not_playing")
    me = ctx.seat_of(user_id)
    if me is None:
        raise ServiceError("not_in_game")
    if ctx.game.status == PAUSED:
        raise ServiceError("paused")
    if ctx.game.status != PLAYING:
        raise ServiceError("not_playing")
    if version != ctx.game.version:
        raise ServiceError("stale")
    if ctx.state.current != me.seat:
        raise ServiceError("not_your_turn", name=ctx.seats[ctx.state.current].name)
    return me.seat


async def _compose_key(
    query: CallbackQuery, data: cb.Callback, deps: Deps, lang: str, ctx: GameContext | None = None
) -> None:
    assert data.game_id is not None
    ctx = ctx or _load(deps, data.game_id)
    seat = _check_turn(ctx, query.from_user.id, data.version)
    assert ctx.state is not None
    if data.kind == "tmenu":
        draft: board_render.Draft | None = board_render.Draft(menu=data.arg)
        if data.arg != "any" and data.arg not in ctx.state.holdings[seat]:
            raise ServiceError("illegal", rule="t_not_held")
        if ctx.state.t_played is not None:
            raise ServiceError("illegal", rule="one_t_per_turn")
    else:
        draft = board_render.sanitize(board_render.Draft(data.hand, data.mask), ctx.state, seat)
    if draft is None:
        raise ServiceError("malformed")
    surface = _surface(query)
    view_lang = lang if surface == board_render.PRIVATE else presenter.group_language(ctx)
    hint = board_render.sum_hint(lang, ctx.state, seat, draft) if not draft.menu else ""
    await io.answer(query.get_bot(), query.id, hint)
    message = query.message
    if message is None:
        return
    text = board_render.board_text(
        view_lang, ctx, draft, surface, seat if surface == board_render.PRIVATE else None
    )
    markup = board_render.keyboard(
        view_lang,
        ctx,
        draft,
        surface,
        seat if surface == board_render.PRIVATE else None,
        query.get_bot().username,
    )
    if not await io.edit(query.get_bot(), message.chat.id, message.message_id, text, markup):
        # Deleted by an admin, or no longer editable: a fresh board (or panel) instead of an error.
        if surface == board_render.GROUP:
            await presenter.refresh_group_board(deps, query.get_bot(), ctx)
        else:
            await presenter.send_panel(deps, query.get_bot(), ctx)


async def _move_key(query: CallbackQuery, data: cb.Callback, deps: Deps, lang: str) -> None:
    assert data.game_id is not None and data.version is not None
    bot = query.get_bot()
    surface = _surface(query)
    user_id = query.from_user.id
    refused: ServiceError | None = None
    idle = False  # the tapper had missed turns or was away, and is not back yet
    try:
        # One transaction: the checks, the move (compare-and-set) and the computers' replies.
        with session_scope(deps.db) as session:
            found = games.load_snapshot(session, data.game_id)
            _check_origin(query, data, found)
            me = found.seat_of(user_id) if found is not None else None
            idle = me is not None and bool(me.away or me.timeouts)
            ctx = _found(found)
            previous_board = ctx.game.board_message_id
            try:
                outcome = games.check_play(ctx, data.version, user_id, data.arg)
            except ServiceError as exc:
                refused = exc  # nothing to play; any tap still brings the player back
                _clear_away(session, ctx, user_id)
                idle = False
            else:
                # Writes the game row, then brings the player back (the sweep's lock order).
                result = games.write_play(session, ctx, outcome, deps.clock.now(), deps.custom_pace)
    except Exception:
        if idle:
            # The move failed as it was written (e.g. another instance moved first) and took
            # the whole transaction with it: the tap still brings the player back.
            with contextlib.suppress(Exception), session_scope(deps.db) as session:
                table_control.come_back(session, data.game_id, user_id)
        raise
    if refused is not None:
        raise refused
    await io.answer(bot, query.id, _(lang, "Done!"))
    turn_over = any(o.main for o in result.outcomes)
    if not turn_over and surface == board_render.PRIVATE and query.message is not None:
        # A [T!] card from the private panel: redraw the panel with its effect.
        ctx = result.ctx
        me = ctx.seat_of(query.from_user.id)
        assert me is not None
        draft = board_render.Draft()
        text = board_render.board_text(lang, ctx, draft, surface, me.seat)
        markup = board_render.keyboard(lang, ctx, draft, surface, me.seat, bot.username)
        await io.edit(bot, query.message.chat.id, query.message.message_id, text, markup)
    await presenter.announce(deps, bot, result, previous_board)


async def _refresh_surface(query: CallbackQuery, deps: Deps, game_id: int) -> None:
    """After a stale tap, redraw the tapped board or panel from the current state."""
    message = query.message
    if message is None:
        return
    ctx = _load(deps, game_id)
    if ctx.state is None or ctx.game.status != PLAYING or ctx.state.is_over:
        return
    bot = query.get_bot()
    if _surface(query) == board_render.GROUP:
        if message.message_id == ctx.game.board_message_id:
            await presenter.refresh_group_board(deps, bot, ctx)
        return
    me = ctx.seat_of(query.from_user.id)
    if me is None:
        return
    lang = me.language
    draft = board_render.Draft()
    text = board_render.board_text(lang, ctx, draft, board_render.PRIVATE, me.seat)
    markup = (
        board_render.keyboard(lang, ctx, draft, board_render.PRIVATE, me.seat, bot.username)
        if ctx.state.current == me.seat
        else None
    )
    await io.edit(bot, message.chat.id, message.message_id, text, markup)
