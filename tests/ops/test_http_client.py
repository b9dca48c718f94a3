"""The Bot API client over aiohttp (tgbot/http_client.py), against real HTTP servers on 127.0.0.1:
what PTB's own client did that the bot relies on — form fields, file uploads, Telegram's refusals
as PTB's exceptions, the timeouts, the bounded pool, the environment's proxy."""

from __future__ import annotations

import asyncio
import base64
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from telegram import Bot
from telegram.error import BadRequest, NetworkError, RetryAfter, TimedOut

from tests.fakes import FakeTelegram
from tests.fakes.telegram import TEST_TOKEN
from tests.ops.fake_http import FakeBotApiServer
from tgbot.delivery.telegram_io import retry_seconds
from tgbot.http_client import AiohttpRequest


@dataclass
class Seen:
    """What a test server received."""

    calls: list[tuple[str, str, dict[str, Any]]] = field(default_factory=list)  # (method, path, fields)
    files: dict[str, tuple[str, str, bytes]] = field(default_factory=dict)  # name -> (filename, type, bytes)
    agents: list[str] = field(default_factory=list)
    proxy_auth: list[str | None] = field(default_factory=list)
    hold: float = 0.0
    answer: dict[str, Any] = field(default_factory=lambda: {"ok": True, "result": True})
    status: int = 200


@pytest.fixture
async def server() -> AsyncIterator[tuple[str, Seen]]:
    seen = Seen()

    async def handle(request: web.Request) -> web.Response:
        seen.agents.append(request.headers.get("User-Agent", ""))
        seen.proxy_auth.append(request.headers.get("Proxy-Authorization"))
        fields: dict[str, Any] = {}
        if request.content_type.startswith("multipart/"):
            reader = await request.multipart()
            async for part in reader:
                if part.filename is not None:
                    seen.files[part.name or ""] = (
                        part.filename,
                        part.headers.get("Content-Type", ""),
                        await part.read(),
                    )
                else:
                    fields[part.name or ""] = await part.text()
        else:
            fields = dict(await request.post())
        seen.calls.append((request.method, request.path_qs, fields))
        if seen.hold:
            await asyncio.sleep(seen.hold)
        return web.Response(status=seen.status, text=json.dumps(seen.answer), content_type="application/json")

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", handle)
    runner = web.AppRunner(app, shutdown_timeout=0.1)  # a held answer is cut off at the end
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    port = runner.addresses[0][1]
    try:
        yield f"http://127.0.0.1:{port}", seen
    finally:
        await runner.cleanup()


async def test_a_bot_call_goes_as_form_fields_and_its_answer_comes_back() -> None:
    """Through PTB's Bot, as the bot uses it: the message reaches the fake Telegram over HTTP."""
    fake = FakeTelegram()
    chat = fake.group("Friends")
    async with FakeBotApiServer(fake, TEST_TOKEN) as api:
        request = AiohttpRequest(4)
        bot = Bot(TEST_TOKEN, base_url=api.base_url, request=request, get_updates_request=request)
        async with bot:
            sent = await bot.send_message(chat.id, "<b>Round 2</b> — 14 points", parse_mode="HTML")
    shown = fake.messages(chat.id)
    assert [m.content for m in shown] == ["Round 2 — 14 points"]
    assert sent.message_id == shown[0].message_id
    assert (TEST_TOKEN, "sendMessage") in api.requests


async def test_fields_user_agent_and_path(server: tuple[str, Seen]) -> None:
    url, seen = server
    request = AiohttpRequest()
    async with request:
        result = await request.post(f"{url}/bot123/getMe")  # no fields: PTB reads "result"
        status, body = await request.do_request(
            f"{url}/bot123/answerCallbackQuery",
            "POST",
            _data({"callback_query_id": "77", "text": "Not your turn", "show_alert": True}),
        )
    assert result is True
    assert (status, json.loads(body)) == (200, {"ok": True, "result": True})
    assert seen.calls[0] == ("POST", "/bot123/getMe", {})
    assert seen.calls[1] == (
        "POST",
        "/bot123/answerCallbackQuery",
        {"callback_query_id": "77", "text": "Not your turn", "show_alert": "true"},
    )
    assert all(agent.startswith("python-telegram-bot") for agent in seen.agents)


async def test_a_file_goes_as_multipart_with_the_other_fields(server: tuple[str, Seen]) -> None:
    """The score chart is a photo upload: its bytes, name and type, and the caption beside it."""
    url, seen = server
    seen.answer = {"ok": True, "result": True}
    png = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 40
    request = AiohttpRequest()
    async with request:
        await request.do_request(
            f"{url}/bot123/sendDocument",
            "POST",
            _data({"chat_id": -100, "caption": "Scores after round 3"}, files={"document": png}),
        )
    method, path, fields = seen.calls[0]
    assert (method, path) == ("POST", "/bot123/sendDocument")
    assert fields["chat_id"] == "-100" and fields["caption"] == "Scores after round 3"
    assert seen.files == {"document": ("chart.png", "image/png", png)}


async def test_telegrams_refusals_become_ptbs_exceptions(server: tuple[str, Seen]) -> None:
    """PTB reads the status and body: a 429 is RetryAfter with its retry_after, as before."""
    url, seen = server
    seen.status = 429
    seen.answer = {
        "ok": False,
        "error_code": 429,
        "description": "Too Many Requests: retry after 7",
        "parameters": {"retry_after": 7},
    }
    request = AiohttpRequest()
    async with request:
        with pytest.raises(RetryAfter) as refused:
            await request.post(f"{url}/bot123/sendMessage", _data({"chat_id": -100, "text": "board"}))
        seen.status, seen.answer = (
            400,
            {"ok": False, "error_code": 400, "description": "Bad Request: message is not modified"},
        )
        with pytest.raises(BadRequest, match="not modified"):
            await request.post(f"{url}/bot123/editMessageText", _data({"chat_id": -100, "text": "board"}))
    assert retry_seconds(refused.value) == 7


async def test_a_slow_answer_times_out_at_the_read_timeout(server: tuple[str, Seen]) -> None:
    url, seen = server
    seen.hold = 2.0
    request = AiohttpRequest(read_timeout=0.2)
    async with request:
        loop = asyncio.get_running_loop()
        began = loop.time()
        with pytest.raises(TimedOut):
            await request.do_request(f"{url}/bot1/getMe", "POST")
        assert loop.time() - began < 1.5
        # A call's own read timeout overrides the client's (getUpdates waits longer).
        seen.hold = 0.4
        status, _ = await request.do_request(f"{url}/bot1/getUpdates", "POST", read_timeout=3.0)
    assert status == 200


async def test_the_pool_is_bounded_and_a_call_waits_no_longer_than_the_pool_timeout(
    server: tuple[str, Seen],
) -> None:
    url, seen = server
    seen.hold = 1.5
    request = AiohttpRequest(1, pool_timeout=0.1, connect_timeout=0.1)
    async with request:
        first = asyncio.create_task(request.do_request(f"{url}/bot1/sendMessage", "POST"))
        await asyncio.sleep(0.2)  # the one connection is busy
        with pytest.raises(TimedOut):
            await request.do_request(f"{url}/bot1/sendMessage", "POST")
        status, _ = await first
    assert status == 200
    assert len(seen.calls) == 1  # the second call was never sent


async def test_nobody_listening_is_a_network_error() -> None:
    probe = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
    port = probe.sockets[0].getsockname()[1]
    probe.close()
    await probe.wait_closed()
    request = AiohttpRequest()
    async with request:
        with pytest.raises(NetworkError) as failed:
            await request.do_request(f"http://127.0.0.1:{port}/bot1/getMe", "POST")
    assert not isinstance(failed.value, TimedOut)
    assert "aiohttp." in str(failed.value)


async def test_the_environments_proxy_is_used(
    server: tuple[str, Seen], monkeypatch: pytest.MonkeyPatch
) -> None:
    """An operator behind a proxy sets HTTPS_PROXY/HTTP_PROXY, as PTB's own client honoured."""
    url, seen = server
    monkeypatch.setenv("HTTP_PROXY", url)
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    request = AiohttpRequest()
    async with request:
        status, _ = await request.do_request("http://api.telegram.invalid/bot1/getMe", "POST")
    assert status == 200
    assert seen.calls[0][1] == "/bot1/getMe"  # reached the proxy (the host does not resolve)
    assert seen.proxy_auth == [None]


async def test_the_proxys_credentials_go_with_each_call(
    server: tuple[str, Seen], monkeypatch: pytest.MonkeyPatch
) -> None:
    url, seen = server
    monkeypatch.setenv("HTTP_PROXY", url.replace("http://", "http://bot:s3cret@"))
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    async with AiohttpRequest() as request:
        for _ in range(2):
            status, _body = await request.do_request("http://api.telegram.invalid/bot1/getMe", "POST")
            assert status == 200
    expected = "Basic " + base64.b64encode(b"bot:s3cret").decode()
    assert seen.proxy_auth == [expected, expected]


async def test_a_host_no_proxy_names_is_called_directly(
    server: tuple[str, Seen], monkeypatch: pytest.MonkeyPatch
) -> None:
    url, seen = server
    monkeypatch.setenv("HTTP_PROXY", url)
    monkeypatch.setenv("NO_PROXY", "telegram.invalid")
    monkeypatch.delenv("no_proxy", raising=False)
    async with AiohttpRequest() as request:
        with pytest.raises(NetworkError):  # straight to the host, which does not resolve
            await request.do_request("http://api.telegram.invalid/bot1/getMe", "POST")
    assert seen.calls == []


async def test_not_initialized_is_said_plainly() -> None:
    with pytest.raises(RuntimeError, match="not initialized"):
        await AiohttpRequest().do_request("http://127.0.0.1:1/bot1/getMe", "POST")


def _data(fields: dict[str, Any], files: dict[str, bytes] | None = None) -> Any:
    """PTB's RequestData for these parameters, as Bot builds it."""
    from telegram import InputFile
    from telegram.request import RequestData
    from telegram.request._requestparameter import RequestParameter

    params = [RequestParameter.from_input(k, v) for k, v in fields.items()]
    for name, content in (files or {}).items():
        params.append(RequestParameter.from_input(name, InputFile(content, filename="chart.png")))
    return RequestData(params)


def test_the_bot_calls_telegram_through_it(tmp_path: Path) -> None:
    """Both modes: a pool for the API calls and, when polling, one connection for getUpdates."""
    from tests.bot.conftest import make_settings
    from tgbot.app import build_application

    settings = make_settings(f"sqlite:///{tmp_path / 'bot.sqlite3'}")
    for webhook in (False, True):
        application = build_application(settings, create_tables=False, webhook=webhook)
        calls, updates = application.bot._request[1], application.bot._request[0]
        assert isinstance(calls, AiohttpRequest) and isinstance(updates, AiohttpRequest)
        assert calls.connection_pool_size > 1
        assert (updates is calls) if webhook else (updates.connection_pool_size == 1)


@pytest.mark.parametrize("timedelta_opt_in", [None, "true"])
def test_a_429s_wait_reads_the_same_whether_ptb_gives_seconds_or_a_timedelta(
    timedelta_opt_in: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PTB 22 gives `retry_after` as an int unless PTB_TIMEDELTA is set (the operator's choice;
    the bot sets nothing), PTB 23 as a timedelta."""
    if timedelta_opt_in is None:
        monkeypatch.delenv("PTB_TIMEDELTA", raising=False)
    else:
        monkeypatch.setenv("PTB_TIMEDELTA", timedelta_opt_in)
    assert retry_seconds(RetryAfter(7)) == 7.0
    assert retry_seconds(RetryAfter(timedelta(seconds=1.5))) == 1.5
