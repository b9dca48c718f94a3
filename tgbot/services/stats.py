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

from sqlmodel import Session

import engine
from engine import EngineError, GameState
from engine.ai import ALIASES, LEVELS
from engine.events import Event, load_events
from engine.tally import tally_events

from ..render.stats import PracticeLine, StatLine
from ..store import db, move_log
from ..store import people as people_rows
from ..store import seats as seat_rows
from ..store import stats as stat_rows
from ..store.models import ABANDONED, FINISHED, ComputerStats, Game, Move, PlayerStats, PracticeStats
from ..store.stats import COUNTERS, Sums
from ..tables import TableKind, played_in
from .context import parse_state

log = logging.getLogger("tweakbot.stats")

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
    return move_log.engine_moves(session, game_id)  # the transaction's own moves among them


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
    return seat_rows.of_game(session, game.id)


# --- writing --------------------------------------------------------------


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
    if game.table_kind == TableKind.PRACTICE:  # practice: counted apart, per computer level
        with db.writes_held(session):
            stat_rows.add_all(
                session, PracticeStats, ("user_id", "level"), practice_tally(session, game, state, seats), now
            )
        return True
    computers: Sums = {}
    people: Sums = {}
    chat_id = played_in(game.chat_id, game.chat_instance)  # an inline game's chat, not its lobby
    with db.writes_held(session):
        for tally in tally_game(session, game, state, seats):
            if tally.ai_level is not None:
                _sum_into(computers, (chat_id, tally.ai_level), _counters(tally))
            elif tally.user_id is not None:
                _sum_into(people, (chat_id, tally.user_id), _counters(tally))
        stat_rows.add_all(session, ComputerStats, ("chat_id", "level"), computers, now)
        stat_rows.add_all(session, PlayerStats, ("chat_id", "user_id"), people, now)
    return True


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


def migrate_chat_stats(session: Session, old_id: int, new_id: int, now: datetime) -> None:
    """A group became a supergroup: its stats follow it to the new chat id (merged, idempotent)."""
    if old_id == new_id:
        return
    stat_rows.move_chat(session, old_id, new_id, now)


# --- reading --------------------------------------------------------------


def _line(key: str, name: str, row: Any) -> StatLine:
    return StatLine(key, name, *(int(getattr(row, c) or 0) for c in COUNTERS))


def user_stats(session: Session, chat_id: int | None, user_id: int) -> StatLine | None:
    """A person's totals in one group, or across every group when `chat_id` is None."""
    user = people_rows.user(session, user_id)
    name = user.first_name if user is not None and user.first_name else str(user_id)
    if chat_id is not None:
        row = stat_rows.of_person_in(session, chat_id, user_id)
        return _line(str(user_id), name, row) if row is not None else None
    total = stat_rows.person_totals(session, user_id)
    return _line(str(user_id), name, total) if total.games else None


def leaderboard(session: Session, chat_id: int, limit: int = LEADERBOARD_SIZE) -> list[StatLine]:
    """The group's people, by wins, then win rate, then points per round (then name, for a
    stable order among people who share a place)."""
    rows = stat_rows.people_of(session, chat_id)
    lines = [
        _line(str(row.user_id), user.first_name if user and user.first_name else str(row.user_id), row)
        for row, user in rows
    ]
    lines.sort(key=lambda s: (-s.wins, -s.win_rate, -s.points_per_round, s.name.lower()))
    return lines[:limit]


LEVEL_ORDER = LEVELS


def practice_lines(session: Session, user_id: int) -> list[PracticeLine]:
    """A person's practice games per computer level, easiest first."""
    rows = stat_rows.practice_of(session, user_id)
    found = {r.level: r for r in rows if r.games > 0}
    order = [*(level for level in LEVEL_ORDER if level in found), *sorted(set(found) - set(LEVEL_ORDER))]
    return [PracticeLine(level, found[level].games, found[level].wins) for level in order]


def computer_lines(session: Session, chat_id: int) -> list[StatLine]:
    rows = stat_rows.computers_of(session, chat_id)
    found = {r.level: r for r in rows if r.games > 0}
    return [_line(level, level, found[level]) for level in LEVEL_ORDER if level in found] + [
        _line(level, level, row) for level, row in sorted(found.items()) if level not in LEVEL_ORDER
    ]
