"""The test client: a real Application driven by what people do in Telegram."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from typing import Any

from tests.fakes.bot_api.common import InlineChatType, JSONDict
from tests.fakes.bot_api.driver import AppDriver
from tests.fakes.bot_api.records import (
    ApiCall,
    CallbackAnswer,
    FakeChat,
    FakeUser,
    InlineAnswer,
    StoredMessage,
)


class TelegramTestClient(AppDriver):
    """Drives a real Application with updates from the fake; see ``AppDriver`` for the options.

    Each action is what a person does in their Telegram app, processed to the end: writing,
    tapping a key, typing an inline query, picking a result, opening a link to the bot,
    forwarding a message.
    """

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
            hint = ""
            if "switch_inline_query_current_chat" in found:
                hint = " (an inline-mode button: use tap_switch_inline)"
            elif "url" in found:
                hint = " (a link: use tap_url)"
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
        updates = self.fake.pick_inline_result(user, chat, answer, result_id, thread_id=thread_id)
        return await self._process_all(updates)

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

    async def tap_results_button(
        self, user: FakeUser, answer: InlineAnswer | Mapping[str, Any] | str
    ) -> list[ApiCall]:
        """``user`` presses the button above the bot's inline results (``button`` of
        answerInlineQuery): their private chat with the bot opens with ``/start <parameter>``."""
        return await self._process_all(self.fake.results_button_updates(user, answer))

    async def open_link(self, user: FakeUser, url: str) -> list[ApiCall]:
        """``user`` opens a link to the bot, ``https://t.me/<bot>?start=<payload>``: Telegram opens
        their private chat with it and sends ``/start <payload>``."""
        return await self._process_all(self.fake.link_updates(user, url))

    async def follow(self, user: FakeUser, answer: CallbackAnswer) -> list[ApiCall]:
        """What ``user``'s app does with a tap's answer that carries a ``url``: it opens the link
        (a link to the bot: their private chat with it, ``/start <payload>``). Only when the
        answer has no text: an app shows the text, as a toast or an alert, and then ignores the
        link (Telegram Desktop, ``Api::SendBotCallbackData``: ``if (!message.isEmpty()) …
        else if (!link.isEmpty())``)."""
        if answer.user_id != user.id:
            raise AssertionError(f"that answer went to user {answer.user_id}, not {user.id}")
        if not answer.url:
            raise AssertionError(f"the bot answered {answer.text!r} with no link to open")
        if answer.text:
            raise AssertionError(
                f"the app shows {answer.text!r} and does not open {answer.url!r}: "
                "an answer with a text never opens its link"
            )
        return await self.open_link(user, answer.url)

    async def tap_url(
        self,
        user: FakeUser,
        message: StoredMessage,
        button: str | re.Pattern[str] | Callable[[str, str | None], bool],
    ) -> list[ApiCall]:
        """Tap a URL key that is on ``message``'s keyboard now; it must be a link to the bot."""
        found, where = self._find_button(message, button)
        if "url" not in found:
            raise AssertionError(f"button {found['text']!r} on {where} is not a link: {found}")
        return await self.open_link(user, str(found["url"]))

    async def forward(self, user: FakeUser, message: StoredMessage, to_chat: FakeChat) -> StoredMessage:
        """``user`` forwards ``message`` into ``to_chat``; returns the copy there (what it keeps is
        ``FakeTelegram.forward_message``'s business)."""
        forwarded, updates = self.fake.forward_message(user, message, to_chat)
        await self._process_all(updates)
        return forwarded

    async def _process_all(self, updates: list[JSONDict]) -> list[ApiCall]:
        calls: list[ApiCall] = []
        for update in updates:
            calls += await self.process(update)
        return calls
