"""Running the bot: long polling (the default) or webhook, until SIGTERM/SIGINT.

Stopping is graceful: the HTTP server and the poller stop taking updates, the updates already
taken are handled to the end (PTB's ``Application.stop`` waits for them and for a running
sweep), then connections close and ``stopped cleanly`` is logged. Nothing is lost by stopping
between updates: all state and every timer live in the database.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from urllib.parse import urlsplit

from telegram import Update
from telegram.error import TelegramError
from telegram.ext import Application

from .config import ConfigError, Settings
from .deps import get_deps
from .web import BotServer

log = logging.getLogger("tweakbot")

SET_WEBHOOK_ATTEMPTS = 5
STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)


def check_webhook_settings(settings: Settings) -> None:
    if settings.webhook_url is None:
        raise ConfigError(
            "--webhook needs WEBHOOK_URL, the public https:// URL Telegram posts updates to "
            "(e.g. https://bot.example.com/telegram); leave out --webhook to use long polling"
        )
    if settings.webhook_secret is None:
        raise ConfigError(
            "--webhook needs WEBHOOK_SECRET, so requests that do not come from Telegram are rejected; "
            "generate one with: python -c 'import secrets; print(secrets.token_urlsafe(32))'"
        )


async def _set_webhook(application: Application, settings: Settings) -> None:  # type: ignore[type-arg]
    assert settings.webhook_url is not None
    for attempt in range(1, SET_WEBHOOK_ATTEMPTS + 1):
        try:
            await application.bot.set_webhook(
                settings.webhook_url,
                secret_token=settings.webhook_secret,
                allowed_updates=Update.ALL_TYPES,
            )
            return
        except TelegramError as exc:
            if attempt == SET_WEBHOOK_ATTEMPTS:
                raise
            log.warning("setWebhook failed (%s); retrying", type(exc).__name__)
            await asyncio.sleep(min(2.0**attempt, 30.0))


async def serve(
    application: Application,  # type: ignore[type-arg]
    settings: Settings,
    *,
    webhook: bool,
    stop: asyncio.Event | None = None,
    handle_signals: bool = True,
    servers: list[BotServer] | None = None,
) -> None:
    """Run ``application`` until ``stop`` is set or a stop signal arrives, then shut down cleanly.

    ``servers`` (if given) receives the HTTP servers once they listen, so tests can find ports.
    """
    if webhook:
        check_webhook_settings(settings)
    stop = stop or asyncio.Event()
    loop = asyncio.get_running_loop()
    received: list[str] = []

    def on_signal(sig: signal.Signals) -> None:
        received.append(sig.name)
        stop.set()

    if handle_signals:
        for sig in STOP_SIGNALS:
            loop.add_signal_handler(sig, on_signal, sig)
    deps = get_deps(application.bot_data)
    started: list[BotServer] = [] if servers is None else servers

    async def start_server(port: int, webhook_path: str | None = None) -> None:
        server = BotServer(
            application,
            deps,
            host=settings.webhook_listen,
            port=port,
            sweep_interval=settings.sweep_interval,
            webhook_path=webhook_path,
            secret=settings.webhook_secret,
        )
        await server.start()
        started.append(server)

    try:
        await application.initialize()
        if application.post_init is not None:
            await application.post_init(application)
        if webhook:
            assert settings.webhook_url is not None
            await application.start()
            await start_server(settings.webhook_port, urlsplit(settings.webhook_url).path or "/")
            await _set_webhook(application, settings)
        else:
            assert application.updater is not None
            await application.updater.start_polling(allowed_updates=Update.ALL_TYPES)
            await application.start()
        if settings.metrics_port is not None and not (
            webhook and settings.metrics_port == settings.webhook_port  # the webhook server has them
        ):
            await start_server(settings.metrics_port)
        log.info(
            "tweakbot running mode=%s database=%s",
            "webhook" if webhook else "polling",
            settings.safe_database_url,
        )
        await stop.wait()
        log.info("stopping (%s): finishing the updates in flight", ",".join(received) or "requested")
    finally:
        for server in started:
            await server.stop()
        if application.updater is not None and application.updater.running:
            await application.updater.stop()
        if application.running:
            await application.stop()
            if application.post_stop is not None:
                await application.post_stop(application)
        await application.shutdown()
        if application.post_shutdown is not None:
            await application.post_shutdown(application)
        if handle_signals:
            for sig in STOP_SIGNALS:
                with contextlib.suppress(Exception):
                    loop.remove_signal_handler(sig)
    log.info("stopped cleanly")
