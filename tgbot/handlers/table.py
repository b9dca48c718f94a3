"""/pause, /resume, /back, /quiet and /settings: keeping an async table moving."""

from __future__ import annotations

from datetime import timedelta

from telegram import InlineKeyboardMarkup, Update
from telegram import User as TgApiUser

from .. import delivery, presenter
from ..deps import Deps
from ..i18n import _, _n
from ..render import cards as cards_render
from ..render.lobby import pace_rows
from ..services import games, pacing, table_control
from ..services.settings import GameSettings
from ..store.db import session_scope
from ..store.models import LOBBY, Game
from .common import Context, deps_of, is_group, reply_language
from .replies import admin_rights, answers_service_errors, game_here, reply

SECONDS_PER_DAY = 86400


@answers_service_errors
async def pause_command(update: Update, context: Context) -> None:
    deps = deps_of(context)
    user = update.effective_user
    game = game_here(update, deps)
    if game is None or game.id is None or user is None:
        await reply(update, _(reply_language(deps, update), "There is no game here."))
        return
    admin = await admin_rights(context, game, user.id)
    max_pause = timedelta(seconds=deps.pause_max_seconds)
    async with deps.locks.hold(f"game:{game.id}"):
        with session_scope(deps.db) as session:
            paused = table_control.pause(session, game.id, user.id, admin, deps.clock.now(), max_pause)
    days = max(1, round(deps.pause_max_seconds / SECONDS_PER_DAY))
    await reply(
        update,
        _n(
            paused.language,
            "⏸ Game paused: no reminders and no deadlines. Send /resume to go on; the pause ends "
            "by itself in {n} day.",
            "⏸ Game paused: no reminders and no deadlines. Send /resume to go on; the pause ends "
            "by itself in {n} days.",
            days,
        ),
    )


@answers_service_errors
async def resume_command(update: Update, context: Context) -> None:
    deps = deps_of(context)
    user = update.effective_user
    game = game_here(update, deps)
    if game is None or game.id is None or user is None:
        await reply(update, _(reply_language(deps, update), "There is no game here."))
        return
    admin = await admin_rights(context, game, user.id)
    async with deps.locks.hold(f"game:{game.id}"):
        with session_scope(deps.db) as session:
            table_control.resume(session, game.id, user.id, admin, deps.clock.now(), deps.custom_pace)
            ctx = games.load_context(session, game.id)
        await reply(update, _(presenter.group_language(ctx), "▶️ The game goes on!"))
        await presenter.repost_board(deps, update.get_bot(), ctx)


@answers_service_errors
async def back_command(update: Update, context: Context) -> None:
    """Come back from being away: in the group of the game, or in private for every game."""
    deps = deps_of(context)
    lang = reply_language(deps, update)
    user = update.effective_user
    if user is not None and not is_group(update):
        await _back_everywhere(update, deps, user, lang)
        return
    game = game_here(update, deps)
    if game is None or game.id is None or user is None:
        await reply(update, _(lang, "There is no game here."))
        return
    async with deps.locks.hold(f"game:{game.id}"):
        with session_scope(deps.db) as session:
            was_away = table_control.come_back(session, game.id, user.id)
    if was_away:
        await reply(update, _(game.language, "👋 Welcome back! Your turns wait for you again."))
    else:
        await reply(update, _(lang, "You were not away."))


async def _back_everywhere(update: Update, deps: Deps, user: TgApiUser, lang: str) -> None:
    """/back in private: back in every game, and each of those groups is told."""
    with session_scope(deps.db) as session:
        back = table_control.come_back_everywhere(session, user.id)
    if not back:
        await reply(update, _(lang, "You were not away."))
        return
    await reply(update, _(lang, "👋 Welcome back! Your turns wait for you again."))
    for game in back:
        text = _(game.language, "👋 {name} is back.", name=cards_render.name(user.first_name))
        await delivery.send_to_game(deps, update.get_bot(), game, text)


async def quiet_command(update: Update, context: Context) -> None:
    """/quiet 23-08 +7 sets quiet hours (local time and UTC offset); /quiet off clears them."""
    deps = deps_of(context)
    chat = update.effective_chat
    if chat is None:
        return
    lang = reply_language(deps, update)
    if not is_group(update):
        await reply(update, _(lang, "Quiet hours are set in a group."))
        return
    arg = " ".join(context.args or []).strip()
    if not arg:
        await reply(
            update,
            _(lang, "Usage: /quiet 23-08 +7 (hours in local time, then the UTC offset), or /quiet off."),
        )
        return
    hours = None if arg.lower() == "off" else table_control.parse_quiet(arg)
    if hours is None and arg.lower() != "off":
        await reply(update, _(lang, "I could not read that. Example: /quiet 23-08 +7"))
        return
    with session_scope(deps.db) as session:
        table_control.set_quiet(session, chat.id, hours, deps.clock.now(), deps.custom_pace)
    if hours is None:
        await reply(update, _(lang, "🔔 Quiet hours are off."))
        return
    start, end, offset = hours
    await reply(
        update,
        _(
            lang,
            "🌙 Quiet hours: {start:02d}:00–{end:02d}:00 ({utc}). "
            "Reminders wait until they end, and deadlines move to their end.",
            start=start,
            end=end,
            utc=_utc_label(offset),
        ),
    )


def _utc_label(offset_minutes: int) -> str:
    """'UTC+7', 'UTC-3:30': how people write an offset (whole hours without minutes)."""
    sign = "+" if offset_minutes >= 0 else "-"
    hours, minutes = divmod(abs(offset_minutes), 60)
    return f"UTC{sign}{hours}" + (f":{minutes:02d}" if minutes else "")


@answers_service_errors
async def settings_command(update: Update, context: Context) -> None:
    """In a running game: the pace (the creator or an admin may change it)."""
    deps = deps_of(context)
    lang = reply_language(deps, update)
    game = game_here(update, deps)
    if game is None or game.id is None:
        await reply(update, _(lang, "There is no game here. Settings are in the lobby of /newgame."))
        return
    if game.status == LOBBY:
        await reply(update, _(lang, "Use the ⚙️ Settings key of the lobby."))
        return
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
    markup = InlineKeyboardMarkup(pace_rows(glang, game.id, settings.pace, custom))
    await reply(update, "\n".join(lines), markup)


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
    if game is not None:
        glang = game.language
        label = pacing.pace_label(glang, settings.pace, deps.custom_pace)
        text = _(glang, "⚙️ The pace of this game is now {pace}; the turn clock starts again.", pace=label)
        await delivery.send_to_game(deps, context.bot, game, text)
    lang = lang or (game.language if game is not None else "en")
    return _(lang, "Pace: {pace}", pace=pacing.pace_label(lang, settings.pace, deps.custom_pace))
