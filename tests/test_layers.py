"""The store owns SQL (issue 60): a service decides and calls the store by what it means
(`store.games.lock`, `store.seats.clear_idle`, …); it builds no statement and runs none.

Read from the source, as import-linter reads imports: a service may name `Session` for its type
hints, nothing else of SQLAlchemy or SQLModel, and never asks a session to run, load or persist
anything itself.
"""

from __future__ import annotations

import ast
from pathlib import Path

SERVICES = Path(__file__).resolve().parent.parent / "tgbot" / "services"
DATABASE_PACKAGES = ("sqlalchemy", "sqlmodel")
#: What a service may import from them: the session's type, for its hints.
ALLOWED = {"Session"}
#: What a session does with SQL or the rows it keeps; a service asks the store instead.
SESSION_CALLS = {
    "exec",
    "execute",
    "scalar",
    "scalars",
    "get",
    "get_one",
    "add",
    "add_all",
    "delete",
    "flush",
    "merge",
    "refresh",
    "query",
    "begin",
    "begin_nested",
    "commit",
    "rollback",
}
#: The session's own settings of a transaction (when it flushes); the store names them.
SESSION_SETTINGS = {"no_autoflush", "autoflush"}


def _modules() -> list[Path]:
    found = sorted(SERVICES.glob("*.py"))
    assert found, SERVICES
    return found


def _is_database(module: str | None) -> bool:
    return module is not None and module.split(".")[0] in DATABASE_PACKAGES


def _imports(tree: ast.AST) -> list[str]:
    """Every name a module imports from SQLAlchemy or SQLModel beyond `ALLOWED`."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names if _is_database(alias.name)]
        elif isinstance(node, ast.ImportFrom) and _is_database(node.module):
            found += [f"{node.module}.{a.name}" for a in node.names if a.name not in ALLOWED]
    return found


def _session_calls(tree: ast.AST) -> list[str]:
    """Calls such as ``session.execute(...)`` or ``call.session.add(...)``."""
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        owner, method = node.func.value, node.func.attr
        name = owner.attr if isinstance(owner, ast.Attribute) else getattr(owner, "id", None)
        if name == "session" and method in SESSION_CALLS:
            found.append(f"line {node.lineno}: session.{method}")
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in SESSION_SETTINGS:
            owner = node.value
            name = owner.attr if isinstance(owner, ast.Attribute) else getattr(owner, "id", None)
            if name == "session":
                found.append(f"line {node.lineno}: session.{node.attr}")
    return found


def test_services_import_no_statement_builders() -> None:
    wrong = {path.name: names for path in _modules() if (names := _imports(ast.parse(path.read_text())))}
    assert wrong == {}, "services import SQL builders; put the statement in tgbot/store/"


def test_services_run_no_statement_on_a_session() -> None:
    wrong = {
        path.name: calls for path in _modules() if (calls := _session_calls(ast.parse(path.read_text())))
    }
    assert wrong == {}, "services run SQL or persist rows themselves; call a function of tgbot/store/"
