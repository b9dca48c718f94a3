"""The languages stored for users, cached in the process for a few seconds.

Every update needs the language of the user who sent it (popups, private messages), and it
rarely changes, so the stored pair (`/language` choice, Telegram's language) is kept here for
`TTL_SECONDS`. This process forgets a user's entry whenever it writes their row
(`games.upsert_user`, which `/language` goes through). Another bot instance sharing the database
may serve the old language for up to `TTL_SECONDS` after a change made here.

One cache per database engine: tests run many bots, each on a database of its own, in one process.
"""

from __future__ import annotations

import time
from typing import Any
from weakref import WeakKeyDictionary

from sqlalchemy import bindparam, event
from sqlalchemy import select as core_select
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.orm import Session

from ..store.core import USERS

TTL_SECONDS = 10.0
MAX_ENTRIES = 50_000  # a burst of new users never grows the cache without bound

Stored = tuple[str | None, str | None] | None  # (language, tg_language); None: no row for the user

_QUERY = core_select(USERS.c.language, USERS.c.tg_language).where(USERS.c.id == bindparam("user_id"))
_caches: WeakKeyDictionary[Engine, dict[int, tuple[float, Stored]]] = WeakKeyDictionary()
_WRITTEN = "tweakbot.users_written"  # Session.info key: users whose rows the session wrote


def _engine(bind: Any) -> Engine:
    return bind.engine if isinstance(bind, Connection) else bind  # type: ignore[no-any-return]


def stored(db: Engine, user_id: int) -> Stored:
    """The user's stored (language, tg_language), or None when the user has no row yet."""
    cache = _caches.get(db)
    if cache is None:
        cache = _caches.setdefault(db, {})
    now = time.monotonic()
    hit = cache.get(user_id)
    if hit is not None and hit[0] > now:
        return hit[1]
    with db.connect() as conn:
        row = conn.execute(_QUERY, {"user_id": user_id}).first()
    value: Stored = (row[0], row[1]) if row is not None else None
    if len(cache) >= MAX_ENTRIES:
        cache.clear()
    cache[user_id] = (now + TTL_SECONDS, value)
    return value


def forget(session: Session, user_id: int) -> None:
    """The user's row is being written in `session`: lookups read it again, now and once the
    session has committed (so no lookup in between can keep the old value)."""
    _drop(session.get_bind(), user_id)
    session.info.setdefault(_WRITTEN, set()).add(user_id)


def _drop(bind: Any, user_id: int) -> None:
    cache = _caches.get(_engine(bind))
    if cache is not None:
        cache.pop(user_id, None)


@event.listens_for(Session, "after_commit")
def _forget_written(session: Session) -> None:
    written = session.info.pop(_WRITTEN, None)
    if written:
        bind = session.get_bind()
        for user_id in written:
            _drop(bind, user_id)


@event.listens_for(Session, "after_soft_rollback")
def _nothing_written(session: Session, _previous_transaction: Any) -> None:
    session.info.pop(_WRITTEN, None)
