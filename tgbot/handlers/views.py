"""Showing a person's own view (`services.hand`): the Telegram side of a tap on 🃏 My cards or on
a key of the view, done before the tap is answered.

Telegram lets a bot that is not an administrator answer a tap with an ephemeral message within 15
seconds of it; whether answering the tap first closes that window is not documented, so the view
is sent (or edited) first and the tap answered after. A tap on the board sends the view in place
of the board, for the tapper alone; a tap on the view edits it in place (a new ephemeral message
may not replace an ephemeral one). Whatever goes wrong, the tap is still answered in time: a view
Telegram refuses (an old Bot API server, which posts it publicly instead: that copy is taken back;
a chat where they are refused; any 400) or one that expired (its edit fails) answers with today's
popup, and the next 🃏 My cards opens a fresh view. These are the only writes a key's handler
makes itself (`DESIGN §3`): they answer the tap, as its popup does, and nothing else waits on them.
Each still takes its slot of the process's ~30 writes a second (`GlobalBudget`, as a reply
to a person does): a burst of views would otherwise spend the second the senders count on, and the next
board or the view's own edit would meet a 429.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Awaitable
from typing import Any, TypeVar

from telegram import Bot, CallbackQuery
from telegram.error import TelegramError

from ..delivery import telegram_io as io
from ..delivery.budget import GlobalBudget
from ..delivery.ephemeral_api import (
    EphemeralMessage,
    EphemeralUnsupported,
    delete_ephemeral,
    edit_ephemeral_text,
    read_ephemeral,
    send_ephemeral,
)
from ..services.call import Answer
from ..services.hand import EphemeralView, ViewAnswer

log = logging.getLogger(__name__)
T = TypeVar("T")

_SHOWN = "tweakbot.views"

#: Seconds after a tap's handler began within which it still shows a view. Telegram takes a
#: view, and the tap's answer that follows it, for 15 seconds from the tap: past this, a database
#: that was slow has used them up, and the view's call would only push the answer out of them
#: (the answer carries the cards without it).
VIEW_WITHIN = 12.0


async def _counted(budget: GlobalBudget, call: Awaitable[T]) -> T:
    """`call`, in a slot of the process's writes of the second."""
    slot = await budget.take()  # a reply to a person's tap: the priority of one
    try:
        return await call
    finally:
        if slot is not None:
            budget.landed(slot)


class ShownViews:
    """The last view this process showed each person in each chat and topic (a game's place): what
    a reply with typed values redraws, since Telegram may leave out what an ephemeral reply
    replied to. Memory only: another instance, or this one after a restart, answers the reply
    with a fresh view instead."""

    LIMIT = 10_000

    def __init__(self) -> None:
        self._views: OrderedDict[tuple[int, int | None, int], EphemeralMessage] = OrderedDict()

    def get(self, chat_id: int, thread_id: int | None, user_id: int) -> EphemeralMessage | None:
        return self._views.get((chat_id, thread_id, user_id))

    def note(self, thread_id: int | None, user_id: int, view: EphemeralMessage) -> None:
        key = (view.chat_id, thread_id, user_id)
        self._views[key] = view
        self._views.move_to_end(key)
        while len(self._views) > self.LIMIT:
            self._views.popitem(last=False)

    def forget(self, chat_id: int, thread_id: int | None, user_id: int) -> None:
        self._views.pop((chat_id, thread_id, user_id), None)


def shown_views(bot_data: dict[Any, Any]) -> ShownViews:
    """The application's record of the views it showed."""
    shown: ShownViews = bot_data.setdefault(_SHOWN, ShownViews())
    return shown


def in_time(waited: float) -> bool:
    """Whether a tap whose handler began `waited` seconds ago may still show a view."""
    return waited < VIEW_WITHIN


def late(answer: ViewAnswer) -> Answer:
    """What a tap answers with when it is too late for its view: its popup, no view call (nor an
    edit: the view's next tap redraws it whole)."""
    return answer.fallback or Answer(answer.text, alert=True)


async def show(
    query: CallbackQuery,
    answer: ViewAnswer,
    thread_id: int | None,
    budget: GlobalBudget,
    shown: ShownViews | None = None,
) -> Answer:
    """Show the answer's view to the tapper (noted in `shown`); what to answer the tap with (its
    fallback popup when the view could not be shown)."""
    shown = shown or ShownViews()
    view, message = answer.view, query.message
    fallback = late(answer)
    if view is None or message is None:
        return fallback
    bot = query.get_bot()
    tapped = read_ephemeral(message)
    keys = io.keyboard(view.keys, bot)
    try:
        if tapped is not None:
            try:
                await _counted(budget, edit_ephemeral_text(bot, tapped, view.text, keys))
                shown.note(thread_id, query.from_user.id, tapped)
                return answer
            except TelegramError as exc:  # expired, or gone with an app restart
                log.info("an ephemeral view could not be edited: %s", exc)
                if not view.opens:
                    return fallback
        elif not view.opens:
            return fallback  # a view's key on a message that is no view: nothing to edit
        sending = send_ephemeral(
            bot,
            message.chat.id,
            query.from_user.id,
            view.text,
            keys,
            callback_query_id=query.id,
            replace_tapped=tapped is None,
            thread_id=thread_id,
        )
        sent = await _counted(budget, sending)
    except EphemeralUnsupported as exc:
        log.warning("the Bot API server knows no ephemeral messages: %s", exc)
        if exc.public_message_id is not None:
            await _take_back(query, exc.public_message_id)
        return fallback
    except TelegramError as exc:
        log.info("an ephemeral view was refused: %s", exc)
        return fallback
    shown.note(thread_id, query.from_user.id, sent)
    return answer


async def answer_message(
    bot: Bot,
    incoming: EphemeralMessage,
    view: EphemeralView,
    *,
    replied_to: EphemeralMessage | None = None,
    redraw: bool = False,
    note: bool = False,
    thread_id: int | None = None,
    shown: ShownViews,
    budget: GlobalBudget,
) -> bool:
    """Answer a person's ephemeral message (a command, a reply) for them alone: with `redraw`, the
    view they replied to (`replied_to`, else the last one shown them) edited in place; else, or
    when that edit fails (expired, gone with an app restart), a new ephemeral message replying to
    theirs (Telegram allows it within 15 seconds). A `note` is no view: it is never redrawn.
    False: Telegram refused it (the caller may answer another way)."""
    person = incoming.sender_user_id
    assert person is not None, "a person's message"
    keys = io.keyboard(view.keys, bot)
    target = replied_to or shown.get(incoming.chat_id, thread_id, person)
    if redraw and target is not None:
        try:
            await _counted(budget, edit_ephemeral_text(bot, target, view.text, keys))
            shown.note(thread_id, person, target)
            return True
        except (TelegramError, EphemeralUnsupported) as exc:
            log.info("an ephemeral view could not be redrawn: %s", exc)
    try:
        sent = await _counted(
            budget,
            send_ephemeral(
                bot,
                incoming.chat_id,
                person,
                view.text,
                keys,
                reply_to_ephemeral_id=incoming.ephemeral_message_id,
                thread_id=thread_id,
            ),
        )
    except EphemeralUnsupported as exc:
        log.warning("the Bot API server knows no ephemeral messages: %s", exc)
        if exc.public_message_id is not None:
            await _delete_public(bot, incoming.chat_id, exc.public_message_id)
        return False
    except TelegramError as exc:
        log.info("an ephemeral answer was refused: %s", exc)
        return False
    if not note:
        shown.note(thread_id, person, sent)
    return True


async def close(
    query: CallbackQuery, budget: GlobalBudget, thread_id: int | None = None, shown: ShownViews | None = None
) -> None:
    """The move is played: the view it was played on goes (the next board comes to the group)."""
    tapped = read_ephemeral(query.message)
    if tapped is None:
        return
    if shown is not None:
        shown.forget(tapped.chat_id, thread_id, query.from_user.id)
    try:
        await _counted(budget, delete_ephemeral(query.get_bot(), tapped))
    except (TelegramError, EphemeralUnsupported) as exc:  # gone already: nothing to take away
        log.info("an ephemeral view could not be deleted: %s", exc)


async def _take_back(query: CallbackQuery, message_id: int) -> None:
    """An old server posted the person's view for everyone: it goes at once."""
    message = query.message
    assert message is not None
    await _delete_public(query.get_bot(), message.chat.id, message_id)


async def _delete_public(bot: Bot, chat_id: int, message_id: int) -> None:
    try:
        await bot.delete_message(chat_id, message_id)
    except TelegramError as exc:
        log.warning("a view posted publicly could not be deleted: %s", exc)
