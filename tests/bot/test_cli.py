"""`python -m tgbot` without a usable token: one helpful line, a non-zero exit, no traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import tgbot

REPO_ROOT = Path(tgbot.__file__).resolve().parent.parent


def run_bot(cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    base = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(cwd),
        # the package may not be installed into the interpreter; point it at this checkout
        "PYTHONPATH": str(REPO_ROOT),
    }
    return subprocess.run(
        [sys.executable, "-m", "tgbot"],
        cwd=cwd,
        env={**base, **env},
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize(
    ("env", "problem"),
    [
        ({}, "is missing"),
        ({"TELEGRAM_BOT_TOKEN": ""}, "is missing"),
        ({"TELEGRAM_BOT_TOKEN": "not-a-token"}, "is not a valid bot token"),
        ({"TELEGRAM_BOT_TOKEN": "123456:short"}, "is not a valid bot token"),
    ],
    ids=["unset", "empty", "garbage", "too-short"],
)
def test_missing_or_malformed_token_exits_with_one_line_about_botfather(
    tmp_path: Path, env: dict[str, str], problem: str
) -> None:
    assert not (tmp_path / ".env").exists()
    result = run_bot(tmp_path, **env)
    assert result.returncode != 0
    output = (result.stdout + result.stderr).strip()
    assert "Traceback" not in output
    lines = output.splitlines()
    assert len(lines) == 1, output
    assert "@BotFather" in lines[0] and f"TELEGRAM_BOT_TOKEN {problem}" in lines[0]
    token = env.get("TELEGRAM_BOT_TOKEN")
    if token:
        assert token not in lines[0]  # a secret, even a wrong one, is not echoed
    assert not (tmp_path / "tweakbot.sqlite3").exists()  # nothing was started


def test_malformed_token_in_dotenv_is_reported_the_same_way(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("TELEGRAM_BOT_TOKEN=12345:paste-the-token-here\n")
    result = run_bot(tmp_path)
    assert result.returncode != 0
    lines = (result.stdout + result.stderr).strip().splitlines()
    assert len(lines) == 1 and "@BotFather" in lines[0] and "Traceback" not in lines[0]
    assert "paste-the-token-here" not in lines[0]
