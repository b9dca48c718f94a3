"""People and chats as the bot knows them: names, languages, whether it may write to them.

Rows are created on first sight. Two instances creating the same row at once both succeed:
PostgreSQL's ``ON CONFLICT DO NOTHING`` waits for the other insert instead of failing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import bindparam, func, or_, update
from sqlalchemy import select as sa_select
from sqlmodel import Session, col, select

from ..i18n import normalize
from ..store.db import is_postgres
from ..store.models import Chat, User
from ..store.upsert import Insert, built_once
from .env import Env


@dataclass(frozen=True)
class Person:
    """The few facts about a Telegram user the services need (parsed by the handlers)."""

    id: int
    first_name: str
    username: str | None = None
    language_code: str | None = None


def _insert_if_missing(session: Session, model: type[User] | type[Chat], key: int, env: Env) -> None:
    if is_postgres(session):
        from sqlalchemy.dialects.postgresql import insert

        statement = (
            insert(model).values(id=key, created_at=env.now).on_conflict_do_nothing(index_elements=["id"])
        )
        session.execute(statement)


def upsert_user(session: Session, person: Person, env: Env, can_dm: bool | None = None) -> User:
    user = session.get(User, person.id)
    if user is None:
        _insert_if_missing(session, User, person.id, env)
        user = session.get(User, person.id) or User(id=person.id, created_at=env.now)
    user.first_name = person.first_name[:128]
    user.username = person.username
    if person.language_code:
        user.tg_language = person.language_code[:16]
    if can_dm is not None:
        user.can_dm = can_dm
    session.add(user)
    return user


_USERS: Any = User.__table__  # type: ignore[attr-defined]


def note_user(session: Session, person: Person, env: Env) -> None:
    """`upsert_user` for the callers that need no `User` object (a lobby key, /newgame): one
    statement where the ORM took a read, and for someone new an insert and a second read. The
    upsert writes the row only when a name or the language changed: without that condition
    PostgreSQL would leave a dead row version behind on every lobby tap."""
    session.execute(
        _NOTE_USER(session),
        {
            "id": person.id,
            "first_name": person.first_name[:128],
            "username": person.username,
            "tg_language": person.language_code[:16] if person.language_code else None,
            "created_at": env.now,
        },
    )


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


#: Built once, on the table: asked on most taps that are not a game's.
_LANGUAGE = sa_select(_USERS.c.language, _USERS.c.tg_language).where(_USERS.c.id == bindparam("user_id"))


def language_of(session: Session, user_id: int, fallback: str | None) -> str:
    """A person's language for popups and private messages: their /language, else Telegram's."""
    row = session.execute(_LANGUAGE, {"user_id": user_id}).first()
    if row is None:
        return normalize(fallback)
    return normalize(row[0] or row[1] or fallback)


def upsert_chat(session: Session, chat_id: int, title: str | None, env: Env) -> Chat:
    chat = session.get(Chat, chat_id)
    if chat is None:
        _insert_if_missing(session, Chat, chat_id, env)
        chat = session.get(Chat, chat_id) or Chat(id=chat_id, created_at=env.now)
    if title:
        chat.title = title[:128]
    session.add(chat)
    return chat


def lock_chat(session: Session, chat_id: int, env: Env) -> Chat:
    """The chat row, locked until the transaction ends (PostgreSQL): chat-wide decisions such as
    "one game per topic" are taken one instance at a time."""
    chat = upsert_chat(session, chat_id, None, env)
    if is_postgres(session):
        session.flush()
        session.exec(select(Chat.id).where(Chat.id == chat_id).with_for_update()).first()
    return chat


def chat_language(session: Session, chat_id: int, fallback: str) -> str:
    chat = session.get(Chat, chat_id)
    return chat.language if chat is not None and chat.language else fallback


def set_can_dm(session: Session, user_id: int, can_dm: bool) -> None:
    session.execute(update(User).where(col(User.id) == user_id).values(can_dm=can_dm))


def bot_is_here(session: Session, chat_id: int) -> None:
    """A command from the chat proves the bot is in it."""
    chat = session.get(Chat, chat_id)
    if chat is not None and chat.bot_removed:
        chat.bot_removed = False
        session.add(chat)
