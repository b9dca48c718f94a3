"""/stats, /top, /history and the replay download key."""

from __future__ import annotations

import time

from telegram import CallbackQuery, Update
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
from .common import Context, deps_of, group_language, is_group, log_update, reply_language
from .replies import reply


async def _in_group(update: Update, hint: str) -> int | None:
    """The group's chat id; in private `hint` is the answer, since these lists belong to a group."""
    chat = update.effective_chat
    if chat is not None and is_group(update):
        return chat.id
    await reply(update, hint)
    return None


def _subject(update: Update) -> TgApiUser | None:
    """Whose stats: the author of the replied-to message (a person), else the sender."""
    message = update.effective_message
    replied = message.reply_to_message if message is not None else None
    if message is None or replied is None:
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
    lang = reply_language(deps, update)
    everywhere = not is_group(update)
    with session_scope(deps.db) as session:
        line = stats.user_stats(session, None if everywhere else chat.id, who.id)
        stored = session.get(User, who.id)
        name = stored.first_name if stored is not None and stored.first_name else who.first_name
    await reply(update, stats_render.stats_text(lang, name, line, everywhere))
    log_update(None, "stats", "ok" if line else "empty", started)


async def top_command(update: Update, context: Context) -> None:
    """The group's leaderboard: wins, then win rate; computers listed apart."""
    started = time.perf_counter()
    deps = deps_of(context)
    lang = reply_language(deps, update)
    chat_id = await _in_group(update, _(lang, "Send /top in a group to see its leaderboard."))
    if chat_id is None:
        return
    with session_scope(deps.db) as session:
        people = stats.leaderboard(session, chat_id)
        computers = stats.computer_lines(session, chat_id)
    await reply(update, stats_render.top_text(lang, people, computers))
    log_update(None, "top", "ok", started)


async def history_command(update: Update, context: Context) -> None:
    """The group's recent games, with a key per finished game for its replay file."""
    started = time.perf_counter()
    deps = deps_of(context)
    lang = reply_language(deps, update)
    chat_id = await _in_group(update, _(lang, "Send /history in a group to see its games."))
    if chat_id is None:
        return
    with session_scope(deps.db) as session:
        entries = history.recent_games(session, chat_id)
    text = stats_render.history_text(lang, entries)
    await reply(update, text, stats_render.history_keyboard(lang, entries))
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
    if can_dm and where != user_id:
        caption = _replay_caption(lang, data.game_id, filename)
        sent = await io.send_file(bot, user_id, "document", content, filename, caption)
        if sent.message_id is not None:
            await io.answer(bot, query.id, _(lang, "Sent to you in our private chat."))
            return
        if sent.blocked:
            with session_scope(deps.db) as session:
                games.set_can_dm(session, user_id, False)
    # In the group the caption is for everyone: the group's language, not the tapper's.
    caption = _replay_caption(group_language(deps, where, lang), data.game_id, filename)
    topic = getattr(message, "is_topic_message", False)
    thread = getattr(message, "message_thread_id", None) if topic else None
    sent = await io.send_file(bot, where, "document", content, filename, caption, thread)
    await io.answer(bot, query.id, "" if sent.message_id is not None else _(lang, "Sending failed, sorry."))


def _replay_caption(lang: str, game_id: int, filename: str) -> str:
    return _(
        lang,
        "🎞 Replay of game #{id} (tweakbot replay format). Check it with: python -m engine.replay {file}",
        id=game_id,
        file=filename,
    )
