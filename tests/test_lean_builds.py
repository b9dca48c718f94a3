"""The pure-Python builds the bot picks before importing its libraries (decisions.md B31)."""

from __future__ import annotations

import os
import subprocess
import sys

from tgbot.lean_builds import PURE_PYTHON_SWITCHES, prefer_lean_builds


def test_each_switch_the_operator_left_unset_is_turned_on() -> None:
    env: dict[str, str] = {"PATH": "/bin"}
    assert prefer_lean_builds(env) == ["FROZENLIST_NO_EXTENSIONS"]
    assert env == {"PATH": "/bin", "FROZENLIST_NO_EXTENSIONS": "1"}


def test_the_operators_own_value_is_kept_even_empty() -> None:
    env = {"FROZENLIST_NO_EXTENSIONS": ""}  # empty: frozenlist keeps its compiled build
    assert prefer_lean_builds(env) == []
    assert env == {"FROZENLIST_NO_EXTENSIONS": ""}


def test_frozenlist_picks_the_build_the_switch_names() -> None:
    probe = (
        "import frozenlist, sys; print(frozenlist.FrozenList is frozenlist.PyFrozenList,"
        " 'frozenlist._frozenlist' in sys.modules)"
    )
    env = {k: v for k, v in os.environ.items() if k not in PURE_PYTHON_SWITCHES}

    def run(extra: dict[str, str]) -> str:
        out = subprocess.run(
            [sys.executable, "-c", probe], env={**env, **extra}, capture_output=True, text=True, check=True
        )
        return out.stdout.strip()

    assert run({}) == "False True"  # the compiled build, as the library ships
    assert run(PURE_PYTHON_SWITCHES) == "True False"
