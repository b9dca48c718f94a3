"""People and chats as the bot knows them: names, languages, whether it may write to them.

Rows are created on first sight (`store.people`).
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlmodel import Session

from ..i18n import normalize
from ..store import people as people_rows
from ..store.models import Chat, User
from .env import Env


@dataclass(frozen=True)
class Person:
    """The few facts about a Telegram user the services need (parsed by the handlers)."""

    id: int
    first_name: str
    username: str | None = None
    language_code: str | None = None


def upsert_user(session: Session, person: Person, env: Env, can_dm: bool | None = None) -> User:
    user = people_rows.user(session, person.id)
    if user is None:
        people_rows.insert_if_missing(session, User, person.id, env.now)
        user = people_rows.user(session, person.id) or User(id=person.id, created_at=env.now)
    user.first_name = person.first_name[:128]
    user.username = person.username
    if person.language_code:
        user.tg_language = person.language_code[:16]
    if can_dm is not None:
        user.can_dm = can_dm
    people_rows.save(session, user)
    return user


def note_user(session: Session, person: Person, env: Env) -> None:
    """`upsert_user` for the callers that need no `User` object (a lobby key, /newgame): one
    statement where the ORM took a read, and for someone new an insert and a second read. The
    upsert writes the row only when a name or the language changed: without that condition
    PostgreSQL would leave a dead row version behind on every lobby tap."""
    people_rows.note_user(
        session,
        person.id,
        person.first_name[:128],
        person.username,
        person.language_code[:16] if person.language_code else None,
        env.now,
    )


def language_of(session: Session, user_id: int, fallback: str | None) -> str:
    """A person's language for popups and private messages: their /language, else Telegram's."""
    row = people_rows.languages_of(session, user_id)
    if row is None:
        return normalize(fallback)
    return normalize(row[0] or row[1] or fallback)


def upsert_chat(session: Session, chat_id: int, title: str | None, env: Env) -> Chat:
    chat = people_rows.chat(session, chat_id)
    if chat is None:
        people_rows.insert_if_missing(session, Chat, chat_id, env.now)
        chat = people_rows.chat(session, chat_id) or Chat(id=chat_id, created_at=env.now)
    if title:
        chat.title = title[:128]
    people_rows.save(session, chat)
    return chat


def lock_chat(session: Session, chat_id: int, env: Env) -> Chat:
    """The chat row, locked until the transaction ends (PostgreSQL): chat-wide decisions such as
    "one game per topic" are taken one instance at a time."""
    chat = upsert_chat(session, chat_id, None, env)
    people_rows.lock_chat(session, chat_id)
    return chat


def chat_language(session: Session, chat_id: int, fallback: str) -> str:
    chat = people_rows.chat(session, chat_id)
    return chat.language if chat is not None and chat.language else fallback


def set_can_dm(session: Session, user_id: int, can_dm: bool) -> None:
    people_rows.set_can_dm(session, user_id, can_dm)


def bot_is_here(session: Session, chat_id: int) -> None:
    """A command from the chat proves the bot is in it."""
    chat = people_rows.chat(session, chat_id)
    if chat is not None and chat.bot_removed:
        chat.bot_removed = False
        people_rows.save(session, chat)
