"""Rooms you can read: no module of the bot is over 400 lines (the project's rule, DEVELOPERS.md)."""

from __future__ import annotations

from pathlib import Path

TGBOT = Path(__file__).resolve().parent.parent / "tgbot"
MOST_LINES = 400


def test_no_module_of_the_bot_is_over_400_lines() -> None:
    sizes = {
        path.relative_to(TGBOT.parent).as_posix(): len(path.read_text().splitlines())
        for path in TGBOT.rglob("*.py")
    }
    assert {name: lines for name, lines in sizes.items() if lines > MOST_LINES} == {}
