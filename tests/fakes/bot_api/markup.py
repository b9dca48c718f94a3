"""Keyboards: what Telegram accepts as ``reply_markup``."""

from __future__ import annotations

import json
import re
from typing import Any

from tests.fakes.bot_api.common import JSONDict, bad

#: The fields that make an inline keyboard button do something (one is required).
BUTTON_ACTIONS = (
    "callback_data",
    "url",
    "login_url",
    "web_app",
    "switch_inline_query",
    "switch_inline_query_current_chat",
    "switch_inline_query_chosen_chat",
    "copy_text",
    "callback_game",
    "pay",
)


def parse_markup(raw: Any, *, inline_only: bool = False) -> JSONDict | None:
    """A reply_markup as Telegram checks it (``inline_only``: edits and inline results)."""
    if raw is None:
        return None
    if isinstance(raw, str):
        raw = json.loads(raw)
    if not isinstance(raw, dict):
        raise bad("can't parse reply keyboard markup JSON object")
    if "inline_keyboard" not in raw:
        if inline_only:
            raise bad("inline keyboard expected")
        return raw
    rows = raw["inline_keyboard"]
    if not isinstance(rows, list) or not all(isinstance(row, list) for row in rows):
        raise bad('field "inline_keyboard" of the InlineKeyboardMarkup must be an Array of Arrays')
    for row in rows:
        for button in row:
            if not isinstance(button, dict) or not button.get("text"):
                raise bad('can\'t parse inline keyboard button: Field "text" must be of type String')
            if not any(key in button for key in BUTTON_ACTIONS):
                raise bad(
                    "can't parse inline keyboard button: Text buttons are unallowed in the inline keyboard"
                )
            data = button.get("callback_data")
            if "callback_data" in button and not (
                isinstance(data, str) and 1 <= len(data.encode("utf-8")) <= 64
            ):
                raise bad("BUTTON_DATA_INVALID")
            url = button.get("url")
            if "url" in button and (not isinstance(url, str) or not url or re.search(r"\s", url)):
                raise bad("BUTTON_URL_INVALID")
    if not any(rows):
        return None  # an empty inline keyboard is no keyboard
    return raw


def forwarded_keyboard(markup: JSONDict | None, *, via_bot: bool) -> JSONDict | None:
    """The keyboard a forwarded copy of a message keeps, as TDLib builds it for a forward
    (``MessagesManager``, forwarded messages): all of it when every button is a URL or login URL
    button, or on a message sent via a bot a switch-inline button (current-chat ones become
    plain ``switch_inline_query``); none of it when any button is anything else, a callback
    button above all. So a game's callback keys never travel with a forward, and a copy of an
    inline message is no inline message: nothing on it can be tapped, from any chat. (The server
    adds none back: TDLib logs an error when a message other than a game or an invoice comes back
    from the server with a keyboard it did not keep, ``MessagesManager::update_message``.)
    """
    if not markup or "inline_keyboard" not in markup:
        return None
    kept: list[list[JSONDict]] = []
    for row in markup["inline_keyboard"]:
        kept.append([])
        for button in row:
            if "url" in button or "login_url" in button or (via_bot and "switch_inline_query" in button):
                kept[-1].append(dict(button))
            elif via_bot and "switch_inline_query_current_chat" in button:
                query = button["switch_inline_query_current_chat"]
                kept[-1].append({"text": button["text"], "switch_inline_query": query})
            else:
                return None
    return {"inline_keyboard": kept}
