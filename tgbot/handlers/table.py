"""/pause, /resume, /back, /quiet and /settings: keeping an async table moving."""

from __future__ import annotations

from datetime import timedelta

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Update

from .. import callbacks as cb
from .. import presenter
from .. import telegram_io as io
from ..i18n import _, _n
from ..render import cards as cards_render
from ..services import games, pacing, table_control
from ..services.errors import ServiceError
from ..store.db import session_scope
from ..store.models import LOBBY, Game
from .common import (
    Context,
    deps_of,
    error_text,
    group_language,
    is_admin,
    is_group,
    personal_language,
    reply_language,
    thread_of,
)


async def _reply(update: Update, text: str, markup: InlineKeyboardMarkup | None = None) -> None:
    chat = update.effective_chat
    if chat is not None:
        await io.send(update.get_bot(), chat.id, text, markup, thread_of(update))


def _game_here(update: Update, context: Context) -> Game | None:
    chat = update.effective_chat
    if chat is None:
        return None
    with session_scope(deps_of(context).db) as session:
        return games.active_game(session, chat.id, thread_of(update))


async def _manager(update: Update, context: Context, game: Game) -> bool:
    user = update.effective_user
    assert user is not None
    return game.creator_id != user.id and await is_admin(context, game.chat_id, user.id)


async def pause_command(update: Update, context: Context) -> None:
    deps = deps_of(context)
    lang = reply_language(deps, update)
    user = update.effective_user
    game = _game_here(update, context)
    if game is None or game.id is None or user is None:
        await _reply(update, _(lang, "There is no game here."))
        return
    admin = await _manager(update, context, game)
    async with deps.locks.hold(f"game:{game.id}"):
        try:
            with session_scope(deps.db) as session:
                paused = table_control.pause(
                    session,
                    game.id,
                    user.id,
                    admin,
                    deps.clock.now(),
                    timedelta(seconds=deps.pause_max_seconds),
                )
        except ServiceError as exc:
            await _reply(update, error_text(lang, exc))
            return
    glang = paused.language
    days = max(1, round(deps.pause_max_seconds / 86400))
    await _reply(
        update,
        _n(
            glang,
            "⏸ Game paused: no reminders and no deadlines. Send /resume to go on; the pause ends "
            "by itself in {n} day.",
            "⏸ Game paused: no reminders and no deadlines. Send /resume to go on; the pause ends "
            "by itself in {n} days.",
            days,
        ),
    )


async def resume_command(update: Update, context: Context) -> None:
    deps = deps_of(context)
    lang = reply_language(deps, update)
    user = update.effective_user
    game = _game_here(update, context)
    if game is None or game.id is None or user is None:
        await _reply(update, _(lang, "There is no game here."))
        return
    admin = await _manager(update, context, game)
    bot = update.get_bot()
    async with deps.locks.hold(f"game:{game.id}"):
        try:
            with session_scope(deps.db) as session:
                table_control.resume(session, game.id, user.id, admin, deps.clock.now(), deps.custom_pace)
                ctx = games.load_context(session, game.id)
        except ServiceError as exc:
            await _reply(update, error_text(lang, exc))
            return
        await _reply(update, _(presenter.group_language(ctx), "▶️ The game goes on!"))
        if ctx.game.board_message_id is not None:
            await io.drop_keyboard(bot, ctx.game.chat_id, ctx.game.board_message_id)
        await presenter.post_board(deps, bot, ctx)


async def back_command(update: Update, context: Context) -> None:
    """Come back from being away: in the group of the game, or in private for every game."""
    deps = deps_of(context)
    lang = reply_language(deps, update)
    user = update.effective_user
    if user is not None and not is_group(update):
        with session_scope(deps.db) as session:
            back = table_control.come_back_everywhere(session, user.id)
        if not back:
            await _reply(update, _(lang, "You were not away."))
            return
        await _reply(update, _(lang, "👋 Welcome back! Your turns wait for you again."))
        for returned in back:
            await io.send(
                update.get_bot(),
                returned.chat_id,
                _(returned.language, "👋 {name} is back.", name=cards_render.name(user.first_name)),
                None,
                returned.thread_id,
            )
        return
    game = _game_here(update, context)
    if game is None or game.id is None or user is None:
        await _reply(update, _(lang, "There is no game here."))
        return
    async with deps.locks.hold(f"game:{game.id}"):
        try:
            with session_scope(deps.db) as session:
                was_away = table_control.come_back(session, game.id, user.id)
        except ServiceError as exc:
            await _reply(update, error_text(lang, exc))
            return
    if was_away:
        await _reply(update, _(game.language, "👋 Welcome back! Your turns wait for you again."))
    else:
        await _reply(update, _(lang, "You were not away."))


async def quiet_command(update: Update, context: Context) -> None:
    """/quiet 23-08 +7 sets quiet hours (local time and UTC offset); /quiet off clears them."""
    deps = deps_of(context)
    chat = update.effective_chat
    if chat is None:
        return
    lang = group_language(deps, chat.id, personal_language(deps, update))
    if not is_group(update):
        await _reply(update, _(lang, "Quiet hours are set in a group."))
        return
    arg = " ".join(context.args or []).strip()
    if not arg:
        await _reply(
            update,
            _(lang, "Usage: /quiet 23-08 +7 (hours in local time, then the UTC offset), or /quiet off."),
        )
        return
    if arg.lower() == "off":
        hours = None
    else:
        hours = table_control.parse_quiet(arg)
        if hours is None:
            await _reply(update, _(lang, "I could not read that. Example: /quiet 23-08 +7"))
            return
    with session_scope(deps.db) as session:
        table_control.set_quiet(session, chat.id, hours, deps.clock.now(), deps.custom_pace)
    if hours is None:
        await _reply(update, _(lang, "🔔 Quiet hours are off."))
    else:
        start, end, offset = hours
        sign = "+" if offset >= 0 else "-"
        utc = f"UTC{sign}{abs(offset) // 60}" + (f":{abs(offset) % 60:02d}" if offset % 60 else "")
        await _reply(
            update,
            _(
                lang,
                "🌙 Quiet hours: {start:02d}:00–{end:02d}:00 ({utc}). "
                "Reminders wait until they end, and deadlines move to their end.",
                start=start,
                end=end,
                utc=utc,
            ),
        )


def pace_keyboard(
    lang: str, game_id: int, current: str, custom: pacing.Pace | None = None
) -> InlineKeyboardMarkup:
    keys = [
        InlineKeyboardButton(
            ("✅ " if key == current else "") + pacing.pace_label(lang, key, custom),
            callback_data=cb.setting(game_id, "p", key),
        )
        for key in pacing.pace_keys(custom)
    ]
    return InlineKeyboardMarkup([keys[:3], keys[3:]])


async def settings_command(update: Update, context: Context) -> None:
    """In a running game: the pace (the creator or an admin may change it)."""
    deps = deps_of(context)
    lang = reply_language(deps, update)
    game = _game_here(update, context)
    if game is None or game.id is None:
        await _reply(update, _(lang, "There is no game here. Settings are in the lobby of /newgame."))
        return
    if game.status == LOBBY:
        await _reply(update, _(lang, "Use the ⚙️ Settings key of the lobby."))
        return
    from ..services.settings import GameSettings

    settings = GameSettings.from_json(game.settings)
    glang = game.language
    custom = deps.custom_pace
    lines = [
        _(glang, "⚙️ Pace of this game: {pace}", pace=pacing.pace_label(glang, settings.pace, custom)),
        _(
            glang,
            "live: reminder 1 min, auto-play 3 min · quick: 10 min / 1 h · casual: 2 h / 12 h · "
            "slow: 12 h / 48 h · relaxed: a reminder a day, no auto-play",
        ),
    ]
    if custom is not None:
        lines.append(
            _(
                glang,
                "custom: reminder {nudge}, auto-play {deadline}",
                nudge=pacing.format_duration(custom.nudge, glang),
                deadline=pacing.format_duration(custom.deadline, glang) if custom.deadline else "—",
            )
        )
    lines.append(_(glang, "The creator or a group admin can change it; the turn clock starts again."))
    await _reply(update, "\n".join(lines), pace_keyboard(glang, game.id, settings.pace, custom))


async def change_pace_key(
    game_id: int, pace: str, user_id: int, admin: bool, context: Context, lang: str | None = None
) -> str:
    """Change the pace of a running game; returns the popup for the tapper (in `lang`)."""
    deps = deps_of(context)
    with session_scope(deps.db) as session:
        settings = table_control.change_pace(
            session, game_id, user_id, admin, pace, deps.clock.now(), deps.custom_pace
        )
        game = session.get(Game, game_id)
        lang = lang or (game.language if game else "en")
    if game is not None:
        glang = game.language
        label = pacing.pace_label(glang, settings.pace, deps.custom_pace)
        await io.send(
            context.bot,
            game.chat_id,
            _(glang, "⚙️ The pace of this game is now {pace}; the turn clock starts again.", pace=label),
            None,
            game.thread_id,
        )
    return _(lang, "Pace: {pace}", pace=pacing.pace_label(lang, settings.pace, deps.custom_pace))
