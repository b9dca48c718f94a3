"""The Prometheus registry and its metrics, made when a process first serves them
(`tgbot.metrics.enable`): importing this module is what loads prometheus_client.

The counters live in one registry of their own (not the client's global one), so tests can
read them and a process never exports the client's default process/platform collectors twice.
Label values come from short fixed vocabularies (action names, outcome reasons, error kinds):
never a chat id, a user id or free text, which would grow without bound.
"""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST


class MetricRegistry:
    """Every metric of the bot, in a registry of their own."""

    content_type = CONTENT_TYPE_LATEST

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self.updates = Counter(
            "tweakbot_updates_handled",
            "Telegram updates handled, by action and outcome.",
            ["action", "outcome"],
            registry=self.registry,
        )
        self.moves = Counter(
            "tweakbot_moves_applied",
            "Game moves committed to the database, by source (player, idle, away, left, ai).",
            ["source"],
            registry=self.registry,
        )
        self.deliveries = Counter(
            "tweakbot_deliveries",
            "Calls made by the outbox senders, by outcome (sent, edited, flood, blocked, gone, network…).",
            ["outcome"],
            registry=self.registry,
        )
        self.outbox_waiting = Gauge(
            "tweakbot_outbox_waiting",
            "Messages waiting in the outbox, as last counted by /healthz.",
            registry=self.registry,
        )
        self.sweep_seconds = Histogram(
            "tweakbot_sweep_duration_seconds",
            "Duration of one sweep over the due games.",
            buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0),
            registry=self.registry,
        )
        self.last_sweep = Gauge(
            "tweakbot_last_sweep_timestamp_seconds",
            "Unix time at which the last sweep finished.",
            registry=self.registry,
        )

    def render(self) -> bytes:
        """The text exposition format of every metric."""
        return generate_latest(self.registry)

    def value(self, name: str, labels: dict[str, str]) -> float | None:
        return self.registry.get_sample_value(name, labels)

    def total(self, name: str) -> float:
        """The sum of a metric's samples over all label values."""
        families = self.registry.collect()
        return sum(sample.value for family in families for sample in family.samples if sample.name == name)
