"""The keys of what is done once (`store.once_keys`) are the texts earlier versions wrote in the
`notices` and `seen_taps` rows, so a key claimed before an upgrade is still found after it (the
texts below are written out by hand); and no such key is spelled anywhere else in tgbot/."""

from __future__ import annotations

import ast
from pathlib import Path

from tgbot.errors import Refusal
from tgbot.store import once_keys

TGBOT = Path(__file__).resolve().parent.parent / "tgbot"
PREFIXES = ("reposted:", "stats:", "replay:", "no:", "pace:", "exists:", "pick:", "post:", "stale:")
PREFIXES += ("elsewhere:", "nofeedback:")


def test_each_key_keeps_its_text() -> None:
    assert once_keys.answer("help", None) == "help:0"
    assert once_keys.answer(once_keys.stats_of(7), 12) == "stats:7:12"
    assert once_keys.answer(once_keys.refused(Refusal.NOT_CREATOR), 0) == "no:not_creator:0"
    assert once_keys.reposted(5) == "reposted:5"
    assert once_keys.replay(5) == "replay:5"
    assert once_keys.pace(5) == "pace:5"
    assert once_keys.exists(5) == "exists:5"
    assert once_keys.TEXT == "text"
    assert once_keys.tap("4411") == "4411"
    assert once_keys.pick(5, 9, 1, ("J+", "s:1.2")) == "pick:5:9:1:J+.s:1.2"
    assert once_keys.post("AAE-x") == "post:AAE-x"
    assert once_keys.stale_note(5, 2, 7, 1) == "stale:5:2.7:1"
    assert once_keys.elsewhere("AAE-x") == "elsewhere:AAE-x"
    assert once_keys.no_feedback("AAE-x") == "nofeedback:AAE-x"
    assert once_keys.update(812345, "goal") == "update:812345:goal"


def test_a_key_keeps_the_64_characters_its_column_holds() -> None:
    assert once_keys.post("x" * 80) == "post:" + "x" * 59
    assert len(once_keys.answer("a" * 70, 1)) == 64


def spelled_keys(tree: ast.AST) -> list[int]:
    """The lines of an f-string that begins like a key of what is done once."""
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.JoinedStr)
        and node.values
        and isinstance(first := node.values[0], ast.Constant)
        and str(first.value).startswith(PREFIXES)
    ]


def test_keys_are_built_in_one_place() -> None:
    offending = [
        f"{path.relative_to(TGBOT.parent)}:{line}"
        for path in sorted(TGBOT.rglob("*.py"))
        if path != TGBOT / "store" / "once_keys.py"
        for line in spelled_keys(ast.parse(path.read_text(), str(path)))
    ]
    assert offending == []


def test_the_check_finds_a_key_spelled_by_hand() -> None:
    tree = ast.parse('said = f"elsewhere:{inline_id}"[:64]\nkey = f"{once}:{thread}"\nx = f"stats:{uid}"\n')
    assert sorted(spelled_keys(tree)) == [1, 3]
