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
from ..store.outbox import Message, Priority
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


def to_group(ctx: GameContext, text: str, **kw: Any) -> Message:
    """A message into the game's group (and forum topic)."""
    return Message(ctx.game.chat_id, text, thread_id=ctx.game.thread_id, game_id=ctx.game_id, **kw)


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
    message = Message(
        chat_id, text, keys, thread_id=thread_id, notify=notify, priority=priority, surface=surface
    )
    outbox.put(session, message, env.now)


def send_file(
    session: Session,
    env: Env,
    chat_id: int,
    caption: str,
    media: dict[str, Any],
    thread_id: int | None = None,
) -> None:
    message = Message(chat_id, caption, thread_id=thread_id, priority=Priority.INFO, media=media)
    outbox.put(session, message, env.now)


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
    message = Message(chat_id, text, thread_id=thread_id, reply_to=reply_to)
    outbox.put(session, message, env.now)
    return True


def say_in_game(session: Session, env: Env, ctx: GameContext, text: str, *, notify: bool = False) -> None:
    outbox.put(session, to_group(ctx, text, notify=notify), env.now)


def edit_message(
    session: Session, env: Env, chat_id: int, message_id: int, text: str, keys: Keyboard | None
) -> None:
    """Change the message a key was tapped on (a rules page, the language picker)."""
    outbox.put(
        session, Message(chat_id, text, keys, message_id=message_id, surface=KeyEdit(message_id)), env.now
    )


def drop_keys(session: Session, env: Env, chat_id: int, message_id: int, game_id: int | None = None) -> None:
    """Take the keys off a message that is no longer live (an old board), last of all."""
    outbox.drop_keys(session, chat_id, message_id, env.now, game_id=game_id)
