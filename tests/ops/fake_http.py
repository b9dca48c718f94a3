"""The in-memory FakeTelegram behind a real HTTP server on 127.0.0.1, for a bot using real HTTP.

The bot under test (in-process with PTB's HTTPXRequest, or a subprocess started with
``TELEGRAM_API_BASE_URL=http://127.0.0.1:<port>/bot``) talks HTTP to this server exactly as to
Telegram; requests go to the same ``FakeTelegram`` the other tests use, so nothing leaves the
machine. ``hold(method, seconds)`` delays the answers to a method (an update "in flight"), and
``arrived(method)`` is an event set when the first such request comes in.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any, cast

from tornado.httpserver import HTTPServer
from tornado.netutil import bind_sockets
from tornado.web import Application, RequestHandler

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


class _ApiHandler(RequestHandler):
    def initialize(self, server: FakeBotApiServer) -> None:
        self.server = server

    async def post(self, token: str, method: str) -> None:
        server = self.server
        server.requests.append((token, method))
        server.arrived(method).set()
        if token != server.token:
            self.set_status(401)
            self.finish({"ok": False, "error_code": 401, "description": "Unauthorized"})
            return
        content_type = self.request.headers.get("Content-Type", "")
        params: JSONDict
        if content_type.startswith("application/json"):
            params = json.loads(self.request.body or b"{}")
        else:
            params = {
                name: _decode_value(values[-1].decode())
                for name, values in self.request.body_arguments.items()
            }
        delay = server.delays.get(method, 0.0)
        if delay:
            await asyncio.sleep(delay)
        if server.gone:
            await asyncio.Event().wait()  # the server stopped answering: the call hangs
        status, body = await server.fake.do_request(
            f"http://fake/bot{token}/{method}", "POST", cast(Any, _Params(params))
        )
        self.set_status(status)
        self.set_header("Content-Type", "application/json")
        self.finish(body)

    get = post


class FakeBotApiServer:
    def __init__(self, fake: FakeTelegram, token: str) -> None:
        self.fake = fake
        self.token = token
        self.delays: dict[str, float] = {}
        #: Every request from now on hangs with no answer (a Bot API server that went away).
        self.gone = False
        self.requests: list[tuple[str, str]] = []
        self.port = 0
        self._events: dict[str, asyncio.Event] = {}
        self._server: HTTPServer | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/bot"

    def arrived(self, method: str) -> asyncio.Event:
        return self._events.setdefault(method, asyncio.Event())

    def hold(self, method: str, seconds: float) -> None:
        self.delays[method] = seconds

    async def __aenter__(self) -> FakeBotApiServer:
        app = Application([(r"/bot([^/]+)/(\w+)", _ApiHandler, {"server": self})])
        self._server = HTTPServer(app)
        sockets = bind_sockets(0, address="127.0.0.1")
        self._server.add_sockets(sockets)
        self.port = sockets[0].getsockname()[1]
        return self

    def go_away(self) -> None:
        self.gone = True

    async def shut(self) -> None:
        """The server is gone: connections refused from now on."""
        if self._server is not None:
            self._server.stop()
            await self._server.close_all_connections()
            self._server = None

    async def __aexit__(self, *exc: object) -> None:
        if self._server is not None:
            self._server.stop()
            await self._server.close_all_connections()
