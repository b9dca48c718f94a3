"""The event loop the bot runs on: uvloop where it is installed, Python's own otherwise.

Every update, every answer and every database result comes back through the event loop, and on
a busy bot its own bookkeeping (timers, wake-ups from the database threads) is a large share of
the work. uvloop does that bookkeeping in C (libuv): under the load bench the answers' p99 came
down by about a third at the same CPU (BENCHMARKS.md, *Scale*). It is not built for Windows, so
there the bot runs on Python's loop, as it does when ``TWEAKBOT_EVENT_LOOP=asyncio``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import Any, Literal, TypeVar, get_args

log = logging.getLogger("tweakbot")

T = TypeVar("T")

EventLoop = Literal["uvloop", "asyncio"]
EVENT_LOOPS: tuple[str, ...] = get_args(EventLoop)
DEFAULT_EVENT_LOOP: EventLoop = "uvloop"


def loop_factory(choice: EventLoop) -> Callable[[], asyncio.AbstractEventLoop] | None:
    """The factory for ``asyncio.Runner`` (None: Python's own loop)."""
    if choice == "asyncio":
        return None
    try:
        import uvloop
    except ImportError:
        log.warning("uvloop is not installed here: running on Python's event loop")
        return None
    return uvloop.new_event_loop


def run(main: Coroutine[Any, Any, T], choice: EventLoop = DEFAULT_EVENT_LOOP) -> T:
    """``asyncio.run(main)`` on the chosen loop."""
    with asyncio.Runner(loop_factory=loop_factory(choice)) as runner:
        return runner.run(main)


def name(loop: asyncio.AbstractEventLoop) -> str:
    """What the start-up log line says the bot runs on."""
    return "uvloop" if type(loop).__module__.startswith("uvloop") else "asyncio"
