"""When the chat changes under a game, and input the bot does not understand.

* `migrate_to_chat_id` / `migrate_from_chat_id` (a group became a supergroup): its games move to
  the new id and are shown there again. Both messages arrive; the second finds nothing to do.
* `my_chat_member` in a group: removed → the games are held; back → the group is told to send
  /board. In a private chat: blocked → no more panels; unblocked → panels again.
* A player left the group (`left_chat_member`, sent even with privacy mode on, or `chat_member`
  when the bot is an admin): their seats are left, like /leave.
* Unknown commands are answered in private and when addressed to this bot (``/foo@this_bot``);
  a bare ``/foo`` in a group may belong to another bot. Plain text in private gets a hint (once
  in a while).

These run in a handler group of their own, after the commands and keys, so they never shadow them.
"""

from __future__ import annotations

from telegram import ChatMember, ChatMemberRestricted, Update
from telegram.constants import ChatType
from telegram.ext import BaseHandler, ChatMemberHandler, MessageHandler, filters

from ..services import chat_events, info
from ..services.origins import ChatEvent
from ..services.people import Person
from .commands import COMMAND_NAMES
from .context import TweakContext, command_of, is_group, person
from .seam import on_command, serve

GROUP = 7  # a handler group of its own, checked after the commands and keys (group 0)


def _event(update: Update, chat_id: int, who: Person | None = None) -> ChatEvent:
    return ChatEvent(chat_id, who, update_id=update.update_id)


def _present(member: ChatMember) -> bool:
    """Is this member in the chat (able to read and write, as far as the status tells)?"""
    if member.status in (ChatMember.OWNER, ChatMember.ADMINISTRATOR, ChatMember.MEMBER):
        return True
    return isinstance(member, ChatMemberRestricted) and member.is_member


async def on_migrate(update: Update, context: TweakContext) -> None:
    message = update.effective_message
    if message is None:
        return
    if message.migrate_to_chat_id:
        old_id, new_id = message.chat.id, message.migrate_to_chat_id
    elif message.migrate_from_chat_id:
        old_id, new_id = message.migrate_from_chat_id, message.chat.id
    else:
        return
    await serve(context, chat_events.chat_migrated, _event(update, old_id), new_id, action="migrate")


async def on_my_chat_member(update: Update, context: TweakContext) -> None:
    change = update.my_chat_member
    if change is None:
        return
    chat = change.chat
    was, now_in = _present(change.old_chat_member), _present(change.new_chat_member)
    if chat.type == ChatType.PRIVATE:
        changed = _event(update, chat.id, person(change.from_user))
        await serve(context, chat_events.private_chat, changed, now_in, action="private_chat")
        return
    if chat.type not in (ChatType.GROUP, ChatType.SUPERGROUP) or was == now_in:
        return
    if not now_in:
        await serve(context, chat_events.bot_left, _event(update, chat.id), action="chat_event")
    else:
        await serve(context, chat_events.bot_joined, _event(update, chat.id), chat.title, action="chat_event")


async def on_chat_member(update: Update, context: TweakContext) -> None:
    change = update.chat_member
    if change is None or change.chat.type not in (ChatType.GROUP, ChatType.SUPERGROUP):
        return
    user = change.new_chat_member.user
    if _present(change.old_chat_member) and not _present(change.new_chat_member) and not user.is_bot:
        left = _event(update, change.chat.id, person(user))
        await serve(context, chat_events.person_left, left, action="chat_event")


async def on_left_member(update: Update, context: TweakContext) -> None:
    message = update.effective_message
    if message is None or message.left_chat_member is None:
        return
    user = message.left_chat_member
    chat_id = message.chat.id
    if user.id == context.bot.id:  # the bot itself (basic groups say so)
        await serve(context, chat_events.bot_left, _event(update, chat_id), action="chat_event")
    elif not user.is_bot:
        await serve(
            context, chat_events.person_left, _event(update, chat_id, person(user)), action="chat_event"
        )


async def on_unknown_command(update: Update, context: TweakContext) -> None:
    message = update.effective_message
    if message is None or not message.text or command_of(update) is None:
        return
    word = message.text.split(maxsplit=1)[0][1:]
    name, _at, target = word.partition("@")
    if target and target.lower() != (context.bot.username or "").lower():
        return  # addressed to another bot
    if name.lower() in COMMAND_NAMES:
        return  # handled by its CommandHandler
    if is_group(update) and not target:
        return  # a bare /foo in a group may well be another bot's command
    await on_command("unknown_command", info.unknown_command)(update, context)


async def on_private_text(update: Update, context: TweakContext) -> None:
    message = update.effective_message
    if message is None or not message.text or message.text.startswith("/") or message.via_bot is not None:
        return
    await on_command("text", info.private_text)(update, context)


def handlers() -> list[BaseHandler]:  # type: ignore[type-arg]
    return [
        MessageHandler(filters.StatusUpdate.MIGRATE, on_migrate),
        ChatMemberHandler(on_my_chat_member, ChatMemberHandler.MY_CHAT_MEMBER),
        ChatMemberHandler(on_chat_member, ChatMemberHandler.CHAT_MEMBER),
        MessageHandler(filters.StatusUpdate.LEFT_CHAT_MEMBER, on_left_member),
        MessageHandler(filters.COMMAND & filters.UpdateType.MESSAGE, on_unknown_command),
        MessageHandler(filters.TEXT & filters.ChatType.PRIVATE & filters.UpdateType.MESSAGE, on_private_text),
    ]
