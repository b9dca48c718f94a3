"""When a chat was last told something that needs saying only once in a while (`models.Notice`).

`claim` decides and records in one statement, so two instances (or two threads) answering the
same burst at the same moment never both say it: an insert that, for a key said before, only
moves its time on when the window has passed, and returns the row only when it did.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import bindparam, delete
from sqlmodel import Session

from .models import Notice
from .once_keys import NoticeKey
from .upsert import Insert, built_once

_NOTICES: Any = Notice.__table__  # type: ignore[attr-defined]


def _claim(insert: Insert) -> Any:
    statement = insert(_NOTICES).values(
        chat_id=bindparam("chat_id"), key=bindparam("key"), said_at=bindparam("now")
    )
    return statement.on_conflict_do_update(
        index_elements=["chat_id", "key"],
        set_={"said_at": statement.excluded.said_at},
        where=_NOTICES.c.said_at <= bindparam("since"),
    ).returning(_NOTICES.c.key)


_CLAIM = built_once(_claim)


def claim(session: Session, chat_id: int, key: NoticeKey, now: datetime, window: timedelta) -> bool:
    """True, and `key` noted as said now in the chat, unless it was said there within `window`."""
    found = session.execute(
        _CLAIM(session), {"chat_id": chat_id, "key": key, "now": now, "since": now - window}
    )
    return found.first() is not None


def forget_before(session: Session, moment: datetime) -> None:
    """Notices said before `moment` are forgotten (their windows are minutes: a chat, a person
    or a game of long ago keeps no row)."""
    session.execute(delete(_NOTICES).where(_NOTICES.c.said_at < moment))
