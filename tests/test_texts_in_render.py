"""Every text a person reads is worded in `tgbot/render/`, one module per concept (issue 60, item 6):
a use case decides what to say, render says it. So a service never translates: it imports none
of `i18n`'s wording functions (`_`, `_n`, `_p`, `M_`) nor the long texts (`tgbot.texts`), and
calls none of them by any name.

Read from the syntax tree, not grepped: a `_` that is a throwaway variable is fine, a call of it
or an import of it from `i18n` is not.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SERVICES = ROOT / "tgbot" / "services"
WORDING = {"_", "_n", "_p", "M_"}
#: The modules that word texts, as a service would import them (relative or absolute).
TEXT_MODULES = {"i18n", "texts"}


def _services() -> Iterator[tuple[str, ast.Module]]:
    for path in sorted(SERVICES.rglob("*.py")):
        yield path.relative_to(ROOT).as_posix(), ast.parse(path.read_text(encoding="utf-8"), str(path))


def wording_in(tree: ast.Module) -> list[str]:
    """What in `tree` words a text itself: an import of a wording function or of the long texts,
    a call of a wording function (also as `i18n._(…)`)."""
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").startswith("tgbot")):
            module = (node.module or "").split(".")[-1]
            if module in TEXT_MODULES:
                names = [a.name for a in node.names if module == "texts" or a.name in WORDING]
                where = "." * node.level + (node.module or "")
                found += [f"line {node.lineno}: from {where} import {n}" for n in names]
            found += [f"line {node.lineno}: imports {a.name}" for a in node.names if a.name in TEXT_MODULES]
        elif isinstance(node, ast.Import):
            found += [
                f"line {node.lineno}: import {a.name}"
                for a in node.names
                if a.name in ("tgbot.i18n", "tgbot.texts")
            ]
        elif isinstance(node, ast.Call):
            func = node.func
            called = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
            if called in WORDING:
                found.append(f"line {node.lineno}: calls {called}(…)")
    return found


def test_no_service_words_a_text() -> None:
    found = {name: hits for name, tree in _services() if (hits := wording_in(tree))}
    assert found == {}, "word these texts in tgbot/render/ (the module of their concept)"


def test_the_check_sees_each_way_of_wording() -> None:
    """The check above can fail: each way a service could word a text is seen."""
    sources = [
        "from ..i18n import _\n",
        "from ..i18n import LANGUAGES, _n\n",
        "from tgbot.i18n import _p\n",
        "from ..i18n import M_\n",
        "from ..texts import HELP_TEXT\n",
        "from .. import i18n\n",
        "import tgbot.i18n\n",
        "text = i18n._(lang, 'Done!')\n",
        "text = _(lang, 'Done!')\n",
    ]
    assert [s for s in sources if not wording_in(ast.parse(s))] == []
    fine = "from ..i18n import LANGUAGES, normalize\nfor _ in range(3):\n    pass\n_x = f(_)\n"
    assert wording_in(ast.parse(fine)) == []
