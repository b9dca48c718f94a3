"""Library builds chosen before the libraries are imported, where the compiled one costs memory
for nothing.

frozenlist, the list aiohttp keeps its signal handlers and trace configs in, ships a compiled
build written in C++: loading it maps the C++ runtime (libstdc++), about 1 MB of a process that
has no other C++ in it. Its pure-Python build is the same class over a plain list, read a few
times a request; frozenlist picks it when ``FROZENLIST_NO_EXTENSIONS`` is set at import. An
operator who sets the variable, to anything, keeps that choice: an empty value keeps the compiled
build (decisions.md B31).
"""

from __future__ import annotations

import os
from collections.abc import MutableMapping

#: Each library's switch to its pure-Python build, and the value that turns it on.
PURE_PYTHON_SWITCHES: dict[str, str] = {"FROZENLIST_NO_EXTENSIONS": "1"}


def prefer_lean_builds(environ: MutableMapping[str, str] | None = None) -> list[str]:
    """Turn on each switch the operator left unset; the names turned on. Must run before aiohttp
    is imported: frozenlist reads its switch once, at import."""
    env = os.environ if environ is None else environ
    chosen = [name for name in PURE_PYTHON_SWITCHES if name not in env]
    for name in chosen:
        env[name] = PURE_PYTHON_SWITCHES[name]
    return chosen
