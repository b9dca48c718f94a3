"""answerInlineQuery's arguments, checked as the Bot API server and then Telegram check them.

The Bot API server parses the button (``Client::get_inline_query_results_button``) and every
result before anything else ("can't parse inline query result(s button): ..."); TDLib then checks
the button's start parameter (``InlineQueriesManager::answer_inline_query``: "can't use empty
start_parameter", "too long start_parameter specified", "unallowed characters in start_parameter
are used"), and Telegram the query id and the results (RESULTS_TOO_MUCH, RESULT_ID_DUPLICATE...).
"""

from __future__ import annotations

import copy
import json
from typing import Any

from tests.fakes.bot_api.common import START_PARAMETER, ApiError, JSONDict, bad, utf16_len
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


def parse_results_button(raw: Any) -> JSONDict | None:
    """InlineQueryResultsButton as the Bot API server parses it: ``text`` and either
    ``start_parameter`` (it wins when both are given) or ``web_app`` with a ``url``."""
    if raw is None or raw == "":
        return None
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except ValueError:
            raise bad("can't parse inline query results button JSON object") from None

    def fail(reason: str) -> ApiError:
        return bad(f"can't parse inline query results button: {reason}")

    if not isinstance(raw, dict):
        raise fail("InlineQueryResultsButton must be an Object")
    if not isinstance(raw.get("text"), str):
        raise fail('Can\'t find field "text"')
    if "start_parameter" in raw:
        if not isinstance(raw["start_parameter"], str):
            raise fail('Field "start_parameter" must be of type String')
        return {"text": raw["text"], "start_parameter": raw["start_parameter"]}
    if "web_app" in raw:
        web_app = raw["web_app"]
        if not isinstance(web_app, dict) or not isinstance(web_app.get("url"), str):
            raise fail('Can\'t find field "url"')
        return {"text": raw["text"], "web_app": {"url": web_app["url"]}}
    raise fail("InlineQueryResultsButton must have exactly one optional field")


def check_start_parameter(button: JSONDict | None) -> None:
    """TDLib's checks of the button's start parameter (1-64 characters of A-Z a-z 0-9 _ -)."""
    if button is None or "start_parameter" not in button:
        return
    parameter = button["start_parameter"]
    if not parameter:
        raise bad("can't use empty start_parameter")
    if len(parameter) > 64:
        raise bad("too long start_parameter specified")
    if not START_PARAMETER.fullmatch(parameter):
        raise bad("unallowed characters in start_parameter are used")


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
