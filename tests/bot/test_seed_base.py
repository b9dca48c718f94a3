"""The bot tests' deals can be moved as a whole (DEVELOPERS.md, *Other deals*)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from tests.bot.conftest import SEED_BASE

ROOT = Path(__file__).resolve().parents[2]


def _seed_base(env_base: str | None) -> str:
    env = {k: v for k, v in os.environ.items() if k != "TWEAK_TEST_SEED_BASE"}
    if env_base is not None:
        env["TWEAK_TEST_SEED_BASE"] = env_base
    code = "import tests.bot.conftest as c; print(c.SEED_BASE)"
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def test_the_first_seed_is_1000_unless_the_environment_moves_it() -> None:
    assert _seed_base(None) == "1000"
    assert _seed_base("37000") == "37000"


def test_every_game_of_a_test_gets_the_next_seed_from_the_base(seeds: Callable[[], int]) -> None:
    assert [seeds(), seeds(), seeds()] == [SEED_BASE + 1, SEED_BASE + 2, SEED_BASE + 3]
