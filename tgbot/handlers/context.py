"""The handlers' context (PTB `ContextTypes`): the bot's shared services, and the small facts
every handler derives from an update in the same way."""

from __future__ import annotations

from typing import Any

from telegram import Update
from telegram import User as TgUser
from telegram.constants import ChatMemberStatus, ChatType
from telegram.error import TelegramError
from telegram.ext import CallbackContext, ExtBot

from ..deps import Deps, get_deps
from ..i18n import normalize
from ..services.origins import Command, Tap
from ..services.people import Person


class TweakContext(CallbackContext[ExtBot[None], dict[Any, Any], dict[Any, Any], dict[Any, Any]]):
    @property
    def deps(self) -> Deps:
        return get_deps(self.bot_data)

    async def is_admin(self, chat_id: int, user_id: int) -> bool:
        """One getChatMember, asked only when a service needs it (the creator never costs one)."""
        try:
            member = await self.bot.get_chat_member(chat_id, user_id)
        except TelegramError:
            return False
        return member.status in (ChatMemberStatus.ADMINISTRATOR, ChatMemberStatus.OWNER)


def person(user: TgUser) -> Person:
    return Person(
        user.id, user.first_name or user.username or str(user.id), user.username, user.language_code
    )


def own_language(update: Update) -> str:
    """The tapper's Telegram language, for the rare answer given without the database."""
    user = update.effective_user
    return normalize(user.language_code if user is not None else None)


def is_group(update: Update) -> bool:
    chat = update.effective_chat
    return chat is not None and chat.type in (ChatType.GROUP, ChatType.SUPERGROUP)


def thread_of(update: Update) -> int | None:
    """The forum topic of a message, so each topic can host its own game."""
    message = update.effective_message
    if message is not None and message.is_topic_message and message.message_thread_id:
        return message.message_thread_id
    return None


def command_of(update: Update, args: list[str] | None = None) -> Command | None:
    user, chat = update.effective_user, update.effective_chat
    if user is None or chat is None:
        return None
    return Command(
        person(user),
        chat.id,
        thread_of(update),
        private=chat.type == ChatType.PRIVATE,
        chat_title=chat.title,
        args=" ".join(args or []).strip(),
        replied_to=_replied_to(update),
        update_id=update.update_id,
    )


def _replied_to(update: Update) -> Person | None:
    """The author of the message a command replied to, when that is a person's choice: in a
    forum topic every message "replies" to the topic's first message, and that is none."""
    message = update.effective_message
    replied = message.reply_to_message if message is not None else None
    if message is None or replied is None:
        return None
    topic_root = replied.forum_topic_created is not None or (
        message.is_topic_message and replied.message_id == message.message_thread_id
    )
    if not topic_root and replied.from_user is not None and not replied.from_user.is_bot:
        return person(replied.from_user)
    return None


def tap_of(update: Update) -> Tap | None:
    query = update.callback_query
    if query is None:
        return None
    message = query.message
    chat = message.chat if message is not None else None
    topic = message is not None and getattr(message, "is_topic_message", False)
    return Tap(
        person(query.from_user),
        chat.id if chat is not None else None,
        message.message_id if message is not None else None,
        private=chat is not None and chat.type == ChatType.PRIVATE,
        thread_id=getattr(message, "message_thread_id", None) if topic else None,
        query_id=query.id,
        inline_id=query.inline_message_id,
        chat_instance=query.chat_instance,
        update_id=update.update_id,
    )
