"""Building the bot: the PTB Application, its handlers, and the services they share.

The pieces meet here and nowhere else: handlers parse updates and call services in database
transactions (`store.db.Database`), and each commit hands its outbox chats to the senders
(`delivery.Delivery`), its next due time to the clock and the turns the bot plays at once to
their task (`jobs`).
"""

from __future__ import annotations

import logging

from sqlalchemy.engine import Engine
from telegram import LinkPreviewOptions, Update
from telegram.constants import ParseMode
from telegram.ext import Application, ApplicationBuilder, ContextTypes, Defaults, ExtBot
from telegram.request import BaseRequest

from . import jobs, logs, pacing
from .config import Settings
from .delivery.budget import Limits
from .delivery.process import Delivery
from .deps import DEPS_KEY, Deps, get_deps
from .handlers import chat_events, commands, inline, keys, own_views
from .handlers.context import TweakContext
from .handlers.menu import set_command_menus
from .http_client import AiohttpRequest
from .services.chat_events import SenderTrouble
from .store.db import AfterCommit, Database, create_all, make_engine
from .time_source import Clock, SystemClock, SystemTimer, Timer

log = logging.getLogger("tweakbot")

#: Connections to the Bot API: PTB's default for the client its builder makes.
API_CONNECTIONS = 256


def make_deps(
    settings: Settings,
    db: Engine | None = None,
    clock: Clock | None = None,
    timer: Timer | None = None,
) -> Deps:
    custom = pacing.custom_pace(settings.nudge_after, settings.deadline_after)
    database = Database(db or make_engine(settings.database_url))
    clock = clock or SystemClock()
    timer = timer or SystemTimer()
    # The senders' trouble handler needs the deps built below; the lambda looks them up when called.
    delivery = Delivery(
        database, timer, clock, SenderTrouble(lambda: deps.env()), limits=Limits.sending(settings.send_rate)
    )
    deps = Deps(
        db=database,
        delivery=delivery,
        clock=clock,
        timer=timer,
        custom_pace=custom,
        default_pace=pacing.CUSTOM if custom else pacing.DEFAULT_PACE,
        lobby_ttl=settings.lobby_ttl,
        pause_max=settings.pause_max,
    )
    return deps


class TweakApplication(Application):  # type: ignore[type-arg]
    """PTB's Application, writing one structured log line per update (tgbot/logs.py)."""

    async def process_update(self, update: object) -> None:
        token = logs.begin_update(logs.describe(update, commands.COMMAND_NAMES))
        try:
            await super().process_update(update)
        finally:
            logs.end_update(token)


async def _on_error(update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Log; a key still gets its answer so nobody is left with a spinner."""
    logs.note_error()
    log.exception("unhandled error while handling an update", exc_info=context.error)
    if isinstance(update, Update) and update.callback_query is not None:
        from .delivery import telegram_io as io

        replies = get_deps(context.bot_data).webhook_replies
        await io.answer(update.callback_query.get_bot(), update.callback_query.id, "⚠️", replies=replies)


def build_application(
    settings: Settings,
    *,
    deps: Deps | None = None,
    request: BaseRequest | None = None,
    create_tables: bool = True,
    sweep: bool = True,
    deliver: bool = True,
    webhook: bool = False,
) -> Application:  # type: ignore[type-arg]
    """The bot, ready to initialise. `create_tables` is for tests (the bot migrates instead);
    `deliver=False` leaves the outbox to another process's senders. `webhook=True` builds no
    Updater and no getUpdates client: updates arrive at the bot's own server (tgbot/web.py), and
    a second HTTP client would cost its own connection pool and TLS context (about 1 MB)."""
    deps = deps or make_deps(settings)
    defaults = Defaults(parse_mode=ParseMode.HTML, link_preview_options=LinkPreviewOptions(is_disabled=True))
    updates_request: BaseRequest
    if request is None:
        # The clients PTB's builder would make, over aiohttp (tgbot/http_client.py): a pool for
        # the Bot API calls, and one connection for getUpdates (webhook mode never calls it, and
        # shares the first).
        request = AiohttpRequest(connection_pool_size=API_CONNECTIONS)
        updates_request = request if webhook else AiohttpRequest(connection_pool_size=1)
    else:
        updates_request = request
    bot: ExtBot[None] = ExtBot(
        settings.bot_token(),
        base_url=settings.telegram_api_base_url,
        defaults=defaults,
        request=request,
        get_updates_request=updates_request,
    )
    builder = (
        ApplicationBuilder()
        .bot(bot)
        .context_types(ContextTypes(context=TweakContext))
        .concurrent_updates(True)
        .application_class(TweakApplication)
        .post_init(_post_init)
        .post_stop(_post_stop)
    )
    if webhook:
        builder = builder.updater(None)
    application = builder.build()
    application.bot_data[DEPS_KEY] = deps
    application.bot_data["tweakbot.deliver"] = deliver
    deps.db.on_commit = lambda notes: _after_commit(application, deps, notes)
    if create_tables:
        create_all(deps.db.engine)
    for handler in commands.handlers():
        application.add_handler(handler)
    for handler in keys.handlers():
        application.add_handler(handler)
    for handler in inline.handlers():
        application.add_handler(handler)
    for handler in own_views.handlers():
        application.add_handler(handler)
    for handler in chat_events.handlers():
        application.add_handler(handler, group=chat_events.GROUP)
    application.add_error_handler(_on_error)
    if sweep and application.job_queue is not None:
        # The safety net; its first run catches up on what fell due while the bot was down.
        application.job_queue.run_repeating(
            jobs.sweep_job, interval=settings.sweep_interval.total_seconds(), first=1.0, name="sweep"
        )
    return application


def _after_commit(application: Application, deps: Deps, notes: AfterCommit) -> None:  # type: ignore[type-arg]
    if notes.chats:
        deps.delivery.wake(notes.chats)
    if notes.wake_at is not None and application.running:
        jobs.schedule_wake(application, deps, notes.wake_at)
    if notes.autoplay:
        jobs.autoplay(application, deps, notes.autoplay)


async def _post_init(application: Application) -> None:  # type: ignore[type-arg]
    """Once the bot is known: its name and inline mode (getMe), the menus, the senders."""
    deps: Deps = application.bot_data[DEPS_KEY]
    me = application.bot.bot
    deps.bot_username = me.username or deps.bot_username
    deps.inline = bool(me.supports_inline_queries)
    await set_command_menus(application.bot)
    if application.bot_data.get("tweakbot.deliver", True):
        deps.delivery.start(application.bot)


async def _post_stop(application: Application) -> None:  # type: ignore[type-arg]
    deps: Deps = application.bot_data[DEPS_KEY]
    await deps.delivery.stop()
