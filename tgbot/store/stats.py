"""The stats tables (`player_stats`, `computer_stats`, `practice_stats`): counters added to when a
game ends, every seat's row of a table in one statement, and read for /stats and /top.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import func
from sqlmodel import Session, SQLModel, col, select

from .models import ComputerStats, PlayerStats, PracticeStats, User
from .upsert import insert_for

COUNTERS = ("games", "wins", "rounds", "points", "tweaks", "t_played")

#: Counters to add, per row key (its key columns' values, in order).
Sums = dict[tuple[Any, ...], dict[str, int]]


def add_to(
    session: Session, table: type[SQLModel], keys: dict[str, Any], add: dict[str, int], now: datetime
) -> None:
    """INSERT the row or add to its counters, atomically."""
    add_all(session, table, tuple(keys), {tuple(keys.values()): add}, now)


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


def add_all(
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


def move_chat(session: Session, old_id: int, new_id: int, now: datetime) -> None:
    """A chat's people's and computers' counters added to `new_id`'s and gone from `old_id`."""
    for table in (PlayerStats, ComputerStats):
        rows = session.exec(select(table).where(table.chat_id == old_id)).all()
        for row in rows:
            key_name = "user_id" if table is PlayerStats else "level"
            keys = {"chat_id": new_id, key_name: getattr(row, key_name)}
            add_to(session, table, keys, {c: getattr(row, c) for c in COUNTERS}, now)
            session.delete(row)
    session.flush()


def of_person_in(session: Session, chat_id: int, user_id: int) -> PlayerStats | None:
    return session.get(PlayerStats, (chat_id, user_id))


def person_totals(session: Session, user_id: int) -> Any:
    """A person's counters summed over every group (0 where they have none)."""
    sums = [func.coalesce(func.sum(getattr(PlayerStats, c)), 0).label(c) for c in COUNTERS]
    return session.exec(select(*sums).where(PlayerStats.user_id == user_id)).one()


def people_of(session: Session, chat_id: int) -> Sequence[tuple[PlayerStats, User | None]]:
    """A group's people who played there, with their user rows."""
    return session.exec(
        select(PlayerStats, User)
        .join(User, col(User.id) == col(PlayerStats.user_id), isouter=True)
        .where(PlayerStats.chat_id == chat_id, PlayerStats.games > 0)
    ).all()


def practice_of(session: Session, user_id: int) -> Sequence[PracticeStats]:
    return session.exec(select(PracticeStats).where(PracticeStats.user_id == user_id)).all()


def computers_of(session: Session, chat_id: int) -> Sequence[ComputerStats]:
    return session.exec(select(ComputerStats).where(ComputerStats.chat_id == chat_id)).all()
