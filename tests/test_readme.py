"""The README and its guides (docs/playing.md, docs/operating.md) stay true to the code: their
commands, settings and keys exist, and vice versa."""

from __future__ import annotations

import re
from pathlib import Path

from tgbot.config import DEFAULT_API_BASE_URL, DEFAULT_DATABASE_URL, ENV_SETTINGS
from tgbot.handlers.commands import COMMAND_NAMES
from tgbot.pacing import PACES

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
PLAYING = (ROOT / "docs" / "playing.md").read_text(encoding="utf-8")
OPERATING = (ROOT / "docs" / "operating.md").read_text(encoding="utf-8")


def section(text: str, title: str) -> str:
    match = re.search(rf"^#+ {re.escape(title)}\n(.*?)(?=^## |\Z)", text, re.MULTILINE | re.DOTALL)
    assert match, f"no section {title!r}"
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
    table = section(PLAYING, "Commands")
    documented = set(re.findall(r"^\| `/([a-z]+)", table, re.MULTILINE))
    documented |= set(re.findall(r", `/([a-z]+)", table))
    assert documented == set(COMMAND_NAMES), documented ^ set(COMMAND_NAMES)


def test_every_environment_setting_is_documented_with_its_default() -> None:
    table = section(OPERATING, "Environment (per bot)")
    for name in ENV_SETTINGS:
        assert f"`{name}`" in table, name
    assert f"`{DEFAULT_DATABASE_URL}`" in table and f"`{DEFAULT_API_BASE_URL}`" in table
    documented = set(re.findall(r"^\| `([A-Z][A-Z_]+)`", table, re.MULTILINE))
    documented |= set(re.findall(r"^\| `[A-Z_]+`, `([A-Z][A-Z_]+)`", table, re.MULTILINE))
    assert documented == set(ENV_SETTINGS), documented ^ set(ENV_SETTINGS)


def test_lobby_settings_table_names_every_pace_and_setting_key() -> None:
    table = section(PLAYING, "Lobby settings (per game)")
    for pace in PACES:
        assert f"*{pace}*" in table, pace
    for key in ("Classic", "Extended", "Auto colours", "Goal −20", "Goal +20", "[T!] face down"):
        assert f"*{key}*" in table, key


def key_labels() -> set[str]:
    """Every key the bot shows in English: lobby, settings, boards (face up and down, with a draft),
    [T!] plays chosen, the rules pages, the welcome and the inline list's lines."""
    from dataclasses import replace

    from engine import new_game, public_view, seat_view
    from tgbot.game_settings import GameSettings
    from tgbot.render import board, hand_view, info, inline_table, lobby, results

    labels: set[str] = set()

    def add(keys: list[list[dict[str, str]]] | None) -> None:
        labels.update(key["text"] for row in keys or [] for key in row)

    view = lobby.LobbyView(1, (board.Player("Ana", 1, None),), GameSettings())
    add(lobby.lobby_keyboard("en", view))
    add(lobby.settings_keyboard("en", view))
    for face_down in (False, True):
        state = new_game(GameSettings(face_down=face_down).engine_config(2), 7)
        state.holdings = [["thief", "joker", "shifter", "bomb"]] * 2
        players = (board.Player("Ana", 1, None), board.Player("Ben", 2, None))
        table = board.Table(1, 1, players, face_down, inline=True, t_choices=("T1", "J+", "J-", "F", "B"))
        for draft in (board.Draft(), board.Draft(0, 1), board.Draft(t_code="T1"), board.Draft(t_code="J+")):
            add(board.keyboard("en", public_view(state), table, draft))
        add(board.keyboard("en", public_view(state), replace(table, own_views=True)))
        for seat in (0, 1):  # a person's own view (🃏 My cards): on their turn and off it
            add(hand_view.hand_view("en", seat_view(state, seat), table).keys)
    for page in range(3):
        add(info.rules_page("en", page)[1])
    add(info.welcome_keys("en", "tweakbot"))
    add(results.standings_keys("en", 1))
    add(inline_table.show_board_keys("en", 1))
    labels.add(inline_table.new_game_title("en")[0])  # the inline list's lines read as keys
    labels.add(inline_table.board_title("en", ["Ana"])[0])
    return labels


def test_every_key_the_guides_name_is_a_key_the_bot_shows() -> None:
    """A key named in bold (**✋ Join**) is spelled as on the key, so people find it."""
    labels = key_labels()
    guides = (("README.md", README), ("docs/playing.md", PLAYING), ("docs/operating.md", OPERATING))
    named = [
        (name, " ".join(bold.split()))  # a name may wrap across lines
        for name, text in guides
        for bold in re.findall(r"\*\*([^*]+)\*\*", text)
        if not bold[0].isascii() and not bold[0].isalnum()  # starts with an emoji or a symbol
    ]
    assert len(named) > 10, named
    unknown = [(name, bold) for name, bold in named if bold not in labels and not set(bold.split()) <= labels]
    assert not unknown, f"the guides name keys the bot does not show: {unknown}"
