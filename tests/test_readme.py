"""The README stays true to the code: its commands, settings and keys exist, and vice versa."""

from __future__ import annotations

import re
from pathlib import Path

from tgbot.app import COMMANDS
from tgbot.config import DEFAULT_API_BASE_URL, DEFAULT_DATABASE_URL, ENV_SETTINGS
from tgbot.services.pacing import PACES

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def section(title: str) -> str:
    match = re.search(rf"^#+ {re.escape(title)}\n(.*?)(?=^## |\Z)", README, re.MULTILINE | re.DOTALL)
    assert match, f"README has no section {title!r}"
    return match.group(1)


def test_readme_opens_with_what_the_bot_is_and_the_two_commands() -> None:
    intro = README.split("\n## ", 1)[0]
    assert "TWEAK!" in intro and "Telegram group" in intro
    block = re.search(r"```sh\n(.*?)```", intro, re.DOTALL)
    assert block, "the first section has no shell block"
    lines = [line.split("#")[0].strip() for line in block.group(1).strip().splitlines()]
    assert lines == ["TELEGRAM_BOT_TOKEN=123456:ABC... make run", "make test"]
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert re.search(r"^run:", makefile, re.MULTILINE) and re.search(r"^test:", makefile, re.MULTILINE)


def test_every_command_is_documented_and_every_documented_command_exists() -> None:
    table = section("Commands")
    documented = set(re.findall(r"^\| `/([a-z]+)", table, re.MULTILINE))
    documented |= set(re.findall(r", `/([a-z]+)", table))
    assert documented == set(COMMANDS), documented ^ set(COMMANDS)


def test_every_environment_setting_is_documented_with_its_default() -> None:
    table = section("Environment (per bot)")
    for name in ENV_SETTINGS:
        assert f"`{name}`" in table, name
    assert f"`{DEFAULT_DATABASE_URL}`" in table and f"`{DEFAULT_API_BASE_URL}`" in table
    documented = set(re.findall(r"^\| `([A-Z][A-Z_]+)`", table, re.MULTILINE))
    documented |= set(re.findall(r"^\| `[A-Z_]+`, `([A-Z][A-Z_]+)`", table, re.MULTILINE))
    assert documented == set(ENV_SETTINGS), documented ^ set(ENV_SETTINGS)


def test_lobby_settings_table_names_every_pace_and_setting_key() -> None:
    table = section("Lobby settings (per game)")
    for pace in PACES:
        assert f"*{pace}*" in table, pace
    for key in ("Classic", "Extended", "Auto colours", "Goal −20", "Goal +20", "[T!] face down"):
        assert f"*{key}*" in table, key
