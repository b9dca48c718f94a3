"""The event loop the bot runs on: Python's own asyncio loop, or uvloop when the operator asks.

One loop in every mode, so that a polling bot and a webhook bot are the same set-up. uvloop does
the loop's bookkeeping (timers, wake-ups from the database threads) in C, which answered a busy
bot's taps sooner under the load bench (decisions.md B32, B33), and costs a process
about 2 MB (its library, its loop, libuv's threads). It is an opt-in: installed with the
``tweakbot[uvloop]`` extra (not built for Windows) and turned on with
``TWEAKBOT_EVENT_LOOP=uvloop``; asked for where it is not installed, the bot stops with one line
saying so rather than run on a loop nobody chose.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable, Coroutine
from typing import Any, Literal, TypeVar, get_args

from .setting_values import ConfigError

T = TypeVar("T")

#: What ``TWEAKBOT_EVENT_LOOP`` may say.
EventLoop = Literal["asyncio", "uvloop"]
EVENT_LOOPS: tuple[str, ...] = get_args(EventLoop)
DEFAULT_EVENT_LOOP: EventLoop = "asyncio"


def loop_factory(choice: EventLoop) -> Callable[[], asyncio.AbstractEventLoop] | None:
    """The factory for ``asyncio.Runner`` (None: Python's own loop); ConfigError when uvloop is
    asked for and not installed."""
    if choice == "asyncio":
        return None
    try:
        import uvloop
    except ImportError:
        raise ConfigError(
            "TWEAKBOT_EVENT_LOOP=uvloop but uvloop is not installed here; "
            "install it with pip install 'tweakbot[uvloop]', or leave TWEAKBOT_EVENT_LOOP unset"
        ) from None
    return uvloop.new_event_loop


#: How long a thread may hold the GIL while another waits for it (CPython's default: 5 ms). A
#: Hard computer's search runs in a thread beside the event loop (`jobs`); each hand-off a tap's
#: handler makes between the loop and its database thread would otherwise wait up to the default
#: behind it, four or five times a tap (decisions.md B40).
SWITCH_INTERVAL_SECONDS = 0.001


def take_turns_often() -> None:
    """Lower the process's switch interval to `SWITCH_INTERVAL_SECONDS` (never raise it). A
    setting of the whole process, so it belongs where the process is run (`tweakbot`, the
    benchmarks' bots), not in `build_application`, which tests call in a shared process."""
    sys.setswitchinterval(min(sys.getswitchinterval(), SWITCH_INTERVAL_SECONDS))


def run(main: Coroutine[Any, Any, T], choice: EventLoop = DEFAULT_EVENT_LOOP) -> T:
    """``asyncio.run(main)`` on the chosen loop."""
    try:
        factory = loop_factory(choice)
    except ConfigError:
        main.close()  # never to run: no "never awaited" warning
        raise
    with asyncio.Runner(loop_factory=factory) as runner:
        return runner.run(main)


def name(loop: asyncio.AbstractEventLoop) -> str:
    """What the start-up log line says the bot runs on."""
    return "uvloop" if type(loop).__module__.startswith("uvloop") else "asyncio"
