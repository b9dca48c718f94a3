"""The game's row lock on PostgreSQL: a tap queued behind another reads what that tap wrote.

Two taps of one game serialise on the game's row (`load_game(lock=True)`). Under READ
COMMITTED a statement that waits for a row lock still reads every other table as of its own
start, so the seats and their drafts must be read by a statement that begins after the lock is
held: were they folded into the locking statement, the queued tap would see the draft from
before the tap it waited for, and its save would undo that tap's selection.
"""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime

from sqlalchemy import text
from sqlalchemy.engine import Engine
from sqlmodel import Session

from tests.pg import pg_engine, pg_url  # noqa: F401  (fixtures)
from tgbot.render.board import Draft
from tgbot.services import drafts
from tgbot.services.context import load_game
from tgbot.services.env import Env
from tgbot.store.db import transaction
from tgbot.store.models import Chat, Game, GamePlayer, User

NOW = datetime(2026, 12, 4, 12, 0, tzinfo=UTC)
WAIT_SECONDS = 10.0


def _game(engine: Engine) -> int:
    with transaction(Session(engine)) as session:
        session.add(Chat(id=-100, title="Friends", created_at=NOW))
        for user in (1, 2):
            session.add(User(id=user, first_name=f"U{user}", created_at=NOW))
        game = Game(chat_id=-100, status="playing", creator_id=1, created_at=NOW, updated_at=NOW)
        session.add(game)
        session.flush()
        assert game.id is not None
        for seat, user in enumerate((1, 2)):
            session.add(GamePlayer(game_id=game.id, seat=seat, user_id=user, name=f"P{seat}"))
        return game.id


def _waiting_for_a_lock(engine: Engine) -> bool:
    with engine.connect() as conn:
        query = "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
        return bool(conn.execute(text(query)).scalar())


def test_a_tap_queued_behind_another_reads_its_draft(pg_engine: Engine) -> None:  # noqa: F811
    game_id = _game(pg_engine)
    env = Env(now=NOW)
    first_holds = threading.Event()
    seen: list[Draft] = []

    def second_tap() -> None:
        first_holds.wait(WAIT_SECONDS)
        with transaction(Session(pg_engine)) as session:
            ctx = load_game(session, game_id, lock=True)  # waits for the first tap's commit
            assert ctx is not None
            seen.append(drafts.load(session, game_id, 0, ctx.game.version))

    second = threading.Thread(target=second_tap)
    second.start()
    with transaction(Session(pg_engine)) as session:
        ctx = load_game(session, game_id, lock=True)
        assert ctx is not None
        drafts.save(session, env, game_id, 0, ctx.game.version, Draft(hand=1, mask=0b101))
        first_holds.set()
        deadline = time.monotonic() + WAIT_SECONDS
        while not _waiting_for_a_lock(pg_engine):  # the second tap has begun and is queued
            assert time.monotonic() < deadline, "the second tap never waited for the lock"
            time.sleep(0.01)
    second.join(WAIT_SECONDS)
    assert seen == [Draft(hand=1, mask=0b101)]
