"""The bot's `ExtBot`: Telegram's JSON is read for what the bot uses of it, not all of it.

PTB turns every update, and every message Telegram sends back after a send or an edit, into its
objects (one per key of a keyboard, one per entity of a text), and on the tap path that parsing
was a large part of the CPU a tap costs (a profile of `benchmarks/load_bench.py`). Two kinds of
JSON are trimmed before PTB reads them:

* **An incoming callback query** carries the whole message its key is on: its text, entities
  and keyboard (a board has 10-16 keys). The handlers read of that message only its chat, id,
  date and topic (`handlers.context.tap_of`); its keyboard only a key that rewrites its own
  message (a rules page, the language picker: `handlers.wrap.own_page`), so the keyboard is kept
  for those keys' data (`keeps_keyboard`) and dropped for every other, with the text and its
  entities. `parse_update` (the webhook, `tgbot.web`) and getUpdates (polling) both trim.
* **The message Telegram sends back** after sendMessage, an edit, sendPhoto or sendDocument:
  the one delivery path reads only its `message_id` (`delivery.telegram_io`), so its text,
  caption, entities and keyboard are dropped before PTB parses it. Nothing else changes: an
  error (429, "message is not modified", a migrated group, a query too old) is raised by the
  request layer before any result is read.

The hook is `Bot._post`, which every Bot API method goes through before PTB parses its result.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from telegram import Update
from telegram.ext import ExtBot

from .delivery.webhook_replies import WebhookReplies

#: Parts of a message no handler and no sender reads (the keyboard apart: `keeps_keyboard`).
UNREAD = ("text", "entities", "caption", "caption_entities", "link_preview_options")
#: Methods whose result is the message sent or edited.
SENDS = frozenset(
    [
        "sendMessage",
        "sendPhoto",
        "sendDocument",
        "editMessageText",
        "editMessageCaption",
        "editMessageReplyMarkup",
    ]
)


def lean_update(data: dict[str, Any], keeps_keyboard: Callable[[str], bool]) -> dict[str, Any]:
    """`data` (an update's JSON) without what no handler reads: a callback query's message
    loses its text and entities, and its keyboard unless `keeps_keyboard(callback data)`."""
    query = data.get("callback_query")
    message = query.get("message") if isinstance(query, dict) else None
    if isinstance(message, dict):
        for key in UNREAD:
            message.pop(key, None)
        if not keeps_keyboard(str(query.get("data") or "")):  # type: ignore[union-attr]
            message.pop("reply_markup", None)
    return data


def lean_sent(message: dict[str, Any]) -> dict[str, Any]:
    """A message Telegram sent back, without what the sender does not read (it reads the id)."""
    for key in (*UNREAD, "reply_markup"):
        message.pop(key, None)
    return message


def _no_keyboard(_data: str) -> bool:
    return False


class TweakBot(ExtBot[Any]):
    """`ExtBot`, reading of Telegram's answers only what the bot uses (module docstring)."""

    __slots__ = ("_keeps_keyboard", "webhook_replies")

    def __init__(self, *args: Any, keeps_keyboard: Callable[[str], bool] = _no_keyboard, **kw: Any) -> None:
        super().__init__(*args, **kw)
        with self._unfrozen():
            self._keeps_keyboard = keeps_keyboard
            # Taps whose webhook request waits for their answer (tgbot/delivery/webhook_replies.py);
            # always empty in polling mode.
            self.webhook_replies = WebhookReplies()

    def parse_update(self, data: dict[str, Any]) -> Update | None:
        """An update's JSON (the webhook's body, read with `json.loads`) as PTB's `Update`."""
        return Update.de_json(lean_update(data, self._keeps_keyboard), self)

    async def _post(self, endpoint: str, data: dict[str, Any] | None = None, **kw: Any) -> Any:
        result = await super()._post(endpoint, data, **kw)
        if endpoint in SENDS:
            if isinstance(result, dict):
                lean_sent(result)
        elif endpoint == "getUpdates" and isinstance(result, list):
            for update in result:
                if isinstance(update, dict):
                    lean_update(update, self._keeps_keyboard)
        return result
