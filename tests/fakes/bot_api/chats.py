"""Chats and people: who exists, who is in which chat, and what the bot may do there.

The bot is *in* its private chat with a person, and in a group while its member status there is
not "left" or "kicked". It is never in a private chat between two people (``private_between``), nor
in a group built with ``group(with_bot=False)``; people can still post there via the bot (inline
mode), and Telegram stores those messages in that chat, but the bot gets no update for them and
cannot send, edit by chat id, delete or read there.

What a method may do is the Bot API server's rule (telegram-bot-api ``Client::check_chat_access``,
each method with its ``AccessRights``): a chat id the bot never saw is 400 "chat not found" (a basic
group it was never in, a chat between two people, any unknown id); in a basic group the bot left
or was kicked from, only reading the chat (getChat) still works, everything else is 403 "bot is
not a member of the group chat" / "bot was kicked from the group chat"; a supergroup answers 403
"bot was kicked from the supergroup chat" to a banned bot whatever it asks, and "bot is not a
member of the supergroup chat" to a bot that is not in it, whether it left or never joined, except
that a public one (with a username) can still be read. That a supergroup the bot never joined
answers "not a member" while a basic group answers "chat not found" is what bot authors report
(TelegramBots/Telegram.Bot#648); the server's code shows the rule for chats it knows.
"""

from __future__ import annotations

import enum
import hashlib
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

#: The fake's keys for private chats between two people: far above any user id the tests use.
BETWEEN_CHAT_IDS = 7_000_000_000_000_000


class Access(enum.Enum):
    """What a Bot API method needs of a chat (telegram-bot-api's ``AccessRights``)."""

    #: getChat, leaveChat, getChatMember about the bot itself.
    READ = "read"
    #: getChatMember about someone else, getChatAdministrators.
    READ_MEMBERS = "read members"
    #: editMessageText/Caption/ReplyMarkup by chat_id and message_id.
    EDIT = "edit"
    #: sendMessage, sendPhoto, sendDocument, deleteMessage(s), sendChatAction, pins.
    WRITE = "write"


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

    def private_between(self, one: FakeUser, other: FakeUser) -> FakeChat:
        """The private chat of two people (the same chat whichever of them is named first).

        The bot is never in it and cannot learn its id: it only sees what they post there via
        the bot (inline mode), through inline message ids and ``chat_instance``.
        """
        if one.id == other.id:
            raise ValueError("a private chat between people needs two of them")
        pair = frozenset((one.id, other.id))
        chat = self._between.get(pair)
        if chat is None:
            chat = FakeChat(
                BETWEEN_CHAT_IDS + len(self._between) + 1,
                "private",
                between=(min(pair), max(pair)),
            )
            self._between[pair] = self.register_chat(chat)
        for person in (one, other):
            self._users.setdefault(person.id, person)
        return chat

    def group(
        self,
        title: str = "Test group",
        *,
        chat_id: int | None = None,
        kind: Literal["supergroup", "group"] = "supergroup",
        username: str | None = None,
        with_bot: bool = True,
    ) -> FakeChat:
        """A group with the bot in it; ``with_bot=False``: one the bot was never added to (until a
        ``my_chat_member_update`` adds it), where people can still use the bot's inline mode."""
        if chat_id is None:
            serial = next(self._chat_ids)
            chat_id = -1_001_000_000_000 - serial if kind == "supergroup" else -400_000_000 - serial
        if chat_id >= 0:
            raise ValueError("group chat ids are negative")
        chat = self.register_chat(FakeChat(chat_id, kind, title=title, username=username))
        if not with_bot:
            self.set_member_status(chat.id, BOT_ID, "left")
            self._unseen.add(chat.id)
        return chat

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
        """Make a chat exist (membership is ``set_member_status``'s business)."""
        self._chats[chat.id] = chat
        self._messages.setdefault(chat.id, {})
        return chat

    def chat(self, chat_id: int) -> FakeChat:
        return self._chats[chat_id]

    def _where(self, user: FakeUser, chat: FakeChat) -> FakeChat:
        """The chat ``user`` acts in. A private chat that is not theirs with the bot is their chat
        with that person, named as their app names it (the other's user id)."""
        if chat.type != "private" or chat.between is not None or chat.id == user.id:
            return self._chats.get(chat.id) or self.register_chat(chat)
        other = self._users.get(chat.id) or FakeUser(chat.id, chat.first_name or f"User {chat.id}")
        return self.private_between(user, other)

    @staticmethod
    def chat_instance(chat_id: int) -> str:
        """CallbackQuery.chat_instance: one value per chat, whatever message of it is tapped."""
        digest = hashlib.sha256(f"chat_instance:{chat_id}".encode()).digest()
        return str(int.from_bytes(digest[:8], "big", signed=True))

    # -- membership --------------------------------------------------------------------------------

    def block_user(self, user_id: int) -> None:
        self._blocked.add(user_id)

    def unblock_user(self, user_id: int) -> None:
        self._blocked.discard(user_id)

    def mark_admin(
        self, chat_id: int, user_id: int, status: Literal["administrator", "creator"] = "administrator"
    ) -> None:
        self.set_member_status(chat_id, user_id, status)

    def set_member_status(self, chat_id: int, user_id: int, status: ChatMemberStatus) -> None:
        """Set what getChatMember says; ``user_id=BOT_ID`` is the bot's place in the chat."""
        chat_member_json({}, status)  # validates the status
        self._members.setdefault(chat_id, {})[user_id] = status
        if user_id == BOT_ID:
            self._unseen.discard(chat_id)

    def member_status(self, chat_id: int, user_id: int) -> str:
        return self._members.get(chat_id, {}).get(user_id, "member")

    def bot_in(self, chat: FakeChat | int) -> bool:
        """Whether the bot is in the chat: Telegram sends it that chat's messages."""
        found = self._chats.get(chat if isinstance(chat, int) else chat.id)
        if found is None or found.between is not None:
            return False
        if found.type == "private":
            return True
        return self.member_status(found.id, BOT_ID) not in ("left", "kicked")

    def _migrate(self, old_chat_id: int, new_chat_id: int) -> FakeChat:
        old = self._chats.get(old_chat_id) or self.group(chat_id=old_chat_id, kind="group")
        if new_chat_id not in self._chats:
            self.register_chat(FakeChat(new_chat_id, "supergroup", title=old.title, username=old.username))
            self._members[new_chat_id] = dict(self._members.get(old_chat_id, {}))
        self._migrated[old_chat_id] = new_chat_id
        return old

    # -- who may do what where ---------------------------------------------------------------------

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

    def _access(self, raw: Any, need: Access) -> FakeChat:
        """The chat ``raw`` names, if a method needing ``need`` may use it; else Telegram's error."""
        chat_id = self._resolve_chat_id(raw)
        if chat_id in self._migrated:
            raise ApiError(
                400,
                "Bad Request: group chat was upgraded to a supergroup chat",
                {"migrate_to_chat_id": self._migrated[chat_id]},
            )
        chat = self._chats.get(chat_id)
        if chat is None or chat.between is not None or (chat.type == "group" and chat.id in self._unseen):
            if chat_id in self._blocked:
                raise ApiError(403, BLOCKED)
            if 0 < chat_id < BETWEEN_CHAT_IDS and chat_id in self._users:
                raise ApiError(403, CANT_INITIATE)
            raise bad("chat not found")
        if chat.type == "private":
            if need in (Access.EDIT, Access.WRITE):
                if chat.id in self._blocked:
                    raise ApiError(403, BLOCKED)
                if chat.id not in self._dm_open:
                    raise ApiError(403, CANT_INITIATE)
            return chat
        status = self.member_status(chat.id, BOT_ID)
        where = f"{chat.type} chat"
        if chat.type == "group":
            refused = need is not Access.READ
        elif status == "kicked":
            refused = True
        else:
            public = chat.username is not None
            refused = need in (Access.EDIT, Access.WRITE) or not public
        if refused and status == "kicked":
            raise ApiError(403, f"Forbidden: bot was kicked from the {where}")
        if refused and status == "left":
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
        chat = self._access(params.get("chat_id"), Access.READ)
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
        user_id = int(params.get("user_id", 0))
        need = Access.READ if user_id == BOT_ID else Access.READ_MEMBERS
        chat = self._access(params.get("chat_id"), need)
        return chat_member_json(self._user_json(user_id), self.member_status(chat.id, user_id))

    def _api_getChatAdministrators(self, params: JSONDict, files: list[UploadedFile]) -> list[JSONDict]:
        chat = self._access(params.get("chat_id"), Access.READ_MEMBERS)
        if chat.type == "private":
            raise bad("there are no administrators in the private chat")
        return [
            chat_member_json(self._user_json(user_id), status)
            for user_id, status in self._members.get(chat.id, {}).items()
            if status in ("creator", "administrator")
        ]

    def _api_leaveChat(self, params: JSONDict, files: list[UploadedFile]) -> bool:
        chat = self._access(params.get("chat_id"), Access.READ)
        self.set_member_status(chat.id, BOT_ID, "left")
        return True
