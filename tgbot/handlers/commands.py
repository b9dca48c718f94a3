"""Slash commands: each names the service that answers it. They work in groups with privacy
mode on (``/cmd@botname``); replies go through the outbox like every other message."""

from __future__ import annotations

from typing import Any

from telegram import Update
from telegram.ext import BaseHandler, CommandHandler

from ..i18n import _
from ..services import info, lobby, records, table_control
from ..services.command import Command, Replied, reply, reply_language
from ..services.env import Env
from ..services.people import Person
from ..services.tx import Tx as Session
from .context import TweakContext, person
from .wrap import CommandService, on_command


def _newgame(s: Session, env: Env, c: Command, admin: bool) -> Replied:
    if c.private:
        reply(
            s,
            env,
            c,
            _(reply_language(s, c), "TWEAK! is played in groups: add me to a group and send /newgame there."),
        )
        return Replied("private")
    created = lobby.create(s, env, c.chat_id, c.thread_id, c.chat_title, c.person)
    if created.game_id is None:
        return Replied("exists", created.existing.id if created.existing is not None else None)
    return Replied("lobby", created.game_id)


def _with_args(update: Update, context: TweakContext) -> str:
    return " ".join(context.args or []).strip()


def _subject(update: Update) -> Person | None:
    """Whose stats: the author of the replied-to message (a person), else the sender."""
    message = update.effective_message
    replied = message.reply_to_message if message is not None else None
    user = update.effective_user
    if message is None or replied is None:
        return person(user) if user is not None else None
    # In a forum topic every message "replies" to the topic's first message: that is no choice.
    topic_root = replied.forum_topic_created is not None or (
        message.is_topic_message and replied.message_id == message.message_thread_id
    )
    if not topic_root and replied.from_user is not None and not replied.from_user.is_bot:
        return person(replied.from_user)
    return person(user) if user is not None else None


async def start(update: Update, context: TweakContext) -> None:
    payload = context.args[0] if context.args else ""
    chat = update.effective_chat
    if chat is not None and chat.type != "private":
        await on_command("help", lambda s, env, c, admin: info.help_text(s, env, c))(update, context)
        return
    await on_command("start", lambda s, env, c, admin: info.start(s, env, c, payload))(update, context)


async def quiet(update: Update, context: TweakContext) -> None:
    arg = _with_args(update, context)
    await on_command("quiet", lambda s, env, c, admin: table_control.quiet(s, env, c, arg, admin))(
        update, context
    )


async def stats(update: Update, context: TweakContext) -> None:
    subject = _subject(update)
    if subject is None:
        return
    await on_command("stats", lambda s, env, c, admin: records.my_stats(s, env, c, subject))(update, context)


SIMPLE: dict[str, CommandService] = {
    "newgame": _newgame,
    "cancel": table_control.cancel,
    "board": lambda s, env, c, admin: table_control.board(s, env, c),
    "leave": lambda s, env, c, admin: table_control.leave(s, env, c),
    "help": lambda s, env, c, admin: info.help_text(s, env, c),
    "rules": lambda s, env, c, admin: info.rules(s, env, c),
    "language": lambda s, env, c, admin: info.language_menu(s, env, c),
    "pause": table_control.pause,
    "resume": table_control.resume,
    "back": lambda s, env, c, admin: table_control.back(s, env, c),
    "settings": lambda s, env, c, admin: table_control.settings(s, env, c),
    "top": lambda s, env, c, admin: records.top(s, env, c),
    "history": lambda s, env, c, admin: records.recent(s, env, c),
}


def handlers() -> list[BaseHandler[Any, Any, Any]]:
    found: list[BaseHandler[Any, Any, Any]] = [
        CommandHandler(name, on_command(name, service)) for name, service in SIMPLE.items()
    ]
    found += [CommandHandler("start", start), CommandHandler("quiet", quiet), CommandHandler("stats", stats)]
    return found


#: Every command `handlers()` answers (computed once: it labels every update's log line).
COMMAND_NAMES = frozenset((*SIMPLE, "start", "quiet", "stats"))
