"""One warning line when the database stops answering, one info line when it answers again.

Every update, the senders, the sweep and /healthz meet an outage, each in its own way; an
operator's alerting must read it once, as what it is (the database, not a bug): no traceback,
no line per update. The edges are told by when the work began, not when it ended: a transaction
begun before the database went away may still commit after the first failure, and one begun
during the outage may fail (a connect timeout) after the database is back. Neither starts or
ends an outage of its own.
"""

from __future__ import annotations

import logging
import math
import sys
import time

log = logging.getLogger("tweakbot.db")


def reason(exc: BaseException) -> str:
    """The driver's error in one line ("AdminShutdown: terminating connection due to
    administrator command"): SQLAlchemy's own text adds the statement and a link, line after line."""
    error = getattr(exc, "orig", None) or exc
    lines = str(error).strip().splitlines()
    return f"{type(error).__name__}: {lines[0]}" if lines else type(error).__name__


class Outage:
    """Whether the database is answering, as the process last found out. Used on the event loop."""

    def __init__(self) -> None:
        self._down_since: float | None = None
        self._back_at = -math.inf

    @property
    def down(self) -> bool:
        return self._down_since is not None

    @staticmethod
    def now() -> float:
        """The moment work begins, as `failed` and `answered` want it."""
        return time.monotonic()

    def failed(self, exc: BaseException, began: float) -> None:
        """Work begun at `began` found the database not answering."""
        if self._down_since is None and began > self._back_at:
            self._down_since = self.now()
            log.warning(
                "the database is not answering (%s); updates get an apology until it is back", reason(exc)
            )

    def answered(self, began: float) -> None:
        """Work begun at `began` wrote to the database: only a write proves it is back (a locked
        SQLite file, or a read-only replica, still reads)."""
        if self._down_since is not None and began > self._down_since:
            self._down_since = None
            self._back_at = self.now()
            log.info("the database answers again")


class PipelineLostFilter(logging.Filter):
    """psycopg writes a warning of its own when the connection is lost inside a pipeline (the
    one SQLAlchemy's executemany runs in): "error ignored terminating <Pipeline>: the connection
    is lost". The outage has its line already, so that one is a DEBUG line (shown only where
    debug logging is on); a pipeline that ends in any other error keeps its warning."""

    MESSAGE = "error ignored terminating %r: %s"

    def filter(self, record: logging.LogRecord) -> bool:
        if record.msg == self.MESSAGE and isinstance(record.args, tuple) and len(record.args) == 2:
            lost = getattr(sys.modules.get("psycopg"), "OperationalError", None)
            if lost is not None and isinstance(record.args[1], lost):
                record.levelno, record.levelname = logging.DEBUG, "DEBUG"
                return logging.getLogger(record.name).isEnabledFor(logging.DEBUG)
        return True


def quiet_lost_pipelines() -> None:
    """Install `PipelineLostFilter` on psycopg's logger (once)."""
    psycopg_log = logging.getLogger("psycopg")
    if not any(isinstance(f, PipelineLostFilter) for f in psycopg_log.filters):
        psycopg_log.addFilter(PipelineLostFilter())
