"""The steps every command handler repeats, written once so they cannot drift apart.

Answer in the chat and forum topic of the command, find the game it is about, check management
rights without an API call for the creator, and turn a service's refusal into a short answer.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable

from telegram import InlineKeyboardMarkup, Update

from .. import telegram_io as io
from ..deps import Deps
from ..services import games
from ..services.errors import ServiceError
from ..store.db import session_scope
from ..store.models import Game
from .common import Context, deps_of, error_text, is_admin, reply_language, thread_of

Handler = Callable[[Update, Context], Awaitable[None]]


async def reply(update: Update, text: str, markup: InlineKeyboardMarkup | None = None) -> None:
    """Answer in the chat and forum topic the update came from."""
    chat = update.effective_chat
    if chat is not None:
        await io.send(update.get_bot(), chat.id, text, markup, thread_of(update))


def game_here(update: Update, deps: Deps) -> Game | None:
    """The lobby or running game of this chat and topic: each forum topic can host its own."""
    chat = update.effective_chat
    if chat is None:
        return None
    with session_scope(deps.db) as session:
        return games.active_game(session, chat.id, thread_of(update))


async def admin_rights(context: Context, game: Game, user_id: int) -> bool:
    """Whether the services should treat the user as a group admin for `game`.

    The creator may manage their game anyway, so they cost no getChatMember call.
    """
    return game.creator_id != user_id and await is_admin(context, game.chat_id, user_id)


def answers_service_errors(handler: Handler) -> Handler:
    """A refusal from a service (not the creator, not paused, …) becomes a short answer in the chat.

    Without this, each command would wrap its transaction in the same try/except; a refusal is
    an expected answer, not an error for the log.
    """

    @functools.wraps(handler)
    async def wrapped(update: Update, context: Context) -> None:
        try:
            await handler(update, context)
        except ServiceError as exc:
            await reply(update, error_text(reply_language(deps_of(context), update), exc))

    return wrapped
