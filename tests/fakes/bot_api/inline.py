"""Inline mode: inline queries, the bot's answers, and a person posting a result via the bot."""

from __future__ import annotations

import base64
import copy
import json
from collections.abc import Mapping
from typing import Any

from tests.fakes.bot_api.chats import Chats
from tests.fakes.bot_api.common import (
    BOT_ID,
    QUERY_INVALID,
    ApiError,
    InlineChatType,
    JSONDict,
    bad,
    too_late,
    utf16_len,
)
from tests.fakes.bot_api.html import render
from tests.fakes.bot_api.markup import parse_markup
from tests.fakes.bot_api.records import FakeChat, FakeUser, InlineAnswer, UploadedFile
from tests.fakes.bot_api.store import Store

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


class Inline(Chats, Store):
    """Inline queries and their answers; picked results become inline messages."""

    def inline_answer(self, query_id: str) -> InlineAnswer:
        """The record of an inline query (and the bot's answer, if any) by its id."""
        try:
            return self.inline_answers[query_id]
        except KeyError:
            raise AssertionError(f"no inline query {query_id!r} was handed out") from None

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
        visible, entities = render(
            content["message_text"], content.get("parse_mode"), content.get("entities")
        )
        markup = parse_markup(result.get("reply_markup"), inline_only=True)
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

    # -- answerInlineQuery ---------------------------------------------------------------------------

    def _api_answerInlineQuery(self, params: JSONDict, files: list[UploadedFile]) -> bool:
        raw = params.get("results")
        if isinstance(raw, str):
            try:
                raw = json.loads(raw)
            except ValueError as exc:
                raise bad(f"can't parse JSON encoded inline query results: {exc}") from None
        if raw is None:
            raw = []
        if not isinstance(raw, list):
            raise bad("expected an Array of inline query results")
        # The Bot API server parses every result before Telegram sees the query id.
        results = [self._inline_result(item) for item in raw]
        record = self.inline_answers.get(str(params.get("inline_query_id")))
        if record is None or record.answered:
            raise bad(QUERY_INVALID.removeprefix("Bad Request: "))
        now = self.timer.monotonic()
        if too_late(record.created_at, self.inline_answer_timeout, now):
            record.expired = True
            raise bad(QUERY_INVALID.removeprefix("Bad Request: "))
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
                visible, _ = render(
                    content["message_text"], content.get("parse_mode"), content.get("entities")
                )
                if not visible:
                    raise bad("MESSAGE_EMPTY")
                if utf16_len(visible) > 4096:
                    raise bad("MESSAGE_TOO_LONG")
        next_offset = params.get("next_offset")
        if next_offset is not None and len(str(next_offset).encode("utf-8")) > 64:
            raise bad("NEXT_OFFSET_INVALID")
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
