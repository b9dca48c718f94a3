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

from ..render import table_notices
from ..store import games as game_rows
from ..store import notices, once
from ..store import seats as seat_rows
from ..store.models import LOBBY, PAUSED, PLAYING
from ..turn_clock import Due, TurnClock
from . import autoplay, lobby, moves, table_control
from .context import GameContext, contexts_of
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
    return presenter_of(ctx).remind(session, env, ctx, seat, reminder.last_call)


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
        presenter_of(result.ctx).say_away(session, env, result.ctx, seat)
    presenter_of(result.ctx).report(session, env, result)
