"""A game's status is a `GameStatus` in the bot and, in the `status` column, the text every
version wrote (the texts below are written out by hand); a game ends one way only
(`services.game_clock.end_game`)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.engine import Engine
from sqlmodel import Session

from tgbot.store.db import create_all, make_engine
from tgbot.store.models import ENDED_STATUSES, Game, GameStatus

TGBOT = Path(__file__).resolve().parent.parent / "tgbot"
TEXTS = {
    GameStatus.LOBBY: "lobby",
    GameStatus.PLAYING: "playing",
    GameStatus.PAUSED: "paused",
    GameStatus.FINISHED: "finished",
    GameStatus.CANCELLED: "cancelled",
    GameStatus.ABANDONED: "abandoned",
    GameStatus.EXPIRED: "expired",
}


@pytest.fixture
def engine() -> Iterator[Engine]:
    engine = make_engine("sqlite://")
    create_all(engine)
    yield engine
    engine.dispose()


def test_every_status_keeps_its_text() -> None:
    assert {status: status.value for status in GameStatus} == TEXTS


@pytest.mark.parametrize("status", list(GameStatus))
def test_a_status_is_written_as_its_text_and_read_as_itself(engine: Engine, status: GameStatus) -> None:
    with Session(engine) as session:
        now = datetime(2026, 1, 1)
        game = Game(chat_id=-5, creator_id=1, status=status, created_at=now, updated_at=now)
        session.add(game)
        session.commit()
        game_id = game.id
    with engine.begin() as connection:
        row = {"id": game_id, "s": TEXTS[status]}
        assert connection.execute(text("SELECT status FROM games WHERE id = :id"), row).scalar() == row["s"]
        connection.execute(text("UPDATE games SET status = :s WHERE id = :id"), row)
    with Session(engine) as session:
        read = session.get(Game, game_id)
        assert read is not None and type(read.status) is GameStatus and read.status is status


def ends_written(tree: ast.AST) -> list[int]:
    """The lines that give a game an ending status: ``….status = FINISHED`` (or any ending
    status, by its old name or as a `GameStatus` member), or ``status=CANCELLED`` passed."""
    ending = {status.name for status in ENDED_STATUSES}

    def names_an_end(node: ast.expr) -> bool:
        name = node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", None)
        return name in ending

    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and names_an_end(node.value):
            if any(getattr(t, "attr", None) == "status" for t in node.targets):
                found.append(node.lineno)
        elif isinstance(node, ast.keyword) and node.arg == "status" and names_an_end(node.value):
            found.append(node.value.lineno)
    return found


def test_a_game_ends_one_way() -> None:
    one_way = TGBOT / "services" / "game_clock.py"
    offending = [
        f"{path.relative_to(TGBOT.parent)}:{line}"
        for path in sorted(TGBOT.rglob("*.py"))
        if path != one_way and "migrations" not in path.parts
        for line in ends_written(ast.parse(path.read_text(), str(path)))
    ]
    assert offending == []


def test_the_check_finds_an_end_written_by_hand() -> None:
    tree = ast.parse(
        "game.status = FINISHED\nctx.game.status = GameStatus.CANCELLED\ngame.status = PAUSED\n"
        "update(Game).values(status=EXPIRED)\ngame.status = status\nend_game(session, game, ABANDONED, now)\n"
    )
    assert ends_written(tree) == [1, 2, 4]
