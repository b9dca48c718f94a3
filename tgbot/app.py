"""Building the PTB Application: handlers, dependencies, start-up work."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from typing import Any

from sqlalchemy.engine import Engine
from telegram import Update
from telegram.ext import (
    Application,
    ApplicationBuilder,
    BaseHandler,
    CallbackQueryHandler,
    CommandHandler,
    ContextTypes,
)
from telegram.request import BaseRequest

from . import logs
from .clock import Clock, SystemClock
from .config import Settings
from .deps import DEPS_KEY, Deps
from .handlers import chat_events, commands
from .handlers import stats as stats_handlers
from .handlers.callbacks import on_callback
from .handlers.language import language_command, set_command_menus
from .handlers.table import back_command, pause_command, quiet_command, resume_command, settings_command
from .metrics import CountingRateLimiter
from .scheduler import sweep_job
from .services import pacing
from .store.db import create_all, make_engine

log = logging.getLogger("tweakbot")

COMMANDS: dict[str, Callable[..., Any]] = {
    "start": commands.start,
    "newgame": commands.newgame,
    "cancel": commands.cancel,
    "board": commands.board,
    "leave": commands.leave,
    "help": commands.help_command,
    "rules": commands.rules,
    "language": language_command,
    "pause": pause_command,
    "resume": resume_command,
    "back": back_command,
    "quiet": quiet_command,
    "settings": settings_command,
    "stats": stats_handlers.stats_command,
    "top": stats_handlers.top_command,
    "history": stats_handlers.history_command,
}


def make_deps(settings: Settings, db: Engine | None = None, clock: Clock | None = None) -> Deps:
    custom = pacing.custom_pace(settings.nudge_after, settings.deadline_after)
    return Deps(
        db=db or make_engine(settings.database_url),
        clock=clock or SystemClock(),
        custom_pace=custom,
        default_pace=pacing.CUSTOM if custom else pacing.DEFAULT_PACE,
        lobby_ttl_seconds=int(settings.lobby_ttl.total_seconds()),
        pause_max_seconds=int(settings.pause_max.total_seconds()),
    )


async def _on_error(update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Log and, for a tap, still answer it so the user is never left with a spinner."""
    logs.note_error()
    log.exception("unhandled error while handling an update", exc_info=context.error)
    if isinstance(update, Update) and update.callback_query is not None:
        with contextlib.suppress(Exception):  # already answered, or too old to answer
            await update.callback_query.answer("⚠️", show_alert=False)


async def _post_init(application: Application) -> None:  # type: ignore[type-arg]
    """Start-up work once the bot is initialised: the command menu in every language."""
    await set_command_menus(application.bot)


class TweakApplication(Application):  # type: ignore[type-arg]
    """PTB's Application, writing one structured log line per update (tgbot/logs.py)."""

    async def process_update(self, update: object) -> None:
        token = logs.begin_update(logs.describe(update, self.command_names()))
        try:
            await super().process_update(update)
        finally:
            logs.end_update(token)

    def command_names(self) -> set[str]:
        """Every registered command, so unknown ones never become a log/metric label."""
        handlers: list[BaseHandler[Any, Any, Any]] = [h for group in self.handlers.values() for h in group]
        return {name for h in handlers if isinstance(h, CommandHandler) for name in h.commands}


def build_application(
    settings: Settings,
    *,
    deps: Deps | None = None,
    request: BaseRequest | None = None,
    rate_limiter: bool = True,
    create_tables: bool = True,
    sweep: bool = True,
) -> Application:  # type: ignore[type-arg]
    deps = deps or make_deps(settings)
    builder = ApplicationBuilder().token(settings.telegram_bot_token).base_url(settings.telegram_api_base_url)
    builder = builder.concurrent_updates(True).application_class(TweakApplication)
    builder = builder.post_init(_post_init)
    if request is not None:
        builder = builder.request(request).get_updates_request(request)
    if rate_limiter:
        # Flood control: a 429 is retried after Telegram's retry_after (DESIGN §5).
        builder = builder.rate_limiter(CountingRateLimiter(max_retries=3))  # type: ignore[arg-type]
    application = builder.build()
    application.bot_data[DEPS_KEY] = deps
    if create_tables:
        # Tests only: the bot migrates instead, before building the application (tgbot.__main__).
        create_all(deps.db)
    for name, callback in COMMANDS.items():
        application.add_handler(CommandHandler(name, callback))
    application.add_handler(CallbackQueryHandler(on_callback))
    chat_events.register(application)  # migrations, bot/players leaving, unknown input (own group)
    application.add_error_handler(_on_error)
    if sweep and application.job_queue is not None:
        # One repeating job sweeps due games; the first run catches up on anything
        # that fell due while the bot was down.
        application.job_queue.run_repeating(
            sweep_job, interval=settings.sweep_interval.total_seconds(), first=1.0, name="sweep"
        )
    return application
