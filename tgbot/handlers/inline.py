"""Inline mode: the player's moves as a list only they see (`services.inline`).

The answer is free (no chat budget) and personal, never cached. A pick comes back as a
`chosen_inline_result` (when inline feedback is on in BotFather) and as the message it posted
"via" the bot; the service plays it once, whichever arrives first.
"""

from __future__ import annotations

from typing import Any

from telegram import InlineQueryResultArticle, InputTextMessageContent, MessageEntity, Update
from telegram.error import TelegramError
from telegram.ext import BaseHandler, ChosenInlineResultHandler, InlineQueryHandler, MessageHandler, filters

from .. import logs
from ..errors import DatabaseTrouble
from ..services import inline
from .context import TweakContext, own_language, person
from .wrap import trouble_text


async def on_inline_query(update: Update, context: TweakContext) -> None:
    query = update.inline_query
    if query is None:
        return
    who = person(query.from_user)
    try:
        found = await context.deps.run(inline.answer, who, query.query, query.offset, query.chat_type)
        results = [
            InlineQueryResultArticle(
                id=r.id,
                title=r.title,
                description=r.description or None,
                input_message_content=InputTextMessageContent(r.message),
            )
            for r in found.results
        ]
        next_offset = found.next_offset
    except DatabaseTrouble:
        sorry = trouble_text(own_language(update))
        results = [
            InlineQueryResultArticle(
                id="trouble", title=sorry, input_message_content=InputTextMessageContent(sorry)
            )
        ]
        next_offset = ""
    try:
        await query.answer(results, cache_time=0, is_personal=True, next_offset=next_offset or None)
    except TelegramError as exc:  # too late (the person typed on): nothing to do
        logs.note_update(None, "inline", "late", error=type(exc).__name__)
        return
    logs.note_update(None, "inline", "ok", results=len(results))


async def on_chosen(update: Update, context: TweakContext) -> None:
    chosen = update.chosen_inline_result
    if chosen is None:
        return
    who = person(chosen.from_user)
    outcome = await context.deps.run(inline.pick, who, chosen.result_id)
    logs.note_update(None, "inline_pick", outcome)


async def on_via_message(update: Update, context: TweakContext) -> None:
    """The message a pick posted: play it if the chosen result did not arrive first."""
    message = update.effective_message
    if message is None or message.via_bot is None or message.via_bot.id != context.bot.id:
        return
    user = message.from_user
    picked = _picked_id(message.entities or ())
    if user is None or picked is None:
        return
    who = person(user)
    chat_id = message.chat.id
    outcome = await context.deps.run(inline.pick, who, picked, chat_id)
    logs.note_update(None, "inline_message", outcome)


def _picked_id(entities: Any) -> str | None:
    for entity in entities:
        if entity.type == MessageEntity.TEXT_LINK and entity.url:
            found = inline.picked_from_link(entity.url)
            if found is not None:
                return found
    return None


def handlers() -> list[BaseHandler[Any, Any, Any]]:
    return [
        InlineQueryHandler(on_inline_query),
        ChosenInlineResultHandler(on_chosen),
        MessageHandler(filters.VIA_BOT & filters.UpdateType.MESSAGE, on_via_message),
    ]
