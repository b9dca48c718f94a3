"""Durations are said as Babel says them, from the table `scripts/duration_units.py` generates
(tgbot/duration_units.py), so the bot never loads Babel's locale data (see that module)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from babel.dates import format_timedelta

from tgbot import duration_units, pacing
from tgbot.i18n import LANGUAGES

ROOT = Path(__file__).resolve().parent.parent
REGENERATE = ".venv/bin/python scripts/duration_units.py"

#: Every unit at 0, 1, 2, 5, 11, 21, 101 and 1000000 of it, plus the seconds around each switch.
SECONDS = sorted(
    {n * size for _unit, size in duration_units.UNITS for n in (0, 1, 2, 5, 11, 21, 101, 1_000_000)}
    | {2 * size + d for _unit, size in duration_units.UNITS for d in (-1, 1)}
    | {size + d for _unit, size in duration_units.UNITS for d in (-1, 1)}
)


def _generator() -> Any:
    path = ROOT / "scripts" / "duration_units.py"
    spec = importlib.util.spec_from_file_location("duration_units_script", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_table_is_what_babel_says_now() -> None:
    script = _generator()
    expected = script.source()
    actual = (ROOT / "tgbot" / "duration_units.py").read_text(encoding="utf-8")
    assert actual == expected, f"tgbot/duration_units.py is out of date: run {REGENERATE}"


def test_every_language_is_in_the_table() -> None:
    assert set(duration_units.PATTERNS) == set(LANGUAGES) == set(duration_units.PLURAL_RULES)


@pytest.mark.parametrize("lang", list(LANGUAGES))
@pytest.mark.parametrize("style", ["long", "short"])
def test_format_duration_says_what_babel_says(lang: str, style: str) -> None:
    for seconds in SECONDS:
        # What format_duration asked Babel before: the unit it picks, the count rounded down.
        unit, size = next(
            (
                (name, size)
                for name, size in duration_units.UNITS
                if seconds == size or seconds >= pacing.DURATION_THRESHOLD * size
            ),
            ("second", 1),
        )
        babel = format_timedelta(
            timedelta(seconds=seconds - seconds % size),
            granularity=unit,
            threshold=float("inf"),
            format=style,
            locale=lang,
        )
        assert pacing.format_duration(timedelta(seconds=seconds), lang, style) == babel, (lang, seconds)


def test_formatting_durations_loads_no_locale_data() -> None:
    code = (
        "import sys\n"
        "from datetime import timedelta\n"
        "from tgbot import pacing\n"
        "from tgbot.i18n import LANGUAGES\n"
        "for lang in LANGUAGES:\n"
        "    for style in ('long', 'short'):\n"
        "        assert pacing.format_duration(timedelta(minutes=90), lang, style)\n"
        "import babel.localedata\n"
        "print(sorted(babel.localedata._cache), 'babel.dates' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["[]", "False"]
