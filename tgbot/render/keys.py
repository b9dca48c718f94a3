"""Inline keys as the plain JSON Telegram takes: a render's keyboard goes into the outbox as is.
A key that calls back is built from its `Callback` (as aiogram's `InlineKeyboardBuilder` takes
callback data objects), never from data written by hand."""

from __future__ import annotations

from ..callbacks import Callback

Key = dict[str, str]
Keyboard = list[list[Key]]


def button(text: str, callback: Callback) -> Key:
    return {"text": text, "callback_data": callback.data}


def link(text: str, url: str) -> Key:
    return {"text": text, "url": url}


def switch_inline(text: str, query: str) -> Key:
    """A key that opens inline mode in the same chat with `query` typed in."""
    return {"text": text, "switch_inline_query_current_chat": query}


def rows_of(keys: list[Key], width: int) -> Keyboard:
    return [keys[i : i + width] for i in range(0, len(keys), width)]
