"""What the fake stores and hands out: people, chats, messages, calls, queries.

A ``StoredMessage`` is mutated by edits, so a test holding one always sees the message as it is
now; its ``history`` keeps what it looked like before each edit or deletion.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

from tests.fakes.bot_api.common import BLOCKED, ApiError, JSONDict


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
    """A chat. A private chat is a person's chat with the bot (``id`` = their user id), unless
    ``between`` names two people: their chat with each other, which the bot never sees (``id`` is
    then only the fake's key for it: Telegram shows each of the two the other's user id)."""

    id: int
    type: Literal["private", "group", "supergroup", "channel"]
    title: str | None = None
    first_name: str | None = None
    username: str | None = None
    is_forum: bool = False
    between: tuple[int, int] | None = None

    def to_dict(self) -> JSONDict:
        if self.between is not None:
            raise AssertionError(
                f"chat {self.id} is between users {self.between}: the bot can never see it, "
                "so no Chat object of it reaches the bot"
            )
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
    #: Its arrival notified the chat (a person's message, or the bot's sent without
    #: ``disable_notification``). Edits never notify, so they never change it.
    notified: bool = False

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
    def reads_as(self) -> str:
        """The message as a person reads it in the chat, e.g. "Ana via @tweak_test_bot: 7♥"."""
        name = str(self.sender.get("first_name", "?")) if self.sender else "?"
        if self.kind == "service":
            return f"[{name}: {', '.join(sorted(self.extra))}]"
        origin = self.extra.get("forward_origin")
        if isinstance(origin, dict) and isinstance(origin.get("sender_user"), dict):
            name += f" (forwarded from {origin['sender_user'].get('first_name', '?')})"
        if self.via_bot is not None:
            name += f" via @{self.via_bot.get('username')}"
        return f"{name}: {self.content}"

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
class Fault:
    """A failure ``FakeTelegram.fail_next`` keeps in store for the next matching calls."""

    method: str
    error_code: int
    description: str
    retry_after: int | None
    times: int
    chat_id: int | None
    exception: BaseException | None

    def matches(self, method: str, call: ApiCall) -> bool:
        return self.method in (method, "*") and (self.chat_id is None or self.chat_id == call.chat_id)

    def error(self) -> ApiError:
        parameters = {"retry_after": self.retry_after} if self.retry_after is not None else None
        return ApiError(self.error_code, self.description, parameters)


#: What an injected error says when the test does not say.
DEFAULT_FAULT_TEXT = {
    400: "Bad Request: injected failure",
    403: BLOCKED,
    500: "Internal Server Error",
    502: "Bad Gateway",
}


ADMIN_RIGHTS = (
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
        member.update(dict.fromkeys(ADMIN_RIGHTS, True))
        member.update(is_anonymous=False, can_promote_members=False)
        return member
    if status == "kicked":
        return {"status": "kicked", "user": user, "until_date": 0}
    if status in ("member", "left"):
        return {"status": status, "user": user}
    raise ValueError(f"unsupported chat member status {status!r}")
