"""/stats, /top, /history and the replay download key."""

from __future__ import annotations

import time

from telegram import CallbackQuery, InlineKeyboardMarkup, Update
from telegram import User as TgApiUser

from .. import callbacks as cb
from .. import telegram_io as io
from ..deps import Deps
from ..i18n import _
from ..render import stats as stats_render
from ..services import games, history, stats
from ..services.errors import ServiceError
from ..store.db import session_scope
from ..store.models import User
from .common import Context, deps_of, group_language, is_group, log_update, personal_language, thread_of


async def _reply(update: Update, text: str, markup: InlineKeyboardMarkup | None = None) -> None:
    chat = update.effective_chat
    if chat is not None:
        await io.send(update.get_bot(), chat.id, text, markup, thread_of(update))


def _language(deps: Deps, update: Update) -> str:
    """The group's language in a group, the user's own in private."""
    lang = personal_language(deps, update)
    chat = update.effective_chat
    if is_group(update) and chat is not None:
        return group_language(deps, chat.id, lang)
    return lang


def _subject(update: Update) -> TgApiUser | None:
    """Whose stats: the author of the replied-to message (a person), else the sender."""
    message = update.effective_message
    replied = message.reply_to_message if message is not None else None
    if replied is None or message is None:
        return update.effective_user
    # In a forum topic every message "replies" to the topic's first message: that is no choice.
    topic_root = replied.forum_topic_created is not None or (
        message.is_topic_message and replied.message_id == message.message_thread_id
    )
    if not topic_root and replied.from_user is not None and not replied.from_user.is_bot:
        return replied.from_user
    return update.effective_user


async def stats_command(update: Update, context: Context) -> None:
    """Your stats in this group (or of the person whose message you reply to); in private, everywhere."""
    started = time.perf_counter()
    deps = deps_of(context)
    chat, who = update.effective_chat, _subject(update)
    if chat is None or who is None:
        return
    lang = _language(deps, update)
    everywhere = not is_group(update)
    with session_scope(deps.db) as session:
        line = stats.user_stats(session, None if everywhere else chat.id, who.id)
        stored = session.get(User, who.id)
        name = stored.first_name if stored is not None and stored.first_name else who.first_name
    await _reply(update, stats_render.stats_text(lang, name, line, everywhere))
    log_update(None, "stats", "ok" if line else "empty", started)


async def top_command(update: Update, context: Context) -> None:
    """The group's leaderboard: wins, then win rate; computers listed apart."""
    started = time.perf_counter()
    deps = deps_of(context)
    chat = update.effective_chat
    if chat is None:
        return
    lang = _language(deps, update)
    if not is_group(update):
        await _reply(update, _(lang, "Send /top in a group to see its leaderboard."))
        return
    with session_scope(deps.db) as session:
        people = stats.leaderboard(session, chat.id)
        computers = stats.computer_lines(session, chat.id)
    await _reply(update, stats_render.top_text(lang, people, computers))
    log_update(None, "top", "ok", started)


async def history_command(update: Update, context: Context) -> None:
    """The group's recent games, with a key per finished game for its replay file."""
    started = time.perf_counter()
    deps = deps_of(context)
    chat = update.effective_chat
    if chat is None:
        return
    lang = _language(deps, update)
    if not is_group(update):
        await _reply(update, _(lang, "Send /history in a group to see its games."))
        return
    with session_scope(deps.db) as session:
        entries = history.recent_games(session, chat.id)
    await _reply(
        update, stats_render.history_text(lang, entries), stats_render.history_keyboard(lang, entries)
    )
    log_update(None, "history", "ok", started)


async def on_download_key(query: CallbackQuery, data: cb.Callback, deps: Deps, lang: str) -> None:
    """Send a finished game's replay: in private when the tapper opened a chat with the bot,
    else in the group where the key was tapped. Only games of that group can be fetched."""
    assert data.game_id is not None
    bot = query.get_bot()
    message = query.message
    if message is None:
        raise ServiceError("no_game")
    where = message.chat.id
    user_id = query.from_user.id
    try:
        with session_scope(deps.db) as session:
            content = history.replay_file(session, data.game_id, chat_id=where)
            user = session.get(User, user_id)
            can_dm = bool(user is not None and user.can_dm)
    except ServiceError as exc:
        text = (
            _(lang, "Only finished games have a replay file.")
            if exc.reason == "not_finished"
            else _(lang, "This game no longer exists.")
        )
        await io.answer(bot, query.id, text, alert=True)
        return
    filename = f"tweak-game-{data.game_id}.jsonl"
    caption = _(
        lang,
        "🎞 Replay of game #{id} (tweakbot replay format). Check it with: python -m engine.replay {file}",
        id=data.game_id,
        file=filename,
    )
    if can_dm and where != user_id:
        sent = await io.send_file(bot, user_id, "document", content, filename, caption)
        if sent.message_id is not None:
            await io.answer(bot, query.id, _(lang, "Sent to you in our private chat."))
            return
        if sent.blocked:
            with session_scope(deps.db) as session:
                games.set_can_dm(session, user_id, False)
    topic = getattr(message, "is_topic_message", False)
    thread = getattr(message, "message_thread_id", None) if topic else None
    sent = await io.send_file(bot, where, "document", content, filename, caption, thread)
    await io.answer(bot, query.id, "" if sent.message_id is not None else _(lang, "Sending failed, sorry."))
