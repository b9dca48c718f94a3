"""Drawing the score chart apart from the bot's process.

matplotlib costs a process about 50 MB that it never gives back; a game ends perhaps once an
hour. So each chart is drawn by a short-lived `python -m tgbot.render.chart`, just before it
is sent (never on a tap's path), and the bot stays small. A chart that fails or takes too long
is left out: the standings say it all, the picture is a bonus.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
from collections.abc import Awaitable, Callable
from typing import Any

#: Seconds a chart may take (the process starts, imports matplotlib and draws).
CHART_SECONDS = 30.0

ChartDrawer = Callable[[dict[str, Any]], Awaitable[bytes]]


async def draw_apart(spec: dict[str, Any]) -> bytes:
    """The PNG of `spec`, drawn by a process of its own."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "tgbot.render.chart",
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        png, err = await asyncio.wait_for(process.communicate(json.dumps(spec).encode()), CHART_SECONDS)
    except BaseException:
        with contextlib.suppress(ProcessLookupError):
            process.kill()
        raise
    if process.returncode != 0:
        raise RuntimeError(f"the chart process failed ({process.returncode}): {err.decode()[-300:]}")
    return png


async def draw_here(spec: dict[str, Any]) -> bytes:
    """The PNG of `spec`, drawn in a worker thread of this process (tests: no process per chart)."""
    from ..render import chart

    return await asyncio.to_thread(chart.from_spec, spec)
