"""The sweep: find games whose time has come and decide what happens.

Runs as one repeating job (PTB JobQueue, `tgbot.scheduler.run_sweep`). It reads
due rows by `wake_at` (indexed: `due_query`), then

* `remind_many`: every due game that only needs a reminder, decided and written
  together in one short transaction (the busy case);
* `sweep_many`: the other due games (deadline, lobby expiry, pause expiry), a
  batch of them in one transaction, each decided by `_handle` as on its own;
* `sweep_game`: one game in a transaction of its own (what `sweep_many` falls
  back to when its batch fails, so one broken game never holds up the others).

Rows are claimed with `FOR UPDATE SKIP LOCKED` on PostgreSQL, so two bot
instances never handle the same game at once; on SQLite the claim's first
statement takes the database's write lock. Moves still go through the version
compare-and-set, each atomic with its move log entry, the player's timeout
count and (at a game's end) the stats, so a tap racing the sweep applies once.
Everything here reads and writes with Core statements (`tgbot.store.core`):
the ORM's per-object bookkeeping was most of the cost of a deadline.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from datetime import datetime
from functools import lru_cache

from sqlalchemy import and_, bindparam, update
from sqlalchemy import select as core_select
from sqlalchemy.engine import Connection, Engine
from sqlmodel import Session, col, select
from sqlmodel.sql.expression import SelectOfScalar

import engine

from ..store.core import CHATS, GAME_COLUMNS, GAMES, PLAYERS, USERS, detached_game, gathered_writes
from ..store.db import session_scope
from ..store.models import EXPIRED, LOBBY, PAUSED, PLAYING, Game
from . import games, pacing
from .context import GameContext, SeatInfo
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


_DUE = (GAMES.c.id.in_(bindparam("b_ids", expanding=True)), GAMES.c.wake_at <= bindparam("b_now"))
# SQLite: any write takes the database's write lock until the transaction ends, so one
# one-row no-op UPDATE makes the rows read next current until commit (no other writer
# can change them meanwhile), without rewriting every claimed row and its index entry.
_TAKE_LOCK = update(GAMES).where(GAMES.c.id == bindparam("b_first")).values(wake_at=GAMES.c.wake_at)
_SELECT_DUE = core_select(*GAMES.columns).where(*_DUE)
_SELECT_DUE_LOCKED = _SELECT_DUE.with_for_update(skip_locked=True)


def take_write_lock(conn: Connection, game_ids: list[int]) -> None:
    """SQLite: hold the write lock from here to the end of the transaction."""
    if conn.dialect.name == "sqlite" and game_ids:
        conn.execute(_TAKE_LOCK, {"b_first": game_ids[0]})


def _claim(session: Session, game_id: int, now: datetime) -> Game | None:
    """Take one due game for this transaction; None when someone else has it or it is not due.

    PostgreSQL: `SELECT ... FOR UPDATE SKIP LOCKED`, so two bot instances never
    handle one game at once and neither waits for the other. SQLite has one
    writer at a time: a no-op `UPDATE` first takes its write lock, so the row
    read next stays current until this transaction commits (a tap from another
    process waits, then loses its compare-and-set).
    """
    claimed = claim_due(session, [game_id], now)
    return claimed[0] if claimed else None


def claim_due(session: Session, game_ids: list[int], now: datetime) -> list[Game]:
    """`_claim` for several games in one statement; the claimed ones in the order of `game_ids`.

    The games come back detached (`store.core.detached_game`): `_handle` writes with Core
    and sets what it wrote on them.
    """
    session.flush()
    conn = session.connection()
    take_write_lock(conn, game_ids)
    query = _SELECT_DUE_LOCKED if conn.dialect.name == "postgresql" else _SELECT_DUE
    rows = conn.execute(query, {"b_ids": list(game_ids), "b_now": now}).all()
    order = {game_id: i for i, game_id in enumerate(game_ids)}
    claimed = [detached_game(dict(zip(GAME_COLUMNS, row, strict=False))) for row in rows]
    claimed.sort(key=lambda game: order.get(game.id or 0, 0))
    return claimed


@dataclass
class _Prefetched:
    """What `_handle` needs besides the game rows, read for a whole batch at once."""

    seats: dict[int, list[SeatInfo]] = field(default_factory=dict)
    chats: dict[int, tuple[str, pacing.QuietHours | None]] = field(default_factory=dict)


_CHATS_OF = core_select(
    CHATS.c.id, CHATS.c.title, CHATS.c.quiet_start, CHATS.c.quiet_end, CHATS.c.utc_offset_minutes
).where(CHATS.c.id.in_(bindparam("b_ids", expanding=True)))


def _prefetch(session: Session, claimed: Iterable[Game]) -> _Prefetched:
    """The seats of the games in play and the titles and quiet hours of their chats."""
    found = _Prefetched()
    playing = [g for g in claimed if g.status in (PLAYING, PAUSED) and g.id is not None]
    if not playing:
        return found
    conn = session.connection()
    for row in conn.execute(games.SEATS_OF_GAMES, {"game_ids": [g.id for g in playing]}):
        found.seats.setdefault(row.game_id, []).append(games.seat_from_row(row))
    chat_ids = sorted({g.chat_id for g in playing})
    for chat in conn.execute(_CHATS_OF, {"b_ids": chat_ids}):
        found.chats[chat.id] = (
            chat.title or "",
            games.quiet_of(chat.quiet_start, chat.quiet_end, chat.utc_offset_minutes),
        )
    return found


def _chat_of(
    session: Session, game: Game, prefetched: _Prefetched | None
) -> tuple[str, pacing.QuietHours | None]:
    if prefetched is not None and game.id in prefetched.seats:
        return prefetched.chats.get(game.chat_id, ("", None))
    return games._chat_facts(session.connection(), game.chat_id)


def _context(session: Session, game: Game, prefetched: _Prefetched | None) -> GameContext:
    """The claimed game with its seats (prefetched in a batch, else read now)."""
    assert game.id is not None
    if prefetched is not None and game.id in prefetched.seats:
        title, quiet = prefetched.chats.get(game.chat_id, ("", None))
        return games.build_context(game, prefetched.seats[game.id], title, quiet)
    return games.load_context(session, game.id, game)


def sweep_many(
    db: Engine, game_ids: list[int], now: datetime, custom_pace: pacing.Pace | None
) -> dict[int, SweepReport]:
    """Handle several due games in one transaction: what `sweep_game` does for each, together.

    Claims them in one statement (games another instance holds, or no longer due, are left
    out), reads their seats and chats in one query each, then `_handle`s each one exactly as
    `sweep_game` would. Each game's move is still a compare-and-set atomic with its move log,
    timeout count and stats, since the batch commits as one. Returns a report per handled game,
    merged by the caller once the batch committed. Raises when anything fails (the batch is
    rolled back, nothing was done): the caller then sweeps the games one by one, so a broken
    game only holds up itself.
    """
    if not game_ids:
        return {}
    reports: dict[int, SweepReport] = {}
    with session_scope(db) as session, gathered_writes(session):
        claimed = claim_due(session, game_ids, now)
        prefetched = _prefetch(session, claimed)
        for game in claimed:
            assert game.id is not None
            report = SweepReport()
            _handle(session, game, now, custom_pace, report, prefetched)
            reports[game.id] = report
    return reports


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
    session: Session,
    game: Game,
    now: datetime,
    custom_pace: pacing.Pace | None,
    report: SweepReport,
    prefetched: _Prefetched | None = None,
) -> None:
    report.examined += 1
    if game.status == LOBBY:
        games.write_game(
            session, game, {"status": EXPIRED, "finished_at": now, "updated_at": now, "wake_at": None}
        )
        report.expired_lobbies.append(game)
        return
    if game.status == PAUSED:  # paused_until None: held with no end (the bot was removed)
        if game.paused_until is not None and game.paused_until <= now:
            _resume(session, game, now, custom_pace, prefetched)
            assert game.id is not None
            report.resumed.append(game.id)
        else:
            games.write_game(session, game, {"wake_at": game.paused_until})
        return
    if game.status != PLAYING or game.state is None:
        games.write_game(session, game, {"wake_at": None})
        return
    if game.deadline_at is not None and game.deadline_at <= now:
        _deadline(session, game, now, custom_pace, report, prefetched)
    elif game.next_nudge_at is not None and game.next_nudge_at <= now:
        _remind(session, game, now, custom_pace, report, prefetched)
    else:
        games.write_game(session, game, {"wake_at": pacing.earliest(game.next_nudge_at, game.deadline_at)})


def _resume(
    session: Session,
    game: Game,
    now: datetime,
    custom_pace: pacing.Pace | None,
    prefetched: _Prefetched | None,
) -> None:
    """The pause ran out: the game goes on with a fresh clock for the player to move."""
    state = games.parse_state(game.state)
    assert state is not None
    quiet = _chat_of(session, game, prefetched)[1]
    games.reschedule(
        session, game, state, now, custom_pace, quiet, status=PLAYING, paused_until=None, updated_at=now
    )


@dataclass(frozen=True)
class _Mover:
    """The player to move, as much as a reminder needs to know."""

    seat: int
    user_id: int | None
    waits: bool  # a human who is neither away nor gone: their turn waits for them
    can_dm: bool


_MOVER = (
    core_select(
        PLAYERS.c.seat, PLAYERS.c.user_id, PLAYERS.c.ai_level, PLAYERS.c.left, PLAYERS.c.away, USERS.c.can_dm
    )
    .select_from(PLAYERS.outerjoin(USERS, USERS.c.id == PLAYERS.c.user_id))
    .where(PLAYERS.c.game_id == bindparam("b_game"), PLAYERS.c.seat == bindparam("b_seat"))
)


def _current_seat(session: Session, game: Game, prefetched: _Prefetched | None = None) -> _Mover | None:
    """The player to move and whether the bot may write to them privately (without the state)."""
    if game.current_seat is None:
        return None
    if prefetched is not None and game.id in prefetched.seats:
        seat = next((s for s in prefetched.seats[game.id] if s.seat == game.current_seat), None)
        if seat is None:
            return None
        return _Mover(seat.seat, seat.user_id, not seat.autoplayed, seat.can_dm)
    row = session.connection().execute(_MOVER, {"b_game": game.id, "b_seat": game.current_seat}).first()
    if row is None:
        return None
    waits = row.ai_level is None and not row.left and not row.away
    return _Mover(row.seat, row.user_id, waits, bool(row.can_dm))


@lru_cache(maxsize=256)
def _pace_key(settings: str) -> str:
    """The pace of a game's settings JSON (a few distinct texts repeat over thousands of games)."""
    return GameSettings.from_json(settings).pace


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
    pace = pacing.resolve(_pace_key(settings), custom_pace)
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
    session: Session,
    game: Game,
    now: datetime,
    custom_pace: pacing.Pace | None,
    report: SweepReport,
    prefetched: _Prefetched | None = None,
) -> None:
    """The turn's next reminder (no engine state needed)."""
    assert game.id is not None
    quiet = _chat_of(session, game, prefetched)[1]
    step = _next_reminder(
        game.id,
        game.version,
        game.settings,
        game.turn_started_at,
        game.nudges_sent,
        game.deadline_at,
        _current_seat(session, game, prefetched),
        quiet,
        now,
        custom_pace,
        report,
    )
    games.write_game(
        session,
        game,
        {
            "nudges_sent": step.sent_after,
            "next_nudge_at": step.next_at,
            "wake_at": pacing.earliest(step.next_at, game.deadline_at),
        },
    )


_REMIND_COLUMNS = (
    GAMES.c.id,
    GAMES.c.status,
    GAMES.c.version,
    GAMES.c.chat_id,
    GAMES.c.settings,
    GAMES.c.current_seat,
    GAMES.c.turn_started_at,
    GAMES.c.next_nudge_at,
    GAMES.c.deadline_at,
    GAMES.c.nudges_sent,
    # the player to move (no row: nobody to remind) and the chat's quiet hours
    PLAYERS.c.seat,
    PLAYERS.c.user_id,
    PLAYERS.c.ai_level,
    PLAYERS.c.left,
    PLAYERS.c.away,
    USERS.c.can_dm,
    CHATS.c.quiet_start,
    CHATS.c.quiet_end,
    CHATS.c.utc_offset_minutes,
)
_REMIND_ROWS = (
    core_select(*_REMIND_COLUMNS)
    .select_from(
        GAMES.outerjoin(
            PLAYERS, and_(PLAYERS.c.game_id == GAMES.c.id, PLAYERS.c.seat == GAMES.c.current_seat)
        )
        .outerjoin(USERS, USERS.c.id == PLAYERS.c.user_id)
        .outerjoin(CHATS, CHATS.c.id == GAMES.c.chat_id)
    )
    .where(*_DUE)
)
_REMIND_ROWS_LOCKED = _REMIND_ROWS.with_for_update(of=GAMES, skip_locked=True)
_SET_REMINDER = (
    update(GAMES)
    .where(
        GAMES.c.id == bindparam("b_id"),
        GAMES.c.version == bindparam("b_version"),
        GAMES.c.nudges_sent == bindparam("b_sent"),
    )
    .values(
        nudges_sent=bindparam("v_sent"),
        next_nudge_at=bindparam("v_next"),
        wake_at=bindparam("v_wake"),
    )
)


def remind_many(
    db: Engine, game_ids: list[int], now: datetime, custom_pace: pacing.Pace | None, report: SweepReport
) -> list[int]:
    """Every due game that only needs a reminder, in one transaction of a few statements.

    Reminders are most of a busy sweep, and the per-game path spends its time in
    ORM round trips, so here the rows are claimed together (SQLite's write lock
    then one `SELECT`; one `SELECT ... FOR UPDATE OF games SKIP LOCKED` on
    PostgreSQL) with the player to move and the chat's quiet hours joined in, and
    the new clocks go back in one `executemany` (compare-and-set on version and
    reminder count). Returns the claimed games that need more than a reminder
    (deadline, lobby or pause expiry) for `sweep_many`; games another instance
    holds are in neither (they come back once it lets them go).
    """
    if not game_ids:
        return []
    decided = SweepReport()  # merged into `report` only once the transaction committed
    with session_scope(db) as session:
        conn = session.connection()
        take_write_lock(conn, game_ids)  # SQLite; PostgreSQL locks the rows it reads
        query = _REMIND_ROWS_LOCKED if conn.dialect.name == "postgresql" else _REMIND_ROWS
        rows = conn.execute(query, {"b_ids": list(game_ids), "b_now": now}).all()
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
        changes = []
        for r in simple:
            mover = None
            if r.seat is not None:
                waits = r.ai_level is None and not r.left and not r.away
                mover = _Mover(r.seat, r.user_id, waits, bool(r.can_dm))
            step = _next_reminder(
                r.id,
                r.version,
                r.settings,
                r.turn_started_at,
                r.nudges_sent,
                r.deadline_at,
                mover,
                games.quiet_of(r.quiet_start, r.quiet_end, r.utc_offset_minutes),
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
        conn.execute(_SET_REMINDER, changes)
        decided.examined += len(simple)
    report.merge(decided)
    return rest


def _deadline(
    session: Session,
    game: Game,
    now: datetime,
    custom_pace: pacing.Pace | None,
    report: SweepReport,
    prefetched: _Prefetched | None = None,
) -> None:
    """The idle default is played for the seat; two in a row mark the player away."""
    assert game.id is not None
    ctx = _context(session, game, prefetched)
    state = ctx.state
    assert state is not None
    previous_board = game.board_message_id
    result = PlayResult(ctx)
    seat = ctx.seats[state.current]
    if not seat.autoplayed:
        action = engine.default_action(state, seat.seat)
        outcome = games.commit_move(
            session, game, state, seat.seat, action, "idle", now, custom_pace, ctx.quiet
        )
        result.outcomes.append(outcome)
        timeouts = seat.timeouts + 1
        away = seat.away
        if timeouts >= AWAY_AFTER_TIMEOUTS and not away:
            away = True
            report.marked_away.append((game.id, seat.name))
        games.set_timeouts(session, game.id, seat.seat, timeouts, away)
        seats = [replace(s, timeouts=timeouts, away=away) if s.seat == seat.seat else s for s in ctx.seats]
        ctx = replace(ctx, seats=seats, state=outcome.after)
        after = outcome.after
        if after.is_over or not seats[after.current].autoplayed:
            # The common case: a human who waits is to move next, nothing else to play;
            # the context for the announcement is known without reading it back.
            result.ctx = ctx
            result.ended = after.is_over
            report.plays.append((result, previous_board))
            return
    # Computers, and seats that left or are away, play at once; with no active human left
    # the game ends as abandoned (scores kept in the state).
    result.ctx = games.autoplay(session, game, result, now, custom_pace, ctx)
    if not result.outcomes and not result.abandoned:
        # Nothing could be played (should not happen): look again after a fresh turn clock.
        games.reschedule(session, game, state, now, custom_pace, ctx.quiet)
        return
    result.ended = result.ctx.state is not None and result.ctx.state.is_over
    report.plays.append((result, previous_board))
