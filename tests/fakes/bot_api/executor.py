"""Thread-pool work in flight on the event loop, so virtual time never jumps while a thread works."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any


class ExecutorWatch:
    """Counts the loop's thread-pool work in flight (``run_in_executor``, ``asyncio.to_thread``:
    the bot's database calls, chart drawing) by wrapping the running loop's ``run_in_executor``
    from ``start()`` to ``stop()``. Clients on one loop share one count."""

    def __init__(self) -> None:
        self.jobs: set[asyncio.Future[Any]] = set()
        self._loop: asyncio.AbstractEventLoop | None = None

    def start(self) -> None:
        loop = asyncio.get_running_loop()
        current = vars(loop).get("run_in_executor")
        shared = getattr(current, "tracked_jobs", None)
        if isinstance(shared, set):  # another client on this loop already counts them
            self.jobs = shared
            return
        original = loop.run_in_executor
        jobs = self.jobs

        def run_in_executor(executor: Any, func: Callable[..., Any], *args: Any) -> asyncio.Future[Any]:
            future = original(executor, func, *args)
            jobs.add(future)
            future.add_done_callback(jobs.discard)
            return future

        run_in_executor.tracked_jobs = jobs  # type: ignore[attr-defined]
        loop.run_in_executor = run_in_executor  # type: ignore[method-assign,assignment]
        self._loop = loop

    def stop(self) -> None:
        if self._loop is not None:
            with contextlib.suppress(AttributeError):
                del self._loop.run_in_executor
            self._loop = None
