"""The database: engines for SQLite (default) and PostgreSQL, transactions, and running them
off the event loop.

Every transaction runs in a worker thread (`Database.run`) with a time limit, so a slow or hung
database slows only the updates that need it: the event loop keeps answering taps from other
chats, `/healthz` and the senders (DESIGN §5).

Games are serialised in the database, never in process memory: on SQLite every transaction
starts with ``BEGIN IMMEDIATE`` (one writer at a time, taken up front, so two transactions never
both read and then fight over the write lock), and on PostgreSQL a service locks the game row it
changes (`lock_game`) for the rest of its transaction.
"""

from __future__ import annotations

import asyncio
import math
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, TypeVar

from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlalchemy.exc import DBAPIError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from sqlalchemy.orm import Session as OrmSession
from sqlmodel import Session, SQLModel, create_engine

from ..errors import DatabaseTrouble
from .outage import Outage, quiet_lost_pipelines

__all__ = ["Database", "DatabaseTrouble"]

T = TypeVar("T")

#: Seconds one transaction may take before the update that needed it gives up.
TRANSACTION_SECONDS = 8.0
#: PostgreSQL gives up on a statement or a lock wait itself well before that.
STATEMENT_TIMEOUT_MS = 5000
LOCK_TIMEOUT_MS = 4000
SQLITE_BUSY_SECONDS = 5
#: Execution option of the engine that runs read-only transactions.
READ_ONLY = "tweakbot_read_only"
#: Worker threads per lane (`Database`): taps and commands, then delivery and the sweep.
WORKERS = {"sqlite": (4, 2), "postgresql": (12, 4)}


def make_engine(url: str, echo: bool = False) -> Engine:
    """An engine tuned for the bot's short transactions (see the module docstring)."""
    if url.startswith("sqlite"):
        engine = create_engine(
            url, echo=echo, connect_args={"check_same_thread": False, "timeout": SQLITE_BUSY_SECONDS}
        )

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
            dbapi_conn.isolation_level = None  # SQLAlchemy's "begin" below starts transactions
            cursor = dbapi_conn.cursor()
            if ":memory:" not in url:
                cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.close()

        @event.listens_for(engine, "begin")
        def _begin_immediate(conn: Any) -> None:
            # A read-only transaction (READ_ONLY below) needs no write lock: WAL readers never wait.
            begin = "BEGIN" if conn.get_execution_options().get(READ_ONLY) else "BEGIN IMMEDIATE"
            if conn.dispatch.before_cursor_execute or conn.dispatch.after_cursor_execute:
                conn.exec_driver_sql(begin)  # watched (a test, a benchmark's trace): seen as before
            else:
                # SQLAlchemy's statement path (an execution context, its events, a result) cost
                # more CPU than the BEGIN itself, on every transaction: the driver sends it.
                try:
                    conn.connection.dbapi_connection.execute(begin)
                except sqlite3.Error as exc:  # as SQLAlchemy's path raises it ("database is locked")
                    raise DBAPIError.instance(begin, (), exc, sqlite3.Error) from exc

        return engine
    quiet_lost_pipelines()  # a connection lost in a pipeline: the outage's own line says it
    return create_engine(
        url,
        echo=echo,
        # A connection kept for every worker thread: under load no thread opens and closes its
        # own (an overflow connection is closed as soon as it is returned); a few spare for the
        # health check and start-up.
        pool_size=sum(WORKERS["postgresql"]),
        max_overflow=4,
        pool_timeout=TRANSACTION_SECONDS,
        connect_args={
            "connect_timeout": 5,  # fail fast when the server is down
            "options": f"-c statement_timeout={STATEMENT_TIMEOUT_MS} -c lock_timeout={LOCK_TIMEOUT_MS}",
        },
    )


def outbox_waiting(engine: Engine) -> int:
    """Messages waiting to be sent (and so proof that the database answers), counted on the raw
    driver connection, outside any transaction: on SQLite the bot's transactions take the write
    lock first (`BEGIN IMMEDIATE`), and a health check must not wait behind a writer.

    A connection that failed is invalidated, not handed back: the pool would reset it, the reset
    of a connection the server dropped fails too, and the pool logs that with a traceback (the
    SQLAlchemy statements of a transaction invalidate such a connection themselves; this one
    bypasses them)."""
    connection = engine.raw_connection()
    try:
        cursor = connection.cursor()
        cursor.execute("SELECT count(*) FROM outbox")
        row = cursor.fetchone()
        cursor.close()
        count = row[0] if row is not None else 0
        if engine.dialect.name != "sqlite":
            connection.rollback()
        return int(count)
    except Exception as exc:
        connection.invalidate(exc)
        raise
    finally:
        connection.close()


def create_all(engine: Engine) -> None:
    """Create tables directly, for tests; the bot migrates instead (tgbot.migrations.upgrade)."""
    from . import models  # noqa: F401  (registers the tables)

    SQLModel.metadata.create_all(engine)


@contextmanager
def transaction(session: Session) -> Iterator[Session]:
    """One transaction on `session`: commit on success, roll back on any error; closed after."""
    try:
        yield session
        session.commit()
    except BaseException:
        session.rollback()
        raise
    finally:
        session.close()


@contextmanager
def session_scope(engine: Engine) -> Iterator[Session]:
    """One transaction on a session of its own."""
    with transaction(Session(engine, expire_on_commit=False)) as session:
        yield session


def write_now(session: OrmSession) -> None:
    """The transaction's changes so far go to the database now: the plain (Core) statements that
    read after this do not flush them first, as the ORM's own reads do."""
    session.flush()


def writes_held(session: OrmSession) -> AbstractContextManager[object]:
    """Inside it, the ORM's reads do not flush what the transaction changed so far: the game's
    changes of a whole use case go out as one UPDATE at its end (its version's compare-and-set)."""
    return session.no_autoflush


def savepoint(session: OrmSession) -> AbstractContextManager[object]:
    """A savepoint: a refusal inside it undoes what the use case began, and keeps what came
    before."""
    return session.begin_nested()


def is_postgres(session: OrmSession) -> bool:
    bind = session.bind or session.get_bind()  # the engine it was made with (asked on every tap)
    return bind.dialect.name == "postgresql"


# --- what a committed transaction asks the process to do next ----------------------------------

_NOTES = "tweakbot.after_commit"


@dataclass
class AfterCommit:
    """Work a transaction leaves for after its commit: chats with new outbox rows to deliver,
    the earliest moment a game must be looked at again (the turn clock's next wake), and the
    games whose next move the bot plays at once (a computer's, an away player's)."""

    #: chat id -> the most urgent priority written for it (a sender waiting for its budget is
    #: only disturbed by something more urgent than what it waits with)
    chats: dict[int, int] = field(default_factory=dict)
    wake_at: datetime | None = None
    #: game id -> the version its move is to be played at (`services.autoplay`)
    autoplay: dict[int, int] = field(default_factory=dict)

    def wrote(self, chat_id: int, priority: int) -> None:
        self.chats[chat_id] = min(priority, self.chats.get(chat_id, priority))


def after_commit(session: Session) -> AfterCommit:
    notes = session.info.get(_NOTES)
    if notes is None:
        notes = session.info[_NOTES] = AfterCommit()
    assert isinstance(notes, AfterCommit)
    return notes


#: Errors that mean "the database is not there right now", as opposed to a bug.
_OUTAGE_ERRORS = (OperationalError, PoolTimeout, TimeoutError)


class Database:
    """Transactions run in worker threads, with a time limit, and what they leave for after the
    commit handed to `on_commit` (the sender and the clock) on the event loop."""

    def __init__(
        self,
        engine: Engine,
        *,
        workers: int | None = None,
        timeout: float = TRANSACTION_SECONDS,
        on_commit: Callable[[AfterCommit], None] | None = None,
    ) -> None:
        self.engine = engine
        self.timeout = timeout
        self.on_commit = on_commit
        sqlite = engine.dialect.name == "sqlite"
        # Two lanes: what a person waits for (taps, commands) never queues behind the senders and
        # the sweep, which have threads of their own.
        foreground, background = WORKERS["sqlite" if sqlite else "postgresql"]
        self._pool = ThreadPoolExecutor(max_workers=workers or foreground, thread_name_prefix="db")
        self._background = ThreadPoolExecutor(max_workers=background, thread_name_prefix="db-bg")
        self._reader = engine.execution_options(**{READ_ONLY: True})
        if not sqlite:
            # Each statement reads its own snapshot under READ COMMITTED, in a transaction or
            # not; read-only work in one gains nothing from its BEGIN and COMMIT but two round
            # trips to the server (psycopg sends the BEGIN on its own).
            self._reader = self._reader.execution_options(isolation_level="AUTOCOMMIT")
        # SQLite has one writer at a time: the threads take turns here, woken the moment the
        # writer before them is done, instead of polling the file lock in SQLite's busy handler.
        self._write_lock = threading.Lock() if sqlite else None
        self._local = threading.local()  # each worker thread's sessions (`_session_scope`)
        #: Whether the database answers, for the one log line an outage gets (updates, the
        #: senders, the sweep and /healthz all report to it).
        self.outage = Outage()
        self._waiters: set[asyncio.Future[Any]] = set()
        self._count = threading.Lock()
        self._running = 0  # transactions inside worker threads now

    async def run(
        self,
        work: Callable[[Session], T],
        *,
        timeout: float | None = None,
        background: bool = False,
        read_only: bool = False,
    ) -> T:
        """`work(session)` in one transaction, off the event loop; DatabaseTrouble when the
        database fails or takes longer than `timeout` seconds, or the bot stops waiting for it.

        `background`: delivery and the sweep, on their own threads. `read_only`: the work writes
        nothing (on SQLite it then runs beside the writer; on PostgreSQL outside a transaction,
        each statement on its own snapshot, as READ COMMITTED reads it inside one)."""
        loop = asyncio.get_running_loop()
        pool = self._background if background else self._pool
        seconds = timeout or self.timeout
        # The worker does not begin work its caller has stopped waiting for (it queued too long).
        began = self.outage.now()
        deadline = time.monotonic() + seconds
        future = loop.run_in_executor(pool, self._transaction, work, read_only, deadline)
        # The time limit (and `abandon`) cancel the future: a job not begun is dropped, a running
        # transaction ends on its own. What `asyncio.wait` with a second future did before, at a
        # measurable share of a tap's CPU.
        timer = loop.call_later(seconds, future.cancel)
        self._waiters.add(future)
        try:
            try:
                result, notes = await future
            except asyncio.CancelledError:
                task = asyncio.current_task()
                if task is not None and task.cancelling():
                    raise  # the caller itself is being cancelled
                raise TimeoutError("the database did not answer in time") from None
        except _OUTAGE_ERRORS as exc:
            self.outage.failed(exc, began)
            raise DatabaseTrouble(type(exc).__name__) from exc
        except DBAPIError as exc:
            if not exc.connection_invalidated:
                raise
            self.outage.failed(exc, began)
            raise DatabaseTrouble(type(exc).__name__) from exc
        finally:
            timer.cancel()
            self._waiters.discard(future)
        if self.outage.down and not read_only:
            self.outage.answered(began)
        if self.on_commit is not None and (notes.chats or notes.wake_at is not None or notes.autoplay):
            self.on_commit(notes)
        return result

    def _transaction(
        self, work: Callable[[Session], T], read_only: bool = False, deadline: float = math.inf
    ) -> tuple[T, AfterCommit]:
        with self._count:
            self._running += 1
        lock = None if read_only else self._write_lock
        try:
            left = min(deadline - time.monotonic(), self.timeout)
            if left <= 0 or (lock is not None and not lock.acquire(timeout=left)):
                raise TimeoutError("the database is busy")
            try:
                with self._session_scope(read_only) as session:
                    result = work(session)
                    notes = after_commit(session)
                return result, notes
            finally:
                if lock is not None:
                    lock.release()
        finally:
            with self._count:
                self._running -= 1

    @contextmanager
    def _session_scope(self, read_only: bool) -> Iterator[Session]:
        """`session_scope` on the worker thread's own session, used again by its next transaction.

        A session closed after its transaction holds nothing (no connection, no objects) and can
        begin another; building a new one for every transaction (its identity map, its registry
        entry) was a measurable share of a tap's CPU. What a transaction noted in `Session.info`
        is cleared before the next begins."""
        sessions: dict[bool, Session] | None = getattr(self._local, "sessions", None)
        if sessions is None:
            sessions = self._local.sessions = {}
        session = sessions.get(read_only)
        if session is None:
            engine = self._reader if read_only else self.engine
            session = sessions[read_only] = Session(engine, expire_on_commit=False)
        session.info.clear()
        with transaction(session):
            yield session

    def abandon(self) -> None:
        """Stop waiting for every transaction in flight (the bot is stopping and the database is
        slow): their callers get DatabaseTrouble now; the transactions end on their own."""
        for waiter in list(self._waiters):
            waiter.cancel()

    def busy(self) -> bool:
        """A transaction is still running in a worker thread."""
        with self._count:
            return self._running > 0

    def shutdown(self, *, wait: bool = False) -> None:
        """No new transactions; `wait`: until those running now are done."""
        self._pool.shutdown(wait=wait, cancel_futures=not wait)
        self._background.shutdown(wait=wait, cancel_futures=not wait)

    def close(self) -> None:
        self.shutdown()
        self.engine.dispose()
