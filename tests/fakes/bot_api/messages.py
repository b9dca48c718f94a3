"""The bot's writes: sending, editing and deleting messages, and pinning them."""

from __future__ import annotations

from typing import Any, Literal

from tests.fakes.bot_api.chats import Access, Chats
from tests.fakes.bot_api.common import BOT_ID, NOT_MODIFIED, JSONDict, bad, utf16_len
from tests.fakes.bot_api.html import render
from tests.fakes.bot_api.markup import parse_markup
from tests.fakes.bot_api.records import FakeChat, StoredMessage, UploadedFile
from tests.fakes.bot_api.store import Store


def _silent(params: JSONDict) -> bool:
    """Sent with ``disable_notification``: it arrives without a sound."""
    return params.get("disable_notification") in (True, "true", "True", 1)


def new_text(msg: StoredMessage, params: JSONDict) -> tuple[str, str, Any, Any]:
    """An edit's new text as Telegram checks it (a text message; not empty; within 4,096
    characters once rendered) and its inline keys: source, visible text, entities, markup."""
    if msg.kind != "text":
        raise bad("there is no text in the message to edit")
    source = params.get("text")
    if not isinstance(source, str):
        raise bad("message text is empty")
    visible, entities = render(source, params.get("parse_mode"), params.get("entities"))
    if not visible:
        raise bad("message text is empty")
    if utf16_len(visible) > 4096:
        raise bad("message is too long")
    return source, visible, entities, parse_markup(params.get("reply_markup"), inline_only=True)


class Messages(Chats, Store):
    """sendMessage, sendPhoto, sendDocument, the edits, the deletions, pins and chat actions."""

    # -- what an edit or a reply is about ---------------------------------------------------------------

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
            raise bad("message to be replied not found")
        return target

    def _edit_target(self, params: JSONDict) -> tuple[StoredMessage, bool]:
        """The message an edit is for, and whether it was named by ``inline_message_id``.

        An inline message can be edited wherever it is, in chats the bot is not in too, until a
        person deletes it (then MESSAGE_ID_INVALID, as for an id that never existed).
        """
        if "inline_message_id" in params:
            inline = self._inline_messages.get(str(params["inline_message_id"]))
            if inline is None or inline.deleted:
                raise bad("MESSAGE_ID_INVALID")
            return inline, True
        chat = self._access(params.get("chat_id"), Access.EDIT)
        msg = self._messages.get(chat.id, {}).get(int(params.get("message_id", 0)))
        if msg is None or msg.deleted:
            raise bad("message to edit not found")
        if not msg.from_bot:
            raise bad("message can't be edited")
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
            raise bad(NOT_MODIFIED.removeprefix("Bad Request: "))
        # An inline message's edits count where it is: a group's budget, or a private chat's
        # (one write a second), between two people too.
        self._admit(msg.chat_id, self._chats[msg.chat_id].type == "private", method)
        now = self._now()
        msg.history.append(msg.revision(method, now))
        if msg.kind == "text":
            msg.text = visible
        else:
            msg.caption = visible
        msg.source, msg.entities, msg.parse_mode, msg.reply_markup = source, entities, parse_mode, markup
        msg.edit_date = now

    # -- API methods (named after Telegram's; looked up by do_request) ------------------------------

    def _api_sendMessage(self, params: JSONDict, files: list[UploadedFile]) -> JSONDict:
        chat = self._access(params.get("chat_id"), Access.WRITE)
        thread_id = self._thread(chat, params)
        source = params.get("text")
        if not isinstance(source, str):
            raise bad("message text is empty")
        visible, entities = render(source, params.get("parse_mode"), params.get("entities"))
        if not visible:
            raise bad("message text is empty")
        if utf16_len(visible) > 4096:
            raise bad("message is too long")
        markup = parse_markup(params.get("reply_markup"))
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
            notified=not _silent(params),
        )
        return self._message_json(msg)

    def _send_media(
        self, kind: Literal["photo", "document"], params: JSONDict, files: list[UploadedFile]
    ) -> JSONDict:
        chat = self._access(params.get("chat_id"), Access.WRITE)
        thread_id = self._thread(chat, params)
        reference = params.get(kind)
        attach = reference.removeprefix("attach://") if isinstance(reference, str) else None
        upload = next((f for f in files if f.field in (kind, attach)), None)
        if upload is None and not reference:
            raise bad(f"there is no {kind} in the request")
        source = params.get("caption")
        visible: str | None = None
        entities: list[JSONDict] = []
        if isinstance(source, str):
            visible, entities = render(source, params.get("parse_mode"), params.get("caption_entities"))
            if utf16_len(visible) > 1024:
                raise bad("message caption is too long")
        markup = parse_markup(params.get("reply_markup"))
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
            notified=not _silent(params),
        )
        return self._message_json(msg)

    def _api_sendPhoto(self, params: JSONDict, files: list[UploadedFile]) -> JSONDict:
        return self._send_media("photo", params, files)

    def _api_sendDocument(self, params: JSONDict, files: list[UploadedFile]) -> JSONDict:
        return self._send_media("document", params, files)

    def _api_editMessageText(self, params: JSONDict, files: list[UploadedFile]) -> JSONDict | bool:
        msg, inline = self._edit_target(params)
        source, visible, entities, markup = new_text(msg, params)
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
            raise bad("there is no caption in the message to edit")
        source = params.get("caption")
        visible: str | None = None
        entities: list[JSONDict] = []
        if isinstance(source, str):
            visible, entities = render(source, params.get("parse_mode"), params.get("caption_entities"))
            if utf16_len(visible) > 1024:
                raise bad("message caption is too long")
        markup = parse_markup(params.get("reply_markup"), inline_only=True)
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
        markup = parse_markup(params.get("reply_markup"), inline_only=True)
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
        chat = self._access(params.get("chat_id"), Access.WRITE)
        msg = self._messages.get(chat.id, {}).get(int(params.get("message_id", 0)))
        if msg is None or msg.deleted:
            raise bad("message to delete not found")
        if (
            not msg.from_bot
            and chat.type != "private"
            and self.member_status(chat.id, BOT_ID) not in ("administrator", "creator")
        ):
            raise bad("message can't be deleted")
        self._admit(chat.id, chat.type == "private", "deleteMessage")
        msg.history.append(msg.revision("deleteMessage", self._now()))
        msg.deleted = True
        return True

    def _api_deleteMessages(self, params: JSONDict, files: list[UploadedFile]) -> bool:
        chat = self._access(params.get("chat_id"), Access.WRITE)
        for message_id in params.get("message_ids", []):
            msg = self._messages.get(chat.id, {}).get(int(message_id))
            if msg is not None and not msg.deleted:
                msg.history.append(msg.revision("deleteMessages", self._now()))
                msg.deleted = True
        return True

    def _api_sendChatAction(self, params: JSONDict, files: list[UploadedFile]) -> bool:
        chat = self._access(params.get("chat_id"), Access.WRITE)
        self._thread(chat, params)
        return True

    def _api_pinChatMessage(self, params: JSONDict, files: list[UploadedFile]) -> bool:
        chat = self._access(params.get("chat_id"), Access.WRITE)
        message_id = int(params.get("message_id", 0))
        if message_id not in self._messages.get(chat.id, {}):
            raise bad("message to pin not found")
        self.pinned.setdefault(chat.id, []).append(message_id)
        return True

    def _api_unpinChatMessage(self, params: JSONDict, files: list[UploadedFile]) -> bool:
        chat = self._access(params.get("chat_id"), Access.WRITE)
        pins = self.pinned.get(chat.id, [])
        message_id = params.get("message_id")
        if message_id is None:
            if pins:
                pins.pop()
        elif int(message_id) in pins:
            pins.remove(int(message_id))
        return True

    def _api_unpinAllChatMessages(self, params: JSONDict, files: list[UploadedFile]) -> bool:
        self.pinned.pop(self._access(params.get("chat_id"), Access.WRITE).id, None)
        return True
