"""The bot handles typed values, not their spellings: tgbot/'s syntax tree holds no comparison
with the text of a [T!] kind (the engine's `TKind` and action types say which card it is), and
no surface's column text is written or read outside `store/surfaces.py` (and the migrations,
which move rows of their own time); an update's outcome is an `Outcome` or a `Refusal`, never its
text, and only the seam (`services/call.py`) catches a refusal."""

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


#: Where an update's outcome is written: the callable and the position of its outcome argument.
OUTCOME_ARGUMENT = {"Answer": 2, "Replied": 0, "Noted": 0, "InlineAnswer": 2, "saying": 1, "note_update": 2}


def _spelled(node: ast.expr | None) -> bool:
    """`node` is an outcome spelled by hand: a string, an f-string, or a choice between them."""
    if isinstance(node, ast.IfExp):
        return _spelled(node.body) or _spelled(node.orelse)
    return isinstance(node, ast.JoinedStr) or bool(node is not None and _texts(node))


def outcome_texts(tree: ast.AST) -> list[int]:
    """The lines where an outcome is a string: passed to a result or the log line, assigned to or
    compared with an ``outcome``."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name not in OUTCOME_ARGUMENT:
                continue
            at = OUTCOME_ARGUMENT[name]
            given = [k.value for k in node.keywords if k.arg == "outcome"]
            given += node.args[at : at + 1]
            found += [node.lineno for value in given if _spelled(value)]
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            named = any(getattr(t, "attr", getattr(t, "id", None)) == "outcome" for t in targets)
            if named and _spelled(node.value):
                found.append(node.lineno)
        elif isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            if any(getattr(s, "attr", None) == "outcome" for s in sides) and any(map(_spelled, sides)):
                found.append(node.lineno)
    return sorted(found)


def test_outcomes_are_typed_not_spelled() -> None:
    """Every outcome is an `Outcome` or a `Refusal` (the text the log line shows is theirs)."""
    offending = [
        f"{path.relative_to(TGBOT.parent)}:{line}"
        for path in sorted(TGBOT.rglob("*.py"))
        for line in outcome_texts(ast.parse(path.read_text(), str(path)))
    ]
    assert offending == []


def test_the_check_finds_an_outcome_spelled_by_hand() -> None:
    tree = ast.parse(
        'Noted("ignored")\nReplied(f"left_{n}")\nAnswer(text, True, "elsewhere")\nAnswer(outcome="dup")\n'
        'InlineAnswer.saying(text, "no_game")\nif noted.outcome not in ("ok", "duplicate"): pass\n'
        'record.outcome = "error"\nlogs.note_update(None, "inline", "late")\n'
        'Noted(Outcome.OK if a else "x")\nNoted(Outcome.OK)\nAnswer(text, outcome=Refusal.STALE)\n'
        'logs.note_update(None, "inline", Outcome.LATE)\n'
    )
    assert outcome_texts(tree) == [1, 2, 3, 4, 5, 6, 7, 8, 9]


def refusals_caught(tree: ast.AST) -> list[int]:
    """The lines of an ``except`` that names `ServiceError` (alone or among others)."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ExceptHandler) and node.type is not None:
            names = node.type.elts if isinstance(node.type, ast.Tuple) else [node.type]
            if any(getattr(n, "id", getattr(n, "attr", None)) == "ServiceError" for n in names):
                found.append(node.lineno)
    return found


def test_only_the_seam_catches_a_refusal() -> None:
    """A use case ends in a refusal (raised) or an `Outcome` (returned), both to the one seam
    (`services/call.py`), which alone turns a refusal into its answer."""
    seam = TGBOT / "services" / "call.py"
    offending = [
        f"{path.relative_to(TGBOT.parent)}:{line}"
        for path in sorted(TGBOT.rglob("*.py"))
        if path != seam
        for line in refusals_caught(ast.parse(path.read_text(), str(path)))
    ]
    assert offending == []
    assert len(refusals_caught(ast.parse(seam.read_text()))) == 1


def test_the_check_finds_a_refusal_caught() -> None:
    tree = ast.parse(
        "try:\n    f()\nexcept ServiceError:\n    pass\n"
        "try:\n    f()\nexcept (KeyError, errors.ServiceError):\n    pass\n"
        "try:\n    f()\nexcept EngineError:\n    pass\n"
    )
    assert refusals_caught(tree) == [3, 7]


def test_keys_are_built_from_callbacks() -> None:
    """Callback data is written in one place, `render.keys.button`, from a `Callback` (mypy checks
    the type of what it is given): no keyboard or key of its own elsewhere."""
    allowed = {TGBOT / "render" / "keys.py"}
    offending = [
        f"{path.relative_to(TGBOT.parent)}:{node.lineno}"
        for path in sorted(TGBOT.rglob("*.py"))
        if path not in allowed
        for node in ast.walk(ast.parse(path.read_text(), str(path)))
        if isinstance(node, ast.Constant) and node.value == "callback_data"
    ]
    assert offending == []
