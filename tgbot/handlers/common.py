"""Small helpers shared by the handlers: who is asking, in which language."""

from __future__ import annotations

import logging
import time
from typing import Any

from telegram import Update
from telegram import User as TgApiUser
from telegram.constants import ChatMemberStatus, ChatType
from telegram.error import TelegramError
from telegram.ext import ContextTypes

from .. import logs
from ..deps import Deps, get_deps
from ..i18n import M_, _, normalize
from ..services import languages
from ..services.errors import ServiceError
from ..services.games import TgUser
from ..store.db import session_scope
from ..store.models import Chat

log = logging.getLogger("tweakbot.updates")

Context = ContextTypes.DEFAULT_TYPE


def deps_of(context: Context) -> Deps:
    return get_deps(context.bot_data)


def tg_user(user: TgApiUser) -> TgUser:
    return TgUser(
        user.id, user.first_name or user.username or str(user.id), user.username, user.language_code
    )


def is_group(update: Update) -> bool:
    chat = update.effective_chat
    return chat is not None and chat.type in (ChatType.GROUP, ChatType.SUPERGROUP)


def thread_of(update: Update) -> int | None:
    """The forum topic of a message, so each topic can host its own game."""
    message = update.effective_message
    if message is not None and message.is_topic_message and message.message_thread_id:
        return message.message_thread_id
    return None


def personal_language(deps: Deps, update: Update) -> str:
    """Language for popups and private messages: the user's /language, else Telegram's."""
    user = update.effective_user
    if user is None:
        return "en"
    # Every update needs it: cached for a few seconds per process (services.languages).
    stored = languages.stored(deps.db, user.id)
    if stored is not None:
        language, tg_language = stored
        return normalize(language or tg_language)
    return normalize(user.language_code)


def group_language(deps: Deps, chat_id: int, fallback: str) -> str:
    with session_scope(deps.db) as session:
        chat = session.get(Chat, chat_id)
        if chat is not None and chat.language:
            return chat.language
    return fallback


def reply_language(deps: Deps, update: Update) -> str:
    """Language of a reply in the chat: the group's in a group, the user's own in private."""
    lang = personal_language(deps, update)
    chat = update.effective_chat
    if chat is not None and is_group(update):
        return group_language(deps, chat.id, lang)
    return lang


async def is_admin(context: Context, chat_id: int, user_id: int) -> bool:
    try:
        member = await context.bot.get_chat_member(chat_id, user_id)
    except TelegramError:
        return False
    return member.status in (ChatMemberStatus.ADMINISTRATOR, ChatMemberStatus.OWNER)


ILLEGAL_TEXT = {
    "wrong_total": M_("{total} is not the target {target}. Nothing was played."),
    "no_table_cards": M_("Pick at least one table card for a sum."),
    "bad_hand_index": M_("Those cards are no longer there."),
    "bad_table_index": M_("Those cards are no longer there."),
    "one_t_per_turn": M_("Only one [T!] card per turn."),
    "t_not_held": M_("You don't hold that [T!] card."),
    "bad_victim": M_("Pick another player."),
    "victim_empty": M_("That player has no cards."),
    "deck_empty": M_("The deck is empty: the Shifter can't be played."),
    "no_victims": M_("Nobody else has cards."),
    "joker_delta": M_("The Joker changes the target by +1 or −1."),
}

ERROR_TEXT = {
    "no_game": M_("This game no longer exists."),
    "not_lobby": M_("This lobby is closed."),
    "already_joined": M_("You're already in."),
    "lobby_full": M_("The table is full (6 players)."),
    "not_in_game": M_("You're not in this game. Start your own with /newgame!"),
    "not_creator": M_("Only the creator or a group admin can do that."),
    "too_few": M_("At least 2 players are needed."),
    "no_humans": M_("At least one human player is needed."),
    "bad_config": M_("Not enough cards for this many players: pick more colours in Settings."),
    "stale": M_("This board is out of date. Here is the current one."),
    "not_your_turn": M_("It's {name}'s turn."),
    "paused": M_("The game is paused. /resume to continue."),
    "not_playing": M_("This game is over."),
    "game_over": M_("This game is over."),
    "game_exists": M_("A game is already running here."),
    "bad_setting": M_("That setting is not available."),
    "already_left": M_("You already left this game."),
    "already_paused": M_("The game is already paused."),
    "not_paused": M_("The game is not paused."),
    "not_started": M_("The game has not started yet."),
    "malformed": M_("That key is not valid any more."),
    "not_your_turn_engine": M_("It's not your turn."),
    "illegal": M_("That move is not allowed."),
}


def error_text(lang: str, error: ServiceError) -> str:
    if error.reason == "illegal":
        rule = str(error.details.get("rule", ""))
        template = ILLEGAL_TEXT.get(rule, ERROR_TEXT["illegal"])
        fmt = {k: v for k, v in error.details.items() if k in ("total", "target")}
        return _(lang, template, **fmt)
    template = ERROR_TEXT.get(error.reason, ERROR_TEXT["illegal"])
    fmt = {"name": error.details.get("name", "?")} if "{name}" in template else {}
    return _(lang, template, **fmt)


def log_update(game_id: int | None, action: str, outcome: str, started: float, **extra: Any) -> None:
    """One structured line per update; never message text or tokens."""
    if logs.note_update(game_id, action, outcome, **extra):
        return  # the Application writes the update's line when it is done (tgbot/logs.py)
    fields = {
        "game": game_id,
        "action": action,
        "outcome": outcome,
        "ms": round((time.perf_counter() - started) * 1000, 1),
        **extra,
    }
    log.info(" ".join(f"{k}={v}" for k, v in fields.items()))
