"""The outbox and the move log as a transaction writes them: everything put goes out in one
statement at commit, a surface keeps one row whose content the newest put replaces, and a
rolled-back savepoint takes its rows with it. On SQLite and on PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from tests.pg import pg_engine, pg_url  # noqa: F401  (fixtures)
from tests.statements import recorded
from tgbot.store import move_log, outbox
from tgbot.store.db import create_all, make_engine
from tgbot.store.models import DeliveryChat, Game, Move, OutboxRow
from tgbot.store.outbox import Message, Payload, Priority
from tgbot.store.surfaces import Board, Panel

NOW = datetime(2026, 12, 2, 6, 0, tzinfo=UTC).replace(tzinfo=None)
GROUP, ANA = -100, 7


@pytest.fixture(params=["sqlite", "postgresql"])
def engine(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Engine]:
    if request.param == "postgresql":
        yield request.getfixturevalue("pg_engine")
        return
    made = make_engine(f"sqlite:///{tmp_path / 'outbox.sqlite3'}")
    create_all(made)
    yield made
    made.dispose()


def rows(engine: Engine) -> list[OutboxRow]:
    with Session(engine) as session:
        return list(session.exec(select(OutboxRow).order_by(col(OutboxRow.id))).all())


def text(row: OutboxRow) -> str:
    return outbox.Payload.from_json(row.payload).text


def test_a_transactions_rows_go_out_in_one_statement_in_the_order_put(engine: Engine) -> None:
    board = Board(1, 1)
    with Session(engine) as session, recorded(engine) as statements:
        outbox.put(session, Message(GROUP, Payload("the report"), priority=Priority.BOARD), NOW)
        outbox.put(
            session, Message(GROUP, Payload("board, first draw"), surface=board, priority=Priority.INFO), NOW
        )
        outbox.put(
            session, Message(ANA, Payload("your panel"), surface=Panel(1, 0), priority=Priority.INFO), NOW
        )
        outbox.put(
            session, Message(GROUP, Payload("board, redrawn"), surface=board, priority=Priority.BOARD), NOW
        )
        outbox.put(session, Message(GROUP, Payload("a notice")), NOW)
        assert statements == []  # nothing is written before the commit
        session.commit()
    assert len(statements) == 1 and statements[0].startswith("INSERT INTO outbox")
    found = rows(engine)
    # the surface put twice is one row, in the place of the first put, with the newer content
    # and the more urgent priority
    assert [(r.chat_id, r.surface, text(r)) for r in found] == [
        (GROUP, None, "the report"),
        (GROUP, board, "board, redrawn"),
        (ANA, Panel(1, 0), "your panel"),
        (GROUP, None, "a notice"),
    ]
    assert found[1].priority == Priority.BOARD and found[1].rev == 0


def test_a_waiting_surface_takes_the_new_content_in_its_place_in_the_queue(engine: Engine) -> None:
    panel = Panel(1, 0)
    with Session(engine) as session:
        outbox.put(session, Message(ANA, Payload("draft 1"), surface=panel, priority=Priority.TURN), NOW)
        outbox.put(session, Message(ANA, Payload("a reply")), NOW)
        session.commit()
    before = rows(engine)
    with Session(engine) as session:
        outbox.put(session, Message(ANA, Payload("draft 2"), surface=panel, priority=Priority.COSMETIC), NOW)
        session.commit()
    after = rows(engine)
    assert [r.id for r in after] == [r.id for r in before]
    replaced = after[0]
    assert text(replaced) == "draft 2"
    assert replaced.priority == Priority.TURN  # the more urgent of the two stays
    assert replaced.rev == 1  # a sender delivering "draft 1" leaves it queued
    with Session(engine) as session:
        outbox.put(session, Message(ANA, Payload("draft 3"), surface=panel, priority=Priority.BOARD), NOW)
        session.commit()
    first = rows(engine)[0]
    assert (text(first), first.priority, first.rev) == ("draft 3", Priority.BOARD, 2)


def test_a_transaction_reads_the_rows_it_put(engine: Engine) -> None:
    with Session(engine) as session:
        outbox.put(session, Message(ANA, Payload("hello")), NOW)
        found = outbox.next_row(session, ANA)
        assert found is not None and text(found[0]) == "hello" and found[1] is None
        session.commit()
    assert len(rows(engine)) == 1


def test_a_rolled_back_savepoint_forgets_what_was_put_inside_it(engine: Engine) -> None:
    panel = Panel(1, 0)
    with Session(engine) as session:
        outbox.put(session, Message(ANA, Payload("before"), surface=panel), NOW)
        try:
            with session.begin_nested():
                outbox.put(session, Message(ANA, Payload("inside, replaced"), surface=panel), NOW)
                outbox.put(session, Message(GROUP, Payload("inside, new")), NOW)
                raise LookupError("refused")
        except LookupError:
            pass
        with session.begin_nested():
            outbox.put(session, Message(GROUP, Payload("kept")), NOW)
        session.commit()
    assert [(r.chat_id, text(r)) for r in rows(engine)] == [(ANA, "before"), (GROUP, "kept")]


def test_rows_written_inside_a_rolled_back_savepoint_are_written_again(engine: Engine) -> None:
    """A row put before a savepoint, written inside it (the transaction read the queue), is
    undone with the savepoint by the database, and still goes out at the commit."""
    with Session(engine) as session:
        outbox.put(session, Message(ANA, Payload("before")), NOW)
        try:
            with session.begin_nested():
                assert outbox.next_row(session, ANA) is not None  # written now, inside
                outbox.put(session, Message(ANA, Payload("inside")), NOW)
                raise LookupError("refused")
        except LookupError:
            pass
        session.commit()
    assert [text(r) for r in rows(engine)] == ["before"]


def test_what_a_rolled_back_savepoint_read_or_changed_goes_back(engine: Engine) -> None:
    """The shown message it remembered and the chat's delivery row it changed: the transaction
    reads them as they were before the savepoint."""
    board = Board(1, 1)
    with Session(engine) as session:
        outbox.remember_shown(session, GROUP, board, 10, "d10")
        session.commit()
    with Session(engine) as session:
        assert outbox.shown_message(session, GROUP, board) == outbox.Shown(board, 10, "d10")
        chat = outbox.delivery_chat(session, GROUP)
        chat.last_message_id = 10
        try:
            with session.begin_nested():
                outbox.remember_shown(session, GROUP, board, 11, "d11")
                outbox.delivery_chat(session, GROUP).last_message_id = 11
                raise LookupError("refused")
        except LookupError:
            pass
        assert outbox.shown_message(session, GROUP, board) == outbox.Shown(board, 10, "d10")
        assert outbox.delivery_chat(session, GROUP).last_message_id == 10
        session.commit()
    with Session(engine) as session:
        found = session.get(DeliveryChat, GROUP)
        assert found is not None and found.last_message_id == 10


def test_a_rolled_back_transaction_writes_nothing(engine: Engine) -> None:
    with Session(engine) as session:
        outbox.put(session, Message(ANA, Payload("never")), NOW)
        session.rollback()
        session.commit()
    assert rows(engine) == []


def _new_game(engine: Engine) -> int:
    """A game row for moves to be logged against; its id."""
    with Session(engine) as session:
        game = Game(chat_id=GROUP, creator_id=ANA, created_at=NOW, updated_at=NOW)
        session.add(game)
        session.commit()
        assert game.id is not None
        return game.id


def test_a_transactions_moves_go_out_in_one_statement(engine: Engine) -> None:
    """A Joker played with its sum, or computers' moves after a person's: one INSERT for the
    log, on SQLite too (whose ORM would insert them one by one to get their ids back)."""
    game_id = _new_game(engine)
    with Session(engine) as session, recorded(engine) as statements:
        for seq, code in ((2, "J+"), (3, "S0:1"), (4, "D0")):
            move_log.add(session, game_id=game_id, seq=seq, seat=seq % 2, code=code, source="player", at=NOW)
        try:
            with session.begin_nested():
                move_log.add(session, game_id=game_id, seq=5, seat=0, code="D1", source="ai", at=NOW)
                raise LookupError("refused")
        except LookupError:
            pass
        session.commit()
    inserts = [s for s in statements if s.startswith("INSERT INTO moves")]
    assert len(inserts) == 1, statements
    with Session(engine) as session:
        logged = session.exec(select(Move).order_by(col(Move.seq))).all()
    assert [(m.seq, m.code) for m in logged] == [(2, "J+"), (3, "S0:1"), (4, "D0")]


class Compiled:
    """The SQLAlchemy compiled form each INSERT into `table` ran with."""

    def __init__(self, engine: Engine, table: str) -> None:
        self.seen: list[Any] = []
        self.table = table
        event.listen(engine, "before_cursor_execute", self.record)

    def record(self, _conn: Any, _cur: Any, statement: str, _params: Any, context: Any, _many: Any) -> None:
        if statement.startswith(f"INSERT INTO {self.table}"):
            self.seen.append(context.compiled)


def test_several_rows_reuse_one_compiled_statement(engine: Engine) -> None:
    """Transactions that put two, three or one rows, or log two or three moves, all run the
    INSERT SQLAlchemy compiled once: a multi-row VALUES list was a new statement for every
    transaction, compiled anew (more CPU than running it)."""
    game_id = _new_game(engine)
    rows_seen, moves_seen = Compiled(engine, "outbox"), Compiled(engine, "moves")
    seq = 0
    for count in (2, 3, 1, 3):
        with Session(engine) as session:
            for i in range(count):
                outbox.put(session, Message(GROUP, Payload(f"{count}.{i}"), surface=Panel(1, i)), NOW)
                seq += 1
                move_log.add(session, game_id=game_id, seq=seq, seat=0, code="D0", source="player", at=NOW)
            session.commit()
    assert len(rows_seen.seen) == 4 and len(moves_seen.seen) == 4
    # one compiled form for several rows (the 2-, 3- and 3-row transactions), SQLAlchemy's
    # single-row one for the lone row
    for seen in (rows_seen.seen, moves_seen.seen):
        assert seen[0] is seen[1] is seen[3] and seen[2] is not seen[0]
    # what the last transaction left: each surface's newest content, and every move in order
    assert [text(r) for r in rows(engine)] == ["3.0", "3.1", "3.2"]
    with Session(engine) as session:
        assert [m.seq for m in session.exec(select(Move).order_by(col(Move.id))).all()] == list(range(1, 10))


def test_a_sender_takes_a_free_chat_in_one_statement_and_never_a_held_one(engine: Engine) -> None:
    """The lease a sender's burst starts with: one UPDATE when the chat's row is free, its own or
    run out; a live lease of another instance is left alone; a chat never seen gets its row."""

    def take(holder: str, now: float) -> tuple[bool, list[str]]:
        with Session(engine) as session, recorded(engine) as statements:
            taken = outbox.take(session, GROUP, holder, now, 15.0)
            session.commit()
        return taken is not None, statements

    def lease() -> tuple[str | None, float]:
        with Session(engine) as session:
            row = session.get(DeliveryChat, GROUP)
            assert row is not None
            return row.holder, row.lease_until

    assert take("a", 100.0)[0]  # a chat never seen: its row is made, and taken
    assert lease() == ("a", 115.0)
    taken, statements = take("a", 105.0)  # its own lease, renewed
    assert taken and len(statements) == 1 and statements[0].startswith("UPDATE delivery_chats"), statements
    assert lease() == ("a", 120.0)
    assert not take("b", 119.0)[0]  # another instance's live lease
    assert lease() == ("a", 120.0)
    taken, statements = take("b", 120.0)  # run out: anyone may take it
    assert taken and len(statements) == 1, statements
    assert lease() == ("b", 135.0)
    with Session(engine) as session:
        outbox.release(session, GROUP, "b")
        session.commit()
    taken, statements = take("c", 121.0)  # let go
    assert taken and len(statements) == 1, statements
    assert lease() == ("c", 136.0)


def test_a_shown_message_read_in_a_transaction_follows_what_it_writes(engine: Engine) -> None:
    """What shows a surface is read once per transaction and kept; the transaction's own writes
    (a new message remembered, one forgotten) change what it reads next, before any commit."""
    board = Board(1, 1)
    with Session(engine) as session:
        outbox.remember_shown(session, GROUP, board, 10, "d10")
        session.commit()
    with Session(engine) as session, recorded(engine) as statements:
        assert outbox.shown_message(session, GROUP, board) == outbox.Shown(board, 10, "d10")
        assert outbox.shown_message(session, GROUP, board) == outbox.Shown(board, 10, "d10")
        assert len(statements) == 1  # the second look is the kept answer
        outbox.remember_shown(session, GROUP, board, 11, "d11")
        assert outbox.shown_message(session, GROUP, board) == outbox.Shown(board, 11, "d11")
        outbox.forget_shown(session, GROUP, board)
        assert outbox.shown_message(session, GROUP, board) is None
        outbox.remember_shown(session, GROUP, Panel(1, 0), 12, "d12")
        session.commit()
    with Session(engine) as session:
        assert outbox.shown_message(session, GROUP, board) is None
        assert outbox.shown_message(session, GROUP, Panel(1, 0)) == outbox.Shown(Panel(1, 0), 12, "d12")
        # the next row of a surface comes with the message that shows it
        outbox.put(
            session, Message(GROUP, Payload("panel again"), surface=Panel(1, 0), priority=Priority.INFO), NOW
        )
        found = outbox.next_row(session, GROUP)
        assert found is not None and found[1] == outbox.Shown(Panel(1, 0), 12, "d12")


def test_a_chats_delivery_row_is_read_once_and_written_once_if_changed(engine: Engine) -> None:
    """A sender's transaction reads the chat's delivery row once (asked again, it gets the same
    values with its own changes) and writes it back in one UPDATE at the commit, or not at all
    when nothing changed."""
    with Session(engine) as session, recorded(engine) as statements:
        made = outbox.delivery_chat(session, GROUP)  # never seen: its row is made
        assert (made.holder, made.recent) == (None, "[]")
        session.commit()
    assert [s.split()[0] for s in statements] == ["SELECT", "INSERT", "SELECT"], statements
    with Session(engine) as session, recorded(engine) as statements:
        chat = outbox.claim(session, GROUP, "a", 100.0, 15.0)
        assert chat is not None
        again = outbox.delivery_chat(session, GROUP)
        assert again is chat and again.holder == "a"
        again.recent, again.last_message_id = "[100.0]", 41
        session.commit()
    assert [s.split()[0] for s in statements] == ["SELECT", "UPDATE"], statements
    with Session(engine) as session, recorded(engine) as statements:
        read = outbox.delivery_chat(session, GROUP)
        assert read.values() == ("a", 115.0, 0.0, "[100.0]", 41)
        session.commit()
    assert len(statements) == 1  # read, unchanged: not written
    with Session(engine) as session:
        stored = session.get(DeliveryChat, GROUP)
        assert stored is not None and (stored.holder, stored.last_message_id) == ("a", 41)
