"""Inline mode: inline queries, the bot's answers, and people posting results via the bot.

What Telegram does (the Bot API documentation, core.telegram.org/bots/api, unless said):

* An inline query can be typed in any chat: the person's chat with the bot (``chat_type``
  "sender"), a private chat between two people ("private"), a group or supergroup, with the bot
  in it or not. The query tells the chat's type, never its id.
* A picked result is the person's own message, "via @bot", in that chat, and costs the bot no
  budget. The bot gets it as a ``message`` only in chats it is in (privacy mode lets messages via
  the bot through); with inline feedback on (BotFather's /setinlinefeedback) it also gets a
  ``chosen_inline_result``, whose ``inline_message_id`` is "available only if there is an inline
  keyboard attached to the message".
* A result with an inline keyboard becomes an *inline message*. Taps on its keys carry
  ``inline_message_id`` and ``chat_instance`` ("global identifier, uniquely corresponding to the
  chat to which the message with the callback button was sent") and no ``message``. Edits by
  ``inline_message_id`` return True, not the Message ("if the edited message is not an inline
  message, the edited Message is returned, otherwise True"); without ``reply_markup`` they take
  the keys off, with it they set them. That is all the bot can do there: it cannot read the chat,
  send to it, or learn its id.
* Edits of inline messages count against the chat they are in: "editing of the message in
  question is still subject to per chat limits" (levlam, tdlib/telegram-bot-api#648), and edits
  share the send limits, "about 20 times per minute in a specific chat" (levlam, tdlib/td#2592).
  No limit of its own per inline message is documented, so each edit is counted on its chat: a
  group's 20 writes a minute, a private chat's one write a second (between two people too, which
  also holds one inline message there to about one edit a second), with 429 and ``retry_after``
  beyond. An edit never notifies; once a person deletes the message, edits answer
  MESSAGE_ID_INVALID.
* answerInlineQuery's ``button`` (InlineQueryResultsButton) is ``text`` with a ``start_parameter``
  or a ``web_app``; pressing a start button opens the person's private chat with the bot and sends
  "/start <start_parameter>" (``results_button_updates``).
"""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping
from typing import Any

from tests.fakes.bot_api.common import (
    QUERY_INVALID,
    InlineChatType,
    JSONDict,
    bad,
    too_late,
)
from tests.fakes.bot_api.html import render
from tests.fakes.bot_api.inline_results import (
    check_results,
    check_start_parameter,
    parse_result,
    parse_results_button,
)
from tests.fakes.bot_api.markup import parse_markup
from tests.fakes.bot_api.people import People
from tests.fakes.bot_api.records import FakeChat, FakeUser, InlineAnswer, UploadedFile


class Inline(People):
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

        ``chat`` (optional) is where they type it, any chat (the bot need not be in it); it fixes
        ``chat_type`` and is checked again when they pick a result. Without it, ``chat_type``
        defaults to "supergroup".
        """
        if not self.inline_mode:
            raise ValueError(
                "Telegram only sends inline queries to bots with inline mode on: "
                "FakeTelegram(inline_mode=True)"
            )
        if len(query) > 256:
            raise ValueError("an inline query is at most 256 characters")
        where = self._where(user, chat) if chat is not None else None
        derived = self.inline_chat_type(user, where) if where is not None else None
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
            where.id if where is not None else None,
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
        the user's own message with ``via_bot`` = the bot, in the chat's transcript wherever it is.
        Returns the updates Telegram sends: the ``message`` in chats the bot is in and, with
        ``inline_feedback``, a ``chosen_inline_result`` (with ``inline_message_id`` only if the
        result has a keyboard). ``query`` is the ``inline_query`` update, its id, or its
        ``InlineAnswer``; ``chat`` may name a private chat with someone else by their user id.
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
        chat = self._where(user, chat)
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
        if chat.type == "private" and chat.between is None:
            # Using the bot in its own chat opens that chat (and unblocks a bot the user blocked).
            self._dm_open.add(chat.id)
            self._blocked.discard(chat.id)
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
            thread_id=self._thread(chat, {"message_thread_id": thread_id}) if thread_id else None,
            extra={"via_bot": self.bot_user.to_dict()},
            notified=True,
        )
        if markup is not None:
            raw_id = f"fake:{chat.id}:{msg.message_id}".encode()
            msg.inline_message_id = base64.urlsafe_b64encode(raw_id).decode().rstrip("=")
            self._inline_messages[msg.inline_message_id] = msg
        record.picked.append(result_id)
        updates: list[JSONDict] = []
        if self.bot_in(chat):
            updates.append({"update_id": next(self._update_ids), "message": self._message_json(msg)})
        if self.inline_feedback:
            chosen: JSONDict = {"result_id": result_id, "from": user.to_dict(), "query": record.query}
            if msg.inline_message_id is not None:
                chosen["inline_message_id"] = msg.inline_message_id
            updates.append({"update_id": next(self._update_ids), "chosen_inline_result": chosen})
        return updates

    def results_button_updates(
        self, user: FakeUser, query: Mapping[str, Any] | InlineAnswer | str
    ) -> list[JSONDict]:
        """``user`` presses the button the bot showed above its results: a start button opens
        their private chat with the bot and sends ``/start <start_parameter>``."""
        record = self._inline_record(query)
        if record.user_id != user.id:
            raise AssertionError(
                f"only user {record.user_id} sees the answer to inline query {record.query!r}"
            )
        button = record.button
        if button is None:
            raise AssertionError(f"the bot showed no button above its answer to {record.query!r}")
        if "start_parameter" not in button:
            raise AssertionError(
                f"button {button['text']!r} opens a Web App, which FakeTelegram does not run"
            )
        return self.start_updates(user, str(button["start_parameter"]))

    def _inline_record(self, query: Mapping[str, Any] | InlineAnswer | str) -> InlineAnswer:
        if isinstance(query, InlineAnswer):
            return query
        if isinstance(query, str):
            return self.inline_answer(query)
        inline = query.get("inline_query")
        if not isinstance(inline, Mapping):
            raise TypeError("expected an inline_query update, its id, or an InlineAnswer")
        return self.inline_answer(str(inline["id"]))

    # -- answerInlineQuery -------------------------------------------------------------------------

    def _api_answerInlineQuery(self, params: JSONDict, files: list[UploadedFile]) -> bool:
        button = parse_results_button(params.get("button"))
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
        results = [parse_result(item) for item in raw]
        check_start_parameter(button)
        record = self.inline_answers.get(str(params.get("inline_query_id")))
        if record is None or record.answered:
            raise bad(QUERY_INVALID.removeprefix("Bad Request: "))
        now = self.timer.monotonic()
        if too_late(record.created_at, self.inline_answer_timeout, now):
            record.expired = True
            raise bad(QUERY_INVALID.removeprefix("Bad Request: "))
        next_offset = params.get("next_offset")
        check_results(results, next_offset)
        record.answered = True
        record.answered_at = now
        record.results = results
        record.cache_time = params.get("cache_time")
        record.is_personal = bool(params.get("is_personal", False))
        record.next_offset = None if next_offset is None else str(next_offset)
        record.button = button
        return True
