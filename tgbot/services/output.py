"""Messages into chats, written to the outbox in the transaction that decided them: replies,
notices, files, keys taken off an old message, a reminder dropped.

One module per surface: the game's record (boards, reports, summaries) is `record`; private
panels are `panels`; the lobby message is `lobby_message`; the popups a composer reads are
`popups`.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from sqlmodel import Session

from ..render.keys import Keyboard
from ..store import outbox
from ..store.models import Notice
from ..store.outbox import Message, Payload, Priority
from ..store.surfaces import KeyEdit, Surface
from . import surfaces
from .context import GameContext
from .env import Env

#: A refusal repeated within this window (sixty /newgame in a row) is answered once.
REPEAT_WINDOW = timedelta(minutes=1)


def drop_reminder(session: Session, ctx: GameContext) -> None:
    """The player acted, the turn is over or the clock stopped: a group reminder that has not
    gone out yet would only mislead."""
    # (the next reminder forgets the message of the last one itself: `sweep._remind`)
    outbox.discard_surface(session, ctx.game.chat_id, surfaces.reminder(ctx.game_id))


def to_group(
    ctx: GameContext,
    text: str,
    *,
    keys: Keyboard | None = None,
    surface: Surface | None = None,
    priority: Priority = Priority.TURN,
    notify: bool = False,
    reply_to: Surface | None = None,
    media: dict[str, Any] | None = None,
) -> Message:
    """A message into the game's group (and forum topic)."""
    payload = Payload(text, keys, ctx.game.thread_id, reply_to=reply_to, media=media, notify=notify)
    return Message(ctx.game.chat_id, payload, surface, priority, ctx.game_id)


def say(
    session: Session,
    env: Env,
    chat_id: int,
    text: str,
    *,
    thread_id: int | None = None,
    keys: Keyboard | None = None,
    notify: bool = False,
    priority: Priority = Priority.TURN,
    surface: Surface | None = None,
) -> None:
    """A plain message into a chat (a reply to a command, a notice)."""
    payload = Payload(text, keys, thread_id, notify=notify)
    outbox.put(session, Message(chat_id, payload, surface, priority), env.now)


def send_file(
    session: Session,
    env: Env,
    chat_id: int,
    caption: str,
    media: dict[str, Any],
    thread_id: int | None = None,
) -> None:
    payload = Payload(caption, thread_id=thread_id, media=media)
    outbox.put(session, Message(chat_id, payload, priority=Priority.INFO), env.now)


def say_once(
    session: Session,
    env: Env,
    chat_id: int,
    key: str,
    text: str,
    *,
    thread_id: int | None = None,
    reply_to: Surface | None = None,
    window: timedelta = REPEAT_WINDOW,
) -> bool:
    """Say `text` unless the same `key` was said in this chat within `window`; True when said."""
    notice = session.get(Notice, (chat_id, key))
    if notice is not None and env.now - notice.said_at < window:
        return False
    if notice is None:
        notice = Notice(chat_id=chat_id, key=key, said_at=env.now)
    notice.said_at = env.now
    session.add(notice)
    payload = Payload(text, thread_id=thread_id, reply_to=reply_to)
    outbox.put(session, Message(chat_id, payload), env.now)
    return True


def say_in_game(session: Session, env: Env, ctx: GameContext, text: str, *, notify: bool = False) -> None:
    outbox.put(session, to_group(ctx, text, notify=notify), env.now)


def edit_message(
    session: Session, env: Env, chat_id: int, message_id: int, text: str, keys: Keyboard | None
) -> None:
    """Change the message a key was tapped on (a rules page, the language picker)."""
    payload = Payload(text, keys, message_id=message_id)
    outbox.put(session, Message(chat_id, payload, KeyEdit(message_id)), env.now)


def drop_keys(session: Session, env: Env, chat_id: int, message_id: int, game_id: int | None = None) -> None:
    """Take the keys off a message that is no longer live (an old board), last of all."""
    outbox.drop_keys(session, chat_id, message_id, env.now, game_id=game_id)
