"""Surfaces are typed values in the bot and, in the `surface` column of `outbox` and
`shown_messages`, the texts every version wrote: rows of a database written by an earlier
version read as the same surfaces. The texts below are written out by hand."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime

import pytest
from sqlalchemy import text
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from tgbot.store.db import create_all, make_engine
from tgbot.store.models import OutboxRow, ShownMessage
from tgbot.store.surfaces import (
    Board,
    KeyEdit,
    KeysOff,
    Lobby,
    Panel,
    Reminder,
    Surface,
    Unknown,
    surface_of,
    text_of,
)

TEXTS: list[tuple[Surface, str]] = [
    (Board(12, 3), "board:12:3"),
    (Board(12, 0), "board:12:0"),
    (Lobby(12), "lobby:12"),
    (Panel(12, 5), "panel:12:5"),
    (Reminder(12), "reminder:12"),
    (KeysOff(987654), "keys:987654"),
    (KeyEdit(42), "msg:42"),
]


@pytest.fixture
def engine() -> Iterator[Engine]:
    engine = make_engine("sqlite://")
    create_all(engine)
    yield engine
    engine.dispose()


@pytest.mark.parametrize(("surface", "written"), TEXTS, ids=[t for _s, t in TEXTS])
def test_each_kind_keeps_its_text(surface: Surface, written: str) -> None:
    assert text_of(surface) == written
    assert surface_of(written) == surface


@pytest.mark.parametrize(
    "written", ["board:12", "board:x:1", "lobby:12:1", "panel:12:123", "keys:", "msg:-1", "draft:1", ""]
)
def test_a_text_no_kind_reads_is_kept_as_it_is(written: str) -> None:
    assert surface_of(written) == Unknown(written)
    assert text_of(surface_of(written)) == written


def test_rows_an_earlier_version_wrote_read_as_surfaces(engine: Engine) -> None:
    with engine.begin() as connection:
        for i, (_surface, written) in enumerate(TEXTS):
            connection.execute(
                text(
                    "INSERT INTO shown_messages (chat_id, surface, message_id, digest)"
                    " VALUES (-5, :s, :m, '')"
                ),
                {"s": written, "m": 100 + i},
            )
        connection.execute(
            text(
                "INSERT INTO outbox (chat_id, surface, priority, payload, rev, attempts, created_at)"
                " VALUES (-5, 'board:12:3', 0, '{\"text\":\"\"}', 0, 0, '2026-01-01 00:00:00')"
            )
        )
    with Session(engine) as session:
        shown = session.exec(select(ShownMessage).order_by(ShownMessage.message_id)).all()
        assert [s.surface for s in shown] == [surface for surface, _text in TEXTS]
        assert session.get(ShownMessage, (-5, Panel(12, 5))) is not None
        row = session.exec(select(OutboxRow)).one()
        assert row.surface == Board(12, 3)


def test_what_the_bot_writes_is_the_same_text(engine: Engine) -> None:
    with Session(engine) as session:
        for i, (surface, _text) in enumerate(TEXTS):
            session.add(ShownMessage(chat_id=-5, surface=surface, message_id=100 + i))
        session.add(OutboxRow(chat_id=-5, surface=Lobby(12), payload="{}", created_at=datetime(2026, 1, 1)))
        session.commit()
    with engine.connect() as connection:
        shown = connection.execute(text("SELECT surface FROM shown_messages ORDER BY message_id")).scalars()
        assert list(shown) == [written for _surface, written in TEXTS]
        assert connection.execute(text("SELECT surface FROM outbox")).scalar_one() == "lobby:12"
