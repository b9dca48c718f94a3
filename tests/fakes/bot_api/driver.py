"""Running a real PTB Application over the fake: processing updates, settling, virtual time."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Collection, Iterable, Mapping
from typing import Any, Self

from telegram import Update
from telegram.ext import Application

from tests.fakes.bot_api.executor import ExecutorWatch
from tests.fakes.bot_api.records import ApiCall
from tests.fakes.bot_api.server import FakeTelegram
from tests.fakes.timer import VirtualTimer

#: ``settle()`` with a virtual timer refuses to run virtual time further than this (seconds).
VIRTUAL_SETTLE_LIMIT = 3600.0
_QUIESCE_ROUNDS = 200


def _task_label(task: asyncio.Task[Any]) -> str:
    coro = task.get_coro()
    where = getattr(coro, "__qualname__", None)
    return f"{task.get_name()} ({where})" if where else task.get_name()


#: Real seconds a settle may take before it names the tasks still running: a guard against a
#: hang, not a measure of speed. Generous, because one update may run a long burst of computer
#: moves (Hard thinks up to ~50 ms each) on a machine whose other core another job has.
SETTLE_TIMEOUT = 30.0


class AppDriver:
    """Drives a real Application with updates from the fake and waits until it has finished.

    ``TelegramTestClient`` adds what people do (``client.py``); this is the machinery under it.

    * ``start=True`` runs ``post_init``/``Application.start()`` like ``run_polling`` does (without
      the Updater), so ``Application.create_task`` tasks are tracked and the error path is real.
    * ``pause_jobs=True`` pauses the JobQueue's scheduler right after starting, so repeating jobs
      (the sweep) never fire on the wall clock mid-test; run one deterministically with ``run_job``.
    * ``raise_errors=True`` re-raises any exception that reached the Application's error
      handlers, so a crashing handler fails the test instead of only being logged.
    * ``timer`` (a ``VirtualTimer``; default: the fake's timer if it is one) puts waiting on
      virtual time. ``settle`` moves it to the next wake whenever the tasks it waits for can only
      go on once time passes: the loop is idle (nothing ready to run, no thread-pool work such as
      a database call in flight) and at least one of them is parked on the timer; at most
      ``virtual_limit`` seconds per settle. ``advance(s)`` moves it on by hand, one wake at a time;
      ``stop()`` lets parked tasks run out (PTB waits for its ``create_task`` tasks) and cancels
      what still sleeps past the limit. Real ``asyncio.sleep`` calls do not hold virtual time back.
    * ``ignore_tasks`` marks long-lived tasks (e.g. a per-chat outbox worker that idles on a
      queue) that ``settle`` must never wait for, wherever they were started.
    """

    def __init__(
        self,
        app: Application[Any, Any, Any, Any, Any, Any],
        fake: FakeTelegram,
        *,
        start: bool = True,
        pause_jobs: bool = True,
        raise_errors: bool = True,
        settle_timeout: float = SETTLE_TIMEOUT,
        timer: VirtualTimer | None = None,
        virtual_limit: float = VIRTUAL_SETTLE_LIMIT,
        ignore_tasks: Callable[[asyncio.Task[Any]], bool] | None = None,
    ) -> None:
        self.app = app
        self.fake = fake
        self.errors: list[BaseException] = []
        if timer is None and isinstance(fake.timer, VirtualTimer):
            timer = fake.timer
        self.timer = timer
        self._start = start
        self._pause_jobs = pause_jobs
        self._raise_errors = raise_errors
        self._settle_timeout = settle_timeout
        self._virtual_limit = virtual_limit
        self.ignore_tasks = ignore_tasks
        self._executor = ExecutorWatch()

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.stop()

    async def start(self) -> None:
        if self.timer is not None:
            self._executor.start()
        self.app.add_error_handler(self._collect_error)
        await self.app.initialize()
        if self._start:
            if self.app.post_init:
                await self.app.post_init(self.app)
            await self.app.start()
            if self._pause_jobs and self.app.job_queue is not None:
                self.app.job_queue.scheduler.pause()

    async def stop(self) -> None:
        """Stop like ``run_polling`` does; on virtual time, time runs on meanwhile (PTB waits for
        its ``create_task`` tasks, a flush may pace itself), and what still sleeps past
        ``virtual_limit`` is cancelled, so a test's exit cannot hang on a parked task."""
        if self.timer is None:
            await self._stop_app()
        else:
            try:
                await self._run_out(self._stop_app())
            finally:
                self._executor.stop()

    async def _stop_app(self) -> None:
        if self.app.running:
            await self.app.stop()
            if self.app.post_stop:
                await self.app.post_stop(self.app)
        await self.app.shutdown()
        if self._start and self.app.post_shutdown:
            await self.app.post_shutdown(self.app)
        self.app.remove_error_handler(self._collect_error)

    async def _collect_error(self, update: object, context: Any) -> None:
        self.errors.append(context.error)

    # -- processing --------------------------------------------------------------------------------

    async def process(self, update: Mapping[str, Any] | Update) -> list[ApiCall]:
        """Process one update to the end; returns the API calls it caused (for budget checks)."""
        if not isinstance(update, Update):
            update = self.fake.to_update(update, self.app.bot)
        return await self._run(self.app.process_update(update))

    async def process_many(self, updates: Iterable[Mapping[str, Any] | Update]) -> list[ApiCall]:
        """Submit several updates at once and settle once, like PTB's update fetcher does.

        Each update goes through the Application's update processor, so ``concurrent_updates``
        decides how many run at a time (one at a time, in order, without it). Returns every API
        call they caused.
        """
        parsed = [u if isinstance(u, Update) else self.fake.to_update(u, self.app.bot) for u in updates]
        processor = self.app.update_processor
        first_call, first_error = len(self.fake.calls), len(self.errors)
        baseline = asyncio.all_tasks()
        tasks = [
            asyncio.create_task(
                processor.process_update(update, self.app.process_update(update)),
                name=f"TelegramTestClient:update:{update.update_id}",
            )
            for update in parsed
        ]
        await self.settle(baseline)  # not gather(): settle's timeout applies, and it drives virtual time
        for task in tasks:
            task.result()
        return self._finish(first_call, first_error)

    async def _run(self, work: Awaitable[Any]) -> list[ApiCall]:
        first_call, first_error = len(self.fake.calls), len(self.errors)
        baseline = asyncio.all_tasks()
        if self.timer is None:
            await work
            await self.settle(baseline)
        else:
            # On virtual time the work itself may park on the timer, so it runs as a task that
            # settle drives like any other.
            task = asyncio.ensure_future(work)
            task.set_name("TelegramTestClient:work")
            await self.settle(baseline)
            task.result()
        return self._finish(first_call, first_error)

    def _finish(self, first_call: int, first_error: int) -> list[ApiCall]:
        new_errors = self.errors[first_error:]
        if self._raise_errors and new_errors:
            raise new_errors[0]
        return self.fake.calls[first_call:]

    def _pending(
        self, ignore: Collection[asyncio.Task[Any]], me: asyncio.Task[Any] | None
    ) -> list[asyncio.Task[Any]]:
        return [
            t
            for t in asyncio.all_tasks()
            if t is not me
            and t not in ignore
            and not t.done()
            and not (self.ignore_tasks is not None and self.ignore_tasks(t))
        ]

    async def settle(
        self, baseline: set[asyncio.Task[Any]] | None = None, timeout: float | None = None
    ) -> None:
        """Wait for every task started after ``baseline`` (PTB's create_task, block=False handlers).

        Looks at all asyncio tasks, not only PTB's tracked set: PTB only tracks ``create_task``
        while the Application is running, and handlers may use ``asyncio.create_task`` directly.
        ``timeout`` is in real seconds. With a virtual timer, whenever the event loop is idle and
        some of those tasks are parked on the timer (the rest waiting, e.g. on a lock a parked task
        holds), virtual time jumps to the next wake -- of any sleeper, so earlier wakes of older
        tasks happen in order too -- until they are all done; past ``virtual_limit`` virtual
        seconds it fails, naming the tasks.
        """
        if self.timer is not None:
            await self._drive(baseline or set(), until=None, timeout=timeout)
            return
        loop = asyncio.get_running_loop()
        ignore = baseline if baseline is not None else set()
        deadline = loop.time() + (self._settle_timeout if timeout is None else timeout)
        me = asyncio.current_task()
        while True:
            await asyncio.sleep(0)
            pending = self._pending(ignore, me)
            if not pending:
                return
            remaining = deadline - loop.time()
            if remaining <= 0:
                names = ", ".join(sorted(t.get_name() for t in pending))
                raise AssertionError(f"tasks still running after the update was processed: {names}")
            await asyncio.wait(pending, timeout=remaining)

    async def advance(self, seconds: float) -> list[ApiCall]:
        """Move virtual time ``seconds`` on, stopping at every wake in between to let tasks run.

        At each step the woken tasks (and any they start) run until they are done or parked
        again; tasks started meanwhile are waited for like in ``settle``. Returns the API calls
        made meanwhile.
        """
        timer = self._virtual_timer()
        if seconds < 0:
            raise ValueError(f"virtual time only moves forward (advance({seconds}))")
        first_call, first_error = len(self.fake.calls), len(self.errors)
        await self._drive(asyncio.all_tasks(), until=timer.monotonic() + seconds, timeout=None)
        return self._finish(first_call, first_error)

    def _virtual_timer(self) -> VirtualTimer:
        if self.timer is None:
            raise AssertionError("this needs virtual time: TelegramTestClient(..., timer=VirtualTimer())")
        return self.timer

    async def _quiesce(self, deadline: float) -> bool:
        """Let the loop run until it is idle: nothing ready to run and no thread-pool work in
        flight (``run_in_executor``); True once it is, False if it stays busy or time runs out.

        Reads CPython's queue of ready callbacks (``loop._ready``, private, best effort); without
        it, a fixed number of rounds stands in for "nothing ready".
        """
        loop = asyncio.get_running_loop()
        ready = getattr(loop, "_ready", None)
        for _ in range(_QUIESCE_ROUNDS):
            await asyncio.sleep(0)
            if ready is None or ready:
                continue
            if not self._executor.jobs:
                return True
            remaining = deadline - loop.time()
            if remaining <= 0:
                return False
            await asyncio.wait(
                set(self._executor.jobs), timeout=remaining, return_when=asyncio.FIRST_COMPLETED
            )
        return ready is None and not self._executor.jobs

    async def _drive(
        self, ignore: Collection[asyncio.Task[Any]], *, until: float | None, timeout: float | None
    ) -> None:
        """Run the loop, moving virtual time whenever only that lets the awaited tasks go on.

        ``until=None`` is ``settle``: finish when every task outside ``ignore`` is done, failing
        past the virtual limit. Otherwise it is ``advance``: step through every wake up to
        ``until``, then finish once the new tasks are done or parked beyond it.
        """
        timer = self._virtual_timer()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + (self._settle_timeout if timeout is None else timeout)
        limit = until if until is not None else timer.monotonic() + self._virtual_limit
        me = asyncio.current_task()
        while True:
            idle = await self._quiesce(deadline)
            pending = self._pending(ignore, me)
            parked = [t for t in pending if timer.is_parked(t)]
            if loop.time() > deadline and (pending or until is not None):
                if not pending:
                    raise AssertionError(
                        f"advance() ran out of real time at virtual t={timer.monotonic()} "
                        f"(next wake {timer.next_wake()}, target {until})"
                    )
                raise AssertionError(self._stuck_message(pending, ignore, timer))
            if idle and (parked or (until is not None and not pending)):
                wake = timer.next_wake()
                if wake is not None and wake <= limit:
                    timer.advance_to(max(wake, timer.monotonic()))
                    continue
                if until is not None:
                    if timer.monotonic() < until:
                        timer.advance_to(until)
                        continue
                    return
                waits = ", ".join(f"{_task_label(t)} until {timer.wake_of(t)}" for t in parked)
                raise AssertionError(
                    f"settle() stops at {self._virtual_limit} virtual seconds (t={limit}); "
                    f"tasks still parked on the virtual timer: {waits}"
                )
            if not pending and until is None:
                return
            running = [t for t in pending if not timer.is_parked(t)]
            if not idle or not running:
                continue  # something else is still busy: let it run first
            signal = timer.next_park()
            try:
                await asyncio.wait(
                    [*running, signal],
                    timeout=max(0.0, deadline - loop.time()),
                    return_when=asyncio.FIRST_COMPLETED,
                )
            finally:
                signal.cancel()

    async def _run_out(self, work: Awaitable[None]) -> None:
        """Await ``work`` while waking every sleeper whenever the loop is idle, as real time
        would; past the virtual limit or the real timeout, cancel whatever is still parked."""
        timer = self._virtual_timer()
        loop = asyncio.get_running_loop()
        task = asyncio.ensure_future(work)
        deadline = loop.time() + self._settle_timeout
        limit = timer.monotonic() + self._virtual_limit
        while not task.done():
            idle = await self._quiesce(deadline)
            if task.done():
                break
            wake = timer.next_wake()
            if idle and wake is not None:
                if wake <= limit and loop.time() < deadline:
                    timer.advance_to(max(wake, timer.monotonic()))
                    continue
                parked = timer.parked_tasks()
                for each in parked:
                    each.cancel()
                if parked:
                    continue
            if loop.time() >= deadline:
                break
            if not idle:
                continue
            signal = timer.next_park()
            try:
                await asyncio.wait(
                    [task, signal],
                    timeout=max(0.0, deadline - loop.time()),
                    return_when=asyncio.FIRST_COMPLETED,
                )
            finally:
                signal.cancel()
        await task

    def _stuck_message(
        self, pending: list[asyncio.Task[Any]], ignore: Collection[asyncio.Task[Any]], timer: VirtualTimer
    ) -> str:
        names = ", ".join(sorted(t.get_name() for t in pending))
        message = f"tasks still running after the update was processed: {names}"
        waiting = [t for t in pending if not timer.is_parked(t)]
        older = [t for t in timer.parked_tasks() if t in ignore or t not in pending]
        if waiting and older:
            message += (
                f"; none of them is parked on the virtual timer, so settle does not move it, but "
                f"tasks it does not wait for are: {', '.join(sorted(map(_task_label, older)))} "
                "(call advance(), or start such workers inside the test's update)"
            )
        return message

    async def run_job(self, name: str) -> list[ApiCall]:
        """Run the JobQueue job called ``name`` once, now, and wait for it."""
        assert self.app.job_queue is not None, "the Application has no JobQueue"
        jobs = self.app.job_queue.get_jobs_by_name(name)
        assert jobs, f"no job named {name!r}; jobs: {[j.name for j in self.app.job_queue.jobs()]}"
        return await self._run(jobs[0].run(self.app))

    # -- user actions ------------------------------------------------------------------------------
