"""The bot compares typed values, not their spellings: tgbot/'s syntax tree holds no comparison
with the text of a [T!] kind (the engine's `TKind` and action types say which card it is)."""

from __future__ import annotations

import ast
from pathlib import Path

from engine.cards import TKind

TGBOT = Path(__file__).resolve().parent.parent / "tgbot"
T_KIND_TEXTS = {kind.value for kind in TKind}


def _texts(node: ast.expr) -> list[str]:
    """The string constants `node` is or holds (a tuple, list or set of them)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return [text for item in node.elts for text in _texts(item)]
    return []


def compared_texts(tree: ast.AST) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            for side in (node.left, *node.comparators):
                found.extend((node.lineno, text) for text in _texts(side))
    return found


def test_no_kind_of_t_card_is_compared_by_its_text() -> None:
    offending = [
        f"{path.relative_to(TGBOT.parent)}:{line}: {text!r}"
        for path in sorted(TGBOT.rglob("*.py"))
        for line, text in compared_texts(ast.parse(path.read_text(), str(path)))
        if text in T_KIND_TEXTS
    ]
    assert offending == []


def test_the_check_finds_such_a_comparison() -> None:
    tree = ast.parse('if event.kind == "thief" or kind in ("joker", "bomb"):\n    pass\n')
    assert [text for _line, text in compared_texts(tree)] == ["thief", "joker", "bomb"]
