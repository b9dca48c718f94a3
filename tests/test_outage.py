"""The database outage's log lines (`tgbot.store.outage`): one warning when it stops answering,
one info line when it is back, whatever order the work in flight at its edges ends in."""

from __future__ import annotations

import logging

import pytest
from sqlalchemy.exc import OperationalError

from tgbot.store.outage import Outage, reason

DROPPED = OperationalError("SELECT 1", {}, Exception("server closed the connection\nunexpectedly"))


def said(caplog: pytest.LogCaptureFixture) -> list[tuple[str, str]]:
    return [(r.levelname, r.getMessage()) for r in caplog.records if r.name == "tweakbot.db"]


def test_work_in_flight_at_an_edge_neither_ends_nor_starts_an_outage(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO)
    outage = Outage()
    before = outage.now()  # a transaction begun while all was well
    outage.failed(DROPPED, outage.now())
    outage.failed(DROPPED, outage.now())  # every other update meets it too
    outage.answered(before)  # it commits after the first failure: the database is not back
    assert outage.down
    during = outage.now()  # a connect begun during the outage...
    outage.answered(outage.now())
    outage.failed(DROPPED, during)  # ...times out after the database is back: no new outage
    assert not outage.down
    assert said(caplog) == [
        (
            "WARNING",
            "the database is not answering (Exception: server closed the connection); "
            "updates get an apology until it is back",
        ),
        ("INFO", "the database answers again"),
    ]
    outage.failed(DROPPED, outage.now())  # the next outage is one of its own
    assert len(said(caplog)) == 3 and outage.down


def test_the_reason_is_one_line() -> None:
    assert reason(DROPPED) == "Exception: server closed the connection"
    assert reason(TimeoutError()) == "TimeoutError"


@pytest.mark.parametrize("debug", [False, True])
def test_psycopgs_line_for_a_pipeline_the_outage_broke_is_a_debug_line(
    caplog: pytest.LogCaptureFixture, debug: bool
) -> None:
    import psycopg

    from tgbot.store.outage import quiet_lost_pipelines

    quiet_lost_pipelines()
    caplog.set_level(logging.DEBUG if debug else logging.INFO, logger="psycopg")
    psycopg_log = logging.getLogger("psycopg")
    psycopg_log.warning("error ignored terminating %r: %s", "<Pipeline>", psycopg.OperationalError("lost"))
    psycopg_log.warning("error ignored terminating %r: %s", "<Pipeline>", ValueError("a bug"))
    said = [(r.levelname, r.getMessage()) for r in caplog.records if r.name == "psycopg"]
    lost = [("DEBUG", "error ignored terminating '<Pipeline>': lost")] if debug else []
    assert said == [*lost, ("WARNING", "error ignored terminating '<Pipeline>': a bug")]
