"""The bot as the image and the systemd unit run it: ``PYTHONOPTIMIZE=2``.

Optimized, Python drops every docstring and every ``assert`` (about 7 MB less for a started bot:
BENCHMARKS.md, *Peak RSS*). What reads a docstring at run time breaks there (a command line's
``__doc__.split(...)`` is ``None.split``), and so would code that counted on an assert. The bot
and the child processes it starts (the migrations, the score chart) inherit the setting, so
each is run here with it: the bot plays a turn, the migrations command answers, a chart is drawn.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.bot.test_charts import spec
from tests.fakes import FakeTelegram
from tests.fakes.telegram import TEST_TOKEN
from tests.ops.fake_http import FakeBotApiServer
from tests.ops.processes import bot_env, keyed, running_bot, start_a_game, until
from tgbot.delivery import charts

OPTIMIZED = {"PYTHONOPTIMIZE": "2"}


async def test_an_optimized_bot_starts_migrates_and_plays_a_turn(tmp_path: Path) -> None:
    fake = FakeTelegram()
    ana, ben = fake.user(1, "Ana"), fake.user(2, "Ben")
    group = fake.group("Friends")
    async with FakeBotApiServer(fake, TEST_TOKEN) as api:
        env = bot_env(tmp_path, api.base_url, **OPTIMIZED)
        async with running_bot(tmp_path, env) as bot:
            gid, board, mover = await start_a_game(fake, group, ana, ben)
            hand = fake.callback_update(mover, board, f"k:{gid}:1:h:0")
            fake.queue_update(hand)
            await until(lambda: fake.answers[hand["callback_query"]["id"]].answered)
            discard = fake.callback_update(mover, board, f"k:{gid}:1:d")
            fake.queue_update(discard)
            await until(lambda: fake.answers[discard["callback_query"]["id"]].answered)
            assert fake.answers[discard["callback_query"]["id"]].text == "Done!"
            # The next board, and the old one without its keys: the turn reached the group.
            await until(
                lambda: [m.message_id for m in keyed(fake, group.id, "k:")] not in ([], [board.message_id])
            )
            assert bot.returncode is None
            bot.terminate()
            assert await bot.wait() == 0
        assert bot.stderr is not None
        log = (await bot.stderr.read()).decode()
        assert "Traceback" not in log and " ERROR " not in log, log[-2000:]


def test_the_migrations_command_runs_optimized() -> None:
    """Its help was built from the module's docstring, which -OO leaves None."""
    done = subprocess.run(
        [sys.executable, "-OO", "-m", "tgbot.migrations", "--help"], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-1000:]
    assert "revision" in done.stdout


async def test_an_optimized_chart_process_draws_the_chart(monkeypatch: pytest.MonkeyPatch) -> None:
    """matplotlib, in the bot's child process, with the setting it inherits from the bot."""
    monkeypatch.setenv("PYTHONOPTIMIZE", "2")
    png = await charts.draw_apart(spec())
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) > 10_000
