"""The event loop the bot runs on: uvloop for a webhook bot, Python's own for a polling one.

Every update, every answer and every database result comes back through the event loop, and on
a busy bot its own bookkeeping (timers, wake-ups from the database threads) is a large share of
the work. uvloop does that bookkeeping in C (libuv): under the load bench the answers' p99 came
down by about a third at the same CPU (decisions.md B32). A webhook bot is the one that
carries many groups, so it runs on uvloop. uvloop also costs a process about 2 MB (its library,
its loop, libuv's threads), and a polling bot, the small operator's default, answers a few
groups as fast on Python's loop: it runs on that (``auto``, decisions.md B32).
``TWEAKBOT_EVENT_LOOP`` names one loop for either mode. uvloop is not built for Windows, so there
the bot runs on Python's loop whatever the setting says.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import Any, Literal, TypeVar, get_args

log = logging.getLogger("tweakbot")

T = TypeVar("T")

#: A loop the bot can run on.
Loop = Literal["uvloop", "asyncio"]
#: What ``TWEAKBOT_EVENT_LOOP`` may say: a loop, or ``auto`` (chosen by the mode).
EventLoop = Literal["auto", "uvloop", "asyncio"]
EVENT_LOOPS: tuple[str, ...] = get_args(EventLoop)
DEFAULT_EVENT_LOOP: EventLoop = "auto"


def choose(setting: EventLoop, *, webhook: bool) -> Loop:
    """The loop a bot in this mode runs on: ``auto`` is uvloop for a webhook, Python's for polling."""
    if setting == "auto":
        return "uvloop" if webhook else "asyncio"
    return setting


def loop_factory(choice: Loop) -> Callable[[], asyncio.AbstractEventLoop] | None:
    """The factory for ``asyncio.Runner`` (None: Python's own loop)."""
    if choice == "asyncio":
        return None
    try:
        import uvloop
    except ImportError:
        log.warning("uvloop is not installed here: running on Python's event loop")
        return None
    return uvloop.new_event_loop


def run(main: Coroutine[Any, Any, T], choice: Loop = "uvloop") -> T:
    """``asyncio.run(main)`` on the chosen loop."""
    with asyncio.Runner(loop_factory=loop_factory(choice)) as runner:
        return runner.run(main)


def name(loop: asyncio.AbstractEventLoop) -> str:
    """What the start-up log line says the bot runs on."""
    return "uvloop" if type(loop).__module__.startswith("uvloop") else "asyncio"
