"""When the group changes under a game: migrations, the bot or a player leaving, unknown input.

* `migrate_to_chat_id` / `migrate_from_chat_id` (a group became a supergroup):
  the games move to the new chat id and their boards (or lobbies) are posted
  there again. Both messages arrive; the second finds nothing left to do.
* `my_chat_member` in a group: the bot was removed → the games are paused,
  state kept (no end to that pause); the bot is back → the group is told to
  send /board, which resumes. In a private chat: the user blocked the bot →
  no more private panels (the group board and its mention still work);
  unblocked → panels again.
* A player left the group (`left_chat_member`, which Telegram sends even with
  privacy mode on, or a `chat_member` update when the bot is an admin): their
  seat is left and the idle default plays it, like /leave.
* Unknown commands: answered briefly in private and when addressed to this bot
  (`/foo@this_bot`); a bare unknown `/foo` in a group is ignored, since it may
  belong to another bot of the group. Plain text in private gets a hint.

All of these are registered in their own handler group (`GROUP`), after the
commands and keys, so they never shadow them.
"""

from __future__ import annotations

from telegram import Bot, ChatMember, ChatMemberRestricted, Update
from telegram import User as TgApiUser
from telegram.constants import ChatType
from telegram.ext import (
    Application,
    BaseHandler,
    ChatMemberHandler,
    CommandHandler,
    MessageHandler,
    filters,
)

from .. import delivery, presenter
from ..deps import Deps
from ..i18n import _
from ..render import cards as cards_render
from ..services import chat_events, games
from ..store.db import session_scope
from ..store.models import LOBBY
from .common import Context, deps_of, is_group, personal_language, reply_language
from .replies import reply

GROUP = 7  # a handler group of its own, checked after the commands and keys (group 0)


def register(application: Application) -> None:  # type: ignore[type-arg]
    """In a handler group of their own, so a command or key handler always sees its update first."""
    handlers: list[BaseHandler] = [  # type: ignore[type-arg]
        MessageHandler(filters.StatusUpdate.MIGRATE, on_migrate),
        ChatMemberHandler(on_my_chat_member, ChatMemberHandler.MY_CHAT_MEMBER),
        ChatMemberHandler(on_chat_member, ChatMemberHandler.CHAT_MEMBER),
        MessageHandler(filters.StatusUpdate.LEFT_CHAT_MEMBER, on_left_member),
        MessageHandler(filters.COMMAND & filters.UpdateType.MESSAGE, on_unknown_command),
        MessageHandler(filters.TEXT & filters.ChatType.PRIVATE & filters.UpdateType.MESSAGE, on_private_text),
    ]
    for handler in handlers:
        application.add_handler(handler, group=GROUP)


def _present(member: ChatMember) -> bool:
    """Is this member in the chat (able to read and write, as far as the status tells)?"""
    if member.status in (ChatMember.OWNER, ChatMember.ADMINISTRATOR, ChatMember.MEMBER):
        return True
    return isinstance(member, ChatMemberRestricted) and member.is_member


# --- a group became a supergroup ------------------------------------------------------------------


async def on_migrate(update: Update, context: Context) -> None:
    message = update.effective_message
    if message is None:
        return
    if message.migrate_to_chat_id:
        old_id, new_id = message.chat.id, message.migrate_to_chat_id
    elif message.migrate_from_chat_id:
        old_id, new_id = message.migrate_from_chat_id, message.chat.id
    else:
        return
    deps = deps_of(context)
    async with deps.locks.hold(f"migrate:{old_id}"):
        delivery.follow_migration(deps, old_id, new_id)
        with session_scope(deps.db) as session:
            waiting = [
                g.id
                for g in games.active_games_in_chat(session, new_id)
                if g.id is not None and _lost_message(g.status, g.lobby_message_id, g.board_message_id)
            ]
        for game_id in waiting:
            await _repost(deps, update.get_bot(), game_id)


async def _repost(deps: Deps, bot: Bot, game_id: int) -> None:
    """Post a migrated game's lobby or board in the supergroup, unless a send got there first."""
    async with deps.locks.hold(f"game:{game_id}"):
        with session_scope(deps.db) as session:
            ctx = games.load_context(session, game_id)
        if not _lost_message(ctx.game.status, ctx.game.lobby_message_id, ctx.game.board_message_id):
            return
        if ctx.game.status == LOBBY:
            await presenter.show_lobby(deps, bot, ctx)
            return
        lang = presenter.group_language(ctx)
        header = [_(lang, "🔄 This group is now a supergroup: the game goes on here.")]
        await presenter.post_board(deps, bot, ctx, header=header, panel=False)


def _lost_message(status: str, lobby_message_id: int | None, board_message_id: int | None) -> bool:
    return (lobby_message_id if status == LOBBY else board_message_id) is None


# --- the bot removed from a group, or blocked in private ------------------------------------------


async def on_my_chat_member(update: Update, context: Context) -> None:
    change = update.my_chat_member
    if change is None:
        return
    deps = deps_of(context)
    chat = change.chat
    was, now_in = _present(change.old_chat_member), _present(change.new_chat_member)
    if chat.type == ChatType.PRIVATE:
        with session_scope(deps.db) as session:
            games.set_can_dm(session, change.from_user.id, now_in)
        return
    if chat.type not in (ChatType.GROUP, ChatType.SUPERGROUP) or was == now_in:
        return
    if not now_in:
        delivery.hold_games(deps, chat.id)
        return
    with session_scope(deps.db) as session:
        held = chat_events.bot_added(session, chat.id, chat.title, deps.clock.now())
    bot = update.get_bot()
    for game in held:
        text = _(game.language, "👋 I'm back! The game is paused: send /board to go on.")
        await delivery.send_to_game(deps, bot, game, text)


# --- a player left the group ----------------------------------------------------------------------


async def on_chat_member(update: Update, context: Context) -> None:
    change = update.chat_member
    if change is None or change.chat.type not in (ChatType.GROUP, ChatType.SUPERGROUP):
        return
    if _present(change.old_chat_member) and not _present(change.new_chat_member):
        await _member_gone(update, context, change.chat.id, change.new_chat_member.user)


async def on_left_member(update: Update, context: Context) -> None:
    message = update.effective_message
    if message is None or message.left_chat_member is None:
        return
    user = message.left_chat_member
    if user.id == update.get_bot().id:
        delivery.hold_games(deps_of(context), message.chat.id)  # the bot itself (basic groups say so)
        return
    await _member_gone(update, context, message.chat.id, user)


async def _member_gone(update: Update, context: Context, chat_id: int, user: TgApiUser) -> None:
    if user.is_bot:
        return
    deps = deps_of(context)
    bot = update.get_bot()
    with session_scope(deps.db) as session:
        game_ids = chat_events.games_of_member(session, chat_id, user.id)
    for game_id in game_ids:
        async with deps.locks.hold(f"game:{game_id}"):
            with session_scope(deps.db) as session:
                gone = chat_events.member_left(session, game_id, user.id, deps.clock.now(), deps.custom_pace)
                ctx = games.load_context(session, game_id) if gone is not None else None
            if gone is None or ctx is None:
                continue
            if gone.lobby:
                await presenter.show_lobby(deps, bot, ctx)
                continue
            text = _(
                presenter.group_language(ctx),
                "🚪 {name} left the group: the bot plays their seat from now on (points kept).",
                name=cards_render.name(gone.name),
            )
            await delivery.send_to_game(deps, bot, ctx.game, text)
            if gone.result is not None and (gone.result.outcomes or gone.result.abandoned):
                await presenter.announce(deps, bot, gone.result, gone.previous_board)


# --- input the bot does not understand ------------------------------------------------------------


def known_commands(application: Application) -> set[str]:  # type: ignore[type-arg]
    """Every command some CommandHandler of the application answers."""
    names: set[str] = set()
    for handlers in application.handlers.values():
        for handler in handlers:
            if isinstance(handler, CommandHandler):
                names.update(handler.commands)
    return names


async def on_unknown_command(update: Update, context: Context) -> None:
    message = update.effective_message
    if message is None or not message.text:
        return
    word = message.text.split(maxsplit=1)[0][1:]
    name, _at, target = word.partition("@")
    bot = update.get_bot()
    if target and target.lower() != (bot.username or "").lower():
        return  # addressed to another bot
    if name.lower() in known_commands(context.application):
        return  # handled by its CommandHandler
    if is_group(update) and not target:
        return  # a bare /foo in a group may well be another bot's command
    lang = reply_language(deps_of(context), update)
    await reply(update, _(lang, "I don't know that command. /help lists what I can do."))


async def on_private_text(update: Update, context: Context) -> None:
    message = update.effective_message
    if message is None or not message.text or message.text.startswith("/"):
        return
    lang = personal_language(deps_of(context), update)
    await reply(
        update, _(lang, "I only understand commands and keys. /help lists them; games are played in groups.")
    )
