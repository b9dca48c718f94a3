"""Inline mode: the player's moves as a list only they see (`services.inline_moves`).

The answer is free (no chat budget) and personal, never cached. A pick comes back as a
`chosen_inline_result` (when inline feedback is on in BotFather) and as the message it posted
"via" the bot; the service plays it once, whichever arrives first.
"""

from __future__ import annotations

from typing import Any

from telegram import (
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    InlineQueryResultArticle,
    InlineQueryResultsButton,
    InputTextMessageContent,
    MessageEntity,
    Update,
)
from telegram.error import TelegramError
from telegram.ext import BaseHandler, ChosenInlineResultHandler, InlineQueryHandler, MessageHandler, filters

from .. import logs
from ..errors import Outcome
from ..inline_data import InfoLine, InfoTopic, PickedMoves, picked_from_link, posted
from ..services import inline_moves, inline_posts
from ..services.call import Result
from ..services.origins import InlineQuery, Pick
from .context import TweakContext, own_language, person
from .seam import serve, trouble_text


def _article(result: Result) -> InlineQueryResultArticle:
    keys = (
        InlineKeyboardMarkup(
            [[InlineKeyboardButton(**dict[str, Any](key)) for key in row] for row in result.keys]
        )
        if result.keys
        else None
    )
    return InlineQueryResultArticle(
        id=result.id.data,
        title=result.title,
        description=result.description or None,
        input_message_content=InputTextMessageContent(result.message),
        reply_markup=keys,
    )


async def on_inline_query(update: Update, context: TweakContext) -> None:
    query = update.inline_query
    if query is None:
        return
    asked = InlineQuery(
        person(query.from_user), query.query, query.offset, query.chat_type, update_id=update.update_id
    )
    found = await serve(context, inline_posts.answer, asked, action="inline")
    button = None
    if found is None:
        sorry = trouble_text(own_language(update))
        trouble = Result(InfoLine(InfoTopic.TROUBLE), sorry, "", sorry)
        results, next_offset = [_article(trouble)], ""
    else:
        results, next_offset = [_article(r) for r in found.results], found.next_offset
        if found.button is not None:
            button = InlineQueryResultsButton(found.button.text, start_parameter=found.button.payload)
    try:
        await query.answer(
            results, cache_time=0, is_personal=True, next_offset=next_offset or None, button=button
        )
    except TelegramError as exc:  # too late (the person typed on): nothing to do
        logs.note_update(None, "inline", Outcome.LATE, error=type(exc).__name__)
        return
    logs.note_extra(results=len(results))


async def on_chosen(update: Update, context: TweakContext) -> None:
    chosen = update.chosen_inline_result
    if chosen is None:
        return
    picked = Pick(
        person(chosen.from_user),
        PickedMoves.read(chosen.result_id),
        inline_id=chosen.inline_message_id,
        posted=posted(chosen.result_id),
        update_id=update.update_id,
    )
    await serve(context, inline_posts.chosen, picked, action="inline_pick")


async def on_via_message(update: Update, context: TweakContext) -> None:
    """The message a pick posted: play it if the chosen result did not arrive first."""
    message = update.effective_message
    if message is None or message.via_bot is None or message.via_bot.id != context.bot.id:
        return
    user = message.from_user
    picked = _picked_id(message.entities or ())
    if user is None or picked is None:
        return
    pick = Pick(person(user), picked, message.chat.id, update_id=update.update_id)
    await serve(context, inline_moves.pick, pick, action="inline_message")


def _picked_id(entities: Any) -> PickedMoves | None:
    for entity in entities:
        if entity.type == MessageEntity.TEXT_LINK and entity.url:
            found = picked_from_link(entity.url)
            if found is not None:
                return found
    return None


def handlers() -> list[BaseHandler[Any, Any, Any]]:
    return [
        InlineQueryHandler(on_inline_query),
        ChosenInlineResultHandler(on_chosen),
        MessageHandler(filters.VIA_BOT & filters.UpdateType.MESSAGE, on_via_message),
    ]
