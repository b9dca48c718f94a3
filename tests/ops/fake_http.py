"""The in-memory FakeTelegram behind a real HTTP server on 127.0.0.1, for a bot using real HTTP.

The bot under test (in-process with its AiohttpRequest, or a subprocess started with
``TELEGRAM_API_BASE_URL=http://127.0.0.1:<port>/bot``) talks HTTP to this server exactly as to
Telegram; requests go to the same ``FakeTelegram`` the other tests use, so nothing leaves the
machine. ``hold(method, seconds)`` delays the answers to a method (an update "in flight"), and
``arrived(method)`` is an event set when the first such request comes in. ``unconfirmed``: a
getUpdates whose offset is past that update id never gets through (the bot "dies" before
Telegram learns it has the updates up to it: they are delivered again).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any, cast

from aiohttp import web

from tests.fakes import FakeTelegram

JSONDict = dict[str, Any]


class _Params:
    """What FakeTelegram.do_request reads from PTB's RequestData."""

    contains_files = False

    def __init__(self, parameters: JSONDict) -> None:
        self.parameters = parameters


def _decode_value(raw: str) -> Any:
    # PTB sends non-string values JSON-encoded and strings as they are.
    try:
        return json.loads(raw)
    except ValueError:
        return raw


class FakeBotApiServer:
    def __init__(self, fake: FakeTelegram, token: str) -> None:
        self.fake = fake
        self.token = token
        self.delays: dict[str, float] = {}
        #: Every request from now on hangs with no answer (a Bot API server that went away).
        self.gone = False
        #: A getUpdates confirming this update id (an offset past it) hangs with no answer.
        self.unconfirmed: int | None = None
        self.requests: list[tuple[str, str]] = []
        self.port = 0
        self._events: dict[str, asyncio.Event] = {}
        self._runner: web.AppRunner | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/bot"

    def arrived(self, method: str) -> asyncio.Event:
        return self._events.setdefault(method, asyncio.Event())

    def hold(self, method: str, seconds: float) -> None:
        self.delays[method] = seconds

    async def __aenter__(self) -> FakeBotApiServer:
        app = web.Application(client_max_size=50_000_000)
        app.router.add_route("*", "/bot{token}/{method}", self._answer)
        # A held or hung call is cut off at once when the server goes (Telegram closing on us).
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=0.1)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = self._runner.addresses[0][1]
        return self

    async def _answer(self, request: web.Request) -> web.Response:
        token, method = request.match_info["token"], request.match_info["method"]
        self.requests.append((token, method))
        self.arrived(method).set()
        if token != self.token:
            return web.json_response(
                {"ok": False, "error_code": 401, "description": "Unauthorized"}, status=401
            )
        params: JSONDict
        if request.content_type.startswith("application/json"):
            params = json.loads(await request.read() or b"{}")
        else:  # form fields, urlencoded or multipart (an uploaded file's bytes are not kept)
            form = await request.post()
            params = {name: _decode_value(value) for name, value in form.items() if isinstance(value, str)}
        held = self.unconfirmed
        if method == "getUpdates" and held is not None and int(params.get("offset") or 0) > held:
            await asyncio.Event().wait()  # the offset never reaches "Telegram"
        delay = self.delays.get(method, 0.0)
        if delay:
            await asyncio.sleep(delay)
        if self.gone:
            await asyncio.Event().wait()  # the server stopped answering: the call hangs
        status, body = await self.fake.do_request(
            f"http://fake/bot{token}/{method}", "POST", cast(Any, _Params(params))
        )
        return web.Response(status=status, body=body, content_type="application/json")

    def go_away(self) -> None:
        self.gone = True

    async def shut(self) -> None:
        """The server is gone: connections refused from now on."""
        if self._runner is not None:
            runner, self._runner = self._runner, None
            await runner.cleanup()

    async def __aexit__(self, *exc: object) -> None:
        await self.shut()
