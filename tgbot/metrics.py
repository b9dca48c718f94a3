"""Prometheus metrics, served at ``/metrics`` (see tgbot/web.py).

The counters live in one registry of their own (not the client's global one), so tests can
read them and a process never exports the client's default process/platform collectors twice.
Label values come from short fixed vocabularies (action names, outcome reasons, error kinds):
never a chat id, a user id or free text, which would grow without bound.
"""

from __future__ import annotations

from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST
from sqlalchemy import event
from sqlalchemy.orm import Session

REGISTRY = CollectorRegistry(auto_describe=True)
CONTENT_TYPE = CONTENT_TYPE_LATEST

UPDATES = Counter(
    "tweakbot_updates_handled",
    "Telegram updates handled, by action and outcome.",
    ["action", "outcome"],
    registry=REGISTRY,
)
MOVES = Counter(
    "tweakbot_moves_applied",
    "Game moves committed to the database, by source (player, idle, away, left, ai).",
    ["source"],
    registry=REGISTRY,
)
DELIVERIES = Counter(
    "tweakbot_deliveries",
    "Calls made by the outbox senders, by outcome (sent, edited, flood, blocked, gone, network…).",
    ["outcome"],
    registry=REGISTRY,
)
OUTBOX_WAITING = Gauge(
    "tweakbot_outbox_waiting",
    "Messages waiting in the outbox, as last counted by /healthz.",
    registry=REGISTRY,
)
SWEEP_SECONDS = Histogram(
    "tweakbot_sweep_duration_seconds",
    "Duration of one sweep over the due games.",
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0),
    registry=REGISTRY,
)
LAST_SWEEP = Gauge(
    "tweakbot_last_sweep_timestamp_seconds",
    "Unix time at which the last sweep finished.",
    registry=REGISTRY,
)

#: Key in ``Session.info`` where a transaction collects the moves it wrote (see `note_move`).
_PENDING_MOVES = "tweakbot.pending_moves"


def render() -> bytes:
    """The text exposition format of every metric."""
    return generate_latest(REGISTRY)


def value(name: str, labels: dict[str, str] | None = None) -> float:
    """The current value of a sample (0.0 when it has never been set): for tests and /healthz."""
    found = REGISTRY.get_sample_value(name, labels or {})
    return 0.0 if found is None else found


def total(name: str) -> float:
    """The sum of a metric's samples over all label values (e.g. every move source)."""
    return sum(
        sample.value for family in REGISTRY.collect() for sample in family.samples if sample.name == name
    )


def count_update(action: str, outcome: str) -> None:
    UPDATES.labels(action=action, outcome=outcome).inc()


def observe_sweep(seconds: float, finished_at: float) -> None:
    SWEEP_SECONDS.observe(seconds)
    LAST_SWEEP.set(finished_at)


# --- moves: counted when their transaction commits, not when they are attempted ---------------


def note_move(session: Session, source: str) -> None:
    """Remember a move written in ``session``; it is counted if and when the session commits."""
    session.info.setdefault(_PENDING_MOVES, []).append(source)


@event.listens_for(Session, "after_commit")
def _count_committed_moves(session: Session) -> None:
    for source in session.info.pop(_PENDING_MOVES, ()):
        MOVES.labels(source=source).inc()


@event.listens_for(Session, "after_soft_rollback")
def _forget_rolled_back_moves(session: Session, _previous_transaction: Any) -> None:
    session.info.pop(_PENDING_MOVES, None)


# --- deliveries -------------------------------------------------------------------------------


def count_delivery(outcome: str) -> None:
    """One call by a sender, by what Telegram made of it (sent, edited, flood, blocked…)."""
    DELIVERIES.labels(outcome=outcome).inc()


def set_outbox_waiting(count: int) -> None:
    OUTBOX_WAITING.set(count)
