"""An in-memory Telegram Bot API for end-to-end tests of the real PTB ``Application``.

Why a fake server instead of mocking ``Bot`` methods: the bot's behaviour under Telegram's rules
(message ids, "message is not modified", callback queries answerable once, 403 for blocked users,
429 flood control, HTML that fails to parse, 64-byte callback data) is exactly what the shell has
to get right, and mocks would happily accept anything. This class plugs in where PTB would do HTTP
(``telegram.request.BaseRequest``), so every layer above it -- ``Bot``, ``ExtBot``, defaults, rate
limiter, ``Application``, handlers -- runs unchanged and sees real Telegram-shaped JSON.

Usage::

    fake = FakeTelegram()
    app = fake.application_builder().build()
    app.add_handler(...)
    alice = fake.user(1, "Alice")
    group = fake.group("Friends")
    async with TelegramTestClient(app, fake) as tg:
        await tg.send(group, alice, "/newgame@tweak_test_bot")
        lobby = fake.last_message(group.id)
        answer = await tg.tap(alice, lobby, "Join")

Telegram's limits on virtual time (``settle`` jumps the timer whenever the bot's tasks are only
waiting for it, so a 60 s flood wait takes milliseconds)::

    timer = VirtualTimer()
    fake = FakeTelegram(flood=FloodLimits(), timer=timer)
    async with TelegramTestClient(app, fake) as tg:      # adopts fake.timer
        await tg.process_many([fake.callback_update(alice, board, "move") for _ in range(30)])
        assert fake.count_429() == 0 and fake.max_writes_in_window(group.id, 60) <= 20

Faithfulness notes (each is something real Telegram does and the bot must cope with):

* Message ids are unique across the whole fake (Telegram only promises per-chat monotonicity),
  so a message id used with the wrong chat is caught instead of silently hitting another message.
* HTML (``parse_mode="HTML"``) is parsed with Telegram's rules; the stored/returned ``text`` is what
  the user sees (tags removed, entities unescaped, surrounding whitespace trimmed) and ``source``
  is what the bot sent. Markdown modes are stored verbatim and not validated.
* Editing text or caption without ``reply_markup`` removes the inline keyboard, as Telegram does.
* "Not modified" compares visible text, entities and keyboard -- like Telegram, not the raw source.
* A private chat only accepts messages once the user has opened it (``private(user)`` or any
  update from that user in it); otherwise 403 "bot can't initiate conversation with a user".
* Forum topics must be declared (``forum(topics=...)`` / ``add_topic``); unknown threads are a 400.
* Flood limits (``FakeTelegram(flood=FloodLimits())``, off by default): per group 20 writes in any
  60 s, per private chat 1 a second, 30 a second in all; writes are ``MESSAGE_METHODS`` (edits and
  deletions count). A write over a limit is not applied and answers 429 "Too Many Requests: retry
  after N" with ``parameters.retry_after`` = whole seconds until it would pass (at least 1), and
  does not count. Validation errors (400/403, "not modified") come first and cost nothing.
  Accepted writes are recorded either way (``write_times``, ``max_writes_in_window``), 429s too
  (``count_429``, ``flood_rejections``). Windows and deadlines read ``timer`` (real monotonic time
  by default, a ``VirtualTimer`` in tests), never the wall ``clock``.
* A callback query is answerable for ``answer_timeout`` (15 s) after ``callback_update`` made it,
  and once; later or again: 400 "query is too old and response timeout expired or query ID is
  invalid", and the query stays unanswered (``CallbackAnswer.expired`` says it was too late).
* Inline mode (``inline_mode=True``; getMe's ``supports_inline_queries``): an inline query is
  answerable once within ``inline_answer_timeout`` (10 s). answerInlineQuery checks results like the
  Bot API server ("can't parse inline query result: ...", e.g. ``Can't find field "title"``, HTML
  errors) and then like Telegram (RESULTS_TOO_MUCH over 50, RESULT_ID_DUPLICATE, RESULT_ID_INVALID
  over 64 bytes, ARTICLE_TITLE_EMPTY, MESSAGE_EMPTY, MESSAGE_TOO_LONG over 4096, NEXT_OFFSET_INVALID
  over 64 bytes). A picked result is the *user's* message with ``via_bot`` (no flood budget); the
  bot gets it in chats it is in, and a ``chosen_inline_result`` only with ``inline_feedback=True``.
  A result with a keyboard becomes an inline message: taps on it carry ``inline_message_id``, not
  ``message``, and edits by ``inline_message_id`` return True (they count against that chat).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import copy
import datetime as dtm
import inspect
import itertools
import json
import re
import time
from collections.abc import Awaitable, Callable, Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, cast

from telegram import Update
from telegram.ext import Application, ApplicationBuilder
from telegram.request import BaseRequest, RequestData

from tests.fakes.flood import FloodLedger, FloodLimits, FloodRejection, max_in_window
from tests.fakes.timer import VirtualTimer

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

#: How long Telegram lets a bot answer a callback query / an inline query (seconds, approximate).
CALLBACK_ANSWER_TIMEOUT = 15.0
INLINE_ANSWER_TIMEOUT = 10.0

JSONDict = dict[str, Any]
ChatMemberStatus = Literal["creator", "administrator", "member", "left", "kicked"]
#: InlineQuery.chat_type: "sender" is the user's private chat with the bot itself.
InlineChatType = Literal["sender", "private", "group", "supergroup", "channel"]


class Monotonic(Protocol):
    """Where the fake reads time for flood windows and answer deadlines (``tgbot.clock.Timer`` fits)."""

    def monotonic(self) -> float: ...


class SystemMonotonic:
    """Real monotonic seconds: the default, so a real-time load benchmark sees real windows."""

    def monotonic(self) -> float:
        return time.monotonic()


class _ApiError(Exception):
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


def _bad(description: str) -> _ApiError:
    return _ApiError(400, f"Bad Request: {description}")


def _utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


# --------------------------------------------------------------------------------------------------
# HTML parse mode, following tdlib's parse_html (the error texts are Telegram's)
# --------------------------------------------------------------------------------------------------

_HTML_TAGS = frozenset(
    {"a", "b", "strong", "i", "em", "s", "strike", "del", "u", "ins", "tg-spoiler", "tg-emoji", "span"}
    | {"pre", "code", "blockquote"}
)
_TAG_ENTITY = {
    "b": "bold",
    "strong": "bold",
    "i": "italic",
    "em": "italic",
    "s": "strikethrough",
    "strike": "strikethrough",
    "del": "strikethrough",
    "u": "underline",
    "ins": "underline",
    "tg-spoiler": "spoiler",
    "span": "spoiler",
    "code": "code",
    "pre": "pre",
    "blockquote": "blockquote",
    "tg-emoji": "custom_emoji",
}
_SPACES = " \t\r\n"
_NAMED_ENTITIES = {"lt": "<", "gt": ">", "amp": "&", "quot": '"'}


def _decode_html_entity(text: str, pos: int) -> tuple[str, int] | None:
    """Decode the entity at ``text[pos] == '&'``; None means Telegram keeps the '&' literally."""
    end = text.find(";", pos + 1, pos + 12)
    if end == -1:
        return None
    name = text[pos + 1 : end]
    if name in _NAMED_ENTITIES:
        return _NAMED_ENTITIES[name], end + 1
    if name.startswith("#") and len(name) > 1:
        try:
            code = int(name[2:], 16) if name[1] in "xX" else int(name[1:])
        except ValueError:
            return None
        if 0 < code <= 0x10FFFF and not 0xD800 <= code <= 0xDFFF:
            return chr(code), end + 1
    return None


def parse_html(text: str) -> tuple[str, list[JSONDict]]:
    """Return (visible text, entities) for an HTML message, or raise Telegram's 400."""

    def fail(reason: str) -> _ApiError:
        return _bad(f"can't parse entities: {reason}")

    def byte_offset(pos: int) -> int:
        return len(text[:pos].encode("utf-8"))

    out: list[str] = []
    offset = 0  # in UTF-16 code units, like Telegram's entity offsets
    stack: list[tuple[str, str | None, int]] = []
    entities: list[JSONDict] = []
    i, n = 0, len(text)
    while i < n:
        char = text[i]
        if char == "&":
            decoded = _decode_html_entity(text, i)
            piece, i = decoded if decoded else ("&", i + 1)
            out.append(piece)
            offset += _utf16_len(piece)
            continue
        if char != "<":
            out.append(char)
            offset += _utf16_len(char)
            i += 1
            continue
        begin = i
        i += 1
        if i < n and text[i] == "/":
            if not stack:
                raise fail(f"Unexpected end tag at byte offset {byte_offset(begin)}")
            i += 1
            name_begin = i
            while i < n and text[i] not in _SPACES and text[i] != ">":
                i += 1
            end_name = text[name_begin:i].lower()
            while i < n and text[i] in _SPACES:
                i += 1
            if i >= n or text[i] != ">":
                raise fail(f"Unclosed end tag at byte offset {byte_offset(begin)}")
            i += 1
            open_tag, open_argument, start = stack.pop()
            if end_name and end_name != open_tag:
                raise fail(
                    f'Unmatched end tag at byte offset {byte_offset(begin)}, expected "</{open_tag}>", '
                    f'found "</{end_name}>"'
                )
            if offset > start:
                _close_entity(entities, open_tag, open_argument, start, offset - start)
            continue
        name_begin = i
        while i < n and text[i] not in _SPACES and text[i] != ">":
            i += 1
        if i >= n:
            raise fail(f"Unclosed start tag at byte offset {byte_offset(begin)}")
        tag = text[name_begin:i].lower()
        if tag not in _HTML_TAGS:
            raise fail(f'Unsupported start tag "{tag}" at byte offset {byte_offset(begin)}')
        attributes: dict[str, str] = {}
        while True:
            while i < n and text[i] in _SPACES:
                i += 1
            if i >= n:
                raise fail(f"Unclosed start tag at byte offset {byte_offset(begin)}")
            if text[i] == ">":
                i += 1
                break
            attr_begin = i
            while i < n and text[i] not in _SPACES and text[i] not in "=>":
                i += 1
            attribute = text[attr_begin:i].lower()
            if not attribute:
                raise fail(f'Empty attribute name in the tag "{tag}" at byte offset {byte_offset(begin)}')
            while i < n and text[i] in _SPACES:
                i += 1
            if i >= n:
                raise fail(f"Unclosed start tag at byte offset {byte_offset(begin)}")
            if text[i] != "=":
                attributes[attribute] = ""
                continue
            i += 1
            while i < n and text[i] in _SPACES:
                i += 1
            if i >= n:
                raise fail(f"Unclosed start tag at byte offset {byte_offset(begin)}")
            if text[i] in "'\"":
                quote = text[i]
                i += 1
                value: list[str] = []
                while i < n and text[i] != quote:
                    decoded = _decode_html_entity(text, i) if text[i] == "&" else None
                    piece, i = decoded if decoded else (text[i], i + 1)
                    value.append(piece)
                if i >= n:
                    raise fail(f"Unclosed start tag at byte offset {byte_offset(begin)}")
                i += 1
                attributes[attribute] = "".join(value)
            else:
                token_begin = i
                while i < n and ((text[i].isascii() and text[i].isalnum()) or text[i] in ".-"):
                    i += 1
                if i >= n or (text[i] not in _SPACES and text[i] != ">"):
                    raise fail(f"Unexpected end of name token at byte offset {byte_offset(token_begin)}")
                attributes[attribute] = text[token_begin:i].lower()
        argument: str | None = None
        if tag == "a":
            argument = attributes.get("href", "")
        elif tag == "span" and attributes.get("class") != "tg-spoiler":
            raise fail(f'Tag "span" must have class "tg-spoiler" at byte offset {byte_offset(begin)}')
        elif tag == "code" and attributes.get("class", "").startswith("language-"):
            argument = attributes["class"].removeprefix("language-")
        elif tag == "tg-emoji":
            argument = attributes.get("emoji-id")
            if not argument:
                raise fail(
                    f'Tag "tg-emoji" must have attribute "emoji-id" at byte offset {byte_offset(begin)}'
                )
        elif tag == "blockquote" and "expandable" in attributes:
            argument = "expandable"
        stack.append((tag, argument, offset))
    if stack:
        raise fail(f'Can\'t find end tag corresponding to start tag "{stack[-1][0]}"')
    entities.sort(key=lambda e: (e["offset"], -e["length"]))
    return "".join(out), entities


def _close_entity(entities: list[JSONDict], tag: str, argument: str | None, offset: int, length: int) -> None:
    entity: JSONDict = {"type": _TAG_ENTITY.get(tag, tag), "offset": offset, "length": length}
    if tag == "a":
        if not argument:
            return
        match = re.fullmatch(r"tg://user\?id=(\d+)", argument)
        if match:
            entity = {
                "type": "text_mention",
                "offset": offset,
                "length": length,
                "user": {"id": int(match.group(1)), "is_bot": False, "first_name": "User"},
            }
        else:
            entity = {"type": "text_link", "offset": offset, "length": length, "url": argument}
    elif tag == "code" and argument:
        entity["language"] = argument
    elif tag == "pre":
        # <pre><code class="language-x">…</code></pre> becomes one pre entity with a language.
        inner = entities[-1] if entities else None
        if inner and inner["type"] == "code" and (inner["offset"], inner["length"]) == (offset, length):
            entities.pop()
            if "language" in inner:
                entity["language"] = inner["language"]
    elif tag == "tg-emoji":
        entity["custom_emoji_id"] = argument
    elif tag == "blockquote" and argument == "expandable":
        entity["type"] = "expandable_blockquote"
    entities.append(entity)


def _trim(text: str, entities: list[JSONDict]) -> tuple[str, list[JSONDict]]:
    """Telegram trims surrounding whitespace; entities shift with it (and "x\\n" equals "x")."""
    stripped = text.strip()
    if stripped == text:
        return text, entities
    lead = _utf16_len(text[: len(text) - len(text.lstrip())])
    size = _utf16_len(stripped)
    kept: list[JSONDict] = []
    for entity in entities:
        start = max(0, entity["offset"] - lead)
        end = min(size, entity["offset"] + entity["length"] - lead)
        if end > start:
            kept.append({**entity, "offset": start, "length": end - start})
    return stripped, kept


# --------------------------------------------------------------------------------------------------
# Records
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FakeUser:
    id: int
    first_name: str
    language_code: str | None = "en"
    username: str | None = None
    last_name: str | None = None
    is_bot: bool = False

    def to_dict(self) -> JSONDict:
        data: JSONDict = {"id": self.id, "is_bot": self.is_bot, "first_name": self.first_name}
        for key in ("last_name", "username", "language_code"):
            value = getattr(self, key)
            if value is not None:
                data[key] = value
        return data


@dataclass(frozen=True)
class FakeChat:
    id: int
    type: Literal["private", "group", "supergroup", "channel"]
    title: str | None = None
    first_name: str | None = None
    username: str | None = None
    is_forum: bool = False

    def to_dict(self) -> JSONDict:
        data: JSONDict = {"id": self.id, "type": self.type}
        for key in ("title", "first_name", "username"):
            value = getattr(self, key)
            if value is not None:
                data[key] = value
        if self.is_forum:
            data["is_forum"] = True
        return data


@dataclass(frozen=True)
class UploadedFile:
    field: str
    filename: str | None
    data: bytes
    mimetype: str | None


@dataclass(frozen=True)
class Revision:
    """A message's state just before an edit or delete, so tests can see what users saw."""

    method: str
    at: int
    text: str | None
    caption: str | None
    source: str | None
    parse_mode: str | None
    reply_markup: JSONDict | None


@dataclass(eq=False)
class StoredMessage:
    """One message in a chat. Edits mutate this object, so a held reference always shows "now"."""

    chat_id: int
    message_id: int
    date: int
    from_bot: bool
    sender: JSONDict
    kind: Literal["text", "photo", "document", "service"]
    text: str | None = None
    caption: str | None = None
    source: str | None = None
    parse_mode: str | None = None
    entities: list[JSONDict] = field(default_factory=list)
    reply_markup: JSONDict | None = None
    message_thread_id: int | None = None
    params: JSONDict = field(default_factory=dict)
    files: list[UploadedFile] = field(default_factory=list)
    media: Any = None
    reply_to: StoredMessage | None = None
    extra: JSONDict = field(default_factory=dict)
    deleted: bool = False
    edit_date: int | None = None
    history: list[Revision] = field(default_factory=list)
    #: Set for a message a user sent via the bot (inline mode) that carries an inline keyboard.
    inline_message_id: str | None = None

    @property
    def edited(self) -> bool:
        return self.edit_date is not None

    @property
    def via_bot(self) -> JSONDict | None:
        """The bot a user sent this message through (inline mode), as Telegram's User object."""
        via = self.extra.get("via_bot")
        return via if isinstance(via, dict) else None

    @property
    def content(self) -> str:
        """What the user sees as the message body, text or caption."""
        return self.text if self.text is not None else (self.caption or "")

    @property
    def keyboard(self) -> list[list[JSONDict]]:
        if not self.reply_markup:
            return []
        rows = self.reply_markup.get("inline_keyboard") or self.reply_markup.get("keyboard") or []
        return [[b if isinstance(b, dict) else {"text": b} for b in row] for row in rows]

    @property
    def buttons(self) -> list[tuple[str, str | None]]:
        """Flattened (text, callback_data or url) of the current keyboard, in reading order."""
        return [(b["text"], b.get("callback_data", b.get("url"))) for row in self.keyboard for b in row]

    def revision(self, method: str, at: int) -> Revision:
        return Revision(
            method=method,
            at=at,
            text=self.text,
            caption=self.caption,
            source=self.source,
            parse_mode=self.parse_mode,
            reply_markup=copy.deepcopy(self.reply_markup),
        )


#: The pseudo-URL of a call Telegram makes from a webhook response (`FakeTelegram.webhook_reply`).
WEBHOOK_REPLY_URL = "webhook-reply/"


class _WebhookParams:
    """A webhook response's fields in the shape `FakeTelegram._decode` reads (PTB's RequestData)."""

    contains_files = False

    def __init__(self, parameters: JSONDict) -> None:
        self.parameters = parameters


@dataclass(eq=False)
class ApiCall:
    """One request the bot made. Unpacks as ``method, params`` for quick loops."""

    method: str
    params: JSONDict
    files: list[UploadedFile] = field(default_factory=list)
    status: int = 0
    response: JSONDict = field(default_factory=dict)
    #: Made by Telegram from the bot's response to a webhook request (`FakeTelegram.webhook_reply`).
    via_webhook: bool = False

    def __iter__(self) -> Iterator[Any]:
        return iter((self.method, self.params))

    @property
    def ok(self) -> bool:
        return 200 <= self.status <= 299

    @property
    def error(self) -> str | None:
        return None if self.ok else self.response.get("description")

    @property
    def chat_id(self) -> int | None:
        raw = self.params.get("chat_id")
        if isinstance(raw, int):
            return raw
        if isinstance(raw, str) and raw.lstrip("-").isdigit():
            return int(raw)
        return None


@dataclass(eq=False)
class CallbackAnswer:
    """A callback query the fake handed out, and how (or whether) the bot answered it."""

    query_id: str
    user_id: int
    chat_id: int | None
    message_id: int | None
    data: str | None
    answered: bool = False
    text: str | None = None
    show_alert: bool = False
    url: str | None = None
    cache_time: int | None = None
    #: When the fake handed the query out / the bot answered it, on the fake's timer.
    created_at: float | None = None
    answered_at: float | None = None
    #: The bot tried to answer after ``FakeTelegram.answer_timeout`` (Telegram refused it).
    expired: bool = False
    #: The tapped message was sent via the bot in inline mode (the query has no ``message``).
    inline_message_id: str | None = None


@dataclass(eq=False)
class InlineAnswer:
    """An inline query the fake handed out, and what (or whether) the bot answered."""

    query_id: str
    user_id: int
    query: str
    offset: str
    chat_type: str | None
    chat_id: int | None
    created_at: float
    answered: bool = False
    answered_at: float | None = None
    #: The bot tried to answer after ``FakeTelegram.inline_answer_timeout`` (Telegram refused it).
    expired: bool = False
    results: list[JSONDict] = field(default_factory=list)
    cache_time: int | None = None
    is_personal: bool = False
    next_offset: str | None = None
    button: JSONDict | None = None
    #: Result ids users picked from this answer (``pick_inline_result``), in order.
    picked: list[str] = field(default_factory=list)

    @property
    def result_ids(self) -> list[str]:
        return [str(r.get("id")) for r in self.results]

    @property
    def titles(self) -> list[str | None]:
        return [r.get("title") for r in self.results]

    def result(self, result_id: str) -> JSONDict:
        for candidate in self.results:
            if candidate.get("id") == result_id:
                return candidate
        raise AssertionError(
            f"no result {result_id!r} in the answer to inline query {self.query!r}; "
            f"results: {self.result_ids}"
        )


@dataclass
class _Fault:
    method: str
    error_code: int
    description: str
    retry_after: int | None
    times: int
    chat_id: int | None
    exception: BaseException | None

    def matches(self, method: str, call: ApiCall) -> bool:
        return self.method in (method, "*") and (self.chat_id is None or self.chat_id == call.chat_id)

    def error(self) -> _ApiError:
        parameters = {"retry_after": self.retry_after} if self.retry_after is not None else None
        return _ApiError(self.error_code, self.description, parameters)


_DEFAULT_FAULT_TEXT = {
    400: "Bad Request: injected failure",
    403: BLOCKED,
    500: "Internal Server Error",
    502: "Bad Gateway",
}
_BUTTON_ACTIONS = (
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


_INLINE_RESULT_TYPES = frozenset(
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

_ADMIN_RIGHTS = (
    "can_manage_chat",
    "can_delete_messages",
    "can_manage_video_chats",
    "can_restrict_members",
    "can_change_info",
    "can_invite_users",
    "can_post_stories",
    "can_edit_stories",
    "can_delete_stories",
    "can_pin_messages",
    "can_manage_topics",
)


def chat_member_json(user: JSONDict, status: str) -> JSONDict:
    """A ChatMember object as Telegram sends it (PTB rejects administrators missing any right)."""
    if status == "creator":
        return {"status": "creator", "user": user, "is_anonymous": False}
    if status == "administrator":
        member: JSONDict = {"status": "administrator", "user": user, "can_be_edited": False}
        member.update(dict.fromkeys(_ADMIN_RIGHTS, True))
        member.update(is_anonymous=False, can_promote_members=False)
        return member
    if status == "kicked":
        return {"status": "kicked", "user": user, "until_date": 0}
    if status in ("member", "left"):
        return {"status": status, "user": user}
    raise ValueError(f"unsupported chat member status {status!r}")


# --------------------------------------------------------------------------------------------------
# The fake server
# --------------------------------------------------------------------------------------------------


class FakeTelegram(BaseRequest):
    """Telegram's Bot API in memory; pass it to ``ApplicationBuilder.request``/``get_updates_request``."""

    def __init__(
        self,
        *,
        clock: Callable[[], dtm.datetime] | None = None,
        timer: Monotonic | None = None,
        flood: FloodLimits | None = None,
        answer_timeout: float | None = CALLBACK_ANSWER_TIMEOUT,
        inline_mode: bool = False,
        inline_feedback: bool = False,
        inline_answer_timeout: float | None = INLINE_ANSWER_TIMEOUT,
    ) -> None:
        """``clock`` dates messages (wall clock); ``timer`` measures flood windows and answer
        deadlines (monotonic; pass a ``VirtualTimer`` to run them on virtual time).

        ``flood`` enforces Telegram's write limits (off by default: many tests fire lots of
        messages at one instant). ``answer_timeout``/``inline_answer_timeout`` are how long a
        callback/inline query stays answerable (``None``: forever). ``inline_mode`` is BotFather's
        /setinline (getMe's ``supports_inline_queries``), ``inline_feedback`` its /setinlinefeedback
        (a picked result also produces a ``chosen_inline_result`` update).
        """
        #: Replace to move message dates with a test clock.
        self.clock: Callable[[], dtm.datetime] = clock or (lambda: dtm.datetime.now(dtm.UTC))
        #: Monotonic time for flood windows and answer deadlines.
        self.timer: Monotonic = timer or SystemMonotonic()
        #: Accepted writes per chat (always recorded) and the refusals of the flood limits.
        self.flood_ledger = FloodLedger(flood)
        self.answer_timeout = answer_timeout
        self.inline_mode = inline_mode
        self.inline_feedback = inline_feedback
        self.inline_answer_timeout = inline_answer_timeout
        self.bot_user = FakeUser(BOT_ID, BOT_FIRST_NAME, None, BOT_USERNAME, is_bot=True)
        self.calls: list[ApiCall] = []
        self.answers: dict[str, CallbackAnswer] = {}
        self.inline_answers: dict[str, InlineAnswer] = {}
        self._inline_messages: dict[str, StoredMessage] = {}
        self.unsupported: list[str] = []
        self.menu_buttons: dict[int | None, JSONDict] = {}
        self.webhook: JSONDict | None = None
        self.pinned: dict[int, list[int]] = {}
        self.initialize_count = 0
        self.shutdown_count = 0
        self._chats: dict[int, FakeChat] = {}
        self._users: dict[int, FakeUser] = {BOT_ID: self.bot_user}
        self._topics: dict[int, dict[int, str]] = {}
        self._messages: dict[int, dict[int, StoredMessage]] = {}
        self._dm_open: set[int] = set()
        self._blocked: set[int] = set()
        self._members: dict[int, dict[int, str]] = {}
        self._migrated: dict[int, int] = {}
        self._commands: dict[tuple[str, str], list[JSONDict]] = {}
        self._faults: list[_Fault] = []
        self._pending_updates: list[JSONDict] = []
        #: getUpdates with nothing to give waits this long at most (and its own `timeout`) before it
        #: answers empty. Telegram holds the request until an update comes or the timeout runs out;
        #: a test's polling Updater is better served by a quick empty answer (a stopped Updater
        #: waits for its poll to end). A benchmark of a polling bot sets Telegram's behaviour.
        self.long_poll_limit = 0.05
        self._update_queued: asyncio.Event | None = None  # a waiting getUpdates' (made in its loop)
        self._count_from = 0
        self._message_ids = itertools.count(1)
        self._update_ids = itertools.count(1)
        self._query_ids = itertools.count(4_000_000_000_000_000_001)
        self._chat_ids = itertools.count(1)

    # -- BaseRequest -------------------------------------------------------------------------------

    @property
    def read_timeout(self) -> float | None:
        return 5.0

    async def initialize(self) -> None:
        # PTB initialises both of a Bot's request objects; with one fake for both this runs twice.
        self.initialize_count += 1

    async def shutdown(self) -> None:
        self.shutdown_count += 1

    async def do_request(
        self,
        url: str,
        method: str,
        request_data: RequestData | None = None,
        read_timeout: object = BaseRequest.DEFAULT_NONE,
        write_timeout: object = BaseRequest.DEFAULT_NONE,
        connect_timeout: object = BaseRequest.DEFAULT_NONE,
        pool_timeout: object = BaseRequest.DEFAULT_NONE,
    ) -> tuple[int, bytes]:
        api_method = url.rstrip("/").rsplit("/", 1)[-1]
        params, files = self._decode(request_data)
        call = ApiCall(api_method, params, files, via_webhook=url.startswith(WEBHOOK_REPLY_URL))
        self.calls.append(call)
        try:
            fault = self._take_fault(api_method, call)
            if fault is not None:
                if fault.exception is not None:
                    call.response = {"exception": repr(fault.exception)}
                    raise fault.exception
                raise fault.error()
            handler = getattr(self, f"_api_{api_method}", None)
            if handler is None:
                self.unsupported.append(api_method)
                # No "Bad Request: " prefix: PTB would lower-case the method name after it.
                raise _ApiError(400, f"FakeTelegram does not implement the Bot API method {api_method}")
            result = handler(params, files)
            if inspect.isawaitable(result):
                result = await result
            status, body = 200, {"ok": True, "result": result}
        except _ApiError as error:
            status, body = error.code, error.body()
        call.status, call.response = status, body
        return status, json.dumps(body).encode("utf-8")

    async def webhook_reply(self, status: int, content_type: str | None, body: bytes) -> ApiCall | None:
        """What Telegram does with the bot's response to a webhook request.

        A 200 whose JSON body names a Bot API `method` is that method called with the body's other
        fields, as if the bot had made the call (Bot API: "Making requests when getting
        updates"); its result or error is told nobody. Any other response only acknowledges the
        update. Returns the call made, if any (it is also in `calls`, marked `via_webhook`).
        """
        if status != 200 or not body or not (content_type or "").startswith("application/json"):
            return None
        try:
            params = json.loads(body)
        except ValueError:
            return None
        if not isinstance(params, dict) or not isinstance(params.get("method"), str):
            return None
        api_method = params.pop("method")
        before = len(self.calls)
        await self.do_request(f"{WEBHOOK_REPLY_URL}{api_method}", "POST", cast(Any, _WebhookParams(params)))
        return next((c for c in self.calls[before:] if c.via_webhook and c.method == api_method), None)

    @staticmethod
    def _decode(request_data: RequestData | None) -> tuple[JSONDict, list[UploadedFile]]:
        if request_data is None:
            return {}, []
        # A JSON round trip is what the wire does: it detaches the record from PTB's objects.
        params: JSONDict = json.loads(json.dumps(request_data.parameters))
        files: list[UploadedFile] = []
        if request_data.contains_files:
            for name, field_tuple in request_data.multipart_data.items():
                filename, content, mimetype = field_tuple
                if isinstance(content, bytes | bytearray):
                    data = bytes(content)
                else:
                    start = content.tell() if content.seekable() else None
                    data = content.read()
                    if start is not None:
                        content.seek(start)
                files.append(UploadedFile(name, filename, data, mimetype))
        return params, files

    def _take_fault(self, method: str, call: ApiCall) -> _Fault | None:
        for fault in self._faults:
            if fault.matches(method, call):
                fault.times -= 1
                if fault.times <= 0:
                    self._faults.remove(fault)
                return fault
        return None

    # -- building the world ------------------------------------------------------------------------

    def application_builder(
        self, token: str = TEST_TOKEN
    ) -> ApplicationBuilder[Any, Any, Any, Any, Any, Any]:
        """An ApplicationBuilder already wired to this fake; add handlers/options, then build()."""
        return ApplicationBuilder().token(token).request(self).get_updates_request(self)

    def user(
        self,
        user_id: int,
        first_name: str,
        language_code: str | None = "en",
        username: str | None = None,
        last_name: str | None = None,
    ) -> FakeUser:
        user = FakeUser(user_id, first_name, language_code, username, last_name)
        self._users[user_id] = user
        return user

    def private(self, user: FakeUser, *, started: bool = True) -> FakeChat:
        """The user's private chat; ``started=False`` models a user who never pressed Start."""
        chat = FakeChat(user.id, "private", first_name=user.first_name, username=user.username)
        self._users.setdefault(user.id, user)
        self.register_chat(chat)
        if started:
            self._dm_open.add(user.id)
        return chat

    def group(
        self,
        title: str = "Test group",
        *,
        chat_id: int | None = None,
        kind: Literal["supergroup", "group"] = "supergroup",
        username: str | None = None,
    ) -> FakeChat:
        if chat_id is None:
            serial = next(self._chat_ids)
            chat_id = -1_001_000_000_000 - serial if kind == "supergroup" else -400_000_000 - serial
        if chat_id >= 0:
            raise ValueError("group chat ids are negative")
        return self.register_chat(FakeChat(chat_id, kind, title=title, username=username))

    def forum(
        self,
        title: str = "Test forum",
        *,
        chat_id: int | None = None,
        topics: Mapping[int, str] | None = None,
    ) -> FakeChat:
        if chat_id is None:
            chat_id = -1_002_000_000_000 - next(self._chat_ids)
        chat = self.register_chat(FakeChat(chat_id, "supergroup", title=title, is_forum=True))
        for thread_id, name in (topics or {}).items():
            self.add_topic(chat, name, thread_id)
        return chat

    def add_topic(self, chat: FakeChat, name: str, thread_id: int | None = None) -> int:
        """Declare a forum topic; returns its message_thread_id (Telegram's id of the creation message)."""
        if thread_id is None:
            thread_id = next(self._message_ids)
        self._topics.setdefault(chat.id, {})[thread_id] = name
        return thread_id

    def register_chat(self, chat: FakeChat) -> FakeChat:
        self._chats[chat.id] = chat
        self._messages.setdefault(chat.id, {})
        return chat

    def chat(self, chat_id: int) -> FakeChat:
        return self._chats[chat_id]

    # -- fault injection and membership -------------------------------------------------------------

    def fail_next(
        self,
        method: str,
        error_code: int = 400,
        description: str | None = None,
        retry_after: int | None = None,
        times: int = 1,
        chat_id: int | None = None,
        *,
        exception: BaseException | None = None,
    ) -> None:
        """Make the next ``times`` calls of ``method`` ("*" = any) fail, optionally only for one chat.

        ``exception`` raises inside the transport instead (e.g. ``telegram.error.TimedOut()``; any
        other exception becomes PTB's NetworkError), for failures that never reach Telegram.
        """
        if description is None:
            if error_code == 429:
                retry_after = 3 if retry_after is None else retry_after
                description = f"Too Many Requests: retry after {retry_after}"
            else:
                description = _DEFAULT_FAULT_TEXT.get(error_code, f"Error {error_code}")
        self._faults.append(_Fault(method, error_code, description, retry_after, times, chat_id, exception))

    def clear_faults(self) -> None:
        """Forget every fault `fail_next` still had in store."""
        self._faults.clear()

    def block_user(self, user_id: int) -> None:
        self._blocked.add(user_id)

    def unblock_user(self, user_id: int) -> None:
        self._blocked.discard(user_id)

    def mark_admin(
        self, chat_id: int, user_id: int, status: Literal["administrator", "creator"] = "administrator"
    ) -> None:
        self.set_member_status(chat_id, user_id, status)

    def set_member_status(self, chat_id: int, user_id: int, status: ChatMemberStatus) -> None:
        """Set what getChatMember says; ``user_id=BOT_ID`` also decides whether sends are allowed."""
        chat_member_json({}, status)  # validates the status
        self._members.setdefault(chat_id, {})[user_id] = status

    def member_status(self, chat_id: int, user_id: int) -> str:
        return self._members.get(chat_id, {}).get(user_id, "member")

    # -- inspection --------------------------------------------------------------------------------

    def calls_to(self, method: str) -> list[ApiCall]:
        return [call for call in self.calls if call.method == method]

    def messages(self, chat_id: int, *, include_incoming: bool = False) -> list[StoredMessage]:
        """Live (not deleted) messages of a chat, oldest first; the bot's own unless asked otherwise."""
        return [
            m
            for m in self._messages.get(chat_id, {}).values()
            if not m.deleted and (m.from_bot or include_incoming)
        ]

    def all_messages(self, chat_id: int) -> list[StoredMessage]:
        """Every message ever stored for the chat, deleted and incoming ones included."""
        return list(self._messages.get(chat_id, {}).values())

    def last_message(self, chat_id: int) -> StoredMessage:
        live = self.messages(chat_id)
        if not live:
            raise AssertionError(f"the bot has no live message in chat {chat_id}")
        return live[-1]

    def message(self, chat_id: int, message_id: int) -> StoredMessage:
        try:
            return self._messages[chat_id][message_id]
        except KeyError:
            raise AssertionError(f"no message {message_id} in chat {chat_id}") from None

    @staticmethod
    def buttons(message: StoredMessage) -> list[tuple[str, str | None]]:
        return message.buttons

    def answer_for(self, query_id: str) -> CallbackAnswer:
        return self.answers[query_id]

    def inline_answer(self, query_id: str) -> InlineAnswer:
        """The record of an inline query (and the bot's answer, if any) by its id."""
        try:
            return self.inline_answers[query_id]
        except KeyError:
            raise AssertionError(f"no inline query {query_id!r} was handed out") from None

    def inline_message(self, inline_message_id: str) -> StoredMessage:
        try:
            return self._inline_messages[inline_message_id]
        except KeyError:
            raise AssertionError(f"no inline message {inline_message_id!r}") from None

    # -- flood accounting --------------------------------------------------------------------------

    @property
    def flood_limits(self) -> FloodLimits | None:
        """The enforced limits (``None``: none); assignable, e.g. to switch them on after setup."""
        return self.flood_ledger.limits

    @flood_limits.setter
    def flood_limits(self, limits: FloodLimits | None) -> None:
        self.flood_ledger.limits = limits

    @property
    def flood_rejections(self) -> list[FloodRejection]:
        """Every write the flood limits refused with 429, oldest first."""
        return self.flood_ledger.rejections

    def write_times(self, chat_id: int | None = None) -> list[float]:
        """Timer readings of the accepted writes (``MESSAGE_METHODS``) to a chat, or to all chats.

        Recorded whether or not limits are enforced, so a test can check pacing either way.
        """
        if chat_id is None:
            return list(self.flood_ledger.all_writes)
        return list(self.flood_ledger.writes.get(chat_id, []))

    def max_writes_in_window(self, chat_id: int | None = None, seconds: float = 60.0) -> int:
        """The most accepted writes to ``chat_id`` (``None``: all chats) in any ``seconds`` window."""
        return max_in_window(self.write_times(chat_id), seconds)

    def count_429(self, chat_id: int | None = None) -> int:
        """429 answers so far (flood limits and injected ones), overall or for one chat."""
        return sum(
            1
            for call in self.calls
            if call.status == 429 and (chat_id is None or self._call_chat(call) == chat_id)
        )

    def _call_chat(self, call: ApiCall) -> int | None:
        if call.chat_id is not None:
            return call.chat_id
        inline = self._inline_messages.get(str(call.params.get("inline_message_id")))
        return inline.chat_id if inline is not None else None

    def _admit(self, chat_id: int, private: bool, method: str) -> None:
        """Count a write against Telegram's budget, or refuse it with 429 before it is applied."""
        rejection = self.flood_ledger.admit(chat_id, private, method, self.timer.monotonic())
        if rejection is not None:
            wait = rejection.retry_after
            raise _ApiError(429, f"Too Many Requests: retry after {wait}", {"retry_after": wait})

    def count_calls(
        self,
        chat_id: int | None = None,
        methods: Collection[str] | None = None,
        *,
        only_ok: bool = False,
    ) -> int:
        """Calls since the last ``reset_counts()``, filtered by chat and method (budget checks)."""
        return sum(
            1
            for call in self.calls[self._count_from :]
            if (chat_id is None or call.chat_id == chat_id)
            and (methods is None or call.method in methods)
            and (call.ok or not only_ok)
        )

    def reset_counts(self) -> None:
        self._count_from = len(self.calls)

    def commands(self, scope: JSONDict | None = None, language_code: str | None = None) -> list[JSONDict]:
        return list(self._commands.get(self._commands_key(scope, language_code), []))

    @property
    def commands_by_scope(self) -> dict[tuple[str, str], list[JSONDict]]:
        return dict(self._commands)

    # -- update builders ---------------------------------------------------------------------------

    @staticmethod
    def to_update(data: Mapping[str, Any], bot: Any) -> Update:
        """Turn a builder's dict into what the Application processes (a copy, PTB may mutate)."""
        return Update.de_json(copy.deepcopy(dict(data)), bot)

    def queue_update(self, data: JSONDict) -> None:
        """Deliver ``data`` through getUpdates, for tests that run the real polling Updater."""
        self._pending_updates.append(data)
        if self._update_queued is not None:
            self._update_queued.set()

    def text_update(
        self, chat: FakeChat, user: FakeUser, text: str, *, thread_id: int | None = None
    ) -> JSONDict:
        return self._incoming(chat, user, text, [], thread_id)

    def command_update(
        self, chat: FakeChat, user: FakeUser, text: str, *, thread_id: int | None = None
    ) -> JSONDict:
        """A message starting with a bot_command entity, e.g. "/newgame@tweak_test_bot 3"."""
        if not text.startswith("/"):
            raise ValueError(f"a command starts with '/': {text!r}")
        command = text.split(maxsplit=1)[0]
        entity = {"type": "bot_command", "offset": 0, "length": _utf16_len(command)}
        return self._incoming(chat, user, text, [entity], thread_id)

    def callback_update(self, user: FakeUser, message: StoredMessage, data: str | None) -> JSONDict:
        """A button tap on ``message`` as it is now; the query id is fresh and answerable once.

        It is answerable for ``answer_timeout`` seconds from now on the fake's timer. A tap on a
        message sent via the bot (inline mode) carries ``inline_message_id`` instead of ``message``.
        """
        query_id = str(next(self._query_ids))
        self.answers[query_id] = CallbackAnswer(
            query_id,
            user.id,
            message.chat_id,
            message.message_id,
            data,
            created_at=self.timer.monotonic(),
            inline_message_id=message.inline_message_id,
        )
        query: JSONDict = {
            "id": query_id,
            "from": user.to_dict(),
            "chat_instance": str(abs(message.chat_id) * 7919 % 10**12),
        }
        if message.inline_message_id is not None:
            query["inline_message_id"] = message.inline_message_id
        else:
            query["message"] = self._message_json(message)
        if data is not None:
            query["data"] = data
        return {"update_id": next(self._update_ids), "callback_query": query}

    # -- inline mode -------------------------------------------------------------------------------

    @staticmethod
    def inline_chat_type(user: FakeUser, chat: FakeChat) -> InlineChatType:
        """InlineQuery.chat_type for ``user`` typing in ``chat`` ("sender": their chat with the bot)."""
        if chat.type == "private":
            return "sender" if chat.id == user.id else "private"
        return chat.type

    def inline_query_update(
        self,
        user: FakeUser,
        query: str = "",
        offset: str = "",
        chat_type: InlineChatType | None = None,
        chat: FakeChat | None = None,
    ) -> JSONDict:
        """``user`` types "@bot ``query``" (an ``inline_query`` update); answerable once, in time.

        ``chat`` (optional) is where they type it; it fixes ``chat_type`` and is checked again
        when they pick a result. Without it, ``chat_type`` defaults to "supergroup".
        """
        if not self.inline_mode:
            raise ValueError(
                "Telegram only sends inline queries to bots with inline mode on: "
                "FakeTelegram(inline_mode=True)"
            )
        if len(query) > 256:
            raise ValueError("an inline query is at most 256 characters")
        derived = self.inline_chat_type(user, chat) if chat is not None else None
        if chat_type is None:
            chat_type = derived or "supergroup"
        elif derived is not None and chat_type != derived:
            raise ValueError(f"chat_type {chat_type!r} does not match the chat ({derived!r})")
        self._users.setdefault(user.id, user)
        query_id = str(next(self._query_ids))
        self.inline_answers[query_id] = InlineAnswer(
            query_id,
            user.id,
            query,
            offset,
            chat_type,
            chat.id if chat is not None else None,
            self.timer.monotonic(),
        )
        payload: JSONDict = {
            "id": query_id,
            "from": user.to_dict(),
            "query": query,
            "offset": offset,
            "chat_type": chat_type,
        }
        return {"update_id": next(self._update_ids), "inline_query": payload}

    def pick_inline_result(
        self,
        user: FakeUser,
        chat: FakeChat,
        query: Mapping[str, Any] | InlineAnswer | str,
        result_id: str,
        thread_id: int | None = None,
    ) -> list[JSONDict]:
        """``user`` taps result ``result_id`` of the bot's answer to ``query``, posting it in ``chat``.

        The result's text (HTML parsed like sendMessage, with the result's inline keyboard) becomes
        the user's own message with ``via_bot`` = the bot; it costs the bot no flood budget.
        Returns the updates Telegram sends: the ``message`` (bots get messages sent via themselves
        even in privacy mode, in chats they are in) and, with ``inline_feedback``, a
        ``chosen_inline_result`` (with ``inline_message_id`` only if the result has a keyboard).
        ``query`` is the ``inline_query`` update, its id, or its ``InlineAnswer``.
        """
        record = self._inline_record(query)
        if record.user_id != user.id:
            raise AssertionError(
                f"inline query {record.query_id} was typed by user {record.user_id}; "
                f"only they see its results, not user {user.id}"
            )
        if not record.answered:
            raise AssertionError(
                f"the bot never answered inline query {record.query!r}, so there is nothing to pick"
            )
        chat_type = self.inline_chat_type(user, chat)
        if (record.chat_id is not None and record.chat_id != chat.id) or (
            record.chat_type is not None and record.chat_type != chat_type
        ):
            raise AssertionError(
                f"inline query {record.query!r} was typed in a {record.chat_type} chat "
                f"({record.chat_id}); its results are posted there, not in {chat.id} ({chat_type})"
            )
        result = record.result(result_id)
        content = result.get("input_message_content")
        if not isinstance(content, dict) or not isinstance(content.get("message_text"), str):
            raise AssertionError(
                f"result {result_id!r} has no input_message_content.message_text; "
                "FakeTelegram only posts text results"
            )
        visible, entities = self._render(
            content["message_text"], content.get("parse_mode"), content.get("entities")
        )
        markup = self._markup(result.get("reply_markup"), inline_only=True)
        self._users.setdefault(user.id, user)
        # The bot sees the message only where it is a member: its own private chat with the user,
        # or a group it was not removed from. A private chat between two users is not its business.
        elsewhere = chat.type == "private" and chat.id != user.id
        if not elsewhere:
            self.register_chat(chat)
            if chat.type == "private":
                self._dm_open.add(chat.id)
                self._blocked.discard(chat.id)
            thread_id = self._thread(chat, {"message_thread_id": thread_id}) if thread_id else None
        msg = self._store(
            chat,
            from_bot=False,
            sender=user.to_dict(),
            kind="text",
            text=visible,
            source=content["message_text"],
            parse_mode=content.get("parse_mode"),
            entities=entities,
            reply_markup=markup,
            thread_id=thread_id,
            extra={"via_bot": self.bot_user.to_dict()},
        )
        if elsewhere:
            del self._messages[chat.id][msg.message_id]
        if markup is not None:
            raw_id = f"fake:{chat.id}:{msg.message_id}".encode()
            msg.inline_message_id = base64.urlsafe_b64encode(raw_id).decode().rstrip("=")
            self._inline_messages[msg.inline_message_id] = msg
        record.picked.append(result_id)
        updates: list[JSONDict] = []
        if not elsewhere and self.member_status(chat.id, BOT_ID) not in ("left", "kicked"):
            updates.append({"update_id": next(self._update_ids), "message": self._message_json(msg)})
        if self.inline_feedback:
            chosen: JSONDict = {"result_id": result_id, "from": user.to_dict(), "query": record.query}
            if msg.inline_message_id is not None:
                chosen["inline_message_id"] = msg.inline_message_id
            updates.append({"update_id": next(self._update_ids), "chosen_inline_result": chosen})
        return updates

    def _inline_record(self, query: Mapping[str, Any] | InlineAnswer | str) -> InlineAnswer:
        if isinstance(query, InlineAnswer):
            return query
        if isinstance(query, str):
            return self.inline_answer(query)
        inline = query.get("inline_query")
        if not isinstance(inline, Mapping):
            raise TypeError("expected an inline_query update, its id, or an InlineAnswer")
        return self.inline_answer(str(inline["id"]))

    def my_chat_member_update(
        self,
        chat: FakeChat,
        by: FakeUser,
        new_status: ChatMemberStatus,
        old_status: ChatMemberStatus | None = None,
    ) -> JSONDict:
        """The bot was added, promoted, removed…; also changes what this fake lets the bot do there."""
        known = chat.id in self._chats
        self.register_chat(chat)
        if old_status is None:
            old_status = cast(ChatMemberStatus, self.member_status(chat.id, BOT_ID) if known else "left")
        bot = self.bot_user.to_dict()
        payload = {
            "chat": chat.to_dict(),
            "from": by.to_dict(),
            "date": self._now(),
            "old_chat_member": chat_member_json(bot, old_status),
            "new_chat_member": chat_member_json(bot, new_status),
        }
        self.set_member_status(chat.id, BOT_ID, new_status)
        if chat.type == "private":
            if new_status == "kicked":
                self._blocked.add(chat.id)
            elif new_status == "member":
                self._blocked.discard(chat.id)
                self._dm_open.add(chat.id)
        return {"update_id": next(self._update_ids), "my_chat_member": payload}

    def migrate_update(self, old_chat_id: int, new_chat_id: int, *, by: FakeUser | None = None) -> JSONDict:
        """The service message in the old group saying it became a supergroup (``migrate_to_chat_id``).

        From now on the old id answers 400 with ``migrate_to_chat_id`` (PTB raises ChatMigrated).
        """
        old = self._migrate(old_chat_id, new_chat_id)
        return self._service(old, by, {"migrate_to_chat_id": new_chat_id})

    def migrate_from_update(
        self, old_chat_id: int, new_chat_id: int, *, by: FakeUser | None = None
    ) -> JSONDict:
        """The twin message Telegram posts in the new supergroup (``migrate_from_chat_id``)."""
        self._migrate(old_chat_id, new_chat_id)
        return self._service(self._chats[new_chat_id], by, {"migrate_from_chat_id": old_chat_id})

    def left_member_update(self, chat: FakeChat, user: FakeUser, *, by: FakeUser | None = None) -> JSONDict:
        """The service message ``left_chat_member`` (sent even to bots in privacy mode).

        ``by`` is who removed the user (the user themselves when they left).
        """
        self.set_member_status(chat.id, user.id, "left")
        return self._service(chat, by or user, {"left_chat_member": user.to_dict()})

    def chat_member_update(
        self,
        chat: FakeChat,
        user: FakeUser,
        new_status: ChatMemberStatus,
        old_status: ChatMemberStatus = "member",
        *,
        by: FakeUser | None = None,
    ) -> JSONDict:
        """A ``chat_member`` update (the bot gets these as an admin, with allowed_updates asking)."""
        self.set_member_status(chat.id, user.id, new_status)
        payload = {
            "chat": chat.to_dict(),
            "from": (by or user).to_dict(),
            "date": self._now(),
            "old_chat_member": chat_member_json(user.to_dict(), old_status),
            "new_chat_member": chat_member_json(user.to_dict(), new_status),
        }
        return {"update_id": next(self._update_ids), "chat_member": payload}

    def _migrate(self, old_chat_id: int, new_chat_id: int) -> FakeChat:
        old = self._chats.get(old_chat_id) or self.group(chat_id=old_chat_id, kind="group")
        if new_chat_id not in self._chats:
            self.register_chat(FakeChat(new_chat_id, "supergroup", title=old.title, username=old.username))
            self._members[new_chat_id] = dict(self._members.get(old_chat_id, {}))
        self._migrated[old_chat_id] = new_chat_id
        return old

    def _service(self, chat: FakeChat, by: FakeUser | None, extra: JSONDict) -> JSONDict:
        sender = by.to_dict() if by else {}
        msg = self._store(chat, from_bot=False, sender=sender, kind="service", extra=extra)
        return {"update_id": next(self._update_ids), "message": self._message_json(msg)}

    def _incoming(
        self, chat: FakeChat, user: FakeUser, text: str, entities: list[JSONDict], thread_id: int | None
    ) -> JSONDict:
        self._users.setdefault(user.id, user)
        self.register_chat(chat)
        if chat.type == "private":
            # Writing to the bot opens the chat, and a user who blocked the bot has to unblock to write.
            self._dm_open.add(chat.id)
            self._blocked.discard(chat.id)
        msg = self._store(
            chat,
            from_bot=False,
            sender=user.to_dict(),
            kind="text",
            text=text,
            source=text,
            entities=entities,
            thread_id=thread_id,
        )
        return {"update_id": next(self._update_ids), "message": self._message_json(msg)}

    # -- the message store -------------------------------------------------------------------------

    def _now(self) -> int:
        return int(self.clock().timestamp())

    def _store(
        self,
        chat: FakeChat,
        *,
        from_bot: bool,
        sender: JSONDict,
        kind: Literal["text", "photo", "document", "service"],
        text: str | None = None,
        caption: str | None = None,
        source: str | None = None,
        parse_mode: str | None = None,
        entities: list[JSONDict] | None = None,
        reply_markup: JSONDict | None = None,
        thread_id: int | None = None,
        params: JSONDict | None = None,
        files: list[UploadedFile] | None = None,
        media: Any = None,
        reply_to: StoredMessage | None = None,
        extra: JSONDict | None = None,
    ) -> StoredMessage:
        msg = StoredMessage(
            chat_id=chat.id,
            message_id=next(self._message_ids),
            date=self._now(),
            from_bot=from_bot,
            sender=sender,
            kind=kind,
            text=text,
            caption=caption,
            source=source,
            parse_mode=parse_mode,
            entities=entities or [],
            reply_markup=reply_markup,
            message_thread_id=thread_id,
            params=params or {},
            files=files or [],
            media=media,
            reply_to=reply_to,
            extra=extra or {},
        )
        self._messages.setdefault(chat.id, {})[msg.message_id] = msg
        return msg

    def _message_json(self, msg: StoredMessage, *, nested: bool = False) -> JSONDict:
        chat = self._chats[msg.chat_id]
        data: JSONDict = {"message_id": msg.message_id, "date": msg.date, "chat": chat.to_dict()}
        if msg.sender:
            data["from"] = dict(msg.sender)
        if msg.message_thread_id is not None:
            data["message_thread_id"] = msg.message_thread_id
            if chat.is_forum:
                data["is_topic_message"] = True
        if msg.kind == "text":
            data["text"] = msg.text
            if msg.entities:
                data["entities"] = copy.deepcopy(msg.entities)
        elif msg.kind in ("photo", "document"):
            data[msg.kind] = copy.deepcopy(msg.media)
            if msg.caption:
                data["caption"] = msg.caption
                if msg.entities:
                    data["caption_entities"] = copy.deepcopy(msg.entities)
        if msg.reply_markup and "inline_keyboard" in msg.reply_markup:
            # Only inline keyboards come back inside Message objects.
            data["reply_markup"] = copy.deepcopy(msg.reply_markup)
        if msg.edit_date is not None:
            data["edit_date"] = msg.edit_date
        if msg.reply_to is not None and not nested:
            data["reply_to_message"] = self._message_json(msg.reply_to, nested=True)
        data.update(copy.deepcopy(msg.extra))
        return data

    # -- request validation helpers ----------------------------------------------------------------

    def _resolve_chat_id(self, raw: Any) -> int:
        if isinstance(raw, bool) or raw is None or raw == "":
            raise _bad("chat_id is empty")
        if isinstance(raw, int):
            return raw
        if isinstance(raw, str):
            if raw.lstrip("-").isdigit():
                return int(raw)
            if raw.startswith("@"):
                for chat in self._chats.values():
                    if chat.username and chat.username.lower() == raw[1:].lower():
                        return chat.id
        raise _bad("chat not found")

    def _known_chat(self, raw: Any) -> FakeChat:
        chat_id = self._resolve_chat_id(raw)
        if chat_id in self._migrated:
            raise _ApiError(
                400,
                "Bad Request: group chat was upgraded to a supergroup chat",
                {"migrate_to_chat_id": self._migrated[chat_id]},
            )
        chat = self._chats.get(chat_id)
        if chat is None:
            if chat_id in self._blocked:
                raise _ApiError(403, BLOCKED)
            if chat_id > 0 and chat_id in self._users:
                raise _ApiError(403, CANT_INITIATE)
            raise _bad("chat not found")
        return chat

    def _writable_chat(self, raw: Any) -> FakeChat:
        chat = self._known_chat(raw)
        if chat.type == "private":
            if chat.id in self._blocked:
                raise _ApiError(403, BLOCKED)
            if chat.id not in self._dm_open:
                raise _ApiError(403, CANT_INITIATE)
            return chat
        status = self.member_status(chat.id, BOT_ID)
        where = f"{chat.type} chat" if chat.type != "group" else "group chat"
        if status == "kicked":
            raise _ApiError(403, f"Forbidden: bot was kicked from the {where}")
        if status == "left":
            raise _ApiError(403, f"Forbidden: bot is not a member of the {where}")
        return chat

    def _thread(self, chat: FakeChat, params: JSONDict) -> int | None:
        thread_id = params.get("message_thread_id")
        if thread_id is None:
            return None
        if chat.is_forum and int(thread_id) not in self._topics.get(chat.id, {}):
            raise _bad("message thread not found")
        return int(thread_id)

    @staticmethod
    def _render(source: str, parse_mode: Any, entities: Any) -> tuple[str, list[JSONDict]]:
        if isinstance(parse_mode, str) and parse_mode.upper() == "HTML":
            plain, found = parse_html(source)
        else:
            plain, found = source, [dict(e) for e in entities or []]
        return _trim(plain, found)

    @staticmethod
    def _markup(raw: Any, *, inline_only: bool = False) -> JSONDict | None:
        if raw is None:
            return None
        if isinstance(raw, str):
            raw = json.loads(raw)
        if not isinstance(raw, dict):
            raise _bad("can't parse reply keyboard markup JSON object")
        if "inline_keyboard" not in raw:
            if inline_only:
                raise _bad("inline keyboard expected")
            return raw
        rows = raw["inline_keyboard"]
        if not isinstance(rows, list) or not all(isinstance(row, list) for row in rows):
            raise _bad('field "inline_keyboard" of the InlineKeyboardMarkup must be an Array of Arrays')
        for row in rows:
            for button in row:
                if not isinstance(button, dict) or not button.get("text"):
                    raise _bad('can\'t parse inline keyboard button: Field "text" must be of type String')
                if not any(key in button for key in _BUTTON_ACTIONS):
                    raise _bad(
                        "can't parse inline keyboard button: "
                        "Text buttons are unallowed in the inline keyboard"
                    )
                data = button.get("callback_data")
                if "callback_data" in button and not (
                    isinstance(data, str) and 1 <= len(data.encode("utf-8")) <= 64
                ):
                    raise _bad("BUTTON_DATA_INVALID")
                url = button.get("url")
                if "url" in button and (not isinstance(url, str) or not url or re.search(r"\s", url)):
                    raise _bad("BUTTON_URL_INVALID")
        if not any(rows):
            return None  # an empty inline keyboard is no keyboard
        return raw

    def _reply_target(self, chat: FakeChat, params: JSONDict) -> StoredMessage | None:
        reply = params.get("reply_parameters") or {}
        message_id = reply.get("message_id", params.get("reply_to_message_id"))
        if message_id is None:
            return None
        target_chat = self._resolve_chat_id(reply.get("chat_id", chat.id))
        target = self._messages.get(target_chat, {}).get(int(message_id))
        if target is None or target.deleted:
            if reply.get("allow_sending_without_reply") or params.get("allow_sending_without_reply"):
                return None
            raise _bad("message to be replied not found")
        return target

    def _edit_target(self, params: JSONDict) -> tuple[StoredMessage, bool]:
        """The message an edit is for, and whether it was named by ``inline_message_id``."""
        if "inline_message_id" in params:
            inline = self._inline_messages.get(str(params["inline_message_id"]))
            if inline is None or inline.deleted:
                raise _bad("MESSAGE_ID_INVALID")
            return inline, True
        chat = self._writable_chat(params.get("chat_id"))
        msg = self._messages.get(chat.id, {}).get(int(params.get("message_id", 0)))
        if msg is None or msg.deleted:
            raise _bad("message to edit not found")
        if not msg.from_bot:
            raise _bad("message can't be edited")
        return msg, False

    def _edit_result(self, msg: StoredMessage, inline: bool) -> JSONDict | bool:
        # Editing an inline message returns True; any other edit returns the edited Message.
        return True if inline else self._message_json(msg)

    def _apply_edit(
        self,
        msg: StoredMessage,
        method: str,
        *,
        visible: str | None,
        source: str | None,
        entities: list[JSONDict],
        parse_mode: str | None,
        markup: JSONDict | None,
    ) -> None:
        current = (msg.content or None, msg.entities, msg.reply_markup)
        if (visible or None, entities, markup) == current:
            raise _bad(NOT_MODIFIED.removeprefix("Bad Request: "))
        self._admit(msg.chat_id, msg.chat_id > 0, method)
        now = self._now()
        msg.history.append(msg.revision(method, now))
        if msg.kind == "text":
            msg.text = visible
        else:
            msg.caption = visible
        msg.source, msg.entities, msg.parse_mode, msg.reply_markup = source, entities, parse_mode, markup
        msg.edit_date = now

    # -- API methods (named after Telegram's; looked up by do_request) ------------------------------

    def _api_getMe(self, params: JSONDict, files: list[UploadedFile]) -> JSONDict:
        me = self.bot_user.to_dict()
        me.update(
            can_join_groups=True,
            can_read_all_group_messages=False,
            supports_inline_queries=self.inline_mode,
            can_connect_to_business=False,
            has_main_web_app=False,
        )
        return me

    def _api_sendMessage(self, params: JSONDict, files: list[UploadedFile]) -> JSONDict:
        chat = self._writable_chat(params.get("chat_id"))
        thread_id = self._thread(chat, params)
        source = params.get("text")
        if not isinstance(source, str):
            raise _bad("message text is empty")
        visible, entities = self._render(source, params.get("parse_mode"), params.get("entities"))
        if not visible:
            raise _bad("message text is empty")
        if _utf16_len(visible) > 4096:
            raise _bad("message is too long")
        markup = self._markup(params.get("reply_markup"))
        reply_to = self._reply_target(chat, params)
        self._admit(chat.id, chat.type == "private", "sendMessage")
        msg = self._store(
            chat,
            from_bot=True,
            sender=self.bot_user.to_dict(),
            kind="text",
            text=visible,
            source=source,
            parse_mode=params.get("parse_mode"),
            entities=entities,
            reply_markup=markup,
            thread_id=thread_id,
            params=params,
            reply_to=reply_to,
        )
        return self._message_json(msg)

    def _send_media(
        self, kind: Literal["photo", "document"], params: JSONDict, files: list[UploadedFile]
    ) -> JSONDict:
        chat = self._writable_chat(params.get("chat_id"))
        thread_id = self._thread(chat, params)
        reference = params.get(kind)
        attach = reference.removeprefix("attach://") if isinstance(reference, str) else None
        upload = next((f for f in files if f.field in (kind, attach)), None)
        if upload is None and not reference:
            raise _bad(f"there is no {kind} in the request")
        source = params.get("caption")
        visible: str | None = None
        entities: list[JSONDict] = []
        if isinstance(source, str):
            visible, entities = self._render(source, params.get("parse_mode"), params.get("caption_entities"))
            if _utf16_len(visible) > 1024:
                raise _bad("message caption is too long")
        markup = self._markup(params.get("reply_markup"))
        reply_to = self._reply_target(chat, params)
        self._admit(chat.id, chat.type == "private", "sendPhoto" if kind == "photo" else "sendDocument")
        serial = next(self._message_ids)
        size = len(upload.data) if upload else 0
        file_id, unique_id = f"{kind}-{serial}", f"u{kind}{serial}"
        media: Any
        if kind == "photo":
            media = [{"file_id": file_id, "file_unique_id": unique_id, "width": 640, "height": 480}]
            if size:
                media[0]["file_size"] = size
        else:
            media = {"file_id": file_id, "file_unique_id": unique_id}
            if upload is not None:
                media.update(file_name=upload.filename, mime_type=upload.mimetype, file_size=size)
        msg = self._store(
            chat,
            from_bot=True,
            sender=self.bot_user.to_dict(),
            kind=kind,
            caption=visible or None,
            source=source,
            parse_mode=params.get("parse_mode"),
            entities=entities,
            reply_markup=markup,
            thread_id=thread_id,
            params=params,
            files=files,
            media=media,
            reply_to=reply_to,
        )
        return self._message_json(msg)

    def _api_sendPhoto(self, params: JSONDict, files: list[UploadedFile]) -> JSONDict:
        return self._send_media("photo", params, files)

    def _api_sendDocument(self, params: JSONDict, files: list[UploadedFile]) -> JSONDict:
        return self._send_media("document", params, files)

    def _api_editMessageText(self, params: JSONDict, files: list[UploadedFile]) -> JSONDict | bool:
        msg, inline = self._edit_target(params)
        if msg.kind != "text":
            raise _bad("there is no text in the message to edit")
        source = params.get("text")
        if not isinstance(source, str):
            raise _bad("message text is empty")
        visible, entities = self._render(source, params.get("parse_mode"), params.get("entities"))
        if not visible:
            raise _bad("message text is empty")
        if _utf16_len(visible) > 4096:
            raise _bad("message is too long")
        markup = self._markup(params.get("reply_markup"), inline_only=True)
        self._apply_edit(
            msg,
            "editMessageText",
            visible=visible,
            source=source,
            entities=entities,
            parse_mode=params.get("parse_mode"),
            markup=markup,
        )
        return self._edit_result(msg, inline)

    def _api_editMessageCaption(self, params: JSONDict, files: list[UploadedFile]) -> JSONDict | bool:
        msg, inline = self._edit_target(params)
        if msg.kind == "text":
            raise _bad("there is no caption in the message to edit")
        source = params.get("caption")
        visible: str | None = None
        entities: list[JSONDict] = []
        if isinstance(source, str):
            visible, entities = self._render(source, params.get("parse_mode"), params.get("caption_entities"))
            if _utf16_len(visible) > 1024:
                raise _bad("message caption is too long")
        markup = self._markup(params.get("reply_markup"), inline_only=True)
        self._apply_edit(
            msg,
            "editMessageCaption",
            visible=visible or None,
            source=source,
            entities=entities,
            parse_mode=params.get("parse_mode"),
            markup=markup,
        )
        return self._edit_result(msg, inline)

    def _api_editMessageReplyMarkup(self, params: JSONDict, files: list[UploadedFile]) -> JSONDict | bool:
        msg, inline = self._edit_target(params)
        markup = self._markup(params.get("reply_markup"), inline_only=True)
        self._apply_edit(
            msg,
            "editMessageReplyMarkup",
            visible=msg.content or None,
            source=msg.source,
            entities=msg.entities,
            parse_mode=msg.parse_mode,
            markup=markup,
        )
        return self._edit_result(msg, inline)

    def _api_deleteMessage(self, params: JSONDict, files: list[UploadedFile]) -> bool:
        chat = self._writable_chat(params.get("chat_id"))
        msg = self._messages.get(chat.id, {}).get(int(params.get("message_id", 0)))
        if msg is None or msg.deleted:
            raise _bad("message to delete not found")
        if (
            not msg.from_bot
            and chat.type != "private"
            and self.member_status(chat.id, BOT_ID) not in ("administrator", "creator")
        ):
            raise _bad("message can't be deleted")
        self._admit(chat.id, chat.type == "private", "deleteMessage")
        msg.history.append(msg.revision("deleteMessage", self._now()))
        msg.deleted = True
        return True

    def _api_deleteMessages(self, params: JSONDict, files: list[UploadedFile]) -> bool:
        chat = self._writable_chat(params.get("chat_id"))
        for message_id in params.get("message_ids", []):
            msg = self._messages.get(chat.id, {}).get(int(message_id))
            if msg is not None and not msg.deleted:
                msg.history.append(msg.revision("deleteMessages", self._now()))
                msg.deleted = True
        return True

    def _api_answerCallbackQuery(self, params: JSONDict, files: list[UploadedFile]) -> bool:
        record = self.answers.get(str(params.get("callback_query_id")))
        if record is None or record.answered:
            raise _bad(QUERY_INVALID.removeprefix("Bad Request: "))
        now = self.timer.monotonic()
        if self._too_late(record.created_at, self.answer_timeout, now):
            record.expired = True
            raise _bad(QUERY_INVALID.removeprefix("Bad Request: "))
        text = params.get("text")
        if isinstance(text, str) and len(text) > 200:
            raise _bad("MESSAGE_TOO_LONG")
        record.answered = True
        record.answered_at = now
        record.text = text
        record.show_alert = bool(params.get("show_alert", False))
        record.url = params.get("url")
        record.cache_time = params.get("cache_time")
        return True

    @staticmethod
    def _too_late(created_at: float | None, timeout: float | None, now: float) -> bool:
        return timeout is not None and created_at is not None and now - created_at > timeout

    def _api_answerInlineQuery(self, params: JSONDict, files: list[UploadedFile]) -> bool:
        raw = params.get("results")
        if isinstance(raw, str):
            try:
                raw = json.loads(raw)
            except ValueError as exc:
                raise _bad(f"can't parse JSON encoded inline query results: {exc}") from None
        if raw is None:
            raw = []
        if not isinstance(raw, list):
            raise _bad("expected an Array of inline query results")
        # The Bot API server parses every result before Telegram sees the query id.
        results = [self._inline_result(item) for item in raw]
        record = self.inline_answers.get(str(params.get("inline_query_id")))
        if record is None or record.answered:
            raise _bad(QUERY_INVALID.removeprefix("Bad Request: "))
        now = self.timer.monotonic()
        if self._too_late(record.created_at, self.inline_answer_timeout, now):
            record.expired = True
            raise _bad(QUERY_INVALID.removeprefix("Bad Request: "))
        if len(results) > 50:
            raise _bad("RESULTS_TOO_MUCH")
        seen: set[str] = set()
        for result in results:
            result_id = result["id"]
            if not result_id:
                raise _bad("RESULT_ID_EMPTY")
            if len(result_id.encode("utf-8")) > 64:
                raise _bad("RESULT_ID_INVALID")
            if result_id in seen:
                raise _bad("RESULT_ID_DUPLICATE")
            seen.add(result_id)
            if result["type"] == "article" and not str(result.get("title") or "").strip():
                raise _bad("ARTICLE_TITLE_EMPTY")
            content = result.get("input_message_content")
            if isinstance(content, dict) and isinstance(content.get("message_text"), str):
                visible, _ = self._render(
                    content["message_text"], content.get("parse_mode"), content.get("entities")
                )
                if not visible:
                    raise _bad("MESSAGE_EMPTY")
                if _utf16_len(visible) > 4096:
                    raise _bad("MESSAGE_TOO_LONG")
        next_offset = params.get("next_offset")
        if next_offset is not None and len(str(next_offset).encode("utf-8")) > 64:
            raise _bad("NEXT_OFFSET_INVALID")
        button = params.get("button")
        if isinstance(button, str):
            button = json.loads(button)
        record.answered = True
        record.answered_at = now
        record.results = results
        record.cache_time = params.get("cache_time")
        record.is_personal = bool(params.get("is_personal", False))
        record.next_offset = None if next_offset is None else str(next_offset)
        record.button = button
        return True

    def _inline_result(self, raw: Any) -> JSONDict:
        """One InlineQueryResult as the Bot API server parses it (its error texts)."""

        def fail(reason: str) -> _ApiError:
            return _bad(f"can't parse inline query result: {reason}")

        if not isinstance(raw, dict):
            raise fail("Inline query result must be an object")
        for key in ("type", "id"):
            if key not in raw:
                raise fail(f'Can\'t find field "{key}"')
            if not isinstance(raw[key], str):
                raise fail(f'Field "{key}" must be of type String')
        result = copy.deepcopy(raw)
        result["type"] = kind = raw["type"].lower()
        if kind not in _INLINE_RESULT_TYPES:
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
                self._render(content["message_text"], content.get("parse_mode"), content.get("entities"))
            except _ApiError as error:
                reason = error.description.removeprefix("Bad Request: ")
                raise fail(reason[:1].upper() + reason[1:]) from None
        if raw.get("reply_markup") is not None:
            try:
                markup = self._markup(raw["reply_markup"], inline_only=True)
            except _ApiError as error:
                reason = error.description.removeprefix("Bad Request: ")
                if reason.isupper():  # Telegram's own code (BUTTON_DATA_INVALID…) is not wrapped
                    raise
                raise fail(reason[:1].upper() + reason[1:]) from None
            buttons = [b for row in (markup or {}).get("inline_keyboard", []) for b in row]
            if any(key in b for b in buttons for key in ("web_app", "callback_game", "pay")):
                raise _bad("BUTTON_TYPE_INVALID")
        if kind == "article" and "title" not in raw:
            raise fail('Can\'t find field "title"')
        return result

    def _api_sendChatAction(self, params: JSONDict, files: list[UploadedFile]) -> bool:
        chat = self._writable_chat(params.get("chat_id"))
        self._thread(chat, params)
        return True

    def _api_getChat(self, params: JSONDict, files: list[UploadedFile]) -> JSONDict:
        chat = self._known_chat(params.get("chat_id"))
        info = chat.to_dict()
        info.update(
            accent_color_id=0,
            max_reaction_count=11,
            accepted_gift_types={
                "unlimited_gifts": False,
                "limited_gifts": False,
                "unique_gifts": False,
                "premium_subscription": False,
                "gifts_from_channels": False,
            },
        )
        return info

    def _user_json(self, user_id: int) -> JSONDict:
        user = self._users.get(user_id) or FakeUser(user_id, f"User {user_id}")
        return user.to_dict()

    def _api_getChatMember(self, params: JSONDict, files: list[UploadedFile]) -> JSONDict:
        chat = self._known_chat(params.get("chat_id"))
        user_id = int(params.get("user_id", 0))
        return chat_member_json(self._user_json(user_id), self.member_status(chat.id, user_id))

    def _api_getChatAdministrators(self, params: JSONDict, files: list[UploadedFile]) -> list[JSONDict]:
        chat = self._known_chat(params.get("chat_id"))
        if chat.type == "private":
            raise _bad("there are no administrators in the private chat")
        return [
            chat_member_json(self._user_json(user_id), status)
            for user_id, status in self._members.get(chat.id, {}).items()
            if status in ("creator", "administrator")
        ]

    def _api_leaveChat(self, params: JSONDict, files: list[UploadedFile]) -> bool:
        chat = self._known_chat(params.get("chat_id"))
        self.set_member_status(chat.id, BOT_ID, "left")
        return True

    def _api_pinChatMessage(self, params: JSONDict, files: list[UploadedFile]) -> bool:
        chat = self._writable_chat(params.get("chat_id"))
        message_id = int(params.get("message_id", 0))
        if message_id not in self._messages.get(chat.id, {}):
            raise _bad("message to pin not found")
        self.pinned.setdefault(chat.id, []).append(message_id)
        return True

    def _api_unpinChatMessage(self, params: JSONDict, files: list[UploadedFile]) -> bool:
        chat = self._writable_chat(params.get("chat_id"))
        pins = self.pinned.get(chat.id, [])
        message_id = params.get("message_id")
        if message_id is None:
            if pins:
                pins.pop()
        elif int(message_id) in pins:
            pins.remove(int(message_id))
        return True

    def _api_unpinAllChatMessages(self, params: JSONDict, files: list[UploadedFile]) -> bool:
        self.pinned.pop(self._writable_chat(params.get("chat_id")).id, None)
        return True

    @staticmethod
    def _commands_key(scope: Any, language_code: Any) -> tuple[str, str]:
        if isinstance(scope, str):
            scope = json.loads(scope)
        scope_key = json.dumps(scope or {"type": "default"}, sort_keys=True)
        return scope_key, str(language_code or "")

    def _api_setMyCommands(self, params: JSONDict, files: list[UploadedFile]) -> bool:
        commands = params.get("commands", [])
        if isinstance(commands, str):
            commands = json.loads(commands)
        for command in commands:
            name = command.get("command", "")
            if not re.fullmatch(r"[a-z0-9_]{1,32}", name):
                raise _bad("BOT_COMMAND_INVALID")
            if not 1 <= len(command.get("description", "")) <= 256:
                raise _bad("BOT_COMMAND_DESCRIPTION_INVALID")
        self._commands[self._commands_key(params.get("scope"), params.get("language_code"))] = commands
        return True

    def _api_getMyCommands(self, params: JSONDict, files: list[UploadedFile]) -> list[JSONDict]:
        return self.commands(params.get("scope"), params.get("language_code"))

    def _api_deleteMyCommands(self, params: JSONDict, files: list[UploadedFile]) -> bool:
        self._commands.pop(self._commands_key(params.get("scope"), params.get("language_code")), None)
        return True

    def _api_setChatMenuButton(self, params: JSONDict, files: list[UploadedFile]) -> bool:
        chat_id = params.get("chat_id")
        key = None if chat_id is None else self._resolve_chat_id(chat_id)
        self.menu_buttons[key] = params.get("menu_button") or {"type": "default"}
        return True

    def _api_getChatMenuButton(self, params: JSONDict, files: list[UploadedFile]) -> JSONDict:
        chat_id = params.get("chat_id")
        key = None if chat_id is None else self._resolve_chat_id(chat_id)
        return self.menu_buttons.get(key) or self.menu_buttons.get(None) or {"type": "commands"}

    def _api_setWebhook(self, params: JSONDict, files: list[UploadedFile]) -> bool:
        connections = params.get("max_connections", 40)
        if not isinstance(connections, int) or not 1 <= connections <= 100:
            raise _bad("invalid max_connections specified")
        self.webhook = dict(params)
        return True

    def _api_deleteWebhook(self, params: JSONDict, files: list[UploadedFile]) -> bool:
        self.webhook = None
        if params.get("drop_pending_updates"):
            self._pending_updates.clear()
        return True

    def _api_getWebhookInfo(self, params: JSONDict, files: list[UploadedFile]) -> JSONDict:
        return {
            "url": (self.webhook or {}).get("url", ""),
            "has_custom_certificate": False,
            "pending_update_count": len(self._pending_updates),
        }

    async def _api_getUpdates(self, params: JSONDict, files: list[UploadedFile]) -> list[JSONDict]:
        offset = int(params.get("offset") or 0)
        self._pending_updates = [u for u in self._pending_updates if u["update_id"] >= offset]
        if not self._pending_updates:
            self._update_queued = queued = asyncio.Event()
            with contextlib.suppress(TimeoutError):
                wait = min(float(params.get("timeout") or 0), self.long_poll_limit)
                await asyncio.wait_for(queued.wait(), wait)
        limit = int(params.get("limit") or 100)
        return copy.deepcopy(self._pending_updates[:limit])

    def _api_close(self, params: JSONDict, files: list[UploadedFile]) -> bool:
        return True

    def _api_logOut(self, params: JSONDict, files: list[UploadedFile]) -> bool:
        return True


# --------------------------------------------------------------------------------------------------
# The test client
# --------------------------------------------------------------------------------------------------


#: ``settle()`` with a virtual timer refuses to run virtual time further than this (seconds).
VIRTUAL_SETTLE_LIMIT = 3600.0
_QUIESCE_ROUNDS = 200


def _task_label(task: asyncio.Task[Any]) -> str:
    coro = task.get_coro()
    where = getattr(coro, "__qualname__", None)
    return f"{task.get_name()} ({where})" if where else task.get_name()


#: Real seconds a settle may take before it names the tasks still running: a guard against a
#: hang, not a measure of speed. Generous, because one update may run a long burst of computer
#: moves (Hard thinks up to ~50 ms each) on a machine whose other core another job has.
SETTLE_TIMEOUT = 30.0


class TelegramTestClient:
    """Drives a real Application with updates from the fake and waits until it has finished.

    * ``start=True`` runs ``post_init``/``Application.start()`` like ``run_polling`` does (without
      the Updater), so ``Application.create_task`` tasks are tracked and the error path is real.
    * ``pause_jobs=True`` pauses the JobQueue's scheduler right after starting, so repeating jobs
      (the sweep) never fire on the wall clock mid-test; run one deterministically with ``run_job``.
    * ``raise_errors=True`` re-raises any exception that reached the Application's error
      handlers, so a crashing handler fails the test instead of only being logged.
    * ``timer`` (a ``VirtualTimer``; default: the fake's timer if it is one) puts waiting on
      virtual time. ``settle`` moves it to the next wake whenever the tasks it waits for can only
      go on once time passes: the loop is idle (nothing ready to run, no thread-pool work such as
      a database call in flight) and at least one of them is parked on the timer; at most
      ``virtual_limit`` seconds per settle. ``advance(s)`` moves it on by hand, one wake at a time;
      ``stop()`` lets parked tasks run out (PTB waits for its ``create_task`` tasks) and cancels
      what still sleeps past the limit. Real ``asyncio.sleep`` calls do not hold virtual time back.
    * ``ignore_tasks`` marks long-lived tasks (e.g. a per-chat outbox worker that idles on a
      queue) that ``settle`` must never wait for, wherever they were started.
    """

    def __init__(
        self,
        app: Application[Any, Any, Any, Any, Any, Any],
        fake: FakeTelegram,
        *,
        start: bool = True,
        pause_jobs: bool = True,
        raise_errors: bool = True,
        settle_timeout: float = SETTLE_TIMEOUT,
        timer: VirtualTimer | None = None,
        virtual_limit: float = VIRTUAL_SETTLE_LIMIT,
        ignore_tasks: Callable[[asyncio.Task[Any]], bool] | None = None,
    ) -> None:
        self.app = app
        self.fake = fake
        self.errors: list[BaseException] = []
        if timer is None and isinstance(fake.timer, VirtualTimer):
            timer = fake.timer
        self.timer = timer
        self._start = start
        self._pause_jobs = pause_jobs
        self._raise_errors = raise_errors
        self._settle_timeout = settle_timeout
        self._virtual_limit = virtual_limit
        self.ignore_tasks = ignore_tasks
        self._executor_jobs: set[asyncio.Future[Any]] = set()
        self._tracked_loop: asyncio.AbstractEventLoop | None = None

    async def __aenter__(self) -> TelegramTestClient:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.stop()

    async def start(self) -> None:
        if self.timer is not None:
            self._track_executor()
        self.app.add_error_handler(self._collect_error)
        await self.app.initialize()
        if self._start:
            if self.app.post_init:
                await self.app.post_init(self.app)
            await self.app.start()
            if self._pause_jobs and self.app.job_queue is not None:
                self.app.job_queue.scheduler.pause()

    async def stop(self) -> None:
        """Stop like ``run_polling`` does; on virtual time, time runs on meanwhile (PTB waits for
        its ``create_task`` tasks, a flush may pace itself), and what still sleeps past
        ``virtual_limit`` is cancelled, so a test's exit cannot hang on a parked task."""
        if self.timer is None:
            await self._stop_app()
        else:
            try:
                await self._run_out(self._stop_app())
            finally:
                self._untrack_executor()

    def _track_executor(self) -> None:
        """Count thread-pool work in flight (``run_in_executor``, ``asyncio.to_thread``: the bot's
        database calls, chart drawing), so virtual time never jumps while a thread still works.

        Wraps the running loop's ``run_in_executor`` until ``stop()``.
        """
        loop = asyncio.get_running_loop()
        current = vars(loop).get("run_in_executor")
        shared = getattr(current, "tracked_jobs", None)
        if isinstance(shared, set):  # another client on this loop already counts them
            self._executor_jobs = shared
            return
        original = loop.run_in_executor
        jobs = self._executor_jobs

        def run_in_executor(executor: Any, func: Callable[..., Any], *args: Any) -> asyncio.Future[Any]:
            future = original(executor, func, *args)
            jobs.add(future)
            future.add_done_callback(jobs.discard)
            return future

        run_in_executor.tracked_jobs = jobs  # type: ignore[attr-defined]
        loop.run_in_executor = run_in_executor  # type: ignore[method-assign,assignment]
        self._tracked_loop = loop

    def _untrack_executor(self) -> None:
        if self._tracked_loop is not None:
            with contextlib.suppress(AttributeError):
                del self._tracked_loop.run_in_executor
            self._tracked_loop = None

    async def _stop_app(self) -> None:
        if self.app.running:
            await self.app.stop()
            if self.app.post_stop:
                await self.app.post_stop(self.app)
        await self.app.shutdown()
        if self._start and self.app.post_shutdown:
            await self.app.post_shutdown(self.app)
        self.app.remove_error_handler(self._collect_error)

    async def _collect_error(self, update: object, context: Any) -> None:
        self.errors.append(context.error)

    # -- processing --------------------------------------------------------------------------------

    async def process(self, update: Mapping[str, Any] | Update) -> list[ApiCall]:
        """Process one update to the end; returns the API calls it caused (for budget checks)."""
        if not isinstance(update, Update):
            update = self.fake.to_update(update, self.app.bot)
        return await self._run(self.app.process_update(update))

    async def process_many(self, updates: Iterable[Mapping[str, Any] | Update]) -> list[ApiCall]:
        """Submit several updates at once and settle once, like PTB's update fetcher does.

        Each update goes through the Application's update processor, so ``concurrent_updates``
        decides how many run at a time (one at a time, in order, without it). Returns every API
        call they caused.
        """
        parsed = [u if isinstance(u, Update) else self.fake.to_update(u, self.app.bot) for u in updates]
        processor = self.app.update_processor
        first_call, first_error = len(self.fake.calls), len(self.errors)
        baseline = asyncio.all_tasks()
        tasks = [
            asyncio.create_task(
                processor.process_update(update, self.app.process_update(update)),
                name=f"TelegramTestClient:update:{update.update_id}",
            )
            for update in parsed
        ]
        await self.settle(baseline)  # not gather(): settle's timeout applies, and it drives virtual time
        for task in tasks:
            task.result()
        return self._finish(first_call, first_error)

    async def _run(self, work: Awaitable[Any]) -> list[ApiCall]:
        first_call, first_error = len(self.fake.calls), len(self.errors)
        baseline = asyncio.all_tasks()
        if self.timer is None:
            await work
            await self.settle(baseline)
        else:
            # On virtual time the work itself may park on the timer, so it runs as a task that
            # settle drives like any other.
            task = asyncio.ensure_future(work)
            task.set_name("TelegramTestClient:work")
            await self.settle(baseline)
            task.result()
        return self._finish(first_call, first_error)

    def _finish(self, first_call: int, first_error: int) -> list[ApiCall]:
        new_errors = self.errors[first_error:]
        if self._raise_errors and new_errors:
            raise new_errors[0]
        return self.fake.calls[first_call:]

    def _pending(
        self, ignore: Collection[asyncio.Task[Any]], me: asyncio.Task[Any] | None
    ) -> list[asyncio.Task[Any]]:
        return [
            t
            for t in asyncio.all_tasks()
            if t is not me
            and t not in ignore
            and not t.done()
            and not (self.ignore_tasks is not None and self.ignore_tasks(t))
        ]

    async def settle(
        self, baseline: set[asyncio.Task[Any]] | None = None, timeout: float | None = None
    ) -> None:
        """Wait for every task started after ``baseline`` (PTB's create_task, block=False handlers).

        Looks at all asyncio tasks, not only PTB's tracked set: PTB only tracks ``create_task``
        while the Application is running, and handlers may use ``asyncio.create_task`` directly.
        ``timeout`` is in real seconds. With a virtual timer, whenever the event loop is idle and
        some of those tasks are parked on the timer (the rest waiting, e.g. on a lock a parked task
        holds), virtual time jumps to the next wake -- of any sleeper, so earlier wakes of older
        tasks happen in order too -- until they are all done; past ``virtual_limit`` virtual
        seconds it fails, naming the tasks.
        """
        if self.timer is not None:
            await self._drive(baseline or set(), until=None, timeout=timeout)
            return
        loop = asyncio.get_running_loop()
        ignore = baseline if baseline is not None else set()
        deadline = loop.time() + (self._settle_timeout if timeout is None else timeout)
        me = asyncio.current_task()
        while True:
            await asyncio.sleep(0)
            pending = self._pending(ignore, me)
            if not pending:
                return
            remaining = deadline - loop.time()
            if remaining <= 0:
                names = ", ".join(sorted(t.get_name() for t in pending))
                raise AssertionError(f"tasks still running after the update was processed: {names}")
            await asyncio.wait(pending, timeout=remaining)

    async def advance(self, seconds: float) -> list[ApiCall]:
        """Move virtual time ``seconds`` on, stopping at every wake in between to let tasks run.

        At each step the woken tasks (and any they start) run until they are done or parked
        again; tasks started meanwhile are waited for like in ``settle``. Returns the API calls
        made meanwhile.
        """
        timer = self._virtual_timer()
        if seconds < 0:
            raise ValueError(f"virtual time only moves forward (advance({seconds}))")
        first_call, first_error = len(self.fake.calls), len(self.errors)
        await self._drive(asyncio.all_tasks(), until=timer.monotonic() + seconds, timeout=None)
        return self._finish(first_call, first_error)

    def _virtual_timer(self) -> VirtualTimer:
        if self.timer is None:
            raise AssertionError("this needs virtual time: TelegramTestClient(..., timer=VirtualTimer())")
        return self.timer

    async def _quiesce(self, deadline: float) -> bool:
        """Let the loop run until it is idle: nothing ready to run and no thread-pool work in
        flight (``run_in_executor``); True once it is, False if it stays busy or time runs out.

        Reads CPython's queue of ready callbacks (``loop._ready``, private, best effort); without
        it, a fixed number of rounds stands in for "nothing ready".
        """
        loop = asyncio.get_running_loop()
        ready = getattr(loop, "_ready", None)
        for _ in range(_QUIESCE_ROUNDS):
            await asyncio.sleep(0)
            if ready is None or ready:
                continue
            if not self._executor_jobs:
                return True
            remaining = deadline - loop.time()
            if remaining <= 0:
                return False
            await asyncio.wait(
                set(self._executor_jobs), timeout=remaining, return_when=asyncio.FIRST_COMPLETED
            )
        return ready is None and not self._executor_jobs

    async def _drive(
        self, ignore: Collection[asyncio.Task[Any]], *, until: float | None, timeout: float | None
    ) -> None:
        """Run the loop, moving virtual time whenever only that lets the awaited tasks go on.

        ``until=None`` is ``settle``: finish when every task outside ``ignore`` is done, failing
        past the virtual limit. Otherwise it is ``advance``: step through every wake up to
        ``until``, then finish once the new tasks are done or parked beyond it.
        """
        timer = self._virtual_timer()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + (self._settle_timeout if timeout is None else timeout)
        limit = until if until is not None else timer.monotonic() + self._virtual_limit
        me = asyncio.current_task()
        while True:
            idle = await self._quiesce(deadline)
            pending = self._pending(ignore, me)
            parked = [t for t in pending if timer.is_parked(t)]
            if loop.time() > deadline and (pending or until is not None):
                if not pending:
                    raise AssertionError(
                        f"advance() ran out of real time at virtual t={timer.monotonic()} "
                        f"(next wake {timer.next_wake()}, target {until})"
                    )
                raise AssertionError(self._stuck_message(pending, ignore, timer))
            if idle and (parked or (until is not None and not pending)):
                wake = timer.next_wake()
                if wake is not None and wake <= limit:
                    timer.advance_to(max(wake, timer.monotonic()))
                    continue
                if until is not None:
                    if timer.monotonic() < until:
                        timer.advance_to(until)
                        continue
                    return
                waits = ", ".join(f"{_task_label(t)} until {timer.wake_of(t)}" for t in parked)
                raise AssertionError(
                    f"settle() stops at {self._virtual_limit} virtual seconds (t={limit}); "
                    f"tasks still parked on the virtual timer: {waits}"
                )
            if not pending and until is None:
                return
            running = [t for t in pending if not timer.is_parked(t)]
            if not idle or not running:
                continue  # something else is still busy: let it run first
            signal = timer.next_park()
            try:
                await asyncio.wait(
                    [*running, signal],
                    timeout=max(0.0, deadline - loop.time()),
                    return_when=asyncio.FIRST_COMPLETED,
                )
            finally:
                signal.cancel()

    async def _run_out(self, work: Awaitable[None]) -> None:
        """Await ``work`` while waking every sleeper whenever the loop is idle, as real time
        would; past the virtual limit or the real timeout, cancel whatever is still parked."""
        timer = self._virtual_timer()
        loop = asyncio.get_running_loop()
        task = asyncio.ensure_future(work)
        deadline = loop.time() + self._settle_timeout
        limit = timer.monotonic() + self._virtual_limit
        while not task.done():
            idle = await self._quiesce(deadline)
            if task.done():
                break
            wake = timer.next_wake()
            if idle and wake is not None:
                if wake <= limit and loop.time() < deadline:
                    timer.advance_to(max(wake, timer.monotonic()))
                    continue
                parked = timer.parked_tasks()
                for each in parked:
                    each.cancel()
                if parked:
                    continue
            if loop.time() >= deadline:
                break
            if not idle:
                continue
            signal = timer.next_park()
            try:
                await asyncio.wait(
                    [task, signal],
                    timeout=max(0.0, deadline - loop.time()),
                    return_when=asyncio.FIRST_COMPLETED,
                )
            finally:
                signal.cancel()
        await task

    def _stuck_message(
        self, pending: list[asyncio.Task[Any]], ignore: Collection[asyncio.Task[Any]], timer: VirtualTimer
    ) -> str:
        names = ", ".join(sorted(t.get_name() for t in pending))
        message = f"tasks still running after the update was processed: {names}"
        waiting = [t for t in pending if not timer.is_parked(t)]
        older = [t for t in timer.parked_tasks() if t in ignore or t not in pending]
        if waiting and older:
            message += (
                f"; none of them is parked on the virtual timer, so settle does not move it, but "
                f"tasks it does not wait for are: {', '.join(sorted(map(_task_label, older)))} "
                "(call advance(), or start such workers inside the test's update)"
            )
        return message

    async def run_job(self, name: str) -> list[ApiCall]:
        """Run the JobQueue job called ``name`` once, now, and wait for it."""
        assert self.app.job_queue is not None, "the Application has no JobQueue"
        jobs = self.app.job_queue.get_jobs_by_name(name)
        assert jobs, f"no job named {name!r}; jobs: {[j.name for j in self.app.job_queue.jobs()]}"
        return await self._run(jobs[0].run(self.app))

    # -- user actions ------------------------------------------------------------------------------

    async def send(
        self, chat: FakeChat, user: FakeUser, text: str, *, thread_id: int | None = None
    ) -> list[ApiCall]:
        """The user writes ``text`` in ``chat`` ("/..." becomes a command with its entity)."""
        if text.startswith("/"):
            data = self.fake.command_update(chat, user, text, thread_id=thread_id)
        else:
            data = self.fake.text_update(chat, user, text, thread_id=thread_id)
        return await self.process(data)

    @staticmethod
    def _find_button(
        message: StoredMessage, button: str | re.Pattern[str] | Callable[[str, str | None], bool]
    ) -> tuple[JSONDict, str]:
        """The one button on ``message``'s keyboard *now* matching ``button``, and where it is."""
        available = [b for row in message.keyboard for b in row]
        described = ", ".join(f"{b['text']!r}->{b.get('callback_data', b.get('url'))!r}" for b in available)
        where = f"message {message.message_id} in chat {message.chat_id}"
        if message.deleted:
            raise AssertionError(f"{where} was deleted; its buttons can no longer be tapped")

        def matches(b: JSONDict) -> bool:
            text, data = b["text"], b.get("callback_data")
            if isinstance(button, str):
                return bool(text == button)
            if isinstance(button, re.Pattern):
                return button.search(text) is not None
            return bool(button(text, data))

        found = [b for b in available if matches(b)]
        if not found:
            raise AssertionError(f"no button {button!r} on {where}; available buttons: [{described}]")
        if len({json.dumps(b, sort_keys=True) for b in found}) > 1:
            raise AssertionError(f"button {button!r} is ambiguous on {where}: [{described}]")
        return found[0], where

    async def tap(
        self,
        user: FakeUser,
        message: StoredMessage,
        button: str | re.Pattern[str] | Callable[[str, str | None], bool],
        *,
        expect_answer: bool = True,
    ) -> CallbackAnswer:
        """Tap a button that is on ``message``'s keyboard *now*; fails loudly if it is not there.

        ``button`` is the exact button text, a regex searched in the text, or a predicate on
        (text, callback_data). Returns what the bot answered to the callback query.
        """
        found, where = self._find_button(message, button)
        if "callback_data" not in found:
            hint = (
                " (an inline-mode button: use tap_switch_inline)"
                if "switch_inline_query_current_chat" in found
                else ""
            )
            raise AssertionError(f"button {found['text']!r} on {where} sends no callback: {found}{hint}")
        return await self.tap_data(user, message, found["callback_data"], expect_answer=expect_answer)

    async def tap_data(
        self, user: FakeUser, message: StoredMessage, data: str | None, *, expect_answer: bool = True
    ) -> CallbackAnswer:
        """Send a callback query with arbitrary (possibly forged or stale) data from ``message``."""
        update = self.fake.callback_update(user, message, data)
        await self.process(update)
        answer = self.fake.answers[update["callback_query"]["id"]]
        if expect_answer and not answer.answered:
            if answer.expired:
                raise AssertionError(
                    f"the callback query {data!r} was answered too late (Telegram allows "
                    f"{self.fake.answer_timeout} s; the user's button kept spinning)"
                )
            raise AssertionError(
                f"the callback query {data!r} was never answered (the user's button keeps spinning)"
            )
        return answer

    # -- inline mode -------------------------------------------------------------------------------

    async def inline_query(
        self,
        user: FakeUser,
        query: str = "",
        *,
        offset: str = "",
        chat: FakeChat | None = None,
        chat_type: InlineChatType | None = None,
        expect_answer: bool = True,
    ) -> InlineAnswer:
        """``user`` types "@bot ``query``"; returns the bot's answer (fails if there is none)."""
        update = self.fake.inline_query_update(user, query, offset, chat_type=chat_type, chat=chat)
        await self.process(update)
        answer = self.fake.inline_answer(update["inline_query"]["id"])
        if expect_answer and not answer.answered:
            late = " in time" if answer.expired else ""
            raise AssertionError(f"the inline query {query!r} was never answered{late}")
        return answer

    async def pick(
        self,
        user: FakeUser,
        chat: FakeChat,
        answer: InlineAnswer | Mapping[str, Any] | str,
        result_id: str,
        *,
        thread_id: int | None = None,
    ) -> list[ApiCall]:
        """``user`` taps result ``result_id`` of ``answer``; processes the updates Telegram sends."""
        calls: list[ApiCall] = []
        for update in self.fake.pick_inline_result(user, chat, answer, result_id, thread_id=thread_id):
            calls += await self.process(update)
        return calls

    async def tap_switch_inline(
        self,
        user: FakeUser,
        message: StoredMessage,
        button: str | re.Pattern[str] | Callable[[str, str | None], bool],
        *,
        expect_answer: bool = True,
    ) -> InlineAnswer:
        """Tap a ``switch_inline_query_current_chat`` button: the user's app types "@bot <query>"
        in the same chat, which sends the bot an inline query; returns the bot's answer."""
        found, where = self._find_button(message, button)
        if "switch_inline_query_current_chat" not in found:
            raise AssertionError(
                f"button {found['text']!r} on {where} does not switch to inline mode: {found}"
            )
        return await self.inline_query(
            user,
            found["switch_inline_query_current_chat"],
            chat=self.fake.chat(message.chat_id),
            expect_answer=expect_answer,
        )
