"""SQLAlchemy Core handles on the tables, for the paths that run on every tap and sweep.

The ORM's unit of work (identity map, change tracking, flush) costs far more than the few
statements a move needs, so the hot paths read rows with Core statements built once at import
and write with plain `UPDATE`/`INSERT`s. The game row they read is handed on as a *detached*
`Game` (`detached_game`): callers keep reading its attributes as before, and what a service
writes to the database it also sets on that object with `set_committed` (no pending change is
left behind for a flush to write a second time).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from sqlalchemy import Executable, Table
from sqlalchemy.orm import Session, class_mapper, make_transient_to_detached
from sqlalchemy.orm.attributes import set_committed_value

from .models import Chat, Game, GamePlayer, Move, User

GAMES: Table = Game.__table__  # type: ignore[attr-defined]
PLAYERS: Table = GamePlayer.__table__  # type: ignore[attr-defined]
USERS: Table = User.__table__  # type: ignore[attr-defined]
CHATS: Table = Chat.__table__  # type: ignore[attr-defined]
MOVES: Table = Move.__table__  # type: ignore[attr-defined]

#: The games table's column names, in table order (== the `Game` attribute names).
GAME_COLUMNS: tuple[str, ...] = tuple(column.key for column in GAMES.columns)

_GAME_MANAGER = class_mapper(Game).class_manager


def detached_game(values: Mapping[str, Any]) -> Game:
    """A `Game` holding a row read with Core, as if the ORM had loaded it and its session closed.

    Detached rather than transient: should anyone `session.add` it, the ORM treats it as the
    existing row (an UPDATE of what changed), never as a new one.
    """
    game: Game = _GAME_MANAGER.new_instance()
    game.__dict__.update(values)
    make_transient_to_detached(game)
    return game


def set_committed(obj: object, values: Mapping[str, Any]) -> None:
    """Set attributes that the database already holds (written with Core) without marking them
    changed, so a later flush of an attached object does not write them again."""
    for key, value in values.items():
        set_committed_value(obj, key, value)


# --- writes gathered for one executemany ------------------------------------------------------

_DEFERRED = "tweakbot.deferred_writes"  # Session.info key: statement -> parameter sets


@contextmanager
def gathered_writes(session: Session) -> Iterator[None]:
    """Within the block, `write_later` statements (the move log, timeout counts) are kept and
    run as one `executemany` per statement when it ends (in the same transaction), or sooner when
    something is about to read them (`write_gathered`: the stats at a game's end, a context load).

    For the sweep's batches: one statement per row was most of a deadline's database time. Only
    statements that nothing else in the batch depends on go through here; the compare-and-set
    on the game row is never deferred.
    """
    session.info[_DEFERRED] = {}
    try:
        yield
        write_gathered(session)
    finally:
        session.info.pop(_DEFERRED, None)


def write_later(session: Session, statement: Executable, params: dict[str, Any]) -> None:
    """Run `statement` now, or at the end of the `gathered_writes` block around it."""
    pending: dict[Executable, list[dict[str, Any]]] | None = session.info.get(_DEFERRED)
    if pending is None:
        session.connection().execute(statement, params)
    else:
        pending.setdefault(statement, []).append(params)


def write_gathered(session: Session) -> None:
    """Run what `write_later` kept so far (before reading what it writes)."""
    pending: dict[Executable, list[dict[str, Any]]] | None = session.info.get(_DEFERRED)
    if not pending:
        return
    conn = session.connection()
    for statement, rows in list(pending.items()):
        conn.execute(statement, rows)
    pending.clear()
