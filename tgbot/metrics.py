"""Prometheus metrics, served at ``/metrics`` (see tgbot/web.py).

They are counted only in a process that serves them: `enable` is called when the bot will run an
HTTP server (webhook mode, or ``METRICS_PORT`` in polling mode), before its first update. A
polling bot without ``METRICS_PORT`` has nobody to read them, so it never imports
prometheus_client (about 0.9 MB a process would keep for its life, decisions.md B28) and its
commits run no counting listener; every function below then does nothing. The metrics
themselves are in tgbot/metric_registry.py.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sqlalchemy import event
from sqlalchemy.orm import Session

if TYPE_CHECKING:
    from .metric_registry import MetricRegistry

#: The metrics once `enable` has run.
_registry: MetricRegistry | None = None

#: Key in ``Session.info`` where a transaction collects the moves it wrote (see `note_move`).
_PENDING_MOVES = "tweakbot.pending_moves"


def enable() -> None:
    """Count from now on (idempotent)."""
    global _registry
    if _registry is not None:
        return
    from .metric_registry import MetricRegistry

    _registry = MetricRegistry()
    event.listen(Session, "after_commit", _count_committed_moves)
    event.listen(Session, "after_soft_rollback", _forget_rolled_back_moves)


def exposition() -> tuple[bytes, str]:
    """What ``/metrics`` answers: every metric in Prometheus' text format, and its content type."""
    assert _registry is not None, "a BotServer enables the metrics it serves"
    return _registry.render(), _registry.content_type


def value(name: str, labels: dict[str, str] | None = None) -> float:
    """The current value of a sample (0.0 when it has never been set, or nothing is counted)."""
    found = None if _registry is None else _registry.value(name, labels or {})
    return 0.0 if found is None else found


def total(name: str) -> float:
    """The sum of a metric's samples over all label values (e.g. every move source)."""
    return 0.0 if _registry is None else _registry.total(name)


def count_update(action: str, outcome: str) -> None:
    if _registry is not None:
        _registry.updates.labels(action=action, outcome=outcome).inc()


def observe_sweep(seconds: float, finished_at: float) -> None:
    if _registry is not None:
        _registry.sweep_seconds.observe(seconds)
        _registry.last_sweep.set(finished_at)


# --- moves: counted when their transaction commits, not when they are attempted ---------------


def note_move(session: Session, source: str) -> None:
    """Remember a move written in ``session``; it is counted if and when the session commits."""
    if _registry is not None:
        session.info.setdefault(_PENDING_MOVES, []).append(source)


def _count_committed_moves(session: Session) -> None:
    assert _registry is not None  # listened to only once enabled
    for source in session.info.pop(_PENDING_MOVES, ()):
        _registry.moves.labels(source=source).inc()


def _forget_rolled_back_moves(session: Session, _previous_transaction: Any) -> None:
    session.info.pop(_PENDING_MOVES, None)


# --- deliveries -------------------------------------------------------------------------------


def count_delivery(outcome: str) -> None:
    """One call by a sender, by what Telegram made of it (sent, edited, flood, blocked…)."""
    if _registry is not None:
        _registry.deliveries.labels(outcome=outcome).inc()


def set_outbox_waiting(count: int) -> None:
    if _registry is not None:
        _registry.outbox_waiting.set(count)
