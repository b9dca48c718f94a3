"""The handlers' side of the one seam (`services.call`): every update reaches its service the
same way, written once.

`serve` runs ``service(session, env, origin, *input)`` through `Deps.run` (one transaction, off
the event loop: a handler holds no session), asks Telegram whether the person is a group admin
when the service needs to know (one getChatMember, only then) and runs it again with the answer,
and notes the update's log line. What differs by kind of update is only what the handler parses
and how it answers:

* a key (`on_key`): its callback data parsed by its typed class; the popup is the service's
  `Answer`, sent from the database's answer alone, before any message (the outbox sends those
  afterwards), so a busy group never leaves a key spinning; a person's own view (`ViewAnswer`,
  🃏 My cards) is shown first, since Telegram's 15 seconds for it run from the tap (`views`),
  unless the service took so long that those seconds are nearly gone: then only the popup;
* a command (`on_command`): the service writes its reply to the outbox;
* inline queries and picks: `handlers.inline`; changes of a chat: `handlers.chat_events`.

When the database is down or slow, the person hears "try again in a minute" (a key: a popup; a
command: at most one reply a minute per chat, said from memory, since the outbox is in the
database too; an inline query: one line); an update nobody waits for is only logged.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Coroutine
from dataclasses import replace
from typing import Any, Protocol, TypeVar

from telegram import Update

from .. import logs
from ..callbacks import BadCallback, Callback
from ..delivery import telegram_io as io
from ..errors import DatabaseTrouble, Outcome
from ..i18n import _
from ..render.refusals import TROUBLE_TEXT
from ..services.call import Answer, CommandService, KeyService, forged_key
from ..services.hand import ViewAnswer
from ..services.origins import Command
from ..services.people import Person
from . import views
from .context import TweakContext, command_of, own_language, tap_of

K = TypeVar("K", bound=Callback)

Handler = Callable[[Update, TweakContext], Coroutine[Any, Any, None]]

#: Seconds between two "having trouble" replies in one chat while the database is down.
TROUBLE_REPLY_EVERY = 60.0
_trouble_said: dict[int, float] = {}


class Origin(Protocol):
    @property
    def person(self) -> Person | None: ...


class Ending(Protocol):
    @property
    def said(self) -> str: ...

    @property
    def game_id(self) -> int | None: ...

    @property
    def need_admin(self) -> bool: ...


O = TypeVar("O", bound=Origin)  # noqa: E741
R = TypeVar("R", bound=Ending)


def trouble_text(lang: str) -> str:
    return _(lang, TROUBLE_TEXT)


async def serve(
    context: TweakContext,
    service: Callable[..., R],
    origin: O,
    *args: Any,
    action: str,
    game_id: int | None = None,
) -> R | None:
    """The service's result for this update, its log line noted; None when the database did not
    answer (noted as ``db_trouble``: the caller apologises where someone waits)."""
    deps = context.deps
    try:
        result = await deps.run(service, origin, *args)
        if result.need_admin:
            admin = await _is_admin(context, origin)
            result = await deps.run(service, replace(origin, admin=admin), *args)  # type: ignore[type-var]
    except DatabaseTrouble:
        logs.note_update(game_id, action, Outcome.DB_TROUBLE)
        return None
    logs.note_update(result.game_id or game_id, getattr(result, "action", None) or action, result.said)
    return result


async def _is_admin(context: TweakContext, origin: Origin) -> bool:
    chat_id = getattr(origin, "chat_id", None)
    person = origin.person
    if chat_id is None or person is None:
        return False
    return await context.is_admin(chat_id, person.id)


def on_key(kind: type[K], service: KeyService[K], action: str) -> Handler:
    """The handler for one kind of key: `service(session, env, tap, key)` answers it; `action`
    names it on the update's log line and in the metrics."""

    async def handler(update: Update, context: TweakContext) -> None:
        query = update.callback_query
        tap = tap_of(update)
        if query is None or tap is None:
            return
        timer = context.deps.timer
        began = timer.monotonic()
        try:
            key = kind.parse(query.data)
        except BadCallback:
            await invalid_key(update, context, action)
            return
        answer = await serve(context, service, tap, key, action=action, game_id=getattr(key, "game_id", None))
        if answer is None:
            answer = Answer(trouble_text(own_language(update)), alert=True)
        view = answer.view if isinstance(answer, ViewAnswer) else None
        shown, budget = views.shown_views(context.bot_data), context.deps.delivery.global_budget
        if isinstance(answer, ViewAnswer) and view is not None and not view.close:
            if views.in_time(timer.monotonic() - began):
                answer = await views.show(query, answer, tap.thread_id, budget, shown)
            else:  # the database was slow: the answer, at once, is all the time left allows
                answer = views.late(answer)
        replies = context.deps.webhook_replies
        await io.answer(query.get_bot(), query.id, answer.text, answer.alert, replies=replies, url=answer.url)
        if view is not None and view.close:
            await views.close(query, budget, tap.thread_id, shown)

    return handler


async def invalid_key(update: Update, context: TweakContext, action: str = "callback") -> None:
    """Data no kind of key accepts: forged, or from a version of the bot long gone. Refused in the
    tapper's language (Telegram's, when the database does not answer)."""
    query = update.callback_query
    tap = tap_of(update)
    if query is None or tap is None:
        return
    answer = await serve(context, forged_key, tap, action=action)
    text = answer.text if answer is not None else trouble_text(own_language(update))
    await io.answer(query.get_bot(), query.id, text, True, replies=context.deps.webhook_replies)


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
        if await serve(context, service, command, action=action) is None:
            await _say_trouble(update, context, command)

    return handler


async def _say_trouble(update: Update, context: TweakContext, command: Command) -> None:
    """The one message sent without the outbox (it lives in the database that is down): at most
    one a minute per chat."""
    now = time.monotonic()
    if now - _trouble_said.get(command.chat_id, -TROUBLE_REPLY_EVERY) < TROUBLE_REPLY_EVERY:
        return
    _trouble_said[command.chat_id] = now
    await io.say(context.bot, command.chat_id, trouble_text(own_language(update)), command.thread_id)
