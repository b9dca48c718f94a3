"""The messages of every chat: storing them, and reading them as the bot or a person sees them."""

from __future__ import annotations

import copy
from typing import Any, Literal

from tests.fakes.bot_api.common import JSONDict
from tests.fakes.bot_api.records import FakeChat, StoredMessage, UploadedFile
from tests.fakes.bot_api.state import FakeState


class Store(FakeState):
    """Where messages live (``_messages``: chat id, then message id, in the order they came)."""

    # -- inspection --------------------------------------------------------------------------------

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

    def inline_message(self, inline_message_id: str) -> StoredMessage:
        try:
            return self._inline_messages[inline_message_id]
        except KeyError:
            raise AssertionError(f"no inline message {inline_message_id!r}") from None

    # -- a chat as people read it ------------------------------------------------------------------

    def transcript(self, chat: FakeChat | int) -> list[StoredMessage]:
        """Every message a person in the chat sees now, oldest first: the bot's, the people's,
        those sent via the bot and forwarded ones, each with its current text (``history`` has
        what it said before each edit). Deleted messages are gone, as in the app.

        Works for every chat, those the bot is not in too (``private_between``,
        ``group(with_bot=False)``), so a test can re-add what a player reads.
        """
        chat_id = chat if isinstance(chat, int) else chat.id
        return [m for m in self._messages.get(chat_id, {}).values() if not m.deleted]

    def read_chat(self, chat: FakeChat | int) -> list[str]:
        """The transcript as lines of text ("Ana via @tweak_test_bot: I play 7♥")."""
        return [m.reads_as for m in self.transcript(chat)]

    def notifications(self, chat: FakeChat | int) -> list[StoredMessage]:
        """The messages whose arrival notified the chat, deleted ones included; an edit never does."""
        chat_id = chat if isinstance(chat, int) else chat.id
        return [m for m in self._messages.get(chat_id, {}).values() if m.notified]

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
        notified: bool = False,
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
            notified=notified,
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
