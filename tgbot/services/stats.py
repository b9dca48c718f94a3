"""Per-group statistics: updated once when a game ends, in the transaction that ends it.

What counts (docs/playing.md, "Stats, history and computer players"):

* A **finished** game counts for every seat: games +1, wins +1 for each seat
  with the top total (a shared win is a win for each), the finished rounds,
  the points of those rounds (the final totals), the TWEAKs made and the
  [T!] cards played.
* An **abandoned** game (every person left or is away) counts as played and
  won by nobody, with the rounds finished so far: leaving is no way to dodge
  a loss.
* **Cancelled** games (an admin decision) and expired lobbies never count.
* People are counted per user in `player_stats`; computer seats never enter a
  person's numbers and are counted apart, per difficulty, in `computer_stats`.
  A seat that a person left (played by the idle default afterwards) still
  counts for that person.
* A **practice** game (the bot's private chat: a person against computers) is
  no group's: it enters neither table, so it never shows in a group's /top nor
  in a person's totals over their groups. It counts in `practice_stats`, per
  person and computer level: played, and won if the person won (a shared win
  too), once for each level that sat at the table.

TWEAKs and [T!] plays are read from the events stored with each move (what the
engine's `apply` reported), so a game's end is a read, not a replay. Moves logged
before events were stored are replayed with the engine instead (seed + codes).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from sqlalchemy import func
from sqlmodel import Session, SQLModel, col, select

import engine
from engine import EngineError, GameState
from engine.ai import ALIASES, LEVELS
from engine.events import Event, load_events
from engine.tally import tally_events

from ..render.stats import PracticeLine, StatLine
from ..store import move_log
from ..store.models import (
    ABANDONED,
    FINISHED,
    ComputerStats,
    Game,
    GamePlayer,
    Move,
    PlayerStats,
    PracticeStats,
    User,
)
from ..store.upsert import insert_for
from .context import parse_state
from .tables import table_of_game

log = logging.getLogger("tweakbot.stats")

COUNTERS = ("games", "wins", "rounds", "points", "tweaks", "t_played")
LEADERBOARD_SIZE = 10


@dataclass(frozen=True)
class SeatTally:
    """What one seat of one game adds to its owner's totals."""

    seat: int
    user_id: int | None
    ai_level: str | None
    won: bool
    rounds: int
    points: int
    tweaks: int
    t_played: int


# --- counting -------------------------------------------------------------


def count_plays(
    config: engine.GameConfig, seed: int, moves: Sequence[tuple[int, str]]
) -> tuple[list[int], list[int]]:
    """TWEAKs and [T!] plays per seat, by replaying (seat, code) moves from the deal: only for
    games whose moves were logged before their events were stored."""
    state = engine.new_game(config, seed)
    events: list[Event] = []
    for seat, code in moves:
        state, found = engine.apply(state, seat, code)
        events.extend(found)
    tally = tally_events(config.players, events)
    return list(tally.tweaks), list(tally.t_played)


def game_moves(session: Session, game_id: int) -> list[Move]:
    """The engine moves of a game's log, in order (the `start:<seed>` entry left out)."""
    move_log.write_kept(session)  # the moves of the transaction that ends the game among them
    query = select(Move).where(Move.game_id == game_id, col(Move.seat).is_not(None)).order_by(col(Move.seq))
    return list(session.exec(query).all())


def _plays(session: Session, game: Game, state: GameState) -> tuple[list[int], list[int]]:
    assert game.id is not None
    logged = game_moves(session, game.id)
    if all(m.events is not None for m in logged):
        tally = tally_events(state.players, (e for m in logged for e in load_events(m.events or "[]")))
        return list(tally.tweaks), list(tally.t_played)
    moves = [(m.seat, m.code) for m in logged if m.seat is not None]
    return count_plays(state.config, game.seed, moves)


class Seat(Protocol):
    """Who sat in a seat: the transaction's own seats (`context.SeatInfo`) or the stored rows."""

    @property
    def seat(self) -> int: ...
    @property
    def user_id(self) -> int | None: ...
    @property
    def ai_level(self) -> str | None: ...


def tally_game(
    session: Session, game: Game, state: GameState, seats: Sequence[Seat] | None = None
) -> list[SeatTally]:
    """Each seat's contribution, from the final (or last) state and the move log; `seats` when
    the caller holds them already (read from the database otherwise)."""
    assert game.id is not None
    players = seats if seats is not None else _stored_seats(session, game)
    n = state.players
    try:
        tweaks, t_played = _plays(session, game, state)
    except EngineError as exc:  # a damaged log must not stop the game from ending
        log.warning("game %s: move log does not replay (%s); TWEAKs and [T!] not counted", game.id, exc)
        tweaks, t_played = [0] * n, [0] * n
    finished = state.is_over
    rounds = len(state.round_points)
    winners = set(state.winners) if finished else set()
    return [
        SeatTally(
            seat=p.seat,
            user_id=p.user_id,
            ai_level=p.ai_level,
            won=p.seat in winners,
            rounds=rounds,
            points=state.totals[p.seat],
            tweaks=tweaks[p.seat],
            t_played=t_played[p.seat],
        )
        for p in players
        if p.seat < n
    ]


def _stored_seats(session: Session, game: Game) -> Sequence[Seat]:
    return session.exec(
        select(GamePlayer).where(GamePlayer.game_id == game.id).order_by(col(GamePlayer.seat))
    ).all()


# --- writing --------------------------------------------------------------


def _upsert_add(
    session: Session, table: type[SQLModel], keys: dict[str, Any], add: dict[str, int], now: datetime
) -> None:
    """INSERT the row or add to its counters, atomically."""
    _add_all(session, table, tuple(keys), {tuple(keys.values()): add}, now)


def _read_then_add(
    session: Session, table: type[SQLModel], keys: dict[str, Any], add: dict[str, int], now: datetime
) -> None:
    """Databases without ON CONFLICT: read the row, then write it."""
    row = session.get(table, tuple(keys.values()))
    if row is None:
        session.add(table(**keys, **add, updated_at=now))
        return
    for name, amount in add.items():
        setattr(row, name, getattr(row, name) + amount)
    row.updated_at = now
    session.add(row)


def _counters(tally: SeatTally) -> dict[str, int]:
    return {
        "games": 1,
        "wins": int(tally.won),
        "rounds": tally.rounds,
        "points": tally.points,
        "tweaks": tally.tweaks,
        "t_played": tally.t_played,
    }


def record_game_end(
    session: Session,
    game: Game,
    state: GameState | None,
    now: datetime,
    seats: Sequence[Seat] | None = None,
) -> bool:
    """Add a game that just ended (finished or abandoned) to the group's stats.

    Call it in the transaction that ends the game, so the final move and the
    stats are committed together or not at all. Returns False when the game
    does not count (not started, or cancelled). The game row is not flushed here: its changes
    go out with the rest of the transaction's as one UPDATE (`moves.commit`).
    """
    if game.status not in (FINISHED, ABANDONED) or game.id is None:
        return False
    if state is None:
        if not game.state:
            return False
        state = parse_state(game.state)
    if table_of_game(game).in_players_chat:  # practice: counted apart, per computer level
        with session.no_autoflush:
            _add_all(
                session, PracticeStats, ("user_id", "level"), practice_tally(session, game, state, seats), now
            )
        return True
    computers: Sums = {}
    people: Sums = {}
    with session.no_autoflush:
        for tally in tally_game(session, game, state, seats):
            if tally.ai_level is not None:
                _sum_into(computers, (game.chat_id, tally.ai_level), _counters(tally))
            elif tally.user_id is not None:
                _sum_into(people, (game.chat_id, tally.user_id), _counters(tally))
        _add_all(session, ComputerStats, ("chat_id", "level"), computers, now)
        _add_all(session, PlayerStats, ("chat_id", "user_id"), people, now)
    return True


#: Counters to add, per row key (its key columns' values, in order).
Sums = dict[tuple[Any, ...], dict[str, int]]


def practice_tally(
    session: Session, game: Game, state: GameState, seats: Sequence[Seat] | None = None
) -> Sums:
    """What a practice game adds, per (person, computer level): a game, and a win when the
    person is among the winners of a finished game; once per level at the table."""
    players = seats if seats is not None else _stored_seats(session, game)
    winners = set(state.winners) if state.is_over else set()
    levels = sorted({ALIASES.get(p.ai_level, p.ai_level) for p in players if p.ai_level is not None})
    sums: Sums = {}
    for person in players:
        if person.user_id is None or person.ai_level is not None:
            continue
        for level in levels:
            _sum_into(sums, (person.user_id, level), {"games": 1, "wins": int(person.seat in winners)})
    return sums


def _sum_into(sums: Sums, key: tuple[Any, ...], add: dict[str, int]) -> None:
    """Two seats of one row (two computers of a level) add up before the row is written: one
    statement may not change a row twice."""
    known = sums.setdefault(key, dict.fromkeys(add, 0))
    for name, amount in add.items():
        known[name] += amount


def _add_all(
    session: Session, table: type[SQLModel], key_names: tuple[str, ...], sums: Sums, now: datetime
) -> None:
    """Each row INSERTed or added to its counters, atomically, every seat's row of a table in one
    statement (a multi-row ON CONFLICT on SQLite and PostgreSQL), not one per seat."""
    if not sums:
        return
    dialect = session.get_bind().dialect.name
    if dialect not in ("sqlite", "postgresql"):
        for key, add in sums.items():
            _read_then_add(session, table, dict(zip(key_names, key, strict=True)), add, now)
        return
    sa_table = table.__table__  # type: ignore[attr-defined]
    rows = [{**dict(zip(key_names, key, strict=True)), **add, "updated_at": now} for key, add in sums.items()]
    statement = insert_for(dialect)(sa_table).values(rows)
    counters = next(iter(sums.values()))
    statement = statement.on_conflict_do_update(
        index_elements=list(key_names),
        set_={
            **{name: sa_table.c[name] + statement.excluded[name] for name in counters},
            "updated_at": statement.excluded.updated_at,
        },
    )
    session.execute(statement)


def migrate_chat_stats(session: Session, old_id: int, new_id: int, now: datetime) -> None:
    """A group became a supergroup: its stats follow it to the new chat id (merged, idempotent)."""
    if old_id == new_id:
        return
    for table in (PlayerStats, ComputerStats):
        rows = session.exec(select(table).where(table.chat_id == old_id)).all()
        for row in rows:
            key_name = "user_id" if table is PlayerStats else "level"
            keys = {"chat_id": new_id, key_name: getattr(row, key_name)}
            _upsert_add(session, table, keys, {c: getattr(row, c) for c in COUNTERS}, now)
            session.delete(row)
    session.flush()


# --- reading --------------------------------------------------------------


def _line(key: str, name: str, row: Any) -> StatLine:
    return StatLine(key, name, *(int(getattr(row, c) or 0) for c in COUNTERS))


def user_stats(session: Session, chat_id: int | None, user_id: int) -> StatLine | None:
    """A person's totals in one group, or across every group when `chat_id` is None."""
    user = session.get(User, user_id)
    name = user.first_name if user is not None and user.first_name else str(user_id)
    if chat_id is not None:
        row = session.get(PlayerStats, (chat_id, user_id))
        return _line(str(user_id), name, row) if row is not None else None
    sums = [func.coalesce(func.sum(getattr(PlayerStats, c)), 0).label(c) for c in COUNTERS]
    total = session.exec(select(*sums).where(PlayerStats.user_id == user_id)).one()
    return _line(str(user_id), name, total) if total.games else None


def leaderboard(session: Session, chat_id: int, limit: int = LEADERBOARD_SIZE) -> list[StatLine]:
    """The group's people, by wins, then win rate, then points per round (then name, for a
    stable order among people who share a place)."""
    rows = session.exec(
        select(PlayerStats, User)
        .join(User, col(User.id) == col(PlayerStats.user_id), isouter=True)
        .where(PlayerStats.chat_id == chat_id, PlayerStats.games > 0)
    ).all()
    lines = [
        _line(str(row.user_id), user.first_name if user and user.first_name else str(row.user_id), row)
        for row, user in rows
    ]
    lines.sort(key=lambda s: (-s.wins, -s.win_rate, -s.points_per_round, s.name.lower()))
    return lines[:limit]


LEVEL_ORDER = LEVELS


def practice_lines(session: Session, user_id: int) -> list[PracticeLine]:
    """A person's practice games per computer level, easiest first."""
    rows = session.exec(select(PracticeStats).where(PracticeStats.user_id == user_id)).all()
    found = {r.level: r for r in rows if r.games > 0}
    order = [*(level for level in LEVEL_ORDER if level in found), *sorted(set(found) - set(LEVEL_ORDER))]
    return [PracticeLine(level, found[level].games, found[level].wins) for level in order]


def computer_lines(session: Session, chat_id: int) -> list[StatLine]:
    rows = session.exec(select(ComputerStats).where(ComputerStats.chat_id == chat_id)).all()
    found = {r.level: r for r in rows if r.games > 0}
    return [_line(level, level, found[level]) for level in LEVEL_ORDER if level in found] + [
        _line(level, level, row) for level, row in sorted(found.items()) if level not in LEVEL_ORDER
    ]
