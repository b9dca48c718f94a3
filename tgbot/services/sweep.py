"""The sweep: games whose time has come (`wake_at` passed) get what is due.

* a lobby nobody started expires;
* a pause that ran out lifts, and the game goes on;
* a reminder (private panel for a player who uses it, else a mention under the board; the last
  call always in the group; at a practice table, a word under its board, in its own chat);
* at the deadline the engine's idle default is played for the player; two in a row mark them
  away (their turns are then played at once until they come back);
* a turn the bot plays at once (`services.autoplay`) still unplayed at its wake-up (the process
  that owed it stopped) is taken over: this process plays it after the batch's commit.

The process wakes for the next due game on time (`tgbot.jobs`, a one-off "wake" job) and sweeps
every few seconds as a safety net; both run `sweep`. Due games are taken in batches, each in one
transaction; on PostgreSQL with ``FOR UPDATE SKIP LOCKED``, so two instances never handle one game
at once, and every move still goes through the version compare-and-set, so a tap racing the
sweep applies once.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta

from sqlmodel import Session

import engine

from .. import pacing
from ..render import table_notices, turn_notice
from ..store import games as game_rows
from ..store import notices, once, outbox
from ..store import seats as seat_rows
from ..store.models import LOBBY, PAUSED, PLAYING
from ..store.outbox import Message, Payload
from ..turn_clock import Due, TurnClock
from . import autoplay, lobby, moves, output, panels, surfaces, table_control
from .context import GameContext, SeatInfo, contexts_of
from .env import Env
from .game_clock import clock_of, rules_of, set_clock
from .tables import presenter_of

log = logging.getLogger("tweakbot.sweep")

AWAY_AFTER_TIMEOUTS = 2
#: Due games per transaction: on SQLite a batch holds the write lock, and taps wait meanwhile.
BATCH = 20
TAPS_KEPT = timedelta(days=1)


@dataclass
class SweepReport:
    examined: int = 0
    reminders: int = 0
    idle_moves: int = 0
    #: Turns the bot plays that the process owing them had not played: taken over here.
    taken_over: int = 0
    failed: list[int] = field(default_factory=list)

    def merge(self, other: SweepReport) -> None:
        self.examined += other.examined
        self.reminders += other.reminders
        self.idle_moves += other.idle_moves
        self.taken_over += other.taken_over
        self.failed.extend(other.failed)


def due(session: Session, now: datetime, limit: int = 500) -> list[int]:
    """Games due at `now`, most overdue first (a range scan of ix_games_wake_at)."""
    return game_rows.due(session, now, limit)


def forget_old_taps(session: Session, env: Env) -> None:
    """Updates applied (and the picks and notes done once) are remembered for a day: enough for
    any duplicate delivery; notices too."""
    once.forget_before(session, env.now - TAPS_KEPT)
    notices.forget_before(session, env.now - TAPS_KEPT)


def next_wake(session: Session) -> datetime | None:
    """When the next game falls due (the clock's next wake-up after a sweep)."""
    return game_rows.next_wake(session)


def sweep_batch(session: Session, env: Env, game_ids: list[int]) -> SweepReport:
    """Handle the due games among `game_ids` in this transaction (games another instance holds,
    or no longer due, are left out)."""
    report = SweepReport()
    games = game_rows.still_due(session, game_ids, env.now)
    contexts = contexts_of(session, games)
    for game in games:
        report.examined += 1
        assert game.id is not None
        handle(session, env, contexts[game.id], report)
    return report


def handle(session: Session, env: Env, ctx: GameContext, report: SweepReport) -> None:
    game = ctx.game
    clock = clock_of(game)
    paused = game.status == PAUSED
    running = game.status == PLAYING and ctx.state is not None
    mover = ctx.current
    autoplayed = running and mover is not None and mover.autoplayed
    due = TurnClock.due(clock, env.now, paused=paused, autoplayed=autoplayed)
    if game.status == LOBBY:
        lobby.expire(session, env, ctx)
    elif paused and due is Due.PAUSE_OVER:
        table_control.go_on(session, env, ctx, table_notices.pause_over(ctx.language))
    elif running and due is Due.AUTOPLAY:
        autoplay.claim(session, env, ctx)
        report.taken_over += 1
    elif running and due is Due.DEADLINE:
        _deadline(session, env, ctx, report)
    elif running and due is Due.REMINDER:
        if _remind(session, env, ctx):
            report.reminders += 1
    else:  # woke early, or nothing runs: wake at what comes next, if anything
        set_clock(session, game, TurnClock.rearm(clock, paused=paused, running=running))


def _remind(session: Session, env: Env, ctx: GameContext) -> bool:
    """The turn's next reminder; False when nobody waits to be told (the clock moves on anyway)."""
    game = ctx.game
    reminder, clock = rules_of(ctx, env).remind(clock_of(game), env.now)
    set_clock(session, game, clock)
    seat = ctx.current
    if seat is None or seat.autoplayed:
        return False  # nobody waits to be told
    table = presenter_of(ctx)
    if not table.in_players_chat and panels.reached_privately(seat):
        # In private, like the turn's own notification: the group is not woken for one player.
        _private_reminder(session, env, ctx, seat, reminder.last_call)
        return True
    if table.carried_by_posts:
        return False  # a chat the bot cannot post in: the idle default keeps the game going
    # Each reminder is a message of its own (a waiting one is replaced, and dropped if the turn
    # moves on before it is sent: `output.drop_reminder`).
    outbox.forget_shown(session, ctx.game.chat_id, surfaces.reminder(ctx.game_id))
    message = replace(
        _group_reminder(ctx, env, seat, reminder.last_call), surface=surfaces.reminder(ctx.game_id)
    )
    outbox.put(session, message, env.now)
    return True


def _private_reminder(session: Session, env: Env, ctx: GameContext, seat: SeatInfo, last_call: bool) -> None:
    """A reminder in the player's chat with the bot: their panel posted again under it if they
    play there, else a note; the group mention if that chat refuses the bot."""
    assert seat.user_id is not None
    lang = seat.language
    chat = presenter_of(ctx).chat_name(ctx, lang)
    if last_call and ctx.game.deadline_at is not None:
        left = pacing.format_duration(ctx.game.deadline_at - env.now, lang)
        text = turn_notice.last_call_in(lang, chat, left)
    elif seat.gets_panel:
        text = turn_notice.reminder(lang)
    else:
        text = turn_notice.reminder_in(lang, chat)
    # (in a chat the bot is not in, there is no group mention to fall back on)
    fallback = None if presenter_of(ctx).carried_by_posts else _group_reminder(ctx, env, seat, last_call)
    if not seat.gets_panel:
        panels.ping(session, env, ctx, seat, text, fallback)
        return
    view, keys = panels.view(ctx, env, seat)
    back = fallback.as_fallback() if fallback is not None else None
    payload = Payload(text + "\n\n" + view, keys, fresh=True, notify=True, fallback=back)
    message = Message(seat.user_id, payload, surfaces.panel(ctx.game_id, seat.seat), game_id=ctx.game_id)
    outbox.put(session, message, env.now)


def _group_reminder(ctx: GameContext, env: Env, seat: SeatInfo, last_call: bool) -> Message:
    """A reminder in the game's chat, under its board: a mention in a group; at a practice table,
    its person's own chat, a word to them."""
    lang = ctx.language
    practice = presenter_of(ctx).in_players_chat
    if last_call and ctx.game.deadline_at is not None:
        left = pacing.format_duration(ctx.game.deadline_at - env.now, lang)
        if practice:
            text = turn_notice.last_call(lang, left)
        else:
            text = turn_notice.last_call_for(lang, seat.user_id, seat.name, left)
    else:
        text = (
            turn_notice.reminder(lang)
            if practice
            else turn_notice.reminder_for(lang, seat.user_id, seat.name)
        )
    return output.to_group(ctx, text, notify=True, reply_to=surfaces.board(ctx.game))


def _deadline(session: Session, env: Env, ctx: GameContext, report: SweepReport) -> None:
    """The idle default is played for the player to move; two in a row make them away. The seats
    after them that do not wait are played after the commit (`services.autoplay`); with no
    person left who plays, the game ends as abandoned at once."""
    state = ctx.playing_state()
    seat = ctx.seats[state.current]
    timeouts = seat.timeouts + 1
    away = seat.away or timeouts >= AWAY_AFTER_TIMEOUTS
    seat_rows.set_idle(session, ctx.game_id, seat.seat, timeouts, away)
    # (before the move: the turn after it may be theirs again, and then the bot's to play)
    ctx = ctx.with_seat(replace(seat, timeouts=timeouts, away=away))
    action = engine.default_action(state, seat.seat)
    after, events = moves.apply_action(state, seat.seat, action)
    outcome = moves.MoveOutcome(seat.seat, engine.encode(action), "idle", state, after, events)
    result = moves.PlayResult(ctx)
    result.ctx = moves.commit(session, env, ctx, outcome)
    result.outcomes.append(outcome)
    report.idle_moves += 1
    if not result.ended and moves.nobody_plays(result.ctx):
        moves.abandon(session, env, result.ctx)
        result.abandoned = True
    elif away and not seat.away and not result.ended:
        # (when the game is over, its end says it all)
        if not presenter_of(ctx).carried_by_posts:
            text = table_notices.now_away(ctx.language, seat.name)
        else:  # the bot cannot read that chat: /back goes to it in private
            text = table_notices.now_away_inline(ctx.language, seat.name, env.bot_username)
        presenter_of(result.ctx).say(session, env, result.ctx, text)
    presenter_of(result.ctx).report(session, env, result)
