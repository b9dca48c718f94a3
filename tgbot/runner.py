"""Running the bot: long polling (the default) or webhook, until SIGTERM/SIGINT.

Stopping is graceful: the HTTP server and the poller stop taking updates, the updates already
taken are handled to the end (PTB's ``Application.stop`` waits for them and for a running
sweep), then connections close and ``stopped cleanly`` is logged. Nothing is lost by stopping
between updates: all state and every timer live in the database.

Telegram being unreachable at start (getMe, then deleteWebhook or setWebhook) is
waited out with capped exponential backoff and one WARNING line per attempt, since a bot started
by systemd or compose during a network blip should come up by itself, and a stop signal ends the
wait cleanly. A second instance polling with the same token makes Telegram answer 409 Conflict
about once a second; that is said once, as one ERROR line, not as a traceback per retry.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import signal
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, TypeVar
from urllib.parse import urlsplit

from telegram import Update
from telegram.error import Conflict, InvalidToken, NetworkError, RetryAfter, TelegramError
from telegram.ext import Application

from . import event_loop, metrics
from .config import ConfigError, Settings, reveal
from .delivery.telegram_io import retry_seconds
from .deps import get_deps

if TYPE_CHECKING:
    from .web import BotServer

log = logging.getLogger("tweakbot")

T = TypeVar("T")

STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)
#: SIGTERM to exit: Telegram (and systemd, docker) expect a bot to be gone within 10 s.
STOP_SECONDS = 10.0
#: Kept for the process to exit after the last step.
STOP_MARGIN_SECONDS = 1.0
SENDER_GRACE_SECONDS = 2.0
DATABASE_GRACE_SECONDS = 5.0
UPDATER_STOP_SECONDS = 2.0
#: Kept for closing the HTTP client and the database after the updates in flight.
SHUTDOWN_RESERVE_SECONDS = 1.5
#: Waits between start-up attempts while Telegram is unreachable: 1 s, 2 s, 4 s ... then every minute.
RETRY_FIRST_SECONDS = 1.0
RETRY_MAX_SECONDS = 60.0
#: The webhook connections Telegram may open at once (its maximum; the default is 40).
WEBHOOK_CONNECTIONS = 100
#: A Conflict after this long without one is news again. PTB retries a failing getUpdates at
#: least every 30 s, so two instances fighting over the token never stay quiet this long.
CONFLICT_QUIET_SECONDS = 90.0


def settle_heap() -> None:
    """Put what start-up built out of the cyclic garbage collector's reach.

    Modules, handlers, SQLAlchemy's mappers and PTB's objects live as long as the process, yet a
    full collection walks them all each time it runs, and while it runs no tap is answered. Frozen
    (``gc.freeze``), they are skipped: a full collection then walks only what the bot made since it
    started. Collected first so that no start-up garbage is kept for good.
    """
    gc.collect()
    gc.freeze()


class _StoppedWhileStarting(Exception):
    """A stop signal arrived while start-up was still waiting for Telegram."""


class PollingErrors:
    """PTB's ``error_callback`` for getUpdates: PTB retries by itself, we only say what happens.

    Without it PTB logs every failed poll as an ERROR with a traceback. A Conflict (another
    process polls with this token) is reported once per episode, since it repeats every second
    while both run; other errors (Telegram unreachable for a while) get one WARNING line each,
    PTB's own backoff keeping those down to a couple a minute.
    """

    def __init__(self, quiet: float | None = None, clock: Callable[[], float] = time.monotonic) -> None:
        self.quiet = CONFLICT_QUIET_SECONDS if quiet is None else quiet
        self.clock = clock
        self.last_conflict: float | None = None

    def __call__(self, error: TelegramError) -> None:
        if isinstance(error, Conflict):
            now = self.clock()
            if self.last_conflict is None or now - self.last_conflict > self.quiet:
                log.error(
                    "another instance is polling Telegram with this bot token (409 Conflict): "
                    "stop the other one, or run every instance with --webhook; "
                    "this one keeps retrying and says so again only if it stops and comes back"
                )
            self.last_conflict = now
            return
        log.warning("getUpdates failed (%s); retrying", _describe(error))


def _describe(error: BaseException) -> str:
    text = " ".join(str(error).split())
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


async def _until_reachable(what: str, action: Callable[[], Awaitable[T]], stop: asyncio.Event) -> T:
    """Run ``action`` until Telegram answers it, backing off while it is unreachable.

    Only network trouble is retried (no connection, timeouts, 5xx, flood waits); anything else
    (a rejected token, a bad webhook URL) is a real error and propagates at once. A stop request
    cancels the attempt in flight or the wait and raises `_StoppedWhileStarting`.
    """
    delay = RETRY_FIRST_SECONDS
    attempt = 0
    while True:
        attempt += 1
        task = asyncio.ensure_future(action())
        stopping = asyncio.ensure_future(stop.wait())
        try:
            await asyncio.wait((task, stopping), return_when=asyncio.FIRST_COMPLETED)
        finally:
            stopping.cancel()
            if not task.done():  # stopping (or being cancelled): drop the attempt in flight
                task.cancel()
                await asyncio.wait((task,))
        if task.cancelled():
            raise _StoppedWhileStarting
        try:
            return task.result()
        except RetryAfter as exc:
            wait, problem = max(delay, retry_seconds(exc)), _describe(exc)
        except NetworkError as exc:  # includes TimedOut and Telegram's 5xx answers
            wait, problem = delay, _describe(exc)
        log.warning(
            "%s failed (attempt %d, %s): is Telegram reachable? retrying in %.0f s",
            what,
            attempt,
            problem,
            wait,
        )
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), wait)
        if stop.is_set():
            raise _StoppedWhileStarting
        delay = min(delay * 2, RETRY_MAX_SECONDS)


async def _within(step: Awaitable[object], seconds: float) -> bool:
    """Wait for a stop step at most `seconds`; False (and the step cancelled) when it ran out."""
    task = asyncio.ensure_future(step)
    done, _pending = await asyncio.wait((task,), timeout=seconds)
    if done:
        with contextlib.suppress(Exception):
            task.result()
        return True
    task.cancel()
    log.warning("stopping: a step took longer than %.1f s and was cut short", seconds)
    return False


async def _stop_application(application: Application, seconds: float) -> None:  # type: ignore[type-arg]
    """PTB's stop waits for every update taken to be handled; updates still waiting on a
    Telegram that does not answer are cut off by closing the bot's HTTP client (their calls fail
    at once, and the handlers end)."""
    stopping = asyncio.ensure_future(application.stop())
    done, _pending = await asyncio.wait((stopping,), timeout=seconds)
    if done:
        stopping.result()
        return
    log.warning("stopping: updates still waiting for Telegram after %.0f s are cut off", seconds)
    await _within(application.bot.shutdown(), 0.5)
    if not await _within(stopping, 0.5):
        log.warning("stopping: updates in flight were abandoned")


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


async def _set_webhook(
    application: Application,  # type: ignore[type-arg]
    settings: Settings,
    stop: asyncio.Event,
) -> None:
    url = settings.webhook_url
    assert url is not None

    async def set_webhook() -> None:
        # Telegram's most connections: a webhook request waits for its tap's answer
        # (tgbot/delivery/webhook_replies.py), so more of them are open at once than the 40 default.
        await application.bot.set_webhook(
            url,
            secret_token=reveal(settings.webhook_secret),
            allowed_updates=Update.ALL_TYPES,
            max_connections=WEBHOOK_CONNECTIONS,
        )

    await _until_reachable("setWebhook", set_webhook, stop)


async def _initialize(application: Application, stop: asyncio.Event) -> None:  # type: ignore[type-arg]
    """PTB's initialize, whose getMe is the first call to Telegram (and the token's first test)."""
    try:
        await _until_reachable("getMe", application.initialize, stop)
    except InvalidToken:
        # PTB's message quotes the token; this one line says what to do instead.
        raise ConfigError(
            "Telegram rejected TELEGRAM_BOT_TOKEN (Unauthorized): it was revoked or mistyped; "
            "get the current one from @BotFather (/mybots, API Token) and set it again"
        ) from None


async def _start_polling(application: Application, stop: asyncio.Event) -> None:  # type: ignore[type-arg]
    updater = application.updater
    assert updater is not None

    async def start() -> object:
        return await updater.start_polling(allowed_updates=Update.ALL_TYPES, error_callback=PollingErrors())

    # start_polling's first call is deleteWebhook (polling and a webhook exclude each other).
    await _until_reachable("deleteWebhook", start, stop)


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
    if webhook or settings.metrics_port is not None:
        metrics.enable()  # an HTTP server will serve them: count from the first update

    async def start_server(port: int, webhook_path: str | None = None) -> None:
        # aiohttp's server is imported only by a bot that serves HTTP: a polling bot without
        # METRICS_PORT never loads it (about 2 MB).
        from .web import BotServer

        server = BotServer(
            application,
            deps,
            host=settings.webhook_listen,
            port=port,
            sweep_interval=settings.sweep_interval,
            webhook_path=webhook_path,
            secret=reveal(settings.webhook_secret),
        )
        await server.start()
        started.append(server)

    try:
        await _initialize(application, stop)
        if application.post_init is not None:
            await application.post_init(application)
        if webhook:
            assert settings.webhook_url is not None
            await application.start()
            await start_server(settings.webhook_port, urlsplit(settings.webhook_url).path or "/")
            await _set_webhook(application, settings, stop)
        else:
            await _start_polling(application, stop)
            await application.start()
        if settings.metrics_port is not None and not (
            webhook and settings.metrics_port == settings.webhook_port  # the webhook server has them
        ):
            await start_server(settings.metrics_port)
        settle_heap()
        log.info(
            "tweakbot running mode=%s database=%s loop=%s",
            "webhook" if webhook else "polling",
            settings.safe_database_url,
            event_loop.name(loop),
        )
        await stop.wait()
        log.info("stopping (%s): finishing the updates in flight", ",".join(received) or "requested")
    except _StoppedWhileStarting:
        log.info("stopping (%s) before Telegram could be reached", ",".join(received) or "requested")
    finally:
        # Within STOP_SECONDS whatever the database and Telegram do: every step gets what is left
        # of the time. Senders stop now (what they have not sent stays in the outbox for the next
        # start); updates in flight get a few seconds, then a hung database is given up on (its
        # callers answer "trouble"), and calls still waiting on Telegram are cut off.
        deadline = loop.time() + STOP_SECONDS - STOP_MARGIN_SECONDS

        def left(reserve: float = 0.0) -> float:
            return max(0.0, deadline - reserve - loop.time())

        for server in started:
            await _within(server.stop(), left(SHUTDOWN_RESERVE_SECONDS))
        if application.updater is not None and application.updater.running:
            # Its last getUpdates confirms the updates taken; a Telegram that does not answer
            # cannot be told, and sends them again after the restart (each is answered again).
            await _within(application.updater.stop(), min(UPDATER_STOP_SECONDS, left()))
        senders = asyncio.ensure_future(deps.delivery.stop(grace=SENDER_GRACE_SECONDS))
        give_up = loop.call_later(DATABASE_GRACE_SECONDS, deps.db.abandon)
        try:
            if application.running:
                # (not post_stop: all it does is stop the senders, done above within their grace)
                await _stop_application(application, left(SHUTDOWN_RESERVE_SECONDS))
        finally:
            give_up.cancel()
            await senders
        await _within(application.shutdown(), left())
        # An initialize() cut short or refused (a stop while Telegram was unreachable, a rejected
        # token) leaves the bot's HTTP clients open, and PTB's shutdown skips a bot it never
        # finished initialising; closing them again is a no-op.
        await _within(application.bot.shutdown(), left())
        if application.post_shutdown is not None:
            await _within(application.post_shutdown(application), left())
        if handle_signals:
            for sig in STOP_SIGNALS:
                with contextlib.suppress(Exception):
                    loop.remove_signal_handler(sig)
    log.info("stopped cleanly")
