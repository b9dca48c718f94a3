"""The loop the bot runs on: by default uvloop for a webhook bot and Python's own for a polling one;
the one asked for otherwise, and Python's own when uvloop is missing."""

from __future__ import annotations

import asyncio
import logging
import sys

import pytest
import uvloop

from tgbot import event_loop


async def _running_loop() -> asyncio.AbstractEventLoop:
    return asyncio.get_running_loop()


def test_auto_is_uvloop_for_a_webhook_bot_and_pythons_loop_for_a_polling_one() -> None:
    assert event_loop.DEFAULT_EVENT_LOOP == "auto"
    assert event_loop.choose("auto", webhook=True) == "uvloop"
    assert event_loop.choose("auto", webhook=False) == "asyncio"


def test_a_loop_named_in_the_setting_is_used_in_either_mode() -> None:
    for webhook in (True, False):
        assert event_loop.choose("uvloop", webhook=webhook) == "uvloop"
        assert event_loop.choose("asyncio", webhook=webhook) == "asyncio"


def test_run_is_on_uvloop_unless_told_otherwise() -> None:
    loop = event_loop.run(_running_loop())
    assert isinstance(loop, uvloop.Loop)
    assert event_loop.name(loop) == "uvloop"


def test_asked_for_asyncio_it_runs_on_pythons_own_loop() -> None:
    loop = event_loop.run(_running_loop(), "asyncio")
    assert not isinstance(loop, uvloop.Loop)
    assert isinstance(loop, asyncio.BaseEventLoop)
    assert event_loop.name(loop) == "asyncio"


def test_without_uvloop_installed_it_says_so_and_runs_on_pythons_loop(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setitem(sys.modules, "uvloop", None)  # `import uvloop` raises ImportError
    with caplog.at_level(logging.WARNING, logger="tweakbot"):
        loop = event_loop.run(_running_loop(), "uvloop")
    assert event_loop.name(loop) == "asyncio"
    assert [r.getMessage() for r in caplog.records] == [
        "uvloop is not installed here: running on Python's event loop"
    ]


def test_the_coroutines_result_comes_back() -> None:
    async def answer() -> int:
        await asyncio.sleep(0)
        return 42

    assert event_loop.run(answer()) == 42
