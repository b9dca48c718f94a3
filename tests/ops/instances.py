"""Two bot instances on one PostgreSQL database, for the tests that race them
(`test_two_instances.py`, `test_two_instances_inline.py`).

Each instance is a real Application with its own engine, in-process locks and event loop, running
in its own thread, so their transactions really overlap in PostgreSQL. Both talk to one fake
Telegram (one bot, one set of chats), which `Both` feeds every update to both of them at once: a
webhook retried while its first delivery is still being handled, as two instances behind one
address would see it. Afterwards each game's move log must stand on its own (`verified_moves`).
"""

from __future__ import annotations

import asyncio
import copy
import itertools
import json
import logging
import threading
from collections.abc import Awaitable, Callable
from concurrent.futures import Future
from typing import Any, TypeVar

import pytest
from sqlmodel import Session, col, select

import engine
from engine import GameState
from tests.bot.conftest import make_settings
from tests.fakes import FakeTelegram, TelegramTestClient
from tests.fakes.telegram import FakeChat, FakeUser
from tgbot.app import build_application, make_deps
from tgbot.delivery.budget import Limits
from tgbot.game_settings import GameSettings
from tgbot.store.db import make_engine
from tgbot.store.models import Game, GamePlayer, Move, OutboxRow
from tgbot.time_source import ManualClock

T = TypeVar("T")
STEP_TIMEOUT = 60.0


class SharedFake(FakeTelegram):
    """The fake Telegram, safe to call from two threads (its handlers never suspend mid-way).
    The test builds its updates under `lock` too: the instances' senders call it meanwhile."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.lock = threading.RLock()

    async def do_request(self, *args: Any, **kwargs: Any) -> tuple[int, bytes]:
        with self.lock:
            return await super().do_request(*args, **kwargs)


class Instance:
    """One bot process, as far as the database can tell: own engine, locks, loop and thread."""

    def __init__(self, url: str, fake: SharedFake, clock: ManualClock, seeds: Callable[[], int]) -> None:
        settings = make_settings(url)
        self.deps = make_deps(settings, db=make_engine(url), clock=clock)
        self.deps.seed_source = seeds
        self.deps.delivery.poll_seconds = 0.2
        # Not a test of pacing: the group budget would make each step wait in real time.
        self.deps.delivery.limits = Limits(group=10_000, cosmetic=10_000, private_gap=0.0, overall=10_000)
        self.app = build_application(settings, deps=self.deps, request=fake, create_tables=False)
        self.tg = TelegramTestClient(self.app, fake, settle_timeout=STEP_TIMEOUT)
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)

    def submit(self, work: Awaitable[T]) -> Future[T]:
        async def run() -> T:
            return await work

        return asyncio.run_coroutine_threadsafe(run(), self.loop)

    def start(self) -> None:
        self.thread.start()
        self.submit(self.tg.start()).result(STEP_TIMEOUT)

    def stop(self) -> None:
        try:
            self.submit(self.tg.stop()).result(STEP_TIMEOUT)
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(STEP_TIMEOUT)
            self.deps.db.close()


def start_pair(url: str, fake: SharedFake, first_seed: int) -> tuple[ManualClock, list[Instance]]:
    """Two running instances on one database and one fake, sharing a clock; each new game's seed
    counts up from `first_seed`, so every test's deals are its own."""
    clock = ManualClock()
    fake.clock = clock.now  # type: ignore[assignment]
    counter = itertools.count(1)
    instances = [Instance(url, fake, clock, lambda: first_seed + next(counter)) for _ in range(2)]
    for instance in instances:
        instance.start()
    return clock, instances


def assert_nothing_failed(instances: list[Instance], caplog: pytest.LogCaptureFixture) -> None:
    """No unhandled error in any instance's handlers, and no ERROR line logged (a failed sweep,
    a lost send) anywhere."""
    assert not [i.tg.errors for i in instances if i.tg.errors]
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR] == []


async def all_done(futures: list[Future[Any]]) -> list[Any]:
    return list(
        await asyncio.wait_for(asyncio.gather(*(asyncio.wrap_future(f) for f in futures)), STEP_TIMEOUT)
    )


async def until_delivered(instance: Instance) -> None:
    """Every outbox row of both instances has been sent."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + STEP_TIMEOUT
    while True:
        with Session(instance.deps.db.engine) as session:
            if not session.exec(select(OutboxRow)).first():
                return
        assert loop.time() < deadline, "outbox rows still waiting"
        await asyncio.sleep(0.1)


class Both:
    """Looks like a TelegramTestClient to the scripted players; every update goes to both bots."""

    def __init__(self, fake: SharedFake, instances: list[Instance]) -> None:
        self.fake = fake
        self.instances = instances

    def futures(self, update: dict[str, Any]) -> list[Future[Any]]:
        return [i.submit(i.tg.process(copy.deepcopy(update))) for i in self.instances]

    async def process(self, update: dict[str, Any]) -> None:
        await self.process_all([update])

    async def process_all(self, updates: list[dict[str, Any]]) -> None:
        """Each of `updates` to each instance, all at once."""
        await all_done([f for update in updates for f in self.futures(update)])
        # Either instance may be the one sending a chat's rows (one at a time, by lease), from a
        # sender this update did not start: wait until the chats show everything.
        await until_delivered(self.instances[0])

    async def send(self, chat: FakeChat, user: FakeUser, text: str) -> None:
        with self.fake.lock:
            update = self.fake.command_update(chat, user, text)
        await self.process(update)


def games_of(instance: Instance) -> list[Game]:
    with Session(instance.deps.db.engine) as session:
        return list(session.exec(select(Game).order_by(col(Game.id))).all())


def replay(session: Session, game: Game) -> tuple[GameState, list[Move]]:
    assert game.id is not None
    moves = list(session.exec(select(Move).where(Move.game_id == game.id).order_by(col(Move.seq))).all())
    seats = len(session.exec(select(GamePlayer).where(GamePlayer.game_id == game.id)).all())
    config = GameSettings.from_json(game.settings).engine_config(seats)
    assert moves[0].code == f"start:{game.seed}"
    state = engine.new_game(config, game.seed)
    for move in moves[1:]:
        assert move.seat is not None
        state, _events = engine.apply(state, move.seat, move.code)
    return state, moves


def verified_moves(session: Session, game: Game) -> list[Move]:
    """The game's move log, once shown to be 1..version with no gap or duplicate and to replay
    from the seed to exactly the stored state."""
    state, moves = replay(session, game)
    seqs = [m.seq for m in moves]
    assert seqs == list(range(1, game.version + 1)), (game.id, seqs)
    assert game.state is not None
    assert state.to_json() == json.loads(game.state), f"game {game.id}: state != replay of its log"
    return moves


def count_main_events(move: Move) -> int:
    """Sums and discards a logged move made (its stored events)."""
    if move.events is None:
        return 0
    return sum(1 for e in json.loads(move.events) if e["event"] in ("Summed", "Discarded"))
