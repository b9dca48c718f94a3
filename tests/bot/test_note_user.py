"""`people.note_user`: a person noted in one statement, written only when something changed, on
SQLite and on PostgreSQL (the lobby keys and /newgame call it on every tap)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import event, text
from sqlalchemy.engine import Engine
from sqlmodel import Session

from tests.pg import pg_url  # noqa: F401  (fixture)
from tgbot.services.env import Env
from tgbot.services.people import Person, note_user
from tgbot.store.db import create_all, make_engine, transaction
from tgbot.store.models import User

NOW = datetime(2026, 12, 4, 12, 0, tzinfo=UTC).replace(tzinfo=None)


@pytest.fixture(params=["sqlite", "postgres"])
def engine(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Engine]:
    url = (
        f"sqlite:///{tmp_path / 'bot.sqlite3'}"
        if request.param == "sqlite"
        else request.getfixturevalue("pg_url")
    )
    made = make_engine(url)
    create_all(made)
    try:
        yield made
    finally:
        made.dispose()


def _note(engine: Engine, person: Person) -> tuple[int, int]:
    """Notes `person`; returns (statements run, rows written)."""
    statements: list[str] = []

    def count(_conn: object, _cursor: object, statement: str, *_rest: object) -> None:
        statements.append(statement)

    event.listen(engine, "before_cursor_execute", count)
    try:
        with transaction(Session(engine)) as session:
            result = session.connection().execute(text("SELECT 1"))  # the transaction's own BEGIN
            result.close()
            before = len(statements)
            note_user(session, person, Env(now=NOW))
            noted = len(statements) - before
            written = _written(session)
    finally:
        event.remove(engine, "before_cursor_execute", count)
    return noted, written


def _written(session: Session) -> int:
    if session.get_bind().dialect.name == "postgresql":
        return 0  # PostgreSQL: checked by the row's version below
    return int(session.connection().execute(text("SELECT changes()")).scalar_one())


def _row(engine: Engine, user_id: int) -> tuple[User, str | None]:
    with Session(engine) as session:
        user = session.get(User, user_id)
        assert user is not None
        version = None
        if engine.dialect.name == "postgresql":
            version = str(
                session.connection()
                .execute(text("SELECT xmin FROM users WHERE id = :i"), {"i": user_id})
                .scalar_one()
            )
        session.expunge(user)
        return user, version


def test_a_person_is_noted_in_one_statement_and_written_only_when_changed(engine: Engine) -> None:
    ana = Person(7, "Ana", "ana", "pt-BR")
    assert _note(engine, ana)[0] == 1
    user, first = _row(engine, 7)
    assert (user.first_name, user.username, user.tg_language, user.can_dm) == ("Ana", "ana", "pt-BR", False)
    assert user.created_at == NOW

    # The same facts again: the row is not written (SQLite counts no change; PostgreSQL keeps the
    # row's version).
    noted, written = _note(engine, ana)
    assert noted == 1 and written == 0
    assert _row(engine, 7)[1] == first

    # A tap without a language keeps the one known; a new name and username are taken.
    _noted, written = _note(engine, Person(7, "Ana Maria" + "x" * 200, None, None))
    user, later = _row(engine, 7)
    assert (user.first_name, user.username, user.tg_language) == ("Ana Maria" + "x" * 119, None, "pt-BR")
    if engine.dialect.name == "sqlite":
        assert written == 1
    else:
        assert later != first
