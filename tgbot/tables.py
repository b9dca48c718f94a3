"""The three kinds of table a game is played at, told apart by the chat it belongs to.

* **A group** the bot is in: the bot posts the boards, one message a turn (DESIGN §6).
* **Practice**, the bot's private chat with one person: that person against computers; the
  board shows their real cards, and the chat has a private chat's budget, not a group's.
* **Any other chat, through inline mode** (a private chat between friends, a group the bot is
  not in): the bot can neither post there nor learn the chat's id. It edits what people post
  "via" it, and knows the chat by the `chat_instance` Telegram puts on every tap there. A game
  there is stored under an id derived from its lobby's message, and keeps it; once a tap tells
  its `chat_instance`, what the chat's games share (the outbox and its budget, the stats) goes
  under an id derived from that (`played_in`). Both lie below every id Telegram gives
  (Telegram's ids have at most 52 significant bits), so they can never meet a real chat's rows.

A table is a kind of surface, not a second game: the same engine, services and outbox serve all
three.
"""

from __future__ import annotations

import hashlib
from enum import StrEnum

#: Chat ids at or below this are chats reached through inline mode (`inline_chat_id`).
INLINE_CHAT_IDS_FROM = -(2**53)


class TableKind(StrEnum):
    GROUP = "group"
    PRACTICE = "practice"
    INLINE = "inline"

    @classmethod
    def of_chat(cls, chat_id: int) -> TableKind:
        if chat_id > 0:
            return cls.PRACTICE  # a private chat's id is its person's
        if chat_id <= INLINE_CHAT_IDS_FROM:
            return cls.INLINE
        return cls.GROUP


def inline_chat_id(key: str) -> int:
    """The chat id a chat reached by inline mode is stored under, derived from what names it (its
    `chat_instance`, or a lobby's message until its first tap): every bot instance finds the same
    (a hash, not a counter)."""
    digest = hashlib.blake2b(key.encode(), digest_size=8).digest()
    return INLINE_CHAT_IDS_FROM - (int.from_bytes(digest, "big") >> 12)


def played_in(chat_id: int, chat_instance: str | None) -> int:
    """The chat id of what a game shares with its chat's other games (its outbox rows, and so the
    chat's budget; its stats): the game's own `chat_id`, unless the game was posted via inline
    mode and a tap told its chat (`chat_instance`, which no other table has): Telegram counts
    edits of inline messages on their chat, and a rematch is a new lobby message, so a game's own
    id would give each game of one chat a budget of its own."""
    return inline_chat_id(f"chat:{chat_instance}") if chat_instance is not None else chat_id
