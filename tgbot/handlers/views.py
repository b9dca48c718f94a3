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
from collections.abc import Awaitable
from typing import TypeVar

from telegram import CallbackQuery
from telegram.error import TelegramError

from ..delivery import telegram_io as io
from ..delivery.budget import GlobalBudget
from ..delivery.ephemeral_api import (
    EphemeralUnsupported,
    delete_ephemeral,
    edit_ephemeral_text,
    read_ephemeral,
    send_ephemeral,
)
from ..services.call import Answer
from ..services.hand import ViewAnswer

log = logging.getLogger(__name__)
T = TypeVar("T")


async def _counted(budget: GlobalBudget, call: Awaitable[T]) -> T:
    """`call`, in a slot of the process's writes of the second."""
    slot = await budget.take()  # a reply to a person's tap: the priority of one
    try:
        return await call
    finally:
        if slot is not None:
            budget.landed(slot)


async def show(
    query: CallbackQuery, answer: ViewAnswer, thread_id: int | None, budget: GlobalBudget
) -> Answer:
    """Show the answer's view to the tapper; what to answer the tap with (its fallback popup when
    the view could not be shown)."""
    view, message = answer.view, query.message
    fallback = answer.fallback or Answer(answer.text, alert=True)
    if view is None or message is None:
        return fallback
    bot = query.get_bot()
    tapped = read_ephemeral(message)
    keys = io.keyboard(view.keys, bot)
    try:
        if tapped is not None:
            try:
                await _counted(budget, edit_ephemeral_text(bot, tapped, view.text, keys))
                return answer
            except TelegramError as exc:  # expired, or gone with an app restart
                log.info("an ephemeral view could not be edited: %s", exc)
                if not view.opens:
                    return fallback
        elif not view.opens:
            return fallback  # a view's key on a message that is no view: nothing to edit
        sent = send_ephemeral(
            bot,
            message.chat.id,
            query.from_user.id,
            view.text,
            keys,
            callback_query_id=query.id,
            replace_tapped=tapped is None,
            thread_id=thread_id,
        )
        await _counted(budget, sent)
    except EphemeralUnsupported as exc:
        log.warning("the Bot API server knows no ephemeral messages: %s", exc)
        if exc.public_message_id is not None:
            await _take_back(query, exc.public_message_id)
        return fallback
    except TelegramError as exc:
        log.info("an ephemeral view was refused: %s", exc)
        return fallback
    return answer


async def close(query: CallbackQuery, budget: GlobalBudget) -> None:
    """The move is played: the view it was played on goes (the next board comes to the group)."""
    tapped = read_ephemeral(query.message)
    if tapped is None:
        return
    try:
        await _counted(budget, delete_ephemeral(query.get_bot(), tapped))
    except (TelegramError, EphemeralUnsupported) as exc:  # gone already: nothing to take away
        log.info("an ephemeral view could not be deleted: %s", exc)


async def _take_back(query: CallbackQuery, message_id: int) -> None:
    """An old server posted the person's view for everyone: it goes at once."""
    message = query.message
    assert message is not None
    try:
        await query.get_bot().delete_message(message.chat.id, message_id)
    except TelegramError as exc:
        log.warning("a view posted publicly could not be deleted: %s", exc)
