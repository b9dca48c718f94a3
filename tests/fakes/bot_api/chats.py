"""Chats and people: who exists, who is in which chat, and what the bot may do there."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from tests.fakes.bot_api.common import (
    BLOCKED,
    BOT_ID,
    CANT_INITIATE,
    ApiError,
    ChatMemberStatus,
    JSONDict,
    bad,
)
from tests.fakes.bot_api.records import FakeChat, FakeUser, UploadedFile, chat_member_json
from tests.fakes.bot_api.state import FakeState


class Chats(FakeState):
    """The chats of the world and the bot's place in each."""

    # -- building the world ------------------------------------------------------------------------

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

    # -- membership ----------------------------------------------------------------------------------

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

    def _migrate(self, old_chat_id: int, new_chat_id: int) -> FakeChat:
        old = self._chats.get(old_chat_id) or self.group(chat_id=old_chat_id, kind="group")
        if new_chat_id not in self._chats:
            self.register_chat(FakeChat(new_chat_id, "supergroup", title=old.title, username=old.username))
            self._members[new_chat_id] = dict(self._members.get(old_chat_id, {}))
        self._migrated[old_chat_id] = new_chat_id
        return old

    # -- who may do what where -----------------------------------------------------------------------

    def _resolve_chat_id(self, raw: Any) -> int:
        if isinstance(raw, bool) or raw is None or raw == "":
            raise bad("chat_id is empty")
        if isinstance(raw, int):
            return raw
        if isinstance(raw, str):
            if raw.lstrip("-").isdigit():
                return int(raw)
            if raw.startswith("@"):
                for chat in self._chats.values():
                    if chat.username and chat.username.lower() == raw[1:].lower():
                        return chat.id
        raise bad("chat not found")

    def _known_chat(self, raw: Any) -> FakeChat:
        chat_id = self._resolve_chat_id(raw)
        if chat_id in self._migrated:
            raise ApiError(
                400,
                "Bad Request: group chat was upgraded to a supergroup chat",
                {"migrate_to_chat_id": self._migrated[chat_id]},
            )
        chat = self._chats.get(chat_id)
        if chat is None:
            if chat_id in self._blocked:
                raise ApiError(403, BLOCKED)
            if chat_id > 0 and chat_id in self._users:
                raise ApiError(403, CANT_INITIATE)
            raise bad("chat not found")
        return chat

    def _writable_chat(self, raw: Any) -> FakeChat:
        chat = self._known_chat(raw)
        if chat.type == "private":
            if chat.id in self._blocked:
                raise ApiError(403, BLOCKED)
            if chat.id not in self._dm_open:
                raise ApiError(403, CANT_INITIATE)
            return chat
        status = self.member_status(chat.id, BOT_ID)
        where = f"{chat.type} chat" if chat.type != "group" else "group chat"
        if status == "kicked":
            raise ApiError(403, f"Forbidden: bot was kicked from the {where}")
        if status == "left":
            raise ApiError(403, f"Forbidden: bot is not a member of the {where}")
        return chat

    def _thread(self, chat: FakeChat, params: JSONDict) -> int | None:
        thread_id = params.get("message_thread_id")
        if thread_id is None:
            return None
        if chat.is_forum and int(thread_id) not in self._topics.get(chat.id, {}):
            raise bad("message thread not found")
        return int(thread_id)

    # -- API methods that read a chat ----------------------------------------------------------------

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
            raise bad("there are no administrators in the private chat")
        return [
            chat_member_json(self._user_json(user_id), status)
            for user_id, status in self._members.get(chat.id, {}).items()
            if status in ("creator", "administrator")
        ]

    def _api_leaveChat(self, params: JSONDict, files: list[UploadedFile]) -> bool:
        chat = self._known_chat(params.get("chat_id"))
        self.set_member_status(chat.id, BOT_ID, "left")
        return True
