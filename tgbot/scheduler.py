"""The repeating sweep job: runs `services.sweep` and sends what it decided."""

from __future__ import annotations

import contextlib
import logging
import time
from datetime import datetime

from telegram import Bot
from telegram.ext import ContextTypes

from . import delivery, metrics, presenter
from . import telegram_io as io
from .deps import Deps, get_deps
from .i18n import _
from .render import board as board_render
from .render import cards as cards_render
from .services import games, pacing, sweep
from .services.context import GameContext
from .services.errors import ServiceError
from .store.db import session_scope
from .store.models import PLAYING

log = logging.getLogger("tweakbot.sweep")


SWEEP_TOGETHER = 100  # due games swept in one transaction (SQLite's write lock is held meanwhile)


async def run_sweep(deps: Deps, bot: Bot) -> sweep.SweepReport:
    """One pass over every due game; safe to run concurrently with taps and other instances.

    Games that only need a reminder are decided together in one short transaction
    (`sweep.remind_many`); the other due games go in batches (`sweep.sweep_many`, one
    transaction each) under their in-process locks, and each game's messages are sent
    before its lock is let go. When a batch fails, its games are swept one by one
    (`sweep.sweep_game`): one failing game is logged and retried on the next sweep
    without holding up the others.
    """
    started = time.perf_counter()
    now = deps.clock.now()
    total = sweep.SweepReport()
    tried: set[int] = set()
    failed = 0
    while True:
        with session_scope(deps.db) as session:
            due = sweep.due_game_ids(session, now)
        fresh = [game_id for game_id in due if game_id not in tried]
        tried.update(fresh)
        rest = fresh
        reminders = sweep.SweepReport()
        try:  # the common case in one transaction: games that only need a reminder
            rest = sweep.remind_many(deps.db, fresh, now, deps.custom_pace, reminders)
        except Exception:
            log.exception("batched reminders failed; each game is swept on its own")
        for reminder in reminders.reminders:
            try:
                async with deps.locks.hold(f"game:{reminder.game_id}"):
                    await _remind(deps, bot, reminder)
            except Exception:
                failed += 1
                log.exception("reminder for game %s failed", reminder.game_id)
        total.merge(reminders)
        for start in range(0, len(rest), SWEEP_TOGETHER):
            failed += await _sweep_together(deps, bot, rest[start : start + SWEEP_TOGETHER], now, total)
        if len(due) < sweep.SWEEP_BATCH or not fresh:
            break
    elapsed = time.perf_counter() - started
    deps.stats["last_sweep_at"] = now
    deps.stats["last_sweep_seconds"] = elapsed
    metrics.observe_sweep(elapsed, time.time())
    if tried:
        log.info(
            "sweep due=%d examined=%d failed=%d ms=%.1f", len(tried), total.examined, failed, elapsed * 1000
        )
    return total


async def _sweep_together(
    deps: Deps, bot: Bot, game_ids: list[int], now: datetime, total: sweep.SweepReport
) -> int:
    """Sweep `game_ids` in one transaction holding their locks, then deliver game by game,
    letting each lock go once its messages are out. The number of games that failed."""
    failed = 0
    async with contextlib.AsyncExitStack() as every_lock:
        held: dict[int, contextlib.AsyncExitStack] = {}
        for game_id in sorted(set(game_ids)):  # one order for everyone: no lock cycles
            lock = contextlib.AsyncExitStack()
            every_lock.push_async_callback(lock.aclose)  # released at the latest when all is done
            await lock.enter_async_context(deps.locks.hold(f"game:{game_id}"))
            held[game_id] = lock
        reports: dict[int, sweep.SweepReport] | None
        try:
            reports = sweep.sweep_many(deps.db, game_ids, now, deps.custom_pace)
        except Exception:
            log.exception("batched sweep failed; each game is swept on its own")
            reports = None
        for game_id in game_ids:
            report = sweep.SweepReport()
            try:
                if reports is None:
                    if sweep.sweep_game(deps.db, game_id, now, deps.custom_pace, report):
                        await _deliver(deps, bot, report)
                elif game_id in reports:
                    report = reports[game_id]
                    await _deliver(deps, bot, report)
            except Exception:
                failed += 1
                log.exception("sweep of game %s failed", game_id)
            finally:
                if game_id in held:
                    await held.pop(game_id).aclose()
            total.merge(report)
    return failed


async def sweep_job(context: ContextTypes.DEFAULT_TYPE) -> None:
    await run_sweep(get_deps(context.bot_data), context.bot)


async def _deliver(deps: Deps, bot: Bot, report: sweep.SweepReport) -> None:
    for lobby in report.expired_lobbies:
        text = _(
            lobby.language,
            "⌛ This lobby closed: nobody started the game in time. Send /newgame to try again.",
        )
        edited = lobby.lobby_message_id is not None and await io.edit(
            bot, lobby.chat_id, lobby.lobby_message_id, text, None
        )
        if not edited:
            await delivery.send_to_game(deps, bot, lobby, text)
    for game_id in report.resumed:
        with session_scope(deps.db) as session:
            ctx = games.load_context(session, game_id)
        lang = presenter.group_language(ctx)
        await delivery.send_to_game(deps, bot, ctx.game, _(lang, "▶️ The pause is over: the game goes on."))
        if ctx.game.board_message_id is not None:
            await io.drop_keyboard(bot, ctx.game.chat_id, ctx.game.board_message_id)
        await presenter.post_board(deps, bot, ctx)
    ended = {result.ctx.game_id for result, _board in report.plays if result.abandoned or result.ended}
    played = {result.ctx.game_id: result.ctx for result, _board in report.plays}
    for game_id, name in report.marked_away:
        if game_id in ended:
            continue  # the game is over: the announcement says why
        ctx = played.get(game_id) or _load(deps, game_id)
        lang = presenter.group_language(ctx)
        await delivery.send_to_game(
            deps,
            bot,
            ctx.game,
            _(
                lang,
                "💤 {name} missed two turns and is now away: their turns are played at once until they "
                "tap any key of the game or send /back.",
                name=cards_render.name(name),
            ),
        )
    for reminder in report.reminders:
        await _remind(deps, bot, reminder)
    for result, previous_board in report.plays:
        await presenter.announce(deps, bot, result, previous_board)


def _load(deps: Deps, game_id: int) -> GameContext:
    with session_scope(deps.db) as session:
        ctx = games.load_snapshot(session, game_id)
    if ctx is None:
        raise ServiceError("no_game")
    return ctx


async def _remind(deps: Deps, bot: Bot, reminder: sweep.Reminder) -> None:
    ctx = _load(deps, reminder.game_id)
    seat = ctx.seats[reminder.seat]
    if (
        ctx.state is None
        or ctx.game.status != PLAYING
        or ctx.state.current != reminder.seat
        or ctx.game.version != reminder.version
    ):
        return  # the player (or someone) acted since: no reminder
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
        if not sent.blocked and sent.message_id is not None:
            if seat.panel_message_id is not None:  # one live panel: the reminder replaces the old one
                await io.drop_keyboard(bot, seat.user_id, seat.panel_message_id)
            with session_scope(deps.db) as session:
                games.set_panel_message(session, ctx.game_id, seat.seat, sent.message_id)
            return
        if sent.blocked:
            with session_scope(deps.db) as session:
                games.set_can_dm(session, seat.user_id, False)
    lang = presenter.group_language(ctx)
    who = cards_render.mention(seat.user_id, seat.name)
    if reminder.last_call and ctx.game.deadline_at is not None:
        left = pacing.format_duration(ctx.game.deadline_at - deps.clock.now(), lang)
        text = _(
            lang,
            "⏰ Last call, {who}: your turn will be played for you in {left}.",
            who=who,
            left=left,
        )
    else:
        text = _(lang, "⏳ {who}, it's your turn!", who=who)
    # A reply to the board, so a tap on the reminder leads to it; when the board is gone (deleted
    # by an admin, or left behind in the old group after a migration) a fresh one is posted.
    board_id = ctx.game.board_message_id
    sent = await delivery.send_to_game(deps, bot, ctx.game, text, None, reply_to=board_id)
    if not sent.blocked and (board_id is None or sent.reply_missing or sent.migrated_to is not None):
        header = [text] if sent.reply_missing else None
        await presenter.post_board(deps, bot, ctx, header=header, panel=False)
