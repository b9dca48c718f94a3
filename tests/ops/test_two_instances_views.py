"""Two bot instances on one PostgreSQL database, a person playing their turn on their own view
(🃏 My cards, an ephemeral message: issue 61, item 8): every tap delivered to both instances at
once, as a webhook retried to another instance while the first delivery is still at work.

The tap on 🃏 My cards, each compose key and ✅ Claim go to both instances together. One move is
played, once; the group gets one next board; the person sees at most one view of their own at
any moment (the fake's reads as that person sees the chat) and none once the move is played;
no instance fails or logs an error.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import astuple
from typing import Any

import pytest
from sqlmodel import Session, select

from engine.actions import Sum, decode
from engine.cards import VALUE
from tests.bot.helpers import board_id, lobby_id, state_of
from tests.bot.test_hand_in_group import MY_CARDS
from tests.fakes.telegram import FakeChat, FakeUser, StoredEphemeral, StoredMessage
from tests.ops.instances import Both, SharedFake, assert_nothing_failed, games_of, start_pair, verified_moves
from tests.pg import fresh_database
from tgbot import callbacks as cb
from tgbot import migrations
from tgbot.store.db import make_engine
from tgbot.store.models import Game


@pytest.fixture
def database() -> Iterator[str]:
    with fresh_database() as url:
        yield url


def tap(
    fake: SharedFake, user: FakeUser, message: StoredMessage, *, text: str = "", data: str = ""
) -> dict[str, Any]:
    """The update of `user` tapping the key `text` (or with callback `data`) on `message` now."""
    with fake.lock:
        keys = [d for t, d in message.buttons if (t == text if text else d == data)]
        assert len(keys) == 1, (text or data, message.buttons)
        return fake.callback_update(user, message, keys[0])


def views_seen(fake: SharedFake, group: FakeChat, person: FakeUser) -> list[StoredEphemeral]:
    """The bot's ephemeral messages `person` has on screen in `group` (as they read the chat)."""
    with fake.lock:
        return [m for m in fake.transcript(group, person) if isinstance(m, StoredEphemeral) and m.from_bot]


async def test_a_turn_on_a_view_tapped_on_two_instances_plays_once(
    database: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.ERROR)
    migrations.upgrade(database)
    fake = SharedFake()
    _clock, instances = start_pair(database, fake, 9105)
    both = Both(fake, instances)
    engine = instances[0].deps.db.engine
    try:
        ana, ben = fake.user(1, "Ana"), fake.user(2, "Ben")
        group = fake.group("Views")
        await both.send(group, ana, "/newgame@tweak_test_bot")
        lobby_message = lobby_id(engine, games_of(instances[0])[0])
        assert lobby_message is not None
        lobby = fake.message(group.id, lobby_message)
        await both.process(tap(fake, ben, lobby, text="✋ Join"))
        await both.process(tap(fake, ana, lobby, text="▶️ Start"))
        [game] = games_of(instances[0])
        assert game.id is not None and game.status == "playing"
        gid = game.id
        state = state_of(game)
        # (the deal of this seed has a sum of a hand card and a table card: the log replays as dealt)
        hand, table = next(
            (h, t)
            for h, c in enumerate(state.hands[state.current])
            for t, d in enumerate(state.table)
            if VALUE.get(c, 0) + VALUE.get(d, 0) == state.target
        )
        mover = (ana, ben)[state.current]
        board_message = board_id(engine, game)
        assert board_message is not None
        board = fake.message(group.id, board_message)
        public_before = len(fake.messages(group.id))

        opened = tap(fake, mover, board, text=MY_CARDS)
        await both.process(opened)
        assert fake.answers[opened["callback_query"]["id"]].answered
        seen = views_seen(fake, group, mover)
        assert len(seen) == 1, f"{len(seen)} views of one tap"
        [view] = seen
        keys = cb.CardsKey(gid, game.version, state.current)
        for data in (
            cb.CardsPickHand(*astuple(keys), hand).data,
            cb.CardsPickTable(*astuple(keys), table).data,
        ):
            update = tap(fake, mover, view, data=data)
            await both.process(update)
            assert fake.answers[update["callback_query"]["id"]].answered
            assert views_seen(fake, group, mover) == [view], "edited in place, on one view"
        claimed = tap(fake, mover, view, text="✅ Claim")
        await both.process(claimed)
        assert fake.answers[claimed["callback_query"]["id"]].answered
    finally:
        for instance in instances:
            instance.stop()

    assert_nothing_failed(instances, caplog)
    assert views_seen(fake, group, mover) == [], "the view went with the move"
    with fake.lock:
        assert [m for m in fake.ephemeral_messages(group, mover) if m.from_bot] == []
        public = fake.messages(group.id)
    assert len(public) == public_before + 1, "one next board"
    db = make_engine(database)
    try:
        with Session(db) as session:
            stored = session.exec(select(Game).where(Game.id == gid)).one()
            moves = verified_moves(session, stored)
        played = [decode(m.code) for m in moves if m.source == "player"]
        assert played == [Sum(hand, (table,))], "the sum, played once"
    finally:
        db.dispose()
