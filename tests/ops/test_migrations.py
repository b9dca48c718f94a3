"""Alembic migrations: from empty on SQLite and PostgreSQL, round trips, and models == migrations.

When ``test_migrated_schema_matches_the_models`` fails, a model changed without a migration:
run ``python -m tgbot.migrations revision -m "what changed"`` and review the new file.
"""

from __future__ import annotations

import threading
import tomllib
from pathlib import Path

import pytest
from alembic.script import ScriptDirectory
from sqlalchemy import inspect, text
from sqlalchemy.engine import Engine
from sqlmodel import SQLModel

from tests.pg import create_database, drop_database, pg_url  # noqa: F401  (fixture)
from tgbot import migrations
from tgbot.store import models  # noqa: F401  (registers the tables)
from tgbot.store.db import make_engine

REPO = Path(__file__).resolve().parents[2]


def tables(engine: Engine) -> set[str]:
    return set(inspect(engine).get_table_names()) - {"alembic_version"}


def model_tables() -> set[str]:
    return set(SQLModel.metadata.tables)


def revisions() -> list[str]:
    """Every revision id, oldest first."""
    script = ScriptDirectory.from_config(migrations.alembic_config())
    return [s.revision for s in reversed(list(script.walk_revisions()))]


def check_upgrade_from_empty_and_round_trip(url: str) -> None:
    engine = make_engine(url)
    try:
        assert migrations.current(engine) is None and tables(engine) == set()
        migrations.upgrade(url)
        assert migrations.current(engine) == migrations.head()
        assert tables(engine) == model_tables()
        assert migrations.schema_diff(url) == []
        # every step down and up again, newest first
        chain = revisions()
        for index in range(len(chain) - 1, -1, -1):
            below = chain[index - 1] if index else "base"
            migrations.downgrade(url, below)
            assert migrations.current(engine) == (None if below == "base" else below)
            migrations.upgrade(url, chain[index])
            assert migrations.current(engine) == chain[index]
        # all the way down, then up again
        migrations.downgrade(url, "base")
        assert tables(engine) == set()
        migrations.upgrade(url)
        assert migrations.schema_diff(url) == []
    finally:
        engine.dispose()


def test_upgrade_from_empty_and_round_trip_on_sqlite(tmp_path: Path) -> None:
    check_upgrade_from_empty_and_round_trip(f"sqlite:///{tmp_path / 'bot.sqlite3'}")


def test_upgrade_from_empty_and_round_trip_on_postgresql(pg_url: str) -> None:  # noqa: F811
    check_upgrade_from_empty_and_round_trip(pg_url)


def test_migrated_schema_matches_the_models(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'bot.sqlite3'}"
    migrations.upgrade(url)
    diff = migrations.schema_diff(url)
    assert diff == [], (
        "the models changed without a migration: run "
        f"`python -m tgbot.migrations revision -m '...'` and review it. Differences: {diff}"
    )


def test_revision_chain_is_linear_and_files_are_importable_names() -> None:
    script = ScriptDirectory.from_config(migrations.alembic_config())
    assert len(script.get_heads()) == 1, "two heads: merge them (alembic merge) or rebase one"
    for revision in script.walk_revisions():
        path = Path(revision.path)
        assert path.stem.isidentifier() and path.stem.startswith("v"), path.name
        assert path.stem.startswith(f"v{revision.revision}_"), path.name


def test_two_instances_migrating_at_once_on_postgresql() -> None:
    name, url = create_database()
    try:
        errors: list[BaseException] = []

        def run() -> None:
            try:
                migrations.upgrade(url)
            except BaseException as exc:  # reported below
                errors.append(exc)

        threads = [threading.Thread(target=run) for _ in range(3)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        assert errors == []
        assert migrations.current(url) == migrations.head()
    finally:
        drop_database(name)


def test_upgrading_an_up_to_date_database_changes_nothing(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'bot.sqlite3'}"
    migrations.upgrade(url)
    before = (tmp_path / "bot.sqlite3").stat().st_size
    migrations.upgrade(url)
    assert migrations.current(url) == migrations.head()
    assert (tmp_path / "bot.sqlite3").stat().st_size == before


def test_a_database_made_by_create_all_is_adopted(tmp_path: Path) -> None:
    """Databases from before migrations existed get the history they lack, then upgrade."""
    url = f"sqlite:///{tmp_path / 'bot.sqlite3'}"
    engine = make_engine(url)
    try:
        # what create_all made back then: the baseline schema, without alembic_version
        migrations.upgrade(url, migrations.BASELINE)
        with engine.begin() as connection:
            connection.execute(text("DROP TABLE alembic_version"))
        assert migrations.current(engine) is None
        migrations.upgrade(url)
        assert migrations.current(engine) == migrations.head()
        assert migrations.schema_diff(url) == []
    finally:
        engine.dispose()


def test_the_package_ships_its_migrations() -> None:
    """An installed (non-editable) package must carry env.py, the template, the ini and versions."""
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text())
    package_data = pyproject["tool"]["setuptools"]["package-data"]["tgbot"]
    needed = {"migrations/alembic.ini", "migrations/script.py.mako"}
    for pattern in package_data:
        needed = {n for n in needed if not Path(n).match(pattern)}
    assert needed == set(), f"not in package-data: {needed}"
    # .py files ship because migrations/ and versions/ are packages (found by setuptools)
    for package in (REPO / "tgbot" / "migrations", REPO / "tgbot" / "migrations" / "versions"):
        assert (package / "__init__.py").is_file()
    assert (REPO / "tgbot" / "migrations" / "env.py").is_file()


@pytest.mark.usefixtures("root_logging_restored")
def test_migrate_command_fails_cleanly_when_the_database_is_unusable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.fakes.telegram import TEST_TOKEN
    from tgbot.__main__ import main

    monkeypatch.setenv("TELEGRAM_BOT_TOKEN", TEST_TOKEN)
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'missing-dir' / 'bot.sqlite3'}")
    monkeypatch.chdir(tmp_path)  # no .env here
    assert main(["migrate"]) == 1


SERVE_AND_REPORT = """
import sys
from tgbot import runner

async def serve(application, settings, *, webhook):  # the bot, up to the moment it would serve
    print("alembic" in sys.modules, "matplotlib" in sys.modules)

runner.serve = serve
from tgbot.__main__ import main
sys.exit(main([]))
"""


def test_the_bot_migrates_in_a_child_process_and_never_holds_alembic(tmp_path: Path) -> None:
    """Starting the bot upgrades the database (through `tweakbot migrate` in a child process),
    and the process that goes on to serve has loaded neither Alembic nor matplotlib."""
    import os
    import subprocess
    import sys

    from tests.fakes.telegram import TEST_TOKEN

    database = tmp_path / "bot.sqlite3"
    env = {**os.environ, "TELEGRAM_BOT_TOKEN": TEST_TOKEN, "DATABASE_URL": f"sqlite:///{database}"}
    out = subprocess.run(
        [sys.executable, "-c", SERVE_AND_REPORT], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["False", "False"]
    assert "schema revision" in out.stderr  # the child's log line, on the same stderr
    engine = make_engine(f"sqlite:///{database}")
    try:
        assert model_tables() <= tables(engine)
        assert migrations.current(engine) == migrations.head()
    finally:
        engine.dispose()
