"""Logging: one structured line per update, and secrets kept out of every log line.

The line for an update is written by the Application (tgbot/app.py) when the update is done,
whichever handler ran (or none did), so every update gets exactly one line::

    INFO tweakbot.updates update=812 chat=-100123 game=42 action=move outcome=ok ms=12.3

Handlers refine the game, action and outcome through `note_update` (the wrappers in
``handlers/seam.py`` do it for every key and command); they never log message text. Users'
texts only ever appear in PTB's own DEBUG lines. The bot token and the webhook secret are removed
from every record, at any level, by a log record factory: a line that would contain them shows
``<redacted>`` instead.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Collection, Iterable
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from telegram import Update

from . import metrics
from .errors import Outcome

UPDATE_LOG = logging.getLogger("tweakbot.updates")
LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s %(message)s"
#: Libraries that log request URLs (which contain the bot token) or routine chatter at INFO.
QUIET_LOGGERS = ("httpx", "httpcore", "apscheduler", "aiohttp.access", "alembic.runtime.plugins")
REDACTED = "<redacted>"

_COMMAND_RE = re.compile(r"^/([A-Za-z0-9_]{1,32})(?:@\w+)?(?:\s|$)")


@dataclass
class UpdateRecord:
    """What the line for the update being handled will say."""

    update_id: int | None
    chat_id: int | None
    action: str
    started: float = field(default_factory=time.perf_counter)
    game_id: int | None = None
    outcome: str = Outcome.OK
    extra: dict[str, Any] = field(default_factory=dict)

    def line(self) -> str:
        fields: dict[str, Any] = {
            "update": self.update_id,
            "chat": self.chat_id,
            "game": self.game_id,
            "action": self.action,
            "outcome": self.outcome,
            "ms": round((time.perf_counter() - self.started) * 1000, 1),
            **self.extra,
        }
        return " ".join(f"{key}={value}" for key, value in fields.items())


_current: ContextVar[UpdateRecord | None] = ContextVar("tweakbot_update", default=None)


def describe(update: object, known_commands: Collection[str] = ()) -> UpdateRecord:
    """A first description of an update: its kind (or command name), never its text."""
    if not isinstance(update, Update):
        return UpdateRecord(None, None, type(update).__name__.lower()[:32])
    chat = update.effective_chat
    action = "update"
    if update.callback_query is not None:
        action = "callback"
    elif update.message is not None and update.message.text is not None:
        match = _COMMAND_RE.match(update.message.text)
        if match is None:
            action = "text"
        else:
            name = match.group(1).lower()
            action = name if name in known_commands else "unknown_command"
    else:
        kinds = [key for key in update.to_dict() if key != "update_id"]
        if kinds:
            action = kinds[0][:32]
    return UpdateRecord(update.update_id, chat.id if chat is not None else None, action)


def begin_update(record: UpdateRecord) -> object:
    """Make ``record`` the current update's (in this task); returns a token for `end_update`."""
    return _current.set(record)


def end_update(token: object) -> UpdateRecord | None:
    """Write the update's line and count it; restores the previous context."""
    record = _current.get()
    _current.reset(token)  # type: ignore[arg-type]
    if record is not None:
        UPDATE_LOG.info("%s", record.line())
        metrics.count_update(record.action, record.outcome)
    return record


def note_update(game_id: int | None, action: str, outcome: str, **extra: Any) -> None:
    """Describe the current update (nothing to do outside one)."""
    record = _current.get()
    if record is None:
        return
    if game_id is not None:
        record.game_id = game_id
    record.action = action
    if record.outcome != Outcome.ERROR:
        record.outcome = outcome
    record.extra.update(extra)


def note_extra(**extra: Any) -> None:
    """Add fields to the current update's line (nothing to do outside one)."""
    record = _current.get()
    if record is not None:
        record.extra.update(extra)


def note_error() -> None:
    """The update ended in an unhandled exception."""
    record = _current.get()
    if record is not None:
        record.outcome = Outcome.ERROR


# --- set-up -----------------------------------------------------------------------------------


def install_redaction(secrets: Iterable[str | None]) -> None:
    """Replace ``secrets`` in every log record created from now on, whatever its level or logger."""
    hidden = tuple(sorted({s for s in secrets if s and len(s) >= 8}, key=len, reverse=True))
    if not hidden:
        return
    previous = logging.getLogRecordFactory()
    if getattr(previous, "tweakbot_hidden", None) == hidden:
        return

    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = previous(*args, **kwargs)
        try:
            message = record.getMessage()
        except Exception:  # a broken format string is the logger's problem, not ours
            return record
        if any(secret in message for secret in hidden):
            for secret in hidden:
                message = message.replace(secret, REDACTED)
            record.msg, record.args = message, None
        return record

    factory.tweakbot_hidden = hidden  # type: ignore[attr-defined]
    logging.setLogRecordFactory(factory)


class StopCleanupFilter(logging.Filter):
    """At a stop, PTB asks Telegram once more to mark the updates it fetched as read; when that
    call fails (Telegram slow or gone) PTB logs it with a traceback, on an otherwise clean stop.
    One warning line says the same: those updates may come again, and the bot handles an update
    it has seen before as a duplicate."""

    PREFIX = "Error while calling `get_updates` one more time"

    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info and str(record.msg).startswith(self.PREFIX):
            error = record.exc_info[1]
            record.msg = (
                "could not mark the last fetched updates as read at stop (%s: %s); "
                "Telegram may send them again"
            )
            record.args = (type(error).__name__, error)
            record.exc_info, record.exc_text = None, None
            record.levelno, record.levelname = logging.WARNING, "WARNING"
        return True


#: The logger PTB's `Updater` writes to.
UPDATER_LOGGER = "telegram.ext.Updater"


def setup_logging(level: str, secrets: Iterable[str | None] = ()) -> None:
    """Configure the root logger for a bot process (stderr, one line per record)."""
    logging.basicConfig(level=level, format=LOG_FORMAT, force=True)
    # LOG_FORMAT names no source line, thread or process: not looked up for every record (one
    # line per update, so on every tap). The logging HOWTO's "Optimization" settings.
    logging._srcfile = None  # type: ignore[attr-defined]
    logging.logThreads = logging.logProcesses = logging.logMultiprocessing = False
    for name in QUIET_LOGGERS:
        # httpx logs every request URL at INFO, and the URL contains the bot token.
        logging.getLogger(name).setLevel(logging.WARNING)
    updater = logging.getLogger(UPDATER_LOGGER)
    if not any(isinstance(f, StopCleanupFilter) for f in updater.filters):
        updater.addFilter(StopCleanupFilter())
    install_redaction(secrets)
