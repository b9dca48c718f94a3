"""What the serving process does not load (issue 20, peak RSS): each of these cost megabytes a
bot process would keep for its whole life, for a mode or a database it does not use. A later
eager import of any of them fails here (the processes are fresh: nothing else imported them)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fakes.telegram import TEST_TOKEN

ROOT = Path(__file__).resolve().parent.parent.parent

#: Never in a serving process: the schema is migrated and the chart drawn in child processes,
#: durations are said from tgbot/duration_units.py (not Babel's locale data), the HTTP server
#: is aiohttp's (PTB's telegram.ext imports tornado whenever it is installed: it is not).
NEVER = ["alembic", "matplotlib", "babel.dates", "tornado"]

REPORT = """
import sys
import babel.localedata

def report(*extra):
    print(" ".join(m for m in [*NEVER, *extra] if m in sys.modules) or "-")
    print(sorted(babel.localedata._cache) or "-")
"""

SERVE_SQLITE_POLLING = """
import gettext
from tgbot import command_menu, i18n

read_menus = command_menu.menu_texts

def menus_read_first():
    print("telegram" in sys.modules, "sqlalchemy" in sys.modules)
    menus = read_menus()
    from tgbot import runner  # only now: the bot's own order of imports

    runner.serve = serve
    return menus

command_menu.menu_texts = menus_read_first

async def serve(application, settings, *, webhook):  # the bot, up to the moment it would serve
    # No HTTP server to run, so no metrics to count (decisions.md B28); Python's event loop, not
    # uvloop (B33).
    report(
        "psycopg",
        "sqlalchemy.dialects.postgresql",
        "aiohttp.web",
        "prometheus_client",
        "uvloop",
    )
    print(application.updater is not None)
    # The menus' catalogs, read before the big imports, are not kept (decisions.md B30).
    print(len(gettext._translations), i18n.translations.cache_info().currsize)
    print(read_menus()["es"][0][1] != read_menus()["en"][0][1])

from tgbot.__main__ import main
sys.exit(main([]))
"""

BUILD_POSTGRES_WEBHOOK = """
from pydantic import SecretStr
from tgbot.app import build_application
from tgbot.config import Settings
import tgbot.runner, tgbot.web  # what `python -m tgbot --webhook` imports besides

settings = Settings(
    telegram_bot_token=SecretStr(TOKEN), database_url="postgresql+psycopg://tweakbot@127.0.0.1:1/none"
)
application = build_application(settings, create_tables=False, webhook=True)  # connects to nothing
report("sqlalchemy.dialects.sqlite")
print(application.updater is None)
print(application.bot._request[0] is application.bot._request[1])  # getUpdates' client is the same
"""


def _run(code: str, tmp_path: Path, env: dict[str, str]) -> list[str]:
    program = f"NEVER = {NEVER!r}\nTOKEN = {TEST_TOKEN!r}\n{REPORT}{code}"
    try:
        out = subprocess.run(
            [sys.executable, "-c", program],
            cwd=tmp_path,
            env={**os.environ, "PYTHONPATH": str(ROOT), **env},
            capture_output=True,
            text=True,
            timeout=60,
        )
    except subprocess.TimeoutExpired:
        pytest.fail("the bot went past the stand-in for runner.serve and waits for Telegram")
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout.splitlines()


def test_a_sqlite_polling_bot_loads_no_postgresql_alembic_matplotlib_http_server_metrics_or_catalogs(
    tmp_path: Path,
) -> None:
    lines = _run(
        SERVE_SQLITE_POLLING,
        tmp_path,
        {"TELEGRAM_BOT_TOKEN": TEST_TOKEN, "DATABASE_URL": f"sqlite:///{tmp_path / 'bot.sqlite3'}"},
    )
    assert lines[-6:] == ["False False", "-", "-", "True", "0 0", "True"]


def test_a_postgresql_bot_in_webhook_mode_loads_no_sqlite_dialect_and_one_http_client(tmp_path: Path) -> None:
    lines = _run(BUILD_POSTGRES_WEBHOOK, tmp_path, {})
    assert lines[-4:] == ["-", "-", "True", "True"]
