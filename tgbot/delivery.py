"""Sending into a game's group when the group itself may have changed (DESIGN §5).

`send_to_game` is what the presenter and the sweep use for every group message:

* it goes to the game's chat **and forum topic** (`message_thread_id`);
* when Telegram says the group became a supergroup (`ChatMigrated`), the chat's
  games and settings move to the new id (`services.chat_events.migrate_chat`)
  and the message is sent **once** more, to the new id; a second "migrated"
  answer is not followed, so a send can never loop;
* when Telegram says the bot may not write there any more (403 in a group: it
  was kicked or left without us hearing of it), the chat's games are paused,
  as if the `my_chat_member` update had arrived.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from telegram import Bot, InlineKeyboardMarkup

from . import telegram_io as io
from .deps import Deps
from .services import chat_events
from .store.db import session_scope
from .store.models import Game

log = logging.getLogger("tweakbot.delivery")


def follow_migration(deps: Deps, old_id: int, new_id: int) -> list[int]:
    """Move the chat's games and settings to the supergroup; the active games that moved."""
    with session_scope(deps.db) as session:
        moved = chat_events.migrate_chat(session, old_id, new_id, deps.clock.now())
    if moved:
        log.info("chat %s became %s: moved games %s", old_id, new_id, moved)
    return moved


def hold_games(deps: Deps, chat_id: int) -> list[int]:
    """The bot can no longer write in the group: pause its games (state kept)."""
    with session_scope(deps.db) as session:
        held = chat_events.bot_removed(session, chat_id, deps.clock.now())
    if held:
        log.info("bot removed from chat %s: paused games %s", chat_id, held)
    return held


async def _to_game(
    deps: Deps, game: Game, attempt: Callable[[int, bool], Awaitable[io.SendResult]]
) -> io.SendResult:
    """Run one send into the game's chat, following a migration once and noticing a removal.

    `attempt(chat_id, first)` performs the send; after a migration `game.chat_id`
    is the new id, the message ids that pointed into the old chat are cleared on
    `game`, and the result's `migrated_to` is set even though the retry
    succeeded, so a caller can re-post what was lost.
    """
    sent = await attempt(game.chat_id, True)
    if sent.migrated_to is not None and sent.migrated_to != game.chat_id:
        new_id = sent.migrated_to
        follow_migration(deps, game.chat_id, new_id)
        game.chat_id = new_id
        game.board_message_id = None
        game.lobby_message_id = None
        retry = await attempt(new_id, False)  # once: never loops
        if retry.blocked:
            hold_games(deps, new_id)
        retry.migrated_to = new_id
        return retry
    if sent.blocked and game.chat_id < 0:
        hold_games(deps, game.chat_id)
    return sent


async def send_to_game(
    deps: Deps,
    bot: Bot,
    game: Game,
    text: str,
    markup: InlineKeyboardMarkup | None = None,
    reply_to: int | None = None,
) -> io.SendResult:
    """Send a message into the game's chat and topic (see `_to_game`)."""

    async def attempt(chat_id: int, first: bool) -> io.SendResult:
        return await io.send(
            bot, chat_id, text, markup, game.thread_id, reply_to=reply_to if first else None
        )

    return await _to_game(deps, game, attempt)


async def send_file_to_game(
    deps: Deps, bot: Bot, game: Game, kind: str, data: bytes, filename: str, caption: str | None = None
) -> io.SendResult:
    """Send a photo or document into the game's chat and topic (see `_to_game`)."""

    async def attempt(chat_id: int, first: bool) -> io.SendResult:
        return await io.send_file(bot, chat_id, kind, data, filename, caption, game.thread_id)

    return await _to_game(deps, game, attempt)
