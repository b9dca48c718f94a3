"""A real PostgreSQL stopped under load and started again: the log reads one warning for the
outage and one info line when the database is back; no error, no traceback (an operator's
alerting reads a traceback as a bug), on the tap path and on /healthz alike.

The server is a throwaway cluster of the test's own (`tests/pg_cluster.py`): the machine's shared
server is never stopped.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Iterator

import pytest
from sqlalchemy.engine import Engine

from tests.fakes import FakeTelegram
from tests.pg_cluster import Cluster, throwaway_cluster
from tgbot.store.db import create_all, make_engine, outbox_waiting
from tgbot.web import SECRET_HEADER

from .conftest import served
from .test_web import SECRET, webhook_settings

DOWN = "the database is not answering"
BACK = "the database answers again"


@pytest.fixture
def cluster() -> Iterator[Cluster]:
    with throwaway_cluster() as running:
        yield running


def troubles(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    """What an operator's alerting would read as a failure: errors, and anything with a traceback."""
    return [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info or r.exc_text]


def lines(caplog: pytest.LogCaptureFixture, text: str) -> list[logging.LogRecord]:
    return [r for r in caplog.records if text in r.getMessage()]


async def test_a_postgres_outage_under_load_logs_one_warning_and_one_line_when_back(
    cluster: Cluster, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    fake = FakeTelegram()
    people = [fake.user(i, f"P{i}") for i in range(1, 6)]
    group = fake.group("Friends")
    async with served(cluster.url, webhook=True, fake=fake, **webhook_settings()) as bot:
        await bot.until(lambda: fake.webhook is not None)
        url = bot.url("/telegram/hook")
        headers = {"Content-Type": "application/json", SECRET_HEADER: SECRET}

        async def post(update: dict[str, object]) -> None:
            with contextlib.suppress(Exception):  # the load only needs to be there
                answer = await bot.http.post(url, content=json.dumps(update), headers=headers)
                await fake.webhook_reply(
                    answer.status_code, answer.headers.get("content-type"), answer.content
                )

        await post(fake.command_update(group, people[0], "/newgame@tweak_test_bot"))
        await bot.until(lambda: bool(fake.messages(group.id)))
        lobby = fake.last_message(group.id)
        gid = next(d for _t, d in lobby.buttons if d and d.startswith("lj:")).split(":")[1]
        stopping = asyncio.Event()  # the load ends its requests (cut off, one would read as junk)

        async def load(person: int) -> None:
            user = people[person]
            step = 0
            while not stopping.is_set():
                step += 1
                data = f"lj:{gid}" if step % 2 else f"ll:{gid}"
                await post(fake.callback_update(user, lobby, data))
                await post(fake.command_update(group, user, "/rules@tweak_test_bot"))
                await asyncio.sleep(0.02)

        async def health() -> None:
            while not stopping.is_set():
                with contextlib.suppress(Exception):
                    await bot.http.get(bot.url("/healthz"))
                await asyncio.sleep(0.1)

        workers = [asyncio.create_task(load(i)) for i in range(len(people))]
        monitor = asyncio.create_task(health())
        try:
            await asyncio.sleep(1.5)
            assert not lines(caplog, DOWN)
            # The server goes away while the updates keep coming...
            await asyncio.to_thread(cluster.stop, "fast")
            # (/healthz first finds its pooled connection dropped: the pool's reset of it fails)
            assert (await bot.http.get(bot.url("/healthz"))).status_code == 503
            await asyncio.sleep(3)
            assert len(lines(caplog, DOWN)) == 1
            # ...and comes back.
            await asyncio.to_thread(cluster.start)
            await bot.until(lambda: bool(lines(caplog, BACK)), 20)
            await asyncio.sleep(1)
            assert (await bot.http.get(bot.url("/healthz"))).status_code == 200
        finally:
            stopping.set()
            await asyncio.gather(*workers, monitor, return_exceptions=True)
    assert troubles(caplog) == [], [r.getMessage() for r in troubles(caplog)]
    down, back = lines(caplog, DOWN), lines(caplog, BACK)
    assert [r.levelno for r in down] == [logging.WARNING]
    assert [r.levelno for r in back] == [logging.INFO]
    # No other warning speaks of the outage (one per update, one per /healthz poll).
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert warnings == down, [r.getMessage() for r in warnings]


@pytest.fixture
def engine(cluster: Cluster) -> Iterator[Engine]:
    engine = make_engine(cluster.url)
    create_all(engine)
    try:
        yield engine
    finally:
        engine.dispose()


def test_the_health_checks_dropped_connection_is_not_reset_with_a_traceback(
    cluster: Cluster, engine: Engine, caplog: pytest.LogCaptureFixture
) -> None:
    """The health check's raw connection waits in the pool; the server drops it. Resetting it on
    its way back would fail too, and the pool logs that with a traceback: it is invalidated."""
    caplog.set_level(logging.DEBUG, logger="sqlalchemy.pool")
    assert outbox_waiting(engine) == 0
    cluster.stop("fast")
    for _ in range(3):
        with pytest.raises(Exception):  # noqa: B017 (whatever the driver raises)
            outbox_waiting(engine)
    cluster.start()
    assert outbox_waiting(engine) == 0
    assert troubles(caplog) == [], [r.getMessage() for r in troubles(caplog)]
