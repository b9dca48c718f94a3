"""answerInlineQuery's arguments, checked as the Bot API server and then Telegram check them.

The Bot API server parses every result before anything else ("can't parse inline query result:
..."), and Telegram then checks the query id and the results (RESULTS_TOO_MUCH,
RESULT_ID_DUPLICATE...).
"""

from __future__ import annotations

import copy
from typing import Any

from tests.fakes.bot_api.common import ApiError, JSONDict, bad, utf16_len
from tests.fakes.bot_api.html import render
from tests.fakes.bot_api.markup import parse_markup

INLINE_RESULT_TYPES = frozenset(
    {
        "article",
        "audio",
        "contact",
        "document",
        "game",
        "gif",
        "location",
        "mpeg4_gif",
        "photo",
        "sticker",
        "venue",
        "video",
        "voice",
    }
)


def parse_result(raw: Any) -> JSONDict:
    """One InlineQueryResult as the Bot API server parses it (its error texts)."""

    def fail(reason: str) -> ApiError:
        return bad(f"can't parse inline query result: {reason}")

    if not isinstance(raw, dict):
        raise fail("Inline query result must be an object")
    for key in ("type", "id"):
        if key not in raw:
            raise fail(f'Can\'t find field "{key}"')
        if not isinstance(raw[key], str):
            raise fail(f'Field "{key}" must be of type String')
    result = copy.deepcopy(raw)
    result["type"] = kind = raw["type"].lower()
    if kind not in INLINE_RESULT_TYPES:
        raise fail(f'type "{kind}" is unsupported for the inline query result')
    content = raw.get("input_message_content")
    if content is not None and not isinstance(content, dict):
        raise fail('Field "input_message_content" must be of type Object')
    if kind == "article":
        if content is None:
            raise fail('Can\'t find field "message_text"')
        if not content.get("message_text") and not any(
            key in content for key in ("latitude", "phone_number", "title", "payload")
        ):
            raise fail("Input message content is not specified")
    if content is not None and isinstance(content.get("message_text"), str):
        try:
            render(content["message_text"], content.get("parse_mode"), content.get("entities"))
        except ApiError as error:
            reason = error.description.removeprefix("Bad Request: ")
            raise fail(reason[:1].upper() + reason[1:]) from None
    if raw.get("reply_markup") is not None:
        try:
            markup = parse_markup(raw["reply_markup"], inline_only=True)
        except ApiError as error:
            reason = error.description.removeprefix("Bad Request: ")
            if reason.isupper():  # Telegram's own code (BUTTON_DATA_INVALID…) is not wrapped
                raise
            raise fail(reason[:1].upper() + reason[1:]) from None
        buttons = [b for row in (markup or {}).get("inline_keyboard", []) for b in row]
        if any(key in b for b in buttons for key in ("web_app", "callback_game", "pay")):
            raise bad("BUTTON_TYPE_INVALID")
    if kind == "article" and "title" not in raw:
        raise fail('Can\'t find field "title"')
    return result


def check_results(results: list[JSONDict], next_offset: Any) -> None:
    """What Telegram checks of a parsed answer (after the query id): its codes, not wrapped."""
    if len(results) > 50:
        raise bad("RESULTS_TOO_MUCH")
    seen: set[str] = set()
    for result in results:
        result_id = result["id"]
        if not result_id:
            raise bad("RESULT_ID_EMPTY")
        if len(result_id.encode("utf-8")) > 64:
            raise bad("RESULT_ID_INVALID")
        if result_id in seen:
            raise bad("RESULT_ID_DUPLICATE")
        seen.add(result_id)
        if result["type"] == "article" and not str(result.get("title") or "").strip():
            raise bad("ARTICLE_TITLE_EMPTY")
        content = result.get("input_message_content")
        if isinstance(content, dict) and isinstance(content.get("message_text"), str):
            visible, _ = render(content["message_text"], content.get("parse_mode"), content.get("entities"))
            if not visible:
                raise bad("MESSAGE_EMPTY")
            if utf16_len(visible) > 4096:
                raise bad("MESSAGE_TOO_LONG")
    if next_offset is not None and len(str(next_offset).encode("utf-8")) > 64:
        raise bad("NEXT_OFFSET_INVALID")
