"""What every handler does the same way, written once: parse, run one service off the event
loop, answer exactly once, log one line.

* A key (`on_key`): its callback data is parsed by its typed class; the service's `Answer` is the
  popup. Services run through `Deps.run` (one transaction, off the event loop): a handler holds
  no session. The query is answered from the database's answer alone, before any message is sent
  (the outbox sends those afterwards), so a busy group never leaves a key spinning.
* A command (`on_command`): the service writes its reply to the outbox.
* When a service needs the person's admin rights, they are asked of Telegram then, and the service
  runs again with them.
* When the database is down or slow, the person hears "try again in a minute" (keys: a popup;
  commands: at most one reply a minute per chat, said from memory, since the outbox is in the
  database too).
"""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import Callable, Coroutine
from dataclasses import replace
from typing import Any, TypeVar

from telegram import Update

from .. import logs
from ..callbacks import BadCallback, Callback
from ..delivery import telegram_io as io
from ..errors import DatabaseTrouble
from ..i18n import _
from ..render.refusals import ERROR_TEXT
from ..services.command import Command, CommandService, refuse_not_creator
from ..services.tap import KeyService, tapper_language
from .context import TweakContext, command_of, own_language, tap_of

log = logging.getLogger("tweakbot.handlers")

K = TypeVar("K", bound=Callback)

Handler = Callable[[Update, TweakContext], Coroutine[Any, Any, None]]

#: Seconds between two "having trouble" replies in one chat while the database is down.
TROUBLE_REPLY_EVERY = 60.0
_trouble_said: dict[int, float] = {}


def trouble_text(lang: str) -> str:
    return _(lang, ERROR_TEXT["trouble"])


async def _tapper_language(update: Update, context: TweakContext) -> str:
    """The tapper's own language for a popup no service wrote (a forged key): their /language
    choice, else Telegram's; Telegram's alone when the database does not answer."""
    tap = tap_of(update)
    if tap is None:
        return own_language(update)
    try:
        return await context.deps.run(tapper_language, tap.person)
    except DatabaseTrouble:
        return own_language(update)


def on_key(kind: type[K], service: KeyService[K], action: str) -> Handler:
    """The handler for one kind of key: `service(session, env, tap, key)` answers it; `action`
    names it on the update's log line and in the metrics."""

    async def handler(update: Update, context: TweakContext) -> None:
        query = update.callback_query
        tap = tap_of(update)
        if query is None or tap is None:
            return
        try:
            key = kind.parse(query.data)
        except BadCallback:
            await invalid_key(update, context, action)
            return
        game_id = getattr(key, "game_id", None)
        deps = context.deps
        try:
            answer = await deps.run(service, tap, key)
            # Only the creator may do that, or a group admin: ask Telegram (else the refusal stands).
            chat_id = tap.chat_id
            if answer.need_admin and chat_id is not None and await context.is_admin(chat_id, tap.person.id):
                answer = await deps.run(service, replace(tap, admin=True), key)
        except DatabaseTrouble:
            text = trouble_text(own_language(update))
            await io.answer(query.get_bot(), query.id, text, True, replies=deps.webhook_replies)
            logs.note_update(game_id, action, "db_trouble")
            return
        await io.answer(query.get_bot(), query.id, answer.text, answer.alert, replies=deps.webhook_replies)
        logs.note_update(game_id, action, "ok" if not answer.alert else "refused")

    return handler


async def invalid_key(update: Update, context: TweakContext, action: str = "callback") -> None:
    """Data no kind of key accepts: forged, or from a version of the bot long gone."""
    query = update.callback_query
    if query is not None:
        lang = await _tapper_language(update, context)
        text = _(lang, ERROR_TEXT["malformed"])
        await io.answer(query.get_bot(), query.id, text, True, replies=context.deps.webhook_replies)
        logs.note_update(None, action, "bad_data")


def own_page(prefix: str, handler: Handler) -> Handler:
    """A key that rewrites the message it is on (a rules page, the language picker) only acts on
    a message made of such keys: forged onto a board, it would wipe the board out."""

    @functools.wraps(handler)
    async def wrapped(update: Update, context: TweakContext) -> None:
        query = update.callback_query
        markup = getattr(query.message, "reply_markup", None) if query is not None else None
        keys = [b.callback_data for row in markup.inline_keyboard for b in row] if markup is not None else []
        if keys and all(isinstance(k, str) and k.startswith(prefix) for k in keys):
            await handler(update, context)
        else:
            await invalid_key(update, context)

    return wrapped


def on_command(action: str, service: CommandService) -> Handler:
    """The handler for one command: `service(session, env, command)` replies via the outbox."""

    async def handler(update: Update, context: TweakContext) -> None:
        command = command_of(update, context.args)
        if command is None:
            return
        deps = context.deps
        try:
            replied = await deps.run(service, command)
            if replied.need_admin and await context.is_admin(command.chat_id, command.person.id):
                replied = await deps.run(service, replace(command, admin=True))
            elif replied.need_admin:
                replied = await deps.run(refuse_not_creator, command)
        except DatabaseTrouble:
            await _say_trouble(update, context, command)
            logs.note_update(None, action, "db_trouble")
            return
        logs.note_update(replied.game_id, replied.action or action, replied.outcome)

    return handler


async def _say_trouble(update: Update, context: TweakContext, command: Command) -> None:
    """The one message sent without the outbox (it lives in the database that is down): at most
    one a minute per chat."""
    now = time.monotonic()
    if now - _trouble_said.get(command.chat_id, -TROUBLE_REPLY_EVERY) < TROUBLE_REPLY_EVERY:
        return
    _trouble_said[command.chat_id] = now
    await io.say(context.bot, command.chat_id, trouble_text(own_language(update)), command.thread_id)


def quietly(handler: Handler) -> Handler:
    """For updates that need no answer (chat events): the database's trouble is only logged."""

    @functools.wraps(handler)
    async def wrapped(update: Update, context: TweakContext) -> None:
        try:
            await handler(update, context)
        except DatabaseTrouble:
            logs.note_update(None, "chat_event", "db_trouble")

    return wrapped
