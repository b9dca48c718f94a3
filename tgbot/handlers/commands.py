"""Slash commands. Each works in groups with privacy mode on (`/cmd@botname`)."""

from __future__ import annotations

import time

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Update
from telegram.constants import ChatType

from .. import presenter
from .. import telegram_io as io
from ..i18n import _
from ..render import board as board_render
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
    is_admin,
    is_group,
    log_update,
    personal_language,
    reply_language,
    tg_user,
    thread_of,
)
from .info import send_rules_page


async def _reply(update: Update, text: str, markup: InlineKeyboardMarkup | None = None) -> None:
    chat = update.effective_chat
    if chat is None:
        return
    message = update.effective_message
    thread = message.message_thread_id if message is not None and message.is_topic_message else None
    await io.send(update.get_bot(), chat.id, text, markup, thread)


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
    if (
        payload.startswith("g")
        and payload[1:].isascii()
        and payload[1:].isdigit()
        and len(payload) <= 13  # a game id; longer digits would overflow the database integer
        and await _open_panel(update, context, int(payload[1:]), lang)
    ):
        return
    bot_name = update.get_bot().username
    markup = InlineKeyboardMarkup(
        [
            [
                InlineKeyboardButton(
                    _(lang, "➕ Add to a group"), url=f"https://t.me/{bot_name}?startgroup=tweak"
                )
            ]
        ]
    )
    await _reply(update, _(lang, WELCOME_TEXT, bot_name=bot_name), markup)


async def _open_panel(update: Update, context: Context, game_id: int, lang: str) -> bool:
    deps = deps_of(context)
    user = update.effective_user
    assert user is not None
    async with deps.locks.hold(f"game:{game_id}"):
        with session_scope(deps.db) as session:
            game = session.get(Game, game_id)
            if game is None or game.status not in (PLAYING, PAUSED):
                await _reply(update, _(lang, "That game is not running any more."))
                return True
            ctx = games.load_context(session, game_id, game)
        me = ctx.seat_of(user.id)
        if me is None or ctx.state is None:
            await _reply(update, error_text(lang, ServiceError("not_in_game")))
            return True
        draft = board_render.Draft()
        text = board_render.board_text(lang, ctx, draft, board_render.PRIVATE, me.seat)
        markup = None
        if ctx.state.current == me.seat and game.status == PLAYING:
            markup = board_render.keyboard(
                lang, ctx, draft, board_render.PRIVATE, me.seat, update.get_bot().username
            )
        sent = await io.send(update.get_bot(), user.id, text, markup)
        if markup is not None and sent.message_id is not None:
            with session_scope(deps.db) as session:
                games.set_panel_message(session, game_id, me.seat, sent.message_id)
    return True


async def newgame(update: Update, context: Context) -> None:
    started = time.perf_counter()
    deps = deps_of(context)
    user, chat = update.effective_user, update.effective_chat
    if user is None or chat is None:
        return
    lang = personal_language(deps, update)
    if not is_group(update):
        await _reply(
            update, _(lang, "TWEAK! is played in groups: add me to a group and send /newgame there.")
        )
        return
    thread = thread_of(update)
    async with deps.locks.hold(f"chat:{chat.id}:{thread}"):
        now = deps.clock.now()
        with session_scope(deps.db) as session:
            games.lock_chat(session, chat.id, now)  # another bot instance may be here too
            existing = games.active_game(session, chat.id, thread)
            if existing is not None:
                game_lang = existing.language
                board_id = existing.board_message_id or existing.lobby_message_id
                existing_id = existing.id
            else:
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
            text = _(game_lang, "A game is already running here. Scroll up to its board, or send /board.")
            if board_id is not None:
                await update.get_bot().send_message(
                    chat.id,
                    text,
                    reply_to_message_id=board_id,
                    message_thread_id=thread,
                    allow_sending_without_reply=True,
                )
            else:
                await _reply(update, text)
            log_update(existing_id, "newgame", "exists", started)
            return
        await presenter.show_lobby(deps, update.get_bot(), ctx)
        log_update(ctx.game_id, "newgame", "lobby", started)


async def _game_here(update: Update, context: Context) -> Game | None:
    deps = deps_of(context)
    chat = update.effective_chat
    if chat is None:
        return None
    with session_scope(deps.db) as session:
        return games.active_game(session, chat.id, thread_of(update))


async def cancel(update: Update, context: Context) -> None:
    deps = deps_of(context)
    user, chat = update.effective_user, update.effective_chat
    if user is None or chat is None:
        return
    lang = reply_language(deps, update)
    game = await _game_here(update, context)
    if game is None or game.id is None:
        await _reply(update, _(lang, "There is no game to cancel here."))
        return
    admin = game.creator_id != user.id and await is_admin(context, chat.id, user.id)
    async with deps.locks.hold(f"game:{game.id}"):
        try:
            with session_scope(deps.db) as session:
                cancelled = games.cancel_game(session, game.id, user.id, admin, deps.clock.now())
        except ServiceError as exc:
            await _reply(update, error_text(lang, exc))
            return
    bot = update.get_bot()
    for message_id in (cancelled.lobby_message_id, cancelled.board_message_id):
        if message_id is not None:
            await io.drop_keyboard(bot, chat.id, message_id)
    await _reply(update, _(cancelled.language, "✖️ The game was cancelled."))


async def board(update: Update, context: Context) -> None:
    """Re-post the board (or the lobby) at the bottom of the chat.

    A game held since the bot was removed from the group goes on (services.chat_events).
    """
    deps = deps_of(context)
    lang = reply_language(deps, update)
    game = await _game_here(update, context)
    if game is None or game.id is None:
        await _reply(update, _(lang, "No game here yet. Start one with /newgame."))
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
        old = ctx.game.board_message_id
        if old is not None:
            await io.drop_keyboard(bot, ctx.game.chat_id, old)
        header = [_(presenter.group_language(ctx), "▶️ The game goes on!")] if resumed else None
        await presenter.post_board(deps, bot, ctx, header=header)


async def leave(update: Update, context: Context) -> None:
    deps = deps_of(context)
    user = update.effective_user
    if user is None:
        return
    lang = reply_language(deps, update)
    game = await _game_here(update, context)
    if game is None or game.id is None:
        await _reply(update, _(lang, "There is no game here."))
        return
    bot = update.get_bot()
    async with deps.locks.hold(f"game:{game.id}"):
        now = deps.clock.now()
        try:
            with session_scope(deps.db) as session:
                if game.status == LOBBY:
                    games.lobby_leave(session, game.id, user.id, now)
                    ctx = games.load_context(session, game.id)
                    result = None
                else:
                    previous = game.board_message_id
                    result = games.leave_game(session, game.id, user.id, now, deps.custom_pace)
                    ctx = result.ctx
        except ServiceError as exc:
            await _reply(update, error_text(lang, exc))
            return
        if result is None:
            await presenter.show_lobby(deps, bot, ctx)
            return
        glang = presenter.group_language(ctx)
        me = ctx.seat_of(user.id)
        who = me.name if me else user.first_name
        await _reply(
            update,
            _(
                glang,
                "🚪 {name} left the game: the bot plays their seat from now on (points kept).",
                name=cards_render.name(who),
            ),
        )
        if result.outcomes or result.abandoned:
            await presenter.announce(deps, bot, result, previous)


async def help_command(update: Update, context: Context) -> None:
    deps = deps_of(context)
    lang = personal_language(deps, update)
    if is_group(update):
        chat = update.effective_chat
        assert chat is not None
        from .common import group_language

        lang = group_language(deps, chat.id, lang)
    await _reply(update, _(lang, HELP_TEXT))


async def rules(update: Update, context: Context) -> None:
    deps = deps_of(context)
    lang = personal_language(deps, update)
    if is_group(update):
        chat = update.effective_chat
        assert chat is not None
        from .common import group_language

        lang = group_language(deps, chat.id, lang)
    await send_rules_page(update, lang, 0)
