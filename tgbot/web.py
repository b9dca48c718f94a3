"""The bot's HTTP server: Telegram's webhook, ``/healthz`` and ``/metrics``.

Webhook mode serves all three on ``WEBHOOK_LISTEN:WEBHOOK_PORT`` behind the reverse proxy that
terminates TLS. In polling mode, ``METRICS_PORT`` starts the same server with only ``/healthz``
and ``/metrics``. It is aiohttp's server, as the bot's Bot API client is aiohttp's (decisions.md
B20): one HTTP library for both directions, with its parser in C, and no tornado in the process
(PTB imports tornado whenever it is installed).

* ``POST <path of WEBHOOK_URL>``: an update from Telegram. Rejected with 403 unless the
  ``X-Telegram-Bot-Api-Secret-Token`` header equals ``WEBHOOK_SECRET``; 503 while stopping (so
  Telegram delivers it again later, perhaps to the other instance).
* ``GET /healthz``: 200 when the database answers and the sweep is not overdue, else 503; the
  JSON body says which, and when the last sweep ran.
* ``GET /metrics``: Prometheus text format (tgbot/metrics.py).
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import socket
import time
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta
from typing import Any

from aiohttp import web
from telegram import Update
from telegram.ext import Application

from . import metrics
from .deps import Deps, get_deps
from .store.db import outbox_waiting

log = logging.getLogger("tweakbot.web")

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
DB_TIMEOUT_SECONDS = 2.0
HEALTH_PATH = "/healthz"
MAX_BODY_BYTES = 1_000_000
#: What a request in flight gets when the server stops: a webhook request has queued its update
#: already, and a tap's answer not yet carried back goes out as a call of its own.
STOP_SECONDS = 0.5


def webhook_handler(
    application: Application,  # type: ignore[type-arg]
    secret: str | None,
) -> Callable[[web.Request], Awaitable[web.Response]]:
    async def post(request: web.Request) -> web.Response:
        given = request.headers.get(SECRET_HEADER)
        if secret is not None and (given is None or not hmac.compare_digest(given.encode(), secret.encode())):
            log.warning("webhook request without the right secret token from %s", _remote(request))
            return web.Response(status=403)
        if not application.running:
            return web.Response(status=503)
        try:
            update = Update.de_json(json.loads(await request.read()), application.bot)
        except web.HTTPException:
            raise  # a body over MAX_BODY_BYTES: aiohttp's own 413
        except Exception:  # not Telegram's JSON: nothing useful to say back
            log.warning("webhook request with a body that is not an update")
            return web.Response(status=400)
        query = update.callback_query
        if query is None:
            await application.update_queue.put(update)
            return web.Response()
        # The tap's answer goes back in this response if it comes soon (delivery/webhook_replies.py).
        replies = get_deps(application.bot_data).webhook_replies
        waiting = replies.expect(query.id)
        await application.update_queue.put(update)
        body = await replies.reply(query.id, waiting)
        return web.Response() if body is None else web.json_response(body)

    return post


def health_handler(
    deps: Deps, sweep_interval: timedelta, started: float
) -> Callable[[web.Request], Awaitable[web.Response]]:
    """/healthz. Its 503 is an answer, not a failure of the server: an operator reads one line
    when the database goes away (`store.outage`) and one when the sweep falls behind, not one
    per poll of a monitor."""
    late = False

    async def get(_request: web.Request) -> web.Response:
        nonlocal late
        body = await health(deps, sweep_interval, started)
        if (body["sweep"] == "late") != late:
            late = not late
            if late:
                overdue = int(sweep_overdue_after(sweep_interval))
                log.warning(
                    "health check: no sweep for over %d s; /healthz answers 503 until one runs", overdue
                )
        return web.Response(
            status=200 if body["status"] == "ok" else 503,
            text=json.dumps(body),
            content_type="application/json",
            headers={"Cache-Control": "no-store"},
        )

    return get


async def metrics_handler(_request: web.Request) -> web.Response:
    body, content_type = metrics.exposition()
    return web.Response(body=body, headers={"Content-Type": content_type})


def sweep_overdue_after(interval: timedelta) -> float:
    """Seconds without a sweep after which /healthz reports the bot unhealthy."""
    return max(10 * interval.total_seconds(), 300.0)


async def health(deps: Deps, sweep_interval: timedelta, started: float) -> dict[str, Any]:
    """What /healthz answers: the database's reachability and the last sweep's time."""
    waiting: int | None = None
    outage = deps.db.outage
    began = outage.now()
    try:
        waiting = await asyncio.wait_for(
            asyncio.to_thread(outbox_waiting, deps.db.engine), DB_TIMEOUT_SECONDS
        )
        database = "ok"
        metrics.set_outbox_waiting(waiting)
    except Exception as exc:  # whatever the driver raises, the answer is "not reachable"
        outage.failed(exc, began)  # the outage's one line, whoever meets it first
        database = "unreachable"
    last = deps.stats.get("last_sweep_at")
    age: float | None = None
    if isinstance(last, datetime):
        age = max(0.0, (deps.clock.now() - last).total_seconds())
    limit = sweep_overdue_after(sweep_interval)
    waited = age if age is not None else time.monotonic() - started
    sweep = "ok" if age is not None and age <= limit else "late" if waited > limit else "pending"
    return {
        "status": "ok" if database == "ok" and sweep != "late" else "unavailable",
        "database": database,
        "sweep": sweep,
        "last_sweep_at": last.isoformat() + "Z" if isinstance(last, datetime) else None,
        "last_sweep_age_seconds": None if age is None else round(age, 1),
        "last_sweep_seconds": deps.stats.get("last_sweep_seconds"),
        "outbox_waiting": waiting,
    }


class BotServer:
    """One HTTP server; ``webhook_path=None`` serves only /healthz and /metrics."""

    def __init__(
        self,
        application: Application,  # type: ignore[type-arg]
        deps: Deps,
        *,
        host: str,
        port: int,
        sweep_interval: timedelta,
        webhook_path: str | None = None,
        secret: str | None = None,
    ) -> None:
        metrics.enable()  # a server serves them, so they count from now on
        self.host = host
        self.port = port
        started = time.monotonic()
        app = web.Application(client_max_size=MAX_BODY_BYTES, middlewares=[_failures_logged])
        app.router.add_get(HEALTH_PATH, health_handler(deps, sweep_interval, started))
        app.router.add_get("/metrics", metrics_handler)
        if webhook_path is not None:
            if webhook_path in ("/healthz", "/metrics"):
                raise ValueError(f"the webhook path {webhook_path} is taken by the health/metrics endpoints")
            path = webhook_path if webhook_path.startswith("/") else "/" + webhook_path
            app.router.add_post(path, webhook_handler(application, secret))
        self._app = app
        self._runner: web.AppRunner | None = None

    async def start(self) -> None:
        # No access log: only failures are worth a line (`_failures_logged`), never a URL's query.
        runner = web.AppRunner(
            self._app, access_log=None, handle_signals=False, shutdown_timeout=STOP_SECONDS
        )
        await runner.setup()
        try:
            sock = _listening_socket(self.host, self.port)
        except OSError:  # the port is taken, or the address is not this machine's
            await runner.cleanup()
            raise
        await web.SockSite(runner, sock).start()
        self._runner = runner
        self.port = sock.getsockname()[1]  # the real one when 0 asked the OS to pick
        log.info("http server listening on %s:%s", self.host, self.port)

    async def stop(self) -> None:
        if self._runner is None:
            return
        runner, self._runner = self._runner, None
        await runner.cleanup()


def _listening_socket(host: str, port: int) -> socket.socket:
    """A socket bound to host:port (port 0: one the OS picks), IPv4 for a dotted address."""
    family = socket.AF_INET if "." in host else socket.AF_UNSPEC
    found, *_ = socket.getaddrinfo(host, port, family, socket.SOCK_STREAM, 0, socket.AI_PASSIVE)
    sock = socket.socket(found[0], socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(found[4])
    except OSError:
        sock.close()
        raise
    sock.setblocking(False)
    return sock


def _remote(request: web.Request) -> str:
    """The client's address as the reverse proxy that terminates TLS passes it on."""
    forwarded = request.headers.get("X-Real-Ip") or request.headers.get("X-Forwarded-For") or ""
    return forwarded.split(",")[-1].strip() or request.remote or "?"


@web.middleware
async def _failures_logged(
    request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
) -> web.StreamResponse:
    """Only failures are worth a line; never the URL's query string."""
    try:
        response = await handler(request)
    except web.HTTPException as refused:
        if refused.status >= 500:
            log.warning("%s %s -> %d", request.method, request.path, refused.status)
        raise
    if response.status >= 500 and request.path != HEALTH_PATH:  # its own lines: `health_handler`
        log.warning("%s %s -> %d", request.method, request.path, response.status)
    return response
