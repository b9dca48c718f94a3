"""What the bot did once and must not do again: every update it applied, and the few facts told
apart by what an update carries rather than by the update (a pick played, whichever of its two
updates came first; a note said once per turn).

Telegram delivers an update again when a webhook's answer did not reach it (to the same instance
or to another one, maybe while the first is still at work) and when a polling process stops
before its next getUpdates confirmed the offset (a kill, a crash). An update is recorded by its
id in the transaction of its effect (`services.call`), so its second arrival finds it and changes
nothing, and a transaction that failed recorded nothing. On PostgreSQL the second arrival's
insert waits for the first's transaction, then finds its row: two instances never both apply it.

One table (`models.SeenTap`, the keys as text), one statement to record and ask at once; the
sweep forgets what is older than a day, by an index on its time (Telegram keeps an update it could
not deliver for 24 hours).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, delete, select
from sqlmodel import Session

from .models import SeenTap
from .once_keys import SeenKey
from .upsert import Insert, built_once

_SEEN: Any = SeenTap.__table__  # type: ignore[attr-defined]
KEY_LENGTH = 64


def _first_time(insert: Insert) -> Any:
    return (
        insert(_SEEN)
        .values(query_id=bindparam("key"), seen_at=bindparam("now"))
        .on_conflict_do_nothing()
        .returning(_SEEN.c.query_id)
    )


#: Built once per dialect (a compose tap is cheap, and building the statement anew cost more CPU
#: than running it). RETURNING, not the row count: the drivers do not all report one for it.
_FIRST_TIME = built_once(_first_time)


def first_time(session: Session, key: SeenKey, now: datetime) -> bool:
    """Record `key`; False when it was recorded before. One statement: an insert that does
    nothing when the key is known."""
    found = session.execute(_FIRST_TIME(session), {"key": key[:KEY_LENGTH], "now": now})
    return found.first() is not None


def known(session: Session, key: SeenKey) -> bool:
    """Whether `key` was recorded (and not yet forgotten)."""
    found = session.execute(select(_SEEN.c.query_id).where(_SEEN.c.query_id == key[:KEY_LENGTH]))
    return found.first() is not None


def forget(session: Session, key: SeenKey) -> None:
    """`key` was recorded by a run that decided nothing (it needs to know more first): the run
    that decides records it again."""
    session.execute(delete(_SEEN).where(_SEEN.c.query_id == key[:KEY_LENGTH]))


def forget_before(session: Session, moment: datetime) -> None:
    session.execute(delete(_SEEN).where(_SEEN.c.seen_at < moment))
