"""Messages into chats, written to the outbox in the transaction that decided them: replies,
notices, files, keys taken off an old message, a reminder dropped.

One module per surface: the game's record (boards, reports, summaries) is `record`; private
panels are `panels`; the lobby message is `lobby_message`; the popups a composer reads are
`popups`.
"""

from __future__ import annotations

from datetime import timedelta

from sqlmodel import Session

from ..render.keys import Keyboard
from ..store import notices, outbox
from ..store.once_keys import NoticeKey
from ..store.outbox import Media, Message, Payload, Priority
from ..store.surfaces import KeyEdit, Said, Surface
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
    media: Media | None = None,
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
    media: Media,
    thread_id: int | None = None,
) -> None:
    payload = Payload(caption, thread_id=thread_id, media=media)
    outbox.put(session, Message(chat_id, payload, priority=Priority.INFO), env.now)


def say_once(
    session: Session,
    env: Env,
    chat_id: int,
    key: NoticeKey,
    text: str,
    *,
    thread_id: int | None = None,
    reply_to: Surface | None = None,
    window: timedelta = REPEAT_WINDOW,
) -> bool:
    """Say `text` unless the same `key` was said in this chat within `window`; True when said."""
    if not notices.claim(session, chat_id, key, env.now, window):
        return False
    payload = Payload(text, thread_id=thread_id, reply_to=reply_to)
    outbox.put(session, Message(chat_id, payload), env.now)
    return True


def claim(
    session: Session, env: Env, chat_id: int, key: NoticeKey, window: timedelta = REPEAT_WINDOW
) -> bool:
    """True, and `key` noted as done now in the chat, unless it was done there within `window`:
    for what a burst of updates should do once (a board posted again at the bottom)."""
    return notices.claim(session, chat_id, key, env.now, window)


def say_capped(
    session: Session,
    env: Env,
    chat_id: int,
    key: NoticeKey,
    text: str,
    *,
    thread_id: int | None = None,
    keys: Keyboard | None = None,
    notify: bool = False,
    window: timedelta = REPEAT_WINDOW,
) -> bool:
    """At most one new message for `key` in this chat within `window`; True when said anew.

    A later one in the window coalesces into it: the message said (or still waiting) comes to
    show the newest text, as a cosmetic edit (spare budget only, and none when nothing changed),
    so a burst of one command costs the group one message, however many times it is sent."""
    surface = Said(key[:59])
    if notices.claim(session, chat_id, key, env.now, window):
        outbox.forget_shown(session, chat_id, surface)  # the one said before stays as it is
        payload = Payload(text, keys, thread_id, notify=notify)
        outbox.put(session, Message(chat_id, payload, surface), env.now)
        return True
    payload = Payload(text, keys, thread_id)
    outbox.put(session, Message(chat_id, payload, surface, Priority.COSMETIC), env.now)
    return False


def edit_message(
    session: Session,
    env: Env,
    chat_id: int,
    message_id: int,
    text: str,
    keys: Keyboard | None,
    priority: Priority = Priority.TURN,
) -> None:
    """Change the message a key was tapped on (a rules page, the language picker). In a group
    such an edit is cosmetic (`priority`): a person paging to and fro never delays a board."""
    payload = Payload(text, keys, message_id=message_id)
    outbox.put(session, Message(chat_id, payload, KeyEdit(message_id), priority), env.now)


def drop_keys(session: Session, env: Env, chat_id: int, message_id: int, game_id: int | None = None) -> None:
    """Take the keys off a message that is no longer live (an old board), last of all."""
    outbox.drop_keys(session, chat_id, message_id, env.now, game_id=game_id)
