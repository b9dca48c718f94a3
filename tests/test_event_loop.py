"""The loop the bot runs on: Python's own in every mode by default, uvloop only when asked for,
and a one-line error when asked for where it is not installed (decisions.md B33)."""

from __future__ import annotations

import asyncio
import sys

import pytest
import uvloop

from tgbot import event_loop
from tgbot.config import ConfigError


async def _running_loop() -> asyncio.AbstractEventLoop:
    return asyncio.get_running_loop()


def test_by_default_it_runs_on_pythons_own_loop() -> None:
    assert event_loop.DEFAULT_EVENT_LOOP == "asyncio"
    loop = event_loop.run(_running_loop())
    assert not isinstance(loop, uvloop.Loop)
    assert isinstance(loop, asyncio.BaseEventLoop)
    assert event_loop.name(loop) == "asyncio"


def test_asked_for_uvloop_it_runs_on_uvloop() -> None:
    loop = event_loop.run(_running_loop(), "uvloop")
    assert isinstance(loop, uvloop.Loop)
    assert event_loop.name(loop) == "uvloop"


def test_asked_for_uvloop_where_it_is_not_installed_it_says_so_in_one_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "uvloop", None)  # `import uvloop` raises ImportError
    coroutine = _running_loop()
    with pytest.raises(ConfigError) as refused:
        event_loop.run(coroutine, "uvloop")
    message = str(refused.value)
    assert message.startswith("TWEAKBOT_EVENT_LOOP=uvloop") and "\n" not in message
    assert "not installed" in message and "tweakbot[uvloop]" in message
    assert coroutine.cr_frame is None  # closed, never to run: no "never awaited" warning
    assert event_loop.loop_factory("asyncio") is None  # Python's own loop needs nothing


def test_the_coroutines_result_comes_back() -> None:
    async def answer() -> int:
        await asyncio.sleep(0)
        return 42

    assert event_loop.run(answer()) == 42
