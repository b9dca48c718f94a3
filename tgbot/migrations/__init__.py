"""Database migrations (Alembic), shipped with the package.

* `upgrade` brings a database to the newest schema; the bot calls it on start and
  ``tweakbot migrate`` does only that. Two instances starting together are safe: on PostgreSQL
  the upgrade holds an advisory lock, so the second waits and then finds nothing to do.
* `schema_diff` lists what the models have that the migrations do not (a test keeps it empty).
* ``python -m tgbot.migrations revision -m "..."`` writes a new revision from the model changes.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import inspect, text
from sqlalchemy.engine import Connection, Engine

from ..store.db import make_engine

log = logging.getLogger(__name__)

HERE = Path(__file__).resolve().parent
INI = HERE / "alembic.ini"
#: pg_advisory_lock key held while migrating ("TWEAK" in ASCII).
LOCK_KEY = 0x5457_4541_4B
#: The first revision: the schema that create_all made before the project had migrations.
BASELINE = "0001"


def alembic_config(url: str | None = None, connection: Connection | None = None) -> Config:
    config = Config(str(INI))
    config.set_main_option("script_location", str(HERE))
    if url is not None:
        # ConfigParser interpolation: a literal % in a password must be doubled.
        config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    if connection is not None:
        config.attributes["connection"] = connection
    return config


def head() -> str:
    """The newest revision id."""
    revision = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert revision is not None
    return revision


@contextmanager
def _connected(target: str | Engine) -> Iterator[Connection]:
    engine = make_engine(target) if isinstance(target, str) else target
    try:
        with engine.connect() as connection:
            yield connection
    finally:
        if isinstance(target, str):
            engine.dispose()


@contextmanager
def _migration_lock(connection: Connection) -> Iterator[None]:
    """Serialise migrations across processes (PostgreSQL; SQLite locks the file itself)."""
    if connection.dialect.name != "postgresql":
        yield
        return
    connection.execute(text("SELECT pg_advisory_lock(:key)"), {"key": LOCK_KEY})
    connection.commit()
    try:
        yield
    finally:
        connection.rollback()
        connection.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": LOCK_KEY})
        connection.commit()


def _run(target: str | Engine, action: str, revision: str) -> None:
    with _connected(target) as connection, _migration_lock(connection):
        config = alembic_config(connection=connection)
        if action == "upgrade" and _created_without_migrations(connection):
            # A database made by create_all before migrations existed: it has the first schema.
            log.warning("database has tables but no migration history: marking it as revision %s", BASELINE)
            command.stamp(config, BASELINE)
            connection.commit()
        getattr(command, action)(config, revision)
        connection.commit()


def _created_without_migrations(connection: Connection) -> bool:
    if MigrationContext.configure(connection).get_current_revision() is not None:
        return False
    return "games" in inspect(connection).get_table_names()


def upgrade(target: str | Engine, revision: str = "head") -> None:
    """Upgrade the database at ``target`` (a URL or an Engine) to ``revision``."""
    _run(target, "upgrade", revision)


def downgrade(target: str | Engine, revision: str) -> None:
    _run(target, "downgrade", revision)


def current(target: str | Engine) -> str | None:
    """The database's revision, or None for a database that was never migrated."""
    with _connected(target) as connection:
        return MigrationContext.configure(connection).get_current_revision()


def schema_diff(target: str | Engine) -> list[Any]:
    """Differences between the database and the models, as Alembic's autogenerate sees them."""
    from sqlmodel import SQLModel

    from ..store import models  # noqa: F401  (registers the tables)

    with _connected(target) as connection:
        context = MigrationContext.configure(
            connection, opts={"compare_type": True, "compare_server_default": True}
        )
        return list(compare_metadata(context, SQLModel.metadata))
