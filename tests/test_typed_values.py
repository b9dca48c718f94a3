"""The bot handles typed values, not their spellings: tgbot/'s syntax tree holds no comparison
with the text of a [T!] kind (the engine's `TKind` and action types say which card it is), and
no surface's column text is written or read outside `store/surfaces.py` (and the migrations,
which move rows of their own time)."""

from __future__ import annotations

import ast
from pathlib import Path

from engine.cards import TKind

TGBOT = Path(__file__).resolve().parent.parent / "tgbot"
T_KIND_TEXTS = {kind.value for kind in TKind}
SURFACE_PREFIXES = ("board:", "lobby:", "panel:", "reminder:", "keys:", "msg:")


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


def surface_texts(tree: ast.AST) -> list[tuple[int, str]]:
    """String constants (f-strings' literal parts included) that begin like a surface's column
    text; docstrings apart."""
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docstrings
        and node.value.startswith(SURFACE_PREFIXES)
    ]


def test_surface_texts_are_written_and_read_in_one_place() -> None:
    allowed = {TGBOT / "store" / "surfaces.py"}
    offending = [
        f"{path.relative_to(TGBOT.parent)}:{line}: {text!r}"
        for path in sorted(TGBOT.rglob("*.py"))
        if path not in allowed and "migrations" not in path.parts
        for line, text in surface_texts(ast.parse(path.read_text(), str(path)))
    ]
    assert offending == []


def test_the_check_finds_a_surface_written_by_hand() -> None:
    tree = ast.parse(
        '"""board:1:2 in a docstring is fine"""\nx = f"msg:{message_id}"\nkind = s.partition(":")\n'
    )
    assert [text for _line, text in surface_texts(tree)] == ["msg:"]
