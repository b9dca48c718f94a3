"""The bot uses its libraries through their public, supported names only, and never rewrites its
own process environment (decisions.md B33).

Read from the code's syntax tree, not grepped: a comment or a docstring that names
``telegram._utils`` is fine, an import of it is not. A library's private name is one with a
leading underscore in its module path or its attribute (``from telegram._utils import ...``,
``import psycopg._column``, ``psycopg.pq._x``, ``from aiohttp import _y``); the bot's own
packages (relative imports, ``tgbot``, ``engine``) and Python's standard library, whose
documented names include a few with an underscore (``os._exit``), are not libraries here. A
class the bot derives from a library's class overrides none of the library's private methods.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import sys
from collections.abc import Iterator
from pathlib import Path
from types import FunctionType

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "tgbot"
OWN = {"tgbot", "engine", "tests"}
#: Writes to the process environment, by what they call on `os.environ` or `os`.
ENVIRON_WRITES = {"setdefault", "update", "pop", "popitem", "clear", "__setitem__", "__delitem__"}
OS_WRITES = {"putenv", "unsetenv"}


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _library(module: str) -> bool:
    top = module.split(".")[0]
    return top not in OWN and top not in sys.stdlib_module_names


def _sources() -> Iterator[tuple[str, ast.Module]]:
    for path in sorted(PACKAGE.rglob("*.py")):
        yield str(path.relative_to(ROOT)), ast.parse(path.read_text(encoding="utf-8"), str(path))


def _dotted(node: ast.expr) -> str | None:
    """``a.b.c`` for a chain of names and attributes, else None."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def private_names(tree: ast.Module) -> list[str]:
    """Every private module or name of a library that `tree` imports or reads."""
    found: list[str] = []
    modules: dict[str, str] = {}  # a local name -> the library module it stands for
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if any(_private(part) for part in alias.name.split(".")):
                    found.append(f"import {alias.name}")
                if _library(alias.name):
                    local = alias.asname or alias.name.split(".")[0]
                    modules[local] = alias.name if alias.asname else local
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if any(_private(part) for part in node.module.split(".")):
                found.append(f"from {node.module} import ...")
            elif _library(node.module):
                for alias in node.names:
                    if _private(alias.name):
                        found.append(f"from {node.module} import {alias.name}")
                    else:
                        modules[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr):
            chain = _dotted(node)
            if chain is not None and chain.split(".")[0] in modules:
                found.append(chain)
    return found


def _expressions(node: ast.expr) -> Iterator[ast.expr]:
    return (child for child in ast.walk(node) if isinstance(child, ast.expr))


def environment_writes(tree: ast.Module) -> list[str]:
    """Every place `tree` sets, changes or removes a variable of the process environment."""
    environs = {"os.environ"} | {
        alias.asname or alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module == "os"
        for alias in node.names
        if alias.name == "environ"
    }
    # A name bound to it, even conditionally (``env = os.environ if given is None else given``).
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(_dotted(n) in environs for n in _expressions(node.value)):
            environs |= {target.id for target in node.targets if isinstance(target, ast.Name)}
    found: list[str] = []
    for node in ast.walk(tree):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign | ast.Delete):
            targets = list(node.targets)
        elif isinstance(node, ast.AugAssign | ast.AnnAssign):
            targets = [node.target]
        for target in targets:
            if isinstance(target, ast.Subscript) and _dotted(target.value) in environs:
                found.append(f"line {node.lineno}: {ast.unparse(target)}")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            owner, method = _dotted(node.func.value), node.func.attr
            if (owner in environs and method in ENVIRON_WRITES) or (owner == "os" and method in OS_WRITES):
                found.append(f"line {node.lineno}: {ast.unparse(node.func)}()")
    return found


def test_no_private_name_of_a_library_is_imported_or_read() -> None:
    found = {path: names for path, tree in _sources() if (names := private_names(tree))}
    assert found == {}


def test_the_process_environment_is_never_written() -> None:
    found = {path: writes for path, tree in _sources() if (writes := environment_writes(tree))}
    assert found == {}


def _modules() -> Iterator[str]:
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        if "migrations" in parts:  # Alembic's scripts run their migration when imported
            continue
        yield ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def test_no_class_overrides_a_private_method_of_a_library_class() -> None:
    found: list[str] = []
    for name in _modules():
        module = importlib.import_module(name)
        for cls_name, cls in vars(module).items():
            if not inspect.isclass(cls) or cls.__module__ != module.__name__:
                continue
            bases = [b for b in cls.__mro__[1:] if _library(b.__module__)]
            found += [
                f"{name}.{cls_name}.{attr}"
                for attr, value in vars(cls).items()
                if _private(attr)
                and isinstance(value, FunctionType | property | staticmethod | classmethod)
                and any(attr in vars(base) for base in bases)
            ]
    assert found == []


# --- the checks themselves, on code written to break each rule ---------------------------------

BREAKS_PRIVACY = """
import telegram._utils.types
from telegram._utils.defaultvalue import DefaultValue
from aiohttp import _helpers_private
import psycopg
import sqlalchemy as sa
from psycopg import pq
psycopg._column.Column
sa.orm._mapper
pq._result
"""

KEEPS_PRIVACY = """
from __future__ import annotations
import os, sys, logging
from . import _own
from .store import _rows
from tgbot.store import outbox
from telegram.request import BaseRequest
os._exit(0)
sys._getframe(0)
outbox._CHAT
BaseRequest.DEFAULT_NONE
self._session
"telegram._utils is private"  # a string names it, nothing imports it
"""


def test_the_privacy_check_sees_imports_and_attributes_not_text() -> None:
    assert sorted(private_names(ast.parse(BREAKS_PRIVACY))) == [
        "from aiohttp import _helpers_private",
        "from telegram._utils.defaultvalue import ...",
        "import telegram._utils.types",
        "pq._result",
        "psycopg._column",
        "sa.orm._mapper",
    ]
    assert private_names(ast.parse(KEEPS_PRIVACY)) == []


@pytest.mark.parametrize(
    "code",
    [
        "import os\nos.environ['PTB_TIMEDELTA'] = 'true'",
        "import os\nos.environ.setdefault('PTB_TIMEDELTA', 'true')",
        "import os\nos.environ.update(SSL_CERT_FILE=os.devnull)",
        "import os\nos.putenv('A', 'b')",
        "import os\ndel os.environ['A']",
        "import os\nos.environ.pop('A', None)",
        "from os import environ as env\nenv['A'] = '1'",
        "import os\nenv = os.environ if given is None else given\nenv['A'] = '1'",
    ],
)
def test_the_environment_check_sees_each_way_of_writing_it(code: str) -> None:
    assert len(environment_writes(ast.parse(code))) == 1


def test_the_environment_check_lets_reading_be() -> None:
    code = "import os\nos.environ.get('A')\nos.environ['A']\n# os.environ['A'] = '1'\n'A' in os.environ"
    assert environment_writes(ast.parse(code)) == []
