"""A basic group that became a supergroup: the rows keyed by its old id follow it to the new one."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from sqlalchemy import delete, insert, update
from sqlalchemy import select as core_select
from sqlmodel import Session, SQLModel, col, select

from .models import OutboxRow


def move_rows(session: Session, old_id: int, new_id: int) -> None:
    """Rows keyed by the chat (other than stats, `stats.move_chat`) follow it; counters meeting
    an existing row add up. Generic over every table with a `chat_id` primary-key column."""
    skip = {"chats", "player_stats", "computer_stats", "shown_messages", "delivery_chats"}
    for table in SQLModel.metadata.sorted_tables:
        chat_col = table.c.get("chat_id")
        if table.name in skip or chat_col is None or not chat_col.primary_key:
            continue
        keys = [c for c in table.primary_key.columns if c.name != "chat_id"]
        for old_row in session.execute(core_select(table).where(chat_col == old_id)).mappings().all():
            same = [c == old_row[c.name] for c in keys]
            existing = session.execute(core_select(table).where(chat_col == new_id, *same)).mappings().first()
            if existing is None:
                session.execute(insert(table).values({**old_row, "chat_id": new_id}))
            else:
                merged: dict[str, object] = {}
                for column in table.columns:
                    if column.primary_key:
                        continue
                    mine, theirs = existing[column.name], old_row[column.name]
                    if isinstance(mine, datetime) and isinstance(theirs, datetime):
                        merged[column.name] = max(mine, theirs)
                if merged:
                    session.execute(update(table).where(chat_col == new_id, *same).values(merged))
            session.execute(delete(table).where(chat_col == old_id, *same))


def waiting_surfaces(session: Session, chat_id: int) -> Iterable[OutboxRow]:
    """The chat's outbox rows that wait to show a surface (a board, a lobby, a panel)."""
    return session.exec(
        select(OutboxRow).where(OutboxRow.chat_id == chat_id, col(OutboxRow.surface).is_not(None))
    )


def drop_waiting(session: Session, row: OutboxRow) -> None:
    session.delete(row)


def keep_waiting(session: Session, row: OutboxRow) -> None:
    """The row's change (its payload, its surface) is kept."""
    session.add(row)
