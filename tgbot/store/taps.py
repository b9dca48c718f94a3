"""The taps seen (`seen_taps`): a duplicate delivery of a tap is told by its key, and a thing
said once (a post's "elsewhere" notice) by a key of its own. Kept for a day (`forget_before`).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, delete
from sqlmodel import Session, col

from .models import SeenTap
from .upsert import Insert, built_once


def _seen(insert: Insert) -> Any:
    return (
        insert(SeenTap.__table__)  # type: ignore[attr-defined]
        .values(query_id=bindparam("query_id"), seen_at=bindparam("seen_at"))
        .on_conflict_do_nothing()
        .returning(col(SeenTap.query_id))
    )


#: The insert of `remember`, per dialect, built once (its values are bound when it runs): a
#: compose tap is cheap, and building the statement anew cost more CPU than running it. RETURNING,
#: not the row count: the drivers do not all report one for this statement.
_SEEN = built_once(_seen)


def remember(session: Session, key: str, now: datetime) -> bool:
    """Record `key` among the taps seen, in one statement (an insert that does nothing when the
    key is known); False when it was there already."""
    statement = _SEEN(session)
    found = session.execute(statement, {"query_id": key[:64], "seen_at": now})
    return found.first() is not None


def seen(session: Session, key: str) -> bool:
    """Whether `key` was recorded (and not yet forgotten)."""
    return session.get(SeenTap, key[:64]) is not None


def note_once(session: Session, key: str, now: datetime) -> bool:
    """Record `key` (at most 64 characters) through the session's rows; False when it was known
    already."""
    if session.get(SeenTap, key) is not None:
        return False
    session.add(SeenTap(query_id=key, seen_at=now))
    return True


def forget_before(session: Session, moment: datetime) -> None:
    session.execute(delete(SeenTap).where(col(SeenTap.seen_at) < moment))
