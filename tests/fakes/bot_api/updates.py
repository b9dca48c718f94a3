"""What people do, as the updates Telegram sends the bot: messages, taps, membership changes."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any, cast
from urllib.parse import parse_qs, urlsplit

from telegram import Update

from tests.fakes.bot_api.chats import Chats
from tests.fakes.bot_api.common import (
    BOT_ID,
    QUERY_INVALID,
    START_PARAMETER,
    ChatMemberStatus,
    JSONDict,
    bad,
    too_late,
    utf16_len,
)
from tests.fakes.bot_api.records import (
    CallbackAnswer,
    FakeChat,
    FakeUser,
    StoredMessage,
    UploadedFile,
    chat_member_json,
)
from tests.fakes.bot_api.store import Store


class Updates(Chats, Store):
    """Builders of the updates a test feeds the bot, and the bot's answers to callback queries."""

    # -- messages and taps ---------------------------------------------------------------------------

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
        """``user`` writes ``text`` in ``chat``, a chat the bot is in (elsewhere: ``say``)."""
        return self._incoming(chat, user, text, [], thread_id)

    def command_update(
        self, chat: FakeChat, user: FakeUser, text: str, *, thread_id: int | None = None
    ) -> JSONDict:
        """A message starting with a bot_command entity, e.g. "/newgame@tweak_test_bot 3"."""
        if not text.startswith("/"):
            raise ValueError(f"a command starts with '/': {text!r}")
        command = text.split(maxsplit=1)[0]
        entity = {"type": "bot_command", "offset": 0, "length": utf16_len(command)}
        return self._incoming(chat, user, text, [entity], thread_id)

    def callback_update(self, user: FakeUser, message: StoredMessage, data: str | None) -> JSONDict:
        """A button tap on ``message`` as it is now; the query id is fresh and answerable once.

        It is answerable for ``answer_timeout`` seconds from now on the fake's timer. A tap on a
        message sent via the bot (inline mode) carries ``inline_message_id`` instead of ``message``
        (wherever the message is, in chats the bot is not in too). ``chat_instance`` is the same
        for every message of one chat and differs between chats. Only the bot's own messages and
        inline messages send callback queries (a forwarded copy loses its callback keys).
        """
        if not message.from_bot and message.inline_message_id is None:
            raise AssertionError(
                f"message {message.message_id} in chat {message.chat_id} is neither the bot's nor an "
                "inline message: Telegram sends the bot no callback query from it"
            )
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
            "chat_instance": self.chat_instance(message.chat_id),
        }
        if message.inline_message_id is not None:
            query["inline_message_id"] = message.inline_message_id
        else:
            query["message"] = self._message_json(message)
        if data is not None:
            query["data"] = data
        return {"update_id": next(self._update_ids), "callback_query": query}

    # -- membership and service messages -------------------------------------------------------------

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

    def _service(self, chat: FakeChat, by: FakeUser | None, extra: JSONDict) -> JSONDict:
        sender = by.to_dict() if by else {}
        msg = self._store(chat, from_bot=False, sender=sender, kind="service", extra=extra)
        return {"update_id": next(self._update_ids), "message": self._message_json(msg)}

    def _incoming(
        self, chat: FakeChat, user: FakeUser, text: str, entities: list[JSONDict], thread_id: int | None
    ) -> JSONDict:
        self._users.setdefault(user.id, user)
        chat = self._where(user, chat)
        if not self.bot_in(chat):
            raise AssertionError(
                f"the bot is not in chat {chat.id}: Telegram sends it nothing of what "
                f"{user.first_name} writes there (say() puts a message in the chat's transcript)"
            )
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
            notified=True,
        )
        return {"update_id": next(self._update_ids), "message": self._message_json(msg)}

    # -- callback answers ----------------------------------------------------------------------------

    def answer_for(self, query_id: str) -> CallbackAnswer:
        return self.answers[query_id]

    def _api_answerCallbackQuery(self, params: JSONDict, files: list[UploadedFile]) -> bool:
        record = self.answers.get(str(params.get("callback_query_id")))
        if record is None or record.answered:
            raise bad(QUERY_INVALID.removeprefix("Bad Request: "))
        now = self.timer.monotonic()
        if too_late(record.created_at, self.answer_timeout, now):
            record.expired = True
            raise bad(QUERY_INVALID.removeprefix("Bad Request: "))
        text = params.get("text")
        if isinstance(text, str) and len(text) > 200:
            raise bad("MESSAGE_TOO_LONG")
        url = params.get("url")
        if url is not None:
            self._check_answer_url(url)
        record.answered = True
        record.answered_at = now
        record.text = text
        record.show_alert = bool(params.get("show_alert", False))
        record.url = url
        record.cache_time = params.get("cache_time")
        return True

    def _check_answer_url(self, url: object) -> None:
        """answerCallbackQuery's ``url``: a game's URL "will only work if the query comes from a
        callback_game button. Otherwise, you may use links like t.me/your_bot?start=XXXX that open
        your bot with a parameter" (Bot API). The fake has no games, so only such a link to this
        bot passes; a web page, another bot, a link without ``start`` or a ``tg://`` link is 400
        URL_INVALID, as Telegram answers (telegraf#388, Telegram.Bot#329, Telethon#1452,
        teloxide#880). What the tapper's app does with it: ``TelegramTestClient.follow``."""
        if not isinstance(url, str):
            raise bad("URL_INVALID")
        parts = urlsplit(url)
        start = parse_qs(parts.query, keep_blank_values=True).get("start", [""])
        to_bot = parts.path.strip("/").lower() == str(self.bot_user.username).lower()
        if not (
            parts.scheme in ("http", "https")
            and parts.netloc in ("t.me", "telegram.me")
            and to_bot
            and len(start) == 1
            and START_PARAMETER.fullmatch(start[0])
        ):
            raise bad("URL_INVALID")
