"""Constants, error texts and the error every part of the fake raises.

The error texts are the Bot API server's (telegram-bot-api's ``Client.cpp``) and Telegram's.
"""

from __future__ import annotations

import re
import time
from typing import Any, Literal, Protocol

BOT_ID = 1000
BOT_USERNAME = "tweak_test_bot"
BOT_FIRST_NAME = "TWEAK!"
#: A token with the right shape; the fake never checks it, but Settings validation would.
TEST_TOKEN = "1000000:TEST-fake-token-for-tests-only-0123456789"

#: The methods that cost a chat part of Telegram's per-chat budget (DESIGN §6).
MESSAGE_METHODS: frozenset[str] = frozenset(
    {
        "sendMessage",
        "sendPhoto",
        "sendDocument",
        "editMessageText",
        "editMessageReplyMarkup",
        "editMessageCaption",
        "deleteMessage",
    }
)

NOT_MODIFIED = (
    "Bad Request: message is not modified: specified new message content and reply markup are "
    "exactly the same as a current content and reply markup of the message"
)
QUERY_INVALID = "Bad Request: query is too old and response timeout expired or query ID is invalid"
BLOCKED = "Forbidden: bot was blocked by the user"
CANT_INITIATE = "Forbidden: bot can't initiate conversation with a user"

#: A start parameter Telegram accepts (deep links, InlineQueryResultsButton): 1-64 of A-Z a-z 0-9 _ -.
START_PARAMETER = re.compile(r"[A-Za-z0-9_-]{1,64}")

#: How long Telegram lets a bot answer a callback query / an inline query (seconds, approximate).
CALLBACK_ANSWER_TIMEOUT = 15.0
INLINE_ANSWER_TIMEOUT = 10.0

JSONDict = dict[str, Any]
ChatMemberStatus = Literal["creator", "administrator", "member", "left", "kicked"]
#: InlineQuery.chat_type: "sender" is the user's private chat with the bot itself.
InlineChatType = Literal["sender", "private", "group", "supergroup", "channel"]


class Monotonic(Protocol):
    """Where the fake reads time for flood windows and answer deadlines (``tgbot.time_source.Timer`` fits)."""

    def monotonic(self) -> float: ...


class SystemMonotonic:
    """Real monotonic seconds: the default, so a real-time load benchmark sees real windows."""

    def monotonic(self) -> float:
        return time.monotonic()


class ApiError(Exception):
    """An error response, raised inside the fake and turned into Telegram's JSON by do_request."""

    def __init__(self, code: int, description: str, parameters: JSONDict | None = None) -> None:
        super().__init__(description)
        self.code = code
        self.description = description
        self.parameters = parameters

    def body(self) -> JSONDict:
        body: JSONDict = {"ok": False, "error_code": self.code, "description": self.description}
        if self.parameters:
            body["parameters"] = self.parameters
        return body


def bad(description: str) -> ApiError:
    """A 400 with Telegram's "Bad Request: " prefix."""
    return ApiError(400, f"Bad Request: {description}")


def utf16_len(text: str) -> int:
    """Length as Telegram counts it (entity offsets, the 4096 limit)."""
    return len(text.encode("utf-16-le")) // 2


def too_late(created_at: float | None, timeout: float | None, now: float) -> bool:
    """Whether a query made at ``created_at`` can no longer be answered at ``now``."""
    return timeout is not None and created_at is not None and now - created_at > timeout
