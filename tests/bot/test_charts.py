"""The score chart is drawn by a short-lived process of its own, so the bot never holds
matplotlib (about 50 MB it would never give back)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tgbot.delivery import charts
from tgbot.render import chart
from tgbot.render.results import chart_texts

PNG = b"\x89PNG\r\n\x1a\n"


def spec() -> dict[str, object]:
    return chart.spec(
        chart_texts("ja", 60), chart_texts("en", 60), ["Ana", "Ben"], [[25, 3], [20, 30]], 60, [0]
    )


async def test_a_chart_is_drawn_by_a_process_of_its_own() -> None:
    png = await charts.draw_apart(spec())
    assert png.startswith(PNG) and len(png) > 10_000


async def test_a_chart_process_that_fails_says_why() -> None:
    with pytest.raises(RuntimeError, match="chart process failed"):
        await charts.draw_apart({"names": ["Ana"]})


def test_the_bot_imports_no_matplotlib() -> None:
    """Building the whole application (handlers, services, delivery) loads no matplotlib."""
    code = "import sys, tgbot.app; print('matplotlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_the_bot_draws_its_charts_apart_by_default() -> None:
    from tests.fakes.timer import VirtualTimer
    from tgbot.delivery.process import Delivery

    delivery = Delivery(None, VirtualTimer(), None, None)  # type: ignore[arg-type]
    assert delivery.draw_chart is charts.draw_apart
