"""The sweep: find games whose time has come and decide what happens.

Runs as one repeating job (PTB JobQueue, `tgbot.scheduler.run_sweep`). It reads
due rows by `wake_at` (indexed: `due_query`), then

* `remind_many`: every due game that only needs a reminder, decided and written
  together in one short transaction (the busy case);
* `sweep_game`: each other due game (deadline, lobby expiry, pause expiry) in a
  transaction of its own.

Rows are claimed with `FOR UPDATE SKIP LOCKED` on PostgreSQL, so two bot
instances never handle the same game at once; on SQLite the claim's first
statement takes the database's write lock. Moves still go through the version
compare-and-set, so a tap racing the sweep applies once.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime

from sqlalchemy import bindparam, update
from sqlalchemy import select as core_select
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select
from sqlmodel.sql.expression import SelectOfScalar

import engine

from ..store.db import session_scope
from ..store.models import EXPIRED, LOBBY, PAUSED, PLAYING, Chat, Game, GamePlayer, User
from . import games, pacing
from .errors import ServiceError
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
    version: int = 0  # the game version the reminder is for; a move since makes it moot


@dataclass
class SweepReport:
    reminders: list[Reminder] = field(default_factory=list)
    plays: list[tuple[PlayResult, int | None]] = field(default_factory=list)  # (result, previous board)
    marked_away: list[tuple[int, str]] = field(default_factory=list)  # (game id, name)
    expired_lobbies: list[Game] = field(default_factory=list)
    resumed: list[int] = field(default_factory=list)
    examined: int = 0

    def merge(self, other: SweepReport) -> None:
        self.reminders.extend(other.reminders)
        self.plays.extend(other.plays)
        self.marked_away.extend(other.marked_away)
        self.expired_lobbies.extend(other.expired_lobbies)
        self.resumed.extend(other.resumed)
        self.examined += other.examined


def due_query(now: datetime, limit: int = SWEEP_BATCH) -> SelectOfScalar[int | None]:
    """The ids of the games due at `now`, most overdue first; a range scan of ix_games_wake_at."""
    return select(col(Game.id)).where(col(Game.wake_at) <= now).order_by(col(Game.wake_at)).limit(limit)


def due_game_ids(session: Session, now: datetime, limit: int = SWEEP_BATCH) -> list[int]:
    return [i for i in session.exec(due_query(now, limit)).all() if i is not None]


def _claim(session: Session, game_id: int, now: datetime) -> Game | None:
    """Take one due game for this transaction; None when someone else has it or it is not due.

    PostgreSQL: `SELECT ... FOR UPDATE SKIP LOCKED`, so two bot instances never
    handle one game at once and neither waits for the other. SQLite has one
    writer at a time: a no-op `UPDATE` first takes its write lock, so the row
    read next stays current until this transaction commits (a tap from another
    process waits, then loses its compare-and-set).
    """
    dialect = session.get_bind().dialect
    if dialect.name == "sqlite" and dialect.update_returning:
        # One statement: take the write lock and read the row (SQLite >= 3.35).
        claim = (
            update(Game)
            .where(col(Game.id) == game_id, col(Game.wake_at) <= now)
            .values(wake_at=col(Game.wake_at))
            .returning(Game)
            .execution_options(synchronize_session=False)
        )
        return session.scalars(claim).first()
    query = select(Game).where(Game.id == game_id)
    if dialect.name == "postgresql":
        query = query.with_for_update(skip_locked=True)
    elif dialect.name == "sqlite":
        session.execute(
            update(Game)
            .where(col(Game.id) == game_id, col(Game.wake_at) <= now)
            .values(wake_at=col(Game.wake_at))
            .execution_options(synchronize_session=False)
        )
    game = session.exec(query).first()
    if game is None or game.wake_at is None or game.wake_at > now:
        return None
    return game


def sweep_game(
    db: Engine, game_id: int, now: datetime, custom_pace: pacing.Pace | None, report: SweepReport
) -> bool:
    """Handle whatever is due for one game, in one transaction; False when nothing was done.

    A move that lost the compare-and-set (a tap, or another instance, got there
    first) rolls the whole transaction back: the game is looked at again on the
    next sweep with its fresh clock.
    """
    partial = SweepReport()
    try:
        with session_scope(db) as session:
            game = _claim(session, game_id, now)
            if game is None:
                return False
            _handle(session, game, now, custom_pace, partial)
    except ServiceError as exc:
        if exc.reason != "stale":
            raise
        return False
    report.merge(partial)
    return True


def _handle(
    session: Session, game: Game, now: datetime, custom_pace: pacing.Pace | None, report: SweepReport
) -> None:
    report.examined += 1
    if game.status == LOBBY:
        game.status = EXPIRED
        game.finished_at = now
        game.updated_at = now
        game.wake_at = None
        session.add(game)
        report.expired_lobbies.append(game)
        return
    if game.status == PAUSED:  # paused_until None: held with no end (the bot was removed)
        if game.paused_until is not None and game.paused_until <= now:
            _resume(session, game, now, custom_pace)
            assert game.id is not None
            report.resumed.append(game.id)
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
    """The pause ran out: the game goes on with a fresh clock for the player to move."""
    game.status = PLAYING
    game.paused_until = None
    game.updated_at = now
    ctx = games.load_context(session, game.id or 0, game)
    assert ctx.state is not None
    games.schedule_turn(session, game, ctx.state, now, custom_pace)
    session.add(game)


@dataclass(frozen=True)
class _Mover:
    """The player to move, as much as a reminder needs to know."""

    seat: int
    user_id: int | None
    waits: bool  # a human who is neither away nor gone: their turn waits for them
    can_dm: bool


def _current_seat(session: Session, game: Game) -> _Mover | None:
    """The player to move and whether the bot may write to them privately (without the state)."""
    if game.current_seat is None:
        return None
    query = (
        select(GamePlayer, User.can_dm)
        .join(User, col(User.id) == col(GamePlayer.user_id), isouter=True)
        .where(GamePlayer.game_id == game.id, GamePlayer.seat == game.current_seat)
    )
    row = session.exec(query).first()
    if row is None:
        return None
    player, can_dm = row
    waits = player.ai_level is None and not player.left and not player.away
    return _Mover(player.seat, player.user_id, waits, bool(can_dm))


def _next_reminder(
    game_id: int,
    version: int,
    settings: str,
    turn_started_at: datetime | None,
    nudges_sent: int,
    deadline_at: datetime | None,
    mover: _Mover | None,
    quiet: pacing.QuietHours | None,
    now: datetime,
    custom_pace: pacing.Pace | None,
    report: SweepReport,
) -> pacing.ReminderStep:
    """Decide the reminder due now (added to the report) and when to look again."""
    pace = pacing.resolve(GameSettings.from_json(settings).pace, custom_pace)
    started = turn_started_at or now
    step = pacing.reminder_step(pace, started, nudges_sent, deadline_at, quiet, now)
    if mover is not None and mover.waits:
        report.reminders.append(
            Reminder(
                game_id,
                mover.seat,
                mover.user_id,
                private=not step.last_call and mover.can_dm and mover.user_id is not None,
                last_call=step.last_call,
                version=version,
            )
        )
    return step


def _remind(
    session: Session, game: Game, now: datetime, custom_pace: pacing.Pace | None, report: SweepReport
) -> None:
    """The turn's next reminder (no engine state needed)."""
    assert game.id is not None
    quiet = games.quiet_hours(session.get(Chat, game.chat_id))
    step = _next_reminder(
        game.id,
        game.version,
        game.settings,
        game.turn_started_at,
        game.nudges_sent,
        game.deadline_at,
        _current_seat(session, game),
        quiet,
        now,
        custom_pace,
        report,
    )
    game.nudges_sent = step.sent_after
    game.next_nudge_at = step.next_at
    game.wake_at = pacing.earliest(step.next_at, game.deadline_at)
    session.add(game)


def remind_many(
    db: Engine, game_ids: list[int], now: datetime, custom_pace: pacing.Pace | None, report: SweepReport
) -> list[int]:
    """Every due game that only needs a reminder, in one transaction of a few statements.

    Reminders are most of a busy sweep, and the per-game path spends its time in
    ORM round trips, so here the rows are claimed together (one `UPDATE ...
    RETURNING` on SQLite, one `SELECT ... FOR UPDATE SKIP LOCKED` on PostgreSQL),
    the players to move and the chats' quiet hours come in one query each, and the
    new clocks go back in one `executemany` (compare-and-set on version and
    reminder count). Returns the claimed games that need more than a reminder
    (deadline, lobby or pause expiry) for `sweep_game`; games another instance
    holds are in neither.
    """
    if not game_ids:
        return []
    decided = SweepReport()  # merged into `report` only once the transaction committed
    table = Game.__table__  # type: ignore[attr-defined]
    c = table.c
    columns = (
        c.id,
        c.status,
        c.version,
        c.chat_id,
        c.settings,
        c.current_seat,
        c.turn_started_at,
        c.next_nudge_at,
        c.deadline_at,
        c.nudges_sent,
    )
    with session_scope(db) as session:
        conn = session.connection()
        dialect = conn.dialect
        due = (c.id.in_(game_ids), c.wake_at <= now)
        if dialect.name == "sqlite" and dialect.update_returning:
            claim = update(table).where(*due).values(wake_at=c.wake_at).returning(*columns)
            rows = conn.execute(claim).all()
        else:
            if dialect.name == "sqlite":  # take the write lock first
                conn.execute(update(table).where(*due).values(wake_at=c.wake_at))
            query = core_select(*columns).where(*due)
            if dialect.name == "postgresql":
                query = query.with_for_update(skip_locked=True)
            rows = list(conn.execute(query).all())
        simple = [
            r
            for r in rows
            if r.status == PLAYING
            and r.current_seat is not None
            and (r.deadline_at is None or r.deadline_at > now)
            and r.next_nudge_at is not None
            and r.next_nudge_at <= now
        ]
        simple_ids = {r.id for r in simple}
        rest = [r.id for r in rows if r.id not in simple_ids]
        if not simple:
            return rest
        players = GamePlayer.__table__  # type: ignore[attr-defined]
        users = User.__table__  # type: ignore[attr-defined]
        movers: dict[tuple[int, int], _Mover] = {}
        query = (
            core_select(
                players.c.game_id,
                players.c.seat,
                players.c.user_id,
                players.c.ai_level,
                players.c.left,
                players.c.away,
                users.c.can_dm,
            )
            .select_from(players.outerjoin(users, users.c.id == players.c.user_id))
            .where(players.c.game_id.in_(simple_ids))
        )
        for p in conn.execute(query):
            waits = p.ai_level is None and not p.left and not p.away
            movers[(p.game_id, p.seat)] = _Mover(p.seat, p.user_id, waits, bool(p.can_dm))
        chats = Chat.__table__  # type: ignore[attr-defined]
        quiet: dict[int, pacing.QuietHours] = {}
        chat_ids = {r.chat_id for r in simple}
        query = core_select(
            chats.c.id, chats.c.quiet_start, chats.c.quiet_end, chats.c.utc_offset_minutes
        ).where(chats.c.id.in_(chat_ids), chats.c.quiet_start.is_not(None), chats.c.quiet_end.is_not(None))
        for chat in conn.execute(query):
            quiet[chat.id] = pacing.QuietHours(chat.quiet_start, chat.quiet_end, chat.utc_offset_minutes)
        changes = []
        for r in simple:
            step = _next_reminder(
                r.id,
                r.version,
                r.settings,
                r.turn_started_at,
                r.nudges_sent,
                r.deadline_at,
                movers.get((r.id, r.current_seat)),
                quiet.get(r.chat_id),
                now,
                custom_pace,
                decided,
            )
            changes.append(
                {
                    "b_id": r.id,
                    "b_version": r.version,
                    "b_sent": r.nudges_sent,
                    "v_sent": step.sent_after,
                    "v_next": step.next_at,
                    "v_wake": pacing.earliest(step.next_at, r.deadline_at),
                }
            )
        conn.execute(
            update(table)
            .where(
                c.id == bindparam("b_id"),
                c.version == bindparam("b_version"),
                c.nudges_sent == bindparam("b_sent"),
            )
            .values(
                nudges_sent=bindparam("v_sent"),
                next_nudge_at=bindparam("v_next"),
                wake_at=bindparam("v_wake"),
            ),
            changes,
        )
        decided.examined += len(simple)
    report.merge(decided)
    return rest


def _deadline(
    session: Session, game: Game, now: datetime, custom_pace: pacing.Pace | None, report: SweepReport
) -> None:
    """The idle default is played for the seat; two in a row mark the player away."""
    assert game.id is not None
    ctx = games.load_context(session, game.id, game)
    state = ctx.state
    assert state is not None
    previous_board = game.board_message_id
    result = PlayResult(ctx)
    seat = ctx.seats[state.current]
    if not seat.autoplayed:
        action = engine.default_action(state, seat.seat)
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
        seats = [replace(s, away=player.away) if s.seat == seat.seat else s for s in ctx.seats]
        after = outcome.after
        if after.is_over or not seats[after.current].autoplayed:
            # The common case: a human who waits is to move next, nothing else to play;
            # the context for the announcement is known without reading it back.
            result.ctx = replace(ctx, game=game, seats=seats, state=after)
            result.ended = after.is_over
            report.plays.append((result, previous_board))
            return
    # Computers, and seats that left or are away, play at once; with no active human left
    # the game ends as abandoned (scores kept in the state).
    games.autoplay(session, game, result, now, custom_pace)
    if not result.outcomes and not result.abandoned:
        # Nothing could be played (should not happen): look again after a fresh turn clock.
        games.schedule_turn(session, game, state, now, custom_pace)
        session.add(game)
        return
    result.ctx = games.load_context(session, game.id, game)
    result.ended = result.ctx.state is not None and result.ctx.state.is_over
    report.plays.append((result, previous_board))
