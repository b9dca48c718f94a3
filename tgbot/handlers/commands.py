"""Slash commands. Each works in groups with privacy mode on (`/cmd@botname`)."""

from __future__ import annotations

import time

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Update
from telegram.constants import ChatType

from .. import presenter
from .. import telegram_io as io
from ..i18n import _
from ..render import cards as cards_render
from ..services import chat_events, games
from ..services.errors import ServiceError
from ..store.db import session_scope
from ..store.models import LOBBY, PAUSED, PLAYING, Game
from ..texts import HELP_TEXT, WELCOME_TEXT
from .common import (
    Context,
    deps_of,
    error_text,
    is_group,
    log_update,
    personal_language,
    reply_language,
    tg_user,
    thread_of,
)
from .info import rules_page
from .replies import admin_rights, answers_service_errors, game_here, reply

GAME_ID_DIGITS = 12  # longer digits would overflow the database integer


async def start(update: Update, context: Context) -> None:
    """Private /start turns on turn panels; /start g<id> opens that game's panel."""
    deps = deps_of(context)
    user, chat = update.effective_user, update.effective_chat
    if user is None or chat is None:
        return
    if chat.type != ChatType.PRIVATE:
        await help_command(update, context)
        return
    with session_scope(deps.db) as session:
        games.upsert_user(session, tg_user(user), deps.clock.now(), can_dm=True)
    lang = personal_language(deps, update)
    payload = context.args[0] if context.args else ""
    digits = payload[1:]
    if payload.startswith("g") and digits.isascii() and digits.isdigit() and len(digits) <= GAME_ID_DIGITS:
        await _open_panel(update, context, int(digits), lang)
        return
    bot_name = update.get_bot().username
    add_to_group = InlineKeyboardButton(
        _(lang, "➕ Add to a group"), url=f"https://t.me/{bot_name}?startgroup=tweak"
    )
    await reply(update, _(lang, WELCOME_TEXT, bot_name=bot_name), InlineKeyboardMarkup([[add_to_group]]))


async def _open_panel(update: Update, context: Context, game_id: int, lang: str) -> None:
    """The private panel of a running game, from the deep link its group board shows."""
    deps = deps_of(context)
    user = update.effective_user
    assert user is not None
    async with deps.locks.hold(f"game:{game_id}"):
        with session_scope(deps.db) as session:
            game = session.get(Game, game_id)
            running = game is not None and game.status in (PLAYING, PAUSED)
            ctx = games.load_context(session, game_id, game) if running else None
        if ctx is None:
            await reply(update, _(lang, "That game is not running any more."))
            return
        me = ctx.seat_of(user.id)
        if me is None or ctx.state is None:
            await reply(update, error_text(lang, ServiceError("not_in_game")))
            return
        my_move = ctx.state.current == me.seat and ctx.game.status == PLAYING
        bot = update.get_bot()
        text, markup = presenter.private_panel(lang, ctx, me.seat, bot.username, keys=my_move)
        sent = await io.send(bot, user.id, text, markup)
        if markup is not None and sent.message_id is not None:
            with session_scope(deps.db) as session:
                games.set_panel_message(session, game_id, me.seat, sent.message_id)


async def newgame(update: Update, context: Context) -> None:
    started = time.perf_counter()
    deps = deps_of(context)
    user, chat = update.effective_user, update.effective_chat
    if user is None or chat is None:
        return
    lang = personal_language(deps, update)
    if not is_group(update):
        await reply(update, _(lang, "TWEAK! is played in groups: add me to a group and send /newgame there."))
        return
    thread = thread_of(update)
    async with deps.locks.hold(f"chat:{chat.id}:{thread}"):
        now = deps.clock.now()
        with session_scope(deps.db) as session:
            games.lock_chat(session, chat.id, now)  # another bot instance may be here too
            existing = games.active_game(session, chat.id, thread)
            if existing is None:
                games.upsert_user(session, tg_user(user), now)
                stored_chat = games.upsert_chat(session, chat.id, chat.title, now)
                if not stored_chat.language:
                    stored_chat.language = lang  # the first game's creator sets the group default
                game = games.create_lobby(
                    session,
                    chat.id,
                    thread,
                    tg_user(user),
                    stored_chat.language,
                    now,
                    deps.default_pace,
                    deps.lobby_ttl_seconds,
                )
                session.flush()
                assert game.id is not None
                ctx = games.load_context(session, game.id, game)
        if existing is not None:
            await _point_at(update, existing)
            log_update(existing.id, "newgame", "exists", started)
            return
        await presenter.show_lobby(deps, update.get_bot(), ctx)
        log_update(ctx.game_id, "newgame", "lobby", started)


async def _point_at(update: Update, game: Game) -> None:
    """Answer a second /newgame as a reply to the running game's board (or lobby), so one tap finds it."""
    text = _(game.language, "A game is already running here. Scroll up to its board, or send /board.")
    board_id = game.board_message_id or game.lobby_message_id
    if board_id is not None:
        sent = await io.send(update.get_bot(), game.chat_id, text, None, game.thread_id, reply_to=board_id)
        if not sent.reply_missing:
            return
    await reply(update, text)


@answers_service_errors
async def cancel(update: Update, context: Context) -> None:
    deps = deps_of(context)
    user, chat = update.effective_user, update.effective_chat
    if user is None or chat is None:
        return
    game = game_here(update, deps)
    if game is None or game.id is None:
        await reply(update, _(reply_language(deps, update), "There is no game to cancel here."))
        return
    admin = await admin_rights(context, game, user.id)
    async with deps.locks.hold(f"game:{game.id}"):
        with session_scope(deps.db) as session:
            cancelled = games.cancel_game(session, game.id, user.id, admin, deps.clock.now())
    bot = update.get_bot()
    for message_id in (cancelled.lobby_message_id, cancelled.board_message_id):
        if message_id is not None:
            await io.drop_keyboard(bot, chat.id, message_id)
    await reply(update, _(cancelled.language, "✖️ The game was cancelled."))


@answers_service_errors
async def board(update: Update, context: Context) -> None:
    """Re-post the board (or the lobby) at the bottom of the chat.

    A game held since the bot was removed from the group goes on (services.chat_events).
    """
    deps = deps_of(context)
    game = game_here(update, deps)
    if game is None or game.id is None:
        await reply(update, _(reply_language(deps, update), "No game here yet. Start one with /newgame."))
        return
    bot = update.get_bot()
    async with deps.locks.hold(f"game:{game.id}"):
        with session_scope(deps.db) as session:
            resumed = chat_events.resume_if_held(session, game.id, deps.clock.now(), deps.custom_pace)
            ctx = games.load_context(session, game.id)
        if ctx.game.status == LOBBY:
            if ctx.game.lobby_message_id is not None:
                await io.drop_keyboard(bot, ctx.game.chat_id, ctx.game.lobby_message_id)
            ctx.game.lobby_message_id = None
            await presenter.show_lobby(deps, bot, ctx)
            return
        header = [_(presenter.group_language(ctx), "▶️ The game goes on!")] if resumed else None
        await presenter.repost_board(deps, bot, ctx, header=header)


@answers_service_errors
async def leave(update: Update, context: Context) -> None:
    deps = deps_of(context)
    user = update.effective_user
    if user is None:
        return
    game = game_here(update, deps)
    if game is None or game.id is None:
        await reply(update, _(reply_language(deps, update), "There is no game here."))
        return
    bot = update.get_bot()
    async with deps.locks.hold(f"game:{game.id}"):
        now = deps.clock.now()
        with session_scope(deps.db) as session:
            # Read again under the lock: the lobby may have started, or a new board been posted.
            current = session.get(Game, game.id)
            previous_board = current.board_message_id if current is not None else None
            if current is not None and current.status == LOBBY:
                games.lobby_leave(session, game.id, user.id, now)
                result = None
                ctx = games.load_context(session, game.id)
            else:
                result = games.leave_game(session, game.id, user.id, now, deps.custom_pace)
                ctx = result.ctx
        if result is None:
            await presenter.show_lobby(deps, bot, ctx)
            return
        me = ctx.seat_of(user.id)
        text = _(
            presenter.group_language(ctx),
            "🚪 {name} left the game: the bot plays their seat from now on (points kept).",
            name=cards_render.name(me.name if me else user.first_name),
        )
        await reply(update, text)
        if result.outcomes or result.abandoned:
            await presenter.announce(deps, bot, result, previous_board)


async def help_command(update: Update, context: Context) -> None:
    await reply(update, _(reply_language(deps_of(context), update), HELP_TEXT))


async def rules(update: Update, context: Context) -> None:
    await reply(update, *rules_page(reply_language(deps_of(context), update), 0))
