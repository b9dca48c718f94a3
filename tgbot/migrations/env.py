"""Alembic environment: the schema is the SQLModel metadata of tgbot.store.models.

The database comes from (first found): a connection handed over by `tgbot.migrations.upgrade`
(``config.attributes["connection"]``), ``sqlalchemy.url`` set on the config, ``-x url=...`` on the
alembic command line, the DATABASE_URL environment variable, or the bot's default SQLite file.
SQLite gets batch mode ("move and copy"), since it cannot ALTER most things in place.
"""

from __future__ import annotations

import os

from alembic import context
from sqlalchemy.engine import Connection
from sqlmodel import SQLModel

from tgbot.config import DATABASE_URL_ENV, DEFAULT_DATABASE_URL
from tgbot.setting_values import normalize_database_url
from tgbot.store import models  # noqa: F401  (registers the tables on the metadata)
from tgbot.store.db import make_engine

config = context.config
target_metadata = SQLModel.metadata


def _url() -> str:
    url = config.get_main_option("sqlalchemy.url") or context.get_x_argument(as_dictionary=True).get("url")
    return normalize_database_url(url or os.environ.get(DATABASE_URL_ENV) or DEFAULT_DATABASE_URL)


def _configure(**options: object) -> None:
    context.configure(
        target_metadata=target_metadata,
        compare_type=True,
        compare_server_default=True,
        **options,  # type: ignore[arg-type]
    )


def run_offline() -> None:
    url = _url()
    _configure(url=url, literal_binds=True, render_as_batch=url.startswith("sqlite"))
    with context.begin_transaction():
        context.run_migrations()


def _run_on(connection: Connection) -> None:
    _configure(connection=connection, render_as_batch=connection.dialect.name == "sqlite")
    with context.begin_transaction():
        context.run_migrations()


def run_online() -> None:
    connection = config.attributes.get("connection")
    if isinstance(connection, Connection):
        _run_on(connection)
        return
    engine = make_engine(_url())
    try:
        with engine.connect() as connection:
            _run_on(connection)
            connection.commit()
    finally:
        engine.dispose()


if context.is_offline_mode():
    run_offline()
else:
    run_online()
