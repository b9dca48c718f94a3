"""People (`users`) and chats (`chats`) as rows: created on first sight, read for their language
and reach, locked for chat-wide decisions.

Two instances creating the same row at once both succeed: PostgreSQL's ``ON CONFLICT DO
NOTHING`` waits for the other insert instead of failing.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, func, or_, update
from sqlalchemy import select as sa_select
from sqlmodel import Session, col, select

from .db import is_postgres
from .models import Chat, User
from .upsert import Insert, built_once

_USERS: Any = User.__table__  # type: ignore[attr-defined]


def insert_if_missing(session: Session, model: type[User] | type[Chat], key: int, now: datetime) -> None:
    """On PostgreSQL, the row `key` exists after this (made now unless another made it)."""
    if is_postgres(session):
        from sqlalchemy.dialects.postgresql import insert

        statement = insert(model).values(id=key, created_at=now).on_conflict_do_nothing(index_elements=["id"])
        session.execute(statement)


def user(session: Session, user_id: int) -> User | None:
    return session.get(User, user_id)


def chat(session: Session, chat_id: int) -> Chat | None:
    return session.get(Chat, chat_id)


def chats(session: Session, chat_ids: Iterable[int]) -> dict[int, Chat]:
    """The chats among `chat_ids` that have a row, by id."""
    return {c.id: c for c in session.exec(select(Chat).where(col(Chat.id).in_(chat_ids))).all()}


def save(session: Session, row: User | Chat) -> None:
    """A person's or chat's changes, written with the transaction's other writes."""
    session.add(row)


def write(session: Session, row: User | Chat) -> None:
    """A person's or chat's changes written now: a read after this one sees them."""
    session.add(row)
    session.flush()


def _note_user(insert: Insert) -> Any:
    columns = ("id", "first_name", "username", "tg_language", "created_at")
    inserted = insert(_USERS).values({c: bindparam(c) for c in columns})
    new = inserted.excluded
    users = _USERS.c
    language = func.coalesce(new.tg_language, users.tg_language)
    return inserted.on_conflict_do_update(
        index_elements=["id"],
        set_={"first_name": new.first_name, "username": new.username, "tg_language": language},
        where=or_(
            users.first_name.is_distinct_from(new.first_name),
            users.username.is_distinct_from(new.username),
            users.tg_language.is_distinct_from(language),
        ),
    )


_NOTE_USER = built_once(_note_user)


def note_user(
    session: Session,
    user_id: int,
    first_name: str,
    username: str | None,
    tg_language: str | None,
    now: datetime,
) -> None:
    """A person's name and Telegram language, in one upsert that writes the row only when a name
    or the language changed: without that condition PostgreSQL would leave a dead row version
    behind on every lobby tap."""
    session.execute(
        _NOTE_USER(session),
        {
            "id": user_id,
            "first_name": first_name,
            "username": username,
            "tg_language": tg_language,
            "created_at": now,
        },
    )


#: Built once, on the table: asked on most taps that are not a game's.
_LANGUAGE = sa_select(_USERS.c.language, _USERS.c.tg_language).where(_USERS.c.id == bindparam("user_id"))


def languages_of(session: Session, user_id: int) -> Any:
    """(the person's /language, their Telegram's), or None when the bot does not know them."""
    return session.execute(_LANGUAGE, {"user_id": user_id}).first()


def lock_chat(session: Session, chat_id: int) -> None:
    """On PostgreSQL, the chat's row (written first) locked until the transaction ends."""
    if is_postgres(session):
        session.flush()
        session.exec(select(Chat.id).where(Chat.id == chat_id).with_for_update()).first()


def set_can_dm(session: Session, user_id: int, can_dm: bool) -> None:
    session.execute(update(User).where(col(User.id) == user_id).values(can_dm=can_dm))


def can_dm_of(session: Session, user_id: int) -> Any:
    """(whether the bot may write to the person,), or None when it does not know them."""
    return session.execute(sa_select(col(User.can_dm)).where(col(User.id) == user_id)).first()
