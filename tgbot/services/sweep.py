"""The sweep: find games whose time has come and decide what happens.

Runs as one repeating job (PTB JobQueue). It reads due rows by `wake_at`
(indexed), claims each with `FOR UPDATE SKIP LOCKED` on PostgreSQL so two bot
instances never handle the same game at once, and writes its changes in the
same short transaction. Moves still go through the version compare-and-set,
so a tap racing the sweep applies once.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

import engine

from ..store.db import session_scope
from ..store.models import EXPIRED, LOBBY, PAUSED, PLAYING, Chat, Game, GamePlayer
from . import games, pacing
from .games import PlayResult
from .settings import GameSettings

AWAY_AFTER_TIMEOUTS = 2
SWEEP_BATCH = 500


@dataclass
class Reminder:
    game_id: int
    seat: int
    user_id: int | None
    private: bool  # True: send the private panel; False: mention in the group
    last_call: bool


@dataclass
class SweepReport:
    reminders: list[Reminder] = field(default_factory=list)
    plays: list[tuple[PlayResult, int | None]] = field(default_factory=list)  # (result, previous board)
    marked_away: list[tuple[int, str]] = field(default_factory=list)  # (game id, name)
    expired_lobbies: list[Game] = field(default_factory=list)
    resumed: list[int] = field(default_factory=list)
    examined: int = 0


def due_game_ids(session: Session, now: datetime, limit: int = SWEEP_BATCH) -> list[int]:
    query = select(Game.id).where(col(Game.wake_at) <= now).order_by(col(Game.wake_at)).limit(limit)
    return [i for i in session.exec(query).all() if i is not None]


def _claim(session: Session, game_id: int, now: datetime) -> Game | None:
    """Lock one due game row; None when another worker holds it or it is no longer due."""
    query = select(Game).where(Game.id == game_id)
    if session.get_bind().dialect.name == "postgresql":
        query = query.with_for_update(skip_locked=True)
    game = session.exec(query).first()
    if game is None or game.wake_at is None or game.wake_at > now:
        return None
    return game


def sweep_game(
    db: Engine, game_id: int, now: datetime, custom_pace: pacing.Pace | None, report: SweepReport
) -> None:
    """Handle whatever is due for one game, in one transaction."""
    with session_scope(db) as session:
        game = _claim(session, game_id, now)
        if game is None:
            return
        report.examined += 1
        if game.status == LOBBY:
            game.status = EXPIRED
            game.finished_at = now
            game.wake_at = None
            session.add(game)
            report.expired_lobbies.append(game)
            return
        if game.status == PAUSED:
            if game.paused_until is not None and game.paused_until <= now:
                _resume(session, game, now, custom_pace)
                report.resumed.append(game_id)
            else:
                game.wake_at = game.paused_until
                session.add(game)
            return
        if game.status != PLAYING or game.state is None:
            game.wake_at = None
            session.add(game)
            return
        if game.deadline_at is not None and game.deadline_at <= now:
            _deadline(session, game, now, custom_pace, report)
        elif game.next_nudge_at is not None and game.next_nudge_at <= now:
            _remind(session, game, now, custom_pace, report)
        else:
            game.wake_at = pacing.earliest(game.next_nudge_at, game.deadline_at)
            session.add(game)


def _resume(session: Session, game: Game, now: datetime, custom_pace: pacing.Pace | None) -> None:
    game.status = PLAYING
    game.paused_until = None
    ctx = games.load_context(session, game.id or 0, game)
    assert ctx.state is not None
    games.schedule_turn(session, game, ctx.state, now, custom_pace)
    session.add(game)


def _remind(
    session: Session, game: Game, now: datetime, custom_pace: pacing.Pace | None, report: SweepReport
) -> None:
    assert game.id is not None
    ctx = games.load_context(session, game.id, game)
    seat = ctx.current
    sent = game.nudges_sent
    settings = GameSettings.from_json(game.settings)
    pace = pacing.resolve(settings.pace, custom_pace)
    if seat is not None and not seat.autoplayed:
        first = sent == 0
        report.reminders.append(
            Reminder(
                game.id,
                seat.seat,
                seat.user_id,
                private=first and seat.can_dm,
                last_call=not first and pace.repeat is None,
            )
        )
    game.nudges_sent = sent + 1
    started = game.turn_started_at or now
    quiet = games.quiet_hours(session.get(Chat, game.chat_id))
    upcoming = pacing.next_nudge(pace, started, game.nudges_sent, game.deadline_at, quiet)
    if upcoming is not None and upcoming <= now:  # never fire twice in one sweep
        upcoming = now + timedelta(seconds=1) if pace.repeat is None else upcoming + pace.repeat
    game.next_nudge_at = upcoming
    game.wake_at = pacing.earliest(upcoming, game.deadline_at)
    session.add(game)


def _deadline(
    session: Session, game: Game, now: datetime, custom_pace: pacing.Pace | None, report: SweepReport
) -> None:
    """The idle default is played for the seat; two in a row mark the player away."""
    assert game.id is not None
    ctx = games.load_context(session, game.id, game)
    state = ctx.state
    assert state is not None
    seat = ctx.seats[state.current]
    previous_board = game.board_message_id
    action = engine.default_action(state, seat.seat)
    result = PlayResult(ctx)
    outcome = games.commit_move(session, game, state, seat.seat, action, "idle", now, custom_pace)
    result.outcomes.append(outcome)
    player = session.exec(
        select(GamePlayer).where(GamePlayer.game_id == game.id, GamePlayer.seat == seat.seat)
    ).one()
    player.timeouts += 1
    if player.timeouts >= AWAY_AFTER_TIMEOUTS and not player.away:
        player.away = True
        report.marked_away.append((game.id, player.name))
    session.add(player)
    session.flush()
    games.autoplay(session, game, result, now, custom_pace)
    result.ctx = games.load_context(session, game.id, game)
    result.ended = result.ctx.state is not None and result.ctx.state.is_over
    report.plays.append((result, previous_board))
