"""A tap's answer in the webhook request's own response (tgbot/delivery/webhook_replies.py).

Over real HTTP on 127.0.0.1, with the fake standing in for Telegram: the response's body is
handed to `FakeTelegram.webhook_reply`, which makes the call it names, as Telegram does.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.fakes import FakeTelegram
from tgbot.delivery import webhook_replies
from tgbot.delivery.webhook_replies import WebhookReplies
from tgbot.web import SECRET_HEADER

from .conftest import Served, served
from .test_web import SECRET, webhook_settings


@pytest.fixture
def db_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'bot.sqlite3'}"


async def _post(bot: Served, update: dict[str, Any]) -> httpx.Response:
    return await bot.http.post(
        bot.url("/telegram/hook"),
        content=json.dumps(update),
        headers={"Content-Type": "application/json", SECRET_HEADER: SECRET},
    )


async def test_a_taps_answer_goes_back_in_the_webhook_response(db_url: str) -> None:
    fake = FakeTelegram()
    ana, bo = fake.user(1, "Ana"), fake.user(2, "Bo")
    group = fake.group("Friends")
    async with served(db_url, webhook=True, fake=fake, **webhook_settings()) as bot:
        await bot.until(lambda: fake.webhook is not None)
        assert fake.webhook is not None and fake.webhook["max_connections"] == 100
        made = await _post(bot, fake.command_update(group, ana, "/newgame@tweak_test_bot"))
        assert made.status_code == 200 and made.content == b""  # not a tap: nothing to carry
        await bot.until(lambda: bool(fake.messages(group.id)))
        lobby = fake.last_message(group.id)
        join = fake.callback_update(bo, lobby, lobby.keyboard[0][0]["callback_data"])
        forged = fake.callback_update(bo, lobby, "k:999:1:zz")
        for tap in (join, forged):
            response = await _post(bot, tap)
            query_id = tap["callback_query"]["id"]
            assert response.status_code == 200
            body = response.json()
            assert body["method"] == "answerCallbackQuery" and body["callback_query_id"] == query_id
            assert not fake.answers[query_id].answered  # Telegram has not read the response yet
            call = await fake.webhook_reply(
                response.status_code, response.headers["content-type"], response.content
            )
            assert call is not None and call.ok and call.via_webhook
            assert fake.answers[query_id].answered
        assert fake.answers[forged["callback_query"]["id"]].show_alert  # the forged key: an alert
        # Neither answer was a call of the bot's own.
        assert [c.via_webhook for c in fake.calls_to("answerCallbackQuery")] == [True, True]
        assert len(bot.deps.webhook_replies) == 0


async def test_an_answer_later_than_the_wait_is_a_call_of_its_own(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(webhook_replies, "REPLY_WAIT", 0.0)
    fake = FakeTelegram()
    ana, bo = fake.user(1, "Ana"), fake.user(2, "Bo")
    group = fake.group("Friends")
    async with served(db_url, webhook=True, fake=fake, **webhook_settings()) as bot:
        await bot.until(lambda: fake.webhook is not None)
        await _post(bot, fake.command_update(group, ana, "/newgame@tweak_test_bot"))
        await bot.until(lambda: bool(fake.messages(group.id)))
        lobby = fake.last_message(group.id)
        tap = fake.callback_update(bo, lobby, lobby.keyboard[0][0]["callback_data"])
        response = await _post(bot, tap)
        assert response.status_code == 200 and response.content == b""
        assert await fake.webhook_reply(200, response.headers.get("content-type"), response.content) is None
        query_id = tap["callback_query"]["id"]
        await bot.until(lambda: fake.answers[query_id].answered)
        assert [c.via_webhook for c in fake.calls_to("answerCallbackQuery")] == [False]
        assert len(bot.deps.webhook_replies) == 0


async def test_replies_are_handed_over_once_and_only_while_awaited() -> None:
    replies = WebhookReplies()
    assert not replies.offer("1", {"text": "hi"})  # nobody waits: the answer is a call
    waiting = replies.expect("2")
    assert replies.offer("2", {"text": "hi", "show_alert": False})
    assert not replies.offer("2", {"text": "again"})  # answered once
    assert await replies.reply("2", waiting) == {
        "method": "answerCallbackQuery",
        "callback_query_id": "2",
        "text": "hi",
        "show_alert": False,
    }
    late = replies.expect("3")
    assert await replies.reply("3", late) is None  # REPLY_WAIT passed without an answer
    assert not replies.offer("3", {"text": "too late"})
    assert len(replies) == 0


async def test_a_stopped_wait_leaves_nothing_behind() -> None:
    replies = WebhookReplies()
    waiting = replies.expect("7")
    task = asyncio.create_task(replies.reply("7", waiting))
    await asyncio.sleep(0)
    task.cancel()  # the server stopping while a request waits
    with pytest.raises(asyncio.CancelledError):
        await task
    assert len(replies) == 0 and not replies.offer("7", {})


async def test_telegram_makes_the_call_a_webhook_response_names() -> None:
    fake = FakeTelegram()
    ana = fake.user(1, "Ana")
    chat = fake.private(ana)
    keys = {"inline_keyboard": [[{"text": "go", "callback_data": "x"}]]}
    send = {"method": "sendMessage", "chat_id": chat.id, "text": "board", "reply_markup": keys}
    made = await fake.webhook_reply(200, "application/json", json.dumps(send).encode())
    assert made is not None and made.ok and made.via_webhook
    sent = fake.last_message(chat.id)
    fresh = fake.callback_update(ana, sent, "x")["callback_query"]["id"]
    body = json.dumps({"method": "answerCallbackQuery", "callback_query_id": fresh, "text": "ok"}).encode()
    # Only a 200 with a JSON body naming a method is a call.
    assert await fake.webhook_reply(200, "text/plain", body) is None
    assert await fake.webhook_reply(500, "application/json", body) is None
    assert await fake.webhook_reply(200, "application/json", b'{"text": "no method"}') is None
    assert await fake.webhook_reply(200, "application/json", b"not json") is None
    assert not fake.answers[fresh].answered
    call = await fake.webhook_reply(200, "application/json; charset=utf-8", body)
    assert call is not None and call.ok and fake.answers[fresh].text == "ok"
    # A refused call (answered twice, or too old) is told nobody: nothing raises.
    again = await fake.webhook_reply(200, "application/json", body)
    assert again is not None and again.status == 400


async def test_an_update_delivered_again_keeps_the_later_wait() -> None:
    """Telegram may send an update again while its first request still waits (a slow answer):
    the first wait ending must not cancel the second's."""
    replies = WebhookReplies()
    first = replies.expect("9")
    second = replies.expect("9")  # the same query, delivered again
    first_task = asyncio.create_task(replies.reply("9", first))
    await asyncio.sleep(0)
    first_task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await first_task
    assert replies.offer("9", {"text": "hi"}) and second.result()["text"] == "hi"
