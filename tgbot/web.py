"""The bot's HTTP server: Telegram's webhook, ``/healthz`` and ``/metrics``.

Webhook mode serves all three on ``WEBHOOK_LISTEN:WEBHOOK_PORT`` behind the reverse proxy that
terminates TLS. In polling mode, ``METRICS_PORT`` starts the same server with only ``/healthz``
and ``/metrics``. Tornado is already installed as part of PTB's webhooks extra.

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
import re
import socket
import time
from datetime import datetime, timedelta
from typing import Any

from telegram import Update
from telegram.ext import Application
from tornado.httpserver import HTTPServer
from tornado.netutil import bind_sockets
from tornado.web import Application as WebApplication
from tornado.web import RequestHandler

from . import metrics
from .bot import TweakBot
from .deps import Deps
from .store.db import outbox_waiting

log = logging.getLogger("tweakbot.web")

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
DB_TIMEOUT_SECONDS = 2.0
MAX_BODY_BYTES = 1_000_000


class WebhookHandler(RequestHandler):
    def initialize(self, bot_application: Application, secret: str | None) -> None:  # type: ignore[type-arg]
        self.application_ = bot_application
        self.secret = secret

    async def post(self) -> None:
        given = self.request.headers.get(SECRET_HEADER)
        if self.secret is not None and (
            given is None or not hmac.compare_digest(given.encode(), self.secret.encode())
        ):
            log.warning("webhook request without the right secret token from %s", self.request.remote_ip)
            self.send_error(403)
            return
        if not self.application_.running:
            self.send_error(503)
            return
        try:
            data = json.loads(self.request.body)
            bot = self.application_.bot
            # The bot's own reading (tgbot/bot.py) leaves out what no handler reads.
            update = bot.parse_update(data) if isinstance(bot, TweakBot) else Update.de_json(data, bot)
        except Exception:  # not Telegram's JSON: nothing useful to say back
            log.warning("webhook request with a body that is not an update")
            self.send_error(400)
            return
        await self.application_.update_queue.put(update)
        self.set_status(200)
        self.finish()


class HealthHandler(RequestHandler):
    def initialize(self, deps: Deps, sweep_interval: timedelta, started: float) -> None:
        self.deps = deps
        self.sweep_interval = sweep_interval
        self.started = started

    async def get(self) -> None:
        body = await health(self.deps, self.sweep_interval, self.started)
        self.set_status(200 if body["status"] == "ok" else 503)
        self.set_header("Content-Type", "application/json")
        self.set_header("Cache-Control", "no-store")
        self.finish(json.dumps(body))


class MetricsHandler(RequestHandler):
    def get(self) -> None:
        self.set_header("Content-Type", metrics.CONTENT_TYPE)
        self.finish(metrics.render())


def sweep_overdue_after(interval: timedelta) -> float:
    """Seconds without a sweep after which /healthz reports the bot unhealthy."""
    return max(10 * interval.total_seconds(), 300.0)


async def health(deps: Deps, sweep_interval: timedelta, started: float) -> dict[str, Any]:
    """What /healthz answers: the database's reachability and the last sweep's time."""
    waiting: int | None = None
    try:
        waiting = await asyncio.wait_for(
            asyncio.to_thread(outbox_waiting, deps.db.engine), DB_TIMEOUT_SECONDS
        )
        database = "ok"
        metrics.set_outbox_waiting(waiting)
    except Exception as exc:  # whatever the driver raises, the answer is "not reachable"
        log.warning("health check: database unreachable (%s)", type(exc).__name__)
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
        self.host = host
        self.port = port
        started = time.monotonic()
        routes: list[Any] = [
            (
                r"/healthz",
                HealthHandler,
                {"deps": deps, "sweep_interval": sweep_interval, "started": started},
            ),
            (r"/metrics", MetricsHandler),
        ]
        if webhook_path is not None:
            if webhook_path in ("/healthz", "/metrics"):
                raise ValueError(f"the webhook path {webhook_path} is taken by the health/metrics endpoints")
            routes.append(
                (_route(webhook_path), WebhookHandler, {"bot_application": application, "secret": secret})
            )
        self._routes = routes
        self._server: HTTPServer | None = None

    async def start(self) -> None:
        app = WebApplication(self._routes, log_function=_quiet_access_log)
        self._server = HTTPServer(app, max_body_size=MAX_BODY_BYTES, xheaders=True)
        sockets = bind_sockets(
            self.port, address=self.host, family=socket.AF_INET if "." in self.host else socket.AF_UNSPEC
        )
        self._server.add_sockets(sockets)
        self.port = sockets[0].getsockname()[1]  # the real one when 0 asked the OS to pick
        log.info("http server listening on %s:%s", self.host, self.port)

    async def stop(self) -> None:
        if self._server is None:
            return
        self._server.stop()
        await self._server.close_all_connections()
        self._server = None


def _route(path: str) -> str:
    return re.escape(path if path.startswith("/") else "/" + path)


def _quiet_access_log(handler: RequestHandler) -> None:
    """Only failures are worth a line; never the URL's query string."""
    status = handler.get_status()
    if status >= 500:
        log.warning("%s %s -> %d", handler.request.method, handler.request.path, status)
