"""The stored table kind (revision 0008): games from before it get the kind their chat id told,
on SQLite and PostgreSQL, so a running game keeps doing what its table did."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import text

from tests.pg import pg_url  # noqa: F401  (fixture)
from tgbot import migrations
from tgbot.store.db import make_engine
from tgbot.tables import inline_chat_id

PERSON, GROUP, SUPERGROUP = 7001, -42, -1001234567890
INLINE = inline_chat_id("chat:instance-1")


def check_existing_games_get_their_kind(url: str) -> None:
    migrations.upgrade(url, "0007")
    engine = make_engine(url)
    try:
        with engine.begin() as connection:
            for game_id, chat_id in enumerate((PERSON, GROUP, SUPERGROUP, INLINE), start=1):
                connection.execute(
                    text(
                        "INSERT INTO games (id, chat_id, status, version, settings, seed, creator_id,"
                        " language, board_no, board_report, reported_version, nudges_sent, created_at,"
                        " updated_at) VALUES (:id, :chat, 'playing', 1, '{}', 0, 1, 'en', 0, '', 0, 0,"
                        " '2026-12-01 10:00:00', '2026-12-01 10:00:00')"
                    ),
                    {"id": game_id, "chat": chat_id},
                )
        migrations.upgrade(url)
        with engine.connect() as connection:
            kinds = dict(connection.execute(text("SELECT chat_id, table_kind FROM games")).all())
        assert kinds == {PERSON: "practice", GROUP: "group", SUPERGROUP: "group", INLINE: "inline"}
        assert migrations.schema_diff(url) == []
    finally:
        engine.dispose()


def test_existing_games_get_their_kind_on_sqlite(tmp_path: Path) -> None:
    check_existing_games_get_their_kind(f"sqlite:///{tmp_path / 'bot.sqlite3'}")


def test_existing_games_get_their_kind_on_postgresql(pg_url: str) -> None:  # noqa: F811
    check_existing_games_get_their_kind(pg_url)
