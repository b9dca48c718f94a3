"""How the bot's transactions share the database under load (issue "Flood-proof play"): a tap never
queues behind delivery or the sweep, a read never waits for SQLite's writer, and work whose caller
has stopped waiting is never begun (the player was told nothing changed, so nothing may change)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlmodel import Session

from tests.pg import pg_url  # noqa: F401  (fixture)
from tgbot.store.db import WORKERS, Database, DatabaseTrouble, make_engine


def database(tmp_path: Path, **kw: float) -> Database:
    engine = make_engine(f"sqlite:///{tmp_path / 'lanes.sqlite3'}")
    with engine.begin() as conn:
        conn.exec_driver_sql("CREATE TABLE marks (name TEXT)")
    return Database(engine, workers=1, **kw)


def mark(name: str) -> Callable[[Session], None]:
    def work(session: Session) -> None:
        session.execute(text("INSERT INTO marks VALUES (:n)"), {"n": name})

    return work


def marks(session: Session) -> list[str]:
    return [row[0] for row in session.execute(text("SELECT name FROM marks ORDER BY rowid"))]


def blocking(release: threading.Event, started: threading.Event, *, write: bool) -> Callable[[Session], None]:
    """Work that holds its thread (and, if `write`, SQLite's write lock) until released."""

    def work(session: Session) -> None:
        if write:
            session.execute(text("INSERT INTO marks VALUES ('slow')"))
        started.set()
        release.wait(10)

    return work


async def wait_for(event: threading.Event) -> None:
    while not event.is_set():
        await asyncio.sleep(0.01)


async def test_a_tap_does_not_queue_behind_background_work(tmp_path: Path) -> None:
    db = database(tmp_path)
    release, started = threading.Event(), threading.Event()
    try:
        # both background threads busy (read-only: they hold no lock, only their threads)
        slow = [
            asyncio.ensure_future(
                db.run(blocking(release, started, write=False), background=True, read_only=True)
            )
            for _ in range(2)
        ]
        await wait_for(started)
        # behind the background work it would wait the 10 s those hold their threads
        await db.run(mark("tap"), timeout=5)
        assert await db.run(marks, read_only=True) == ["tap"]
        release.set()
        await asyncio.gather(*slow)
    finally:
        release.set()
        db.close()


async def test_a_read_does_not_wait_for_the_writer(tmp_path: Path) -> None:
    db = database(tmp_path)
    release, started = threading.Event(), threading.Event()
    try:
        writer = asyncio.ensure_future(db.run(blocking(release, started, write=True), background=True))
        await wait_for(started)
        # the write is not committed yet: the read sees the state before it, at once
        assert await db.run(marks, read_only=True, timeout=5) == []  # the writer holds on for 10 s
        release.set()
        await writer
        assert await db.run(marks, read_only=True) == ["slow"]
    finally:
        release.set()
        db.close()


async def test_work_whose_caller_gave_up_is_never_begun(tmp_path: Path) -> None:
    db = database(tmp_path)
    release, started = threading.Event(), threading.Event()
    try:
        first = asyncio.ensure_future(db.run(blocking(release, started, write=True), background=True))
        await wait_for(started)
        # begun on a free thread, waiting for SQLite's writer; its caller stops waiting after 0.2 s
        with pytest.raises(DatabaseTrouble):
            await db.run(mark("too late"), timeout=0.2)
        release.set()
        await first
        await asyncio.sleep(0.3)  # time enough for the waiting work to have run, had it gone on
        assert await db.run(marks, read_only=True) == ["slow"]
    finally:
        release.set()
        db.close()


async def test_postgres_keeps_a_connection_for_every_worker_thread(pg_url: str) -> None:  # noqa: F811
    """Under load every thread of both lanes runs a transaction at once; afterwards the pool
    still holds all their connections, so the next burst opens none (a connection beyond the
    pool's size would be closed on return and opened again for the next transaction)."""
    engine = make_engine(pg_url)
    db = Database(engine)
    foreground, background = WORKERS["postgresql"]
    everyone = threading.Barrier(foreground + background, timeout=10)

    def busy(session: Session) -> None:
        session.execute(text("SELECT 1"))
        everyone.wait()

    try:
        await asyncio.gather(
            *(db.run(busy, read_only=True) for _ in range(foreground)),
            *(db.run(busy, read_only=True, background=True) for _ in range(background)),
        )
        assert engine.pool.checkedin() == foreground + background  # type: ignore[attr-defined]
    finally:
        db.close()
        engine.dispose()


async def test_a_worker_threads_next_transaction_starts_clean(tmp_path: Path) -> None:
    """A worker thread's session serves its next transaction too (building one per transaction
    cost CPU): what a transaction noted, held or left unfinished never reaches the next one."""
    db = database(tmp_path)
    try:
        seen: list[Session] = []

        def note(session: Session) -> None:
            seen.append(session)
            session.info["noted"] = True
            session.execute(text("INSERT INTO marks VALUES ('kept')"))

        def fails(session: Session) -> None:
            seen.append(session)
            session.info["noted"] = True
            session.execute(text("INSERT INTO marks VALUES ('undone')"))
            raise RuntimeError("a bug in a service")

        def look(session: Session) -> tuple[bool, bool, list[str]]:
            seen.append(session)
            held = session.in_transaction() and bool(session.identity_map)
            return "noted" in session.info, held, marks(session)

        await db.run(note)
        with pytest.raises(RuntimeError):
            await db.run(fails)
        noted, held, found = await db.run(look)
        assert (noted, held, found) == (False, False, ["kept"])
        assert seen[0] is seen[1] is seen[2]  # one thread, one session, used again
    finally:
        db.close()


async def test_a_stopping_bot_stops_waiting_and_the_transaction_ends_on_its_own(tmp_path: Path) -> None:
    """`abandon` (the bot stops with the database slow): every caller hears DatabaseTrouble at
    once, the transaction in flight still commits, and its late answer disturbs nothing."""
    db = database(tmp_path)
    release, started = threading.Event(), threading.Event()
    try:
        waiting = asyncio.ensure_future(db.run(blocking(release, started, write=True)))
        await wait_for(started)
        db.abandon()
        with pytest.raises(DatabaseTrouble):
            await asyncio.wait_for(waiting, 1.0)
        release.set()
        await asyncio.sleep(0.2)  # the worker's answer arrives at a future already decided
        assert await db.run(marks, read_only=True) == ["slow"]
        assert await db.run(mark("after"), timeout=1.0) is None  # the bot's lanes still work
    finally:
        release.set()
        db.close()
