"""The repeating sweep job: runs `services.sweep` and sends what it decided."""

from __future__ import annotations

import logging
import time

from telegram import Bot
from telegram.ext import ContextTypes

from . import presenter
from . import telegram_io as io
from .deps import Deps, get_deps
from .i18n import _
from .render import board as board_render
from .render import cards as cards_render
from .services import games, sweep
from .store.db import session_scope

log = logging.getLogger("tweakbot.sweep")


async def run_sweep(deps: Deps, bot: Bot) -> sweep.SweepReport:
    """One pass over every due game; safe to run concurrently with taps and other instances."""
    started = time.perf_counter()
    now = deps.clock.now()
    with session_scope(deps.db) as session:
        due = sweep.due_game_ids(session, now)
    total = sweep.SweepReport()
    for game_id in due:
        report = sweep.SweepReport()
        async with deps.locks.hold(f"game:{game_id}"):
            sweep.sweep_game(deps.db, game_id, now, deps.custom_pace, report)
            await _deliver(deps, bot, report)
        total.examined += report.examined
        total.reminders.extend(report.reminders)
        total.plays.extend(report.plays)
        total.marked_away.extend(report.marked_away)
        total.expired_lobbies.extend(report.expired_lobbies)
        total.resumed.extend(report.resumed)
    deps.stats["last_sweep_at"] = now
    deps.stats["last_sweep_seconds"] = time.perf_counter() - started
    if due:
        log.info(
            "sweep due=%d examined=%d ms=%.1f",
            len(due),
            total.examined,
            (time.perf_counter() - started) * 1000,
        )
    return total


async def sweep_job(context: ContextTypes.DEFAULT_TYPE) -> None:
    await run_sweep(get_deps(context.bot_data), context.bot)


async def _deliver(deps: Deps, bot: Bot, report: sweep.SweepReport) -> None:
    for lobby in report.expired_lobbies:
        if lobby.lobby_message_id is not None:
            await io.edit(
                bot,
                lobby.chat_id,
                lobby.lobby_message_id,
                _(
                    lobby.language,
                    "⌛ This lobby closed: nobody started the game in time. Send /newgame to try again.",
                ),
                None,
            )
    for game_id in report.resumed:
        with session_scope(deps.db) as session:
            ctx = games.load_context(session, game_id)
        lang = presenter.group_language(ctx)
        await io.send(
            bot, ctx.game.chat_id, _(lang, "▶️ The pause is over: the game goes on."), None, ctx.game.thread_id
        )
        if ctx.game.board_message_id is not None:
            await io.drop_keyboard(bot, ctx.game.chat_id, ctx.game.board_message_id)
        await presenter.post_board(deps, bot, ctx)
    for reminder in report.reminders:
        await _remind(deps, bot, reminder)
    for result, previous_board in report.plays:
        await presenter.announce(deps, bot, result, previous_board)
    for game_id, name in report.marked_away:
        with session_scope(deps.db) as session:
            ctx = games.load_context(session, game_id)
        lang = presenter.group_language(ctx)
        await io.send(
            bot,
            ctx.game.chat_id,
            _(
                lang,
                "💤 {name} missed two turns and is now away: their turns are played at once until they "
                "tap any key of the game or send /back.",
                name=cards_render.name(name),
            ),
            None,
            ctx.game.thread_id,
        )


async def _remind(deps: Deps, bot: Bot, reminder: sweep.Reminder) -> None:
    with session_scope(deps.db) as session:
        ctx = games.load_context(session, reminder.game_id)
    seat = ctx.seats[reminder.seat]
    if ctx.state is None or ctx.state.current != reminder.seat:
        return
    if reminder.private and seat.user_id is not None:
        lang = seat.language
        draft = board_render.Draft()
        text = (
            _(lang, "⏳ Reminder: it's your turn!")
            + "\n\n"
            + board_render.board_text(lang, ctx, draft, board_render.PRIVATE, seat.seat)
        )
        markup = board_render.keyboard(lang, ctx, draft, board_render.PRIVATE, seat.seat, bot.username)
        sent = await io.send(bot, seat.user_id, text, markup)
        if not sent.blocked:
            if sent.message_id is not None:
                with session_scope(deps.db) as session:
                    games.set_panel_message(session, ctx.game_id, seat.seat, sent.message_id)
            return
        with session_scope(deps.db) as session:
            games.set_can_dm(session, seat.user_id, False)
    lang = presenter.group_language(ctx)
    who = cards_render.mention(seat.user_id, seat.name)
    if reminder.last_call and ctx.game.deadline_at is not None:
        minutes = max(1, int((ctx.game.deadline_at - deps.clock.now()).total_seconds() // 60))
        text = _(
            lang,
            "⏰ Last call, {who}: your turn will be played for you in {minutes} min.",
            who=who,
            minutes=minutes,
        )
    else:
        text = _(lang, "⏳ {who}, it's your turn!", who=who)
    await io.send(bot, ctx.game.chat_id, text, None, ctx.game.thread_id)
