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


def test_migrate_needs_only_the_database(tmp_path: Path) -> None:
    """A deploy step (compose, ExecStartPre) migrates where the token may not be handed out."""
    result = subprocess.run(
        [sys.executable, "-m", "tgbot", "migrate"],
        cwd=tmp_path,
        env={
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(tmp_path),
            "PYTHONPATH": str(REPO_ROOT),
            "DATABASE_URL": f"sqlite:///{tmp_path / 'migrated.sqlite3'}",
        },
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr and "TELEGRAM_BOT_TOKEN" not in result.stderr
    assert "is at schema revision" in result.stderr
    assert (tmp_path / "migrated.sqlite3").exists()
    # Running the bot itself still wants the token, in one line.
    bot = run_bot(tmp_path, DATABASE_URL=f"sqlite:///{tmp_path / 'migrated.sqlite3'}")
    assert bot.returncode == 2
    assert (bot.stdout + bot.stderr).strip().splitlines() == [
        "tweakbot: TELEGRAM_BOT_TOKEN is missing; create a bot with @BotFather in Telegram (/newbot), "
        "then set TELEGRAM_BOT_TOKEN=<token> in the environment or in .env"
    ]
