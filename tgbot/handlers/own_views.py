"""A person's ephemeral messages to the bot in a group (issue 61): `/cards` sent as an ephemeral
command, and values typed in an ephemeral reply to their own view. Nobody else sees either, so
each is answered ephemerally (`views.answer_message`), within Telegram's 15 seconds of it.

/cards falls back to today's answer (the cards in the person's private chat, `services.cards`)
wherever the view cannot be shown: sent as an ordinary command, in private, or where Telegram
refuses ephemeral messages. A typed reply can only come where they work, so it has no fallback.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from telegram import Message, Update
from telegram.ext import BaseHandler, MessageHandler, filters

from ..delivery.ephemeral_api import read_ephemeral
from ..services import cards, hand_replies
from ..services.hand import EphemeralView
from ..services.hand_replies import ViewReplied
from . import views
from .context import TweakContext, command_of, own_language, thread_of
from .seam import on_command, serve, trouble_text

#: Today's /cards: the answer where the view cannot be shown.
_cards_in_private = on_command("cards", cards.cards)


class _Ephemeral(filters.MessageFilter):
    """A person's ephemeral message (a command or a reply): seen by them and the bot alone."""

    def filter(self, message: Message) -> bool:
        return read_ephemeral(message) is not None


EPHEMERAL = _Ephemeral(name="ephemeral")


async def on_cards(update: Update, context: TweakContext) -> None:
    """/cards: sent unseen in a group, the person's own view in reply, for them alone."""
    command = command_of(update, context.args)
    message = update.message
    incoming = read_ephemeral(message)
    if command is None or incoming is None or command.private:
        await _cards_in_private(update, context)
        return
    result = await serve(context, hand_replies.open_cards, command, action="cards")
    if isinstance(result, ViewReplied) and result.view is not None:
        shown = views.shown_views(context.bot_data)
        bot = context.bot
        thread_id = command.thread_id
        answered = await views.answer_message(
            bot,
            incoming,
            result.view,
            note=result.note,
            thread_id=thread_id,
            shown=shown,
            budget=context.deps.delivery.global_budget,
        )
        if answered:
            return
    elif result is not None:
        return  # a second delivery: answered already
    await _cards_in_private(update, context)


async def on_typed(update: Update, context: TweakContext) -> None:
    """Values typed in reply to the person's view: the view redrawn with the sums they make."""
    message = update.message
    incoming = read_ephemeral(message)
    command = command_of(update)
    if message is None or incoming is None or command is None or command.private:
        return
    command = replace(command, args=message.text or "")
    result = await serve(context, hand_replies.typed_reply, command, action="typed_sum")
    if result is None:
        result = ViewReplied(view=EphemeralView(trouble_text(own_language(update))), note=True)
    if not isinstance(result, ViewReplied) or result.view is None:
        return  # a second delivery: answered already
    await views.answer_message(
        context.bot,
        incoming,
        result.view,
        replied_to=read_ephemeral(message.reply_to_message),
        redraw=result.redraw,
        note=result.note,
        thread_id=thread_of(update),
        shown=views.shown_views(context.bot_data),
        budget=context.deps.delivery.global_budget,
    )


def handlers() -> list[BaseHandler[Any, Any, Any]]:
    """Typed values: text (no command) a person sent ephemerally in a group."""
    typed = filters.TEXT & ~filters.COMMAND & filters.ChatType.GROUPS & filters.UpdateType.MESSAGE
    return [MessageHandler(typed & EPHEMERAL, on_typed)]
