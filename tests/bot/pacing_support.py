"""Helpers for the pacing tests: start a table, move the clock, run the sweep, read the store."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlmodel import Session, col, select

from engine import GameState
from tests.bot.conftest import BotRig
from tests.fakes.telegram import ApiCall, FakeChat, FakeUser, StoredMessage
from tgbot.store.models import Game, GamePlayer, Move

BOT = "@tweak_test_bot"


@dataclass
class Table:
    group: FakeChat
    users: list[FakeUser]  # by seat
    game_id: int
    lobby: StoredMessage

    def user_at(self, seat: int) -> FakeUser:
        return self.users[seat]


def game_row(rig: BotRig, game_id: int) -> Game:
    with Session(rig.deps.db) as session:
        game = session.get(Game, game_id)
        assert game is not None
        return game


def state_of(rig: BotRig, game_id: int) -> GameState:
    game = game_row(rig, game_id)
    assert game.state is not None
    return GameState.from_json(json.loads(game.state))


def players_of(rig: BotRig, game_id: int) -> list[GamePlayer]:
    with Session(rig.deps.db) as session:
        query = select(GamePlayer).where(GamePlayer.game_id == game_id).order_by(col(GamePlayer.seat))
        return list(session.exec(query).all())


def moves_of(rig: BotRig, game_id: int) -> list[Move]:
    with Session(rig.deps.db) as session:
        query = select(Move).where(Move.game_id == game_id).order_by(col(Move.seq))
        return list(session.exec(query).all())


async def open_lobby(
    rig: BotRig, creator: FakeUser, joiners: Sequence[FakeUser], group: FakeChat | None = None
) -> tuple[FakeChat, StoredMessage, int]:
    group = group or rig.fake.group("Friends")
    await rig.tg.send(group, creator, f"/newgame{BOT}")
    lobby = rig.fake.last_message(group.id)
    for user in joiners:
        await rig.tg.tap(user, lobby, "✋ Join")
    with Session(rig.deps.db) as session:
        game = session.exec(
            select(Game).where(Game.chat_id == group.id).order_by(col(Game.id).desc())
        ).first()
        assert game is not None and game.id is not None
        return group, lobby, game.id


async def start_table(
    rig: BotRig,
    names: Sequence[str] = ("Ana", "Ben"),
    *,
    dm: Sequence[str] = (),
    pace: str | None = None,
    computers: int = 0,
    group: FakeChat | None = None,
) -> Table:
    """A started game: the first name creates it, the others join; `dm` open a private chat first."""
    users = [rig.fake.user(i + 1, name) for i, name in enumerate(names)]
    for user in users:
        if user.first_name in dm:
            await rig.tg.send(rig.fake.private(user), user, "/start")
    group, lobby, game_id = await open_lobby(rig, users[0], users[1:], group)
    if pace is not None:
        await rig.tg.tap(users[0], lobby, "⚙️ Settings")
        await rig.tg.tap(users[0], lobby, lambda _t, d: d == f"ln:{game_id}:p:{pace}")
        await rig.tg.tap(users[0], lobby, "↩️ Back")
    for _ in range(computers):
        await rig.tg.tap(users[0], lobby, "🤖 Add computer")
    await rig.tg.tap(users[0], lobby, "▶️ Start")
    return Table(group, users, game_id, lobby)


def to_move(rig: BotRig, table: Table) -> FakeUser:
    state = state_of(rig, table.game_id)
    return table.users[state.current]


def board(rig: BotRig, table: Table) -> StoredMessage:
    game = game_row(rig, table.game_id)
    assert game.board_message_id is not None
    return rig.fake.message(table.group.id, game.board_message_id)


async def sweep_at(rig: BotRig, moment: datetime) -> list[ApiCall]:
    """Set the clock and run the JobQueue's sweep job once, as the repeating job would."""
    rig.clock.set(moment)
    return await rig.tg.run_job("sweep")


async def sweep_after(rig: BotRig, delta: timedelta) -> list[ApiCall]:
    return await sweep_at(rig, rig.clock.now() + delta)


def texts(calls: Sequence[ApiCall], chat_id: int | None = None) -> list[str]:
    """The texts the bot sent or wrote by edit in these calls (optionally only in one chat)."""
    return [
        str(call.params.get("text"))
        for call in calls
        if call.method in ("sendMessage", "editMessageText")
        and (chat_id is None or call.chat_id == chat_id)
        and call.params.get("text") is not None
    ]


def sent(calls: Sequence[ApiCall], chat_id: int) -> list[ApiCall]:
    return [c for c in calls if c.method == "sendMessage" and c.chat_id == chat_id]


def reminders(calls: Sequence[ApiCall]) -> list[str]:
    return [t for t in texts(calls) if "your turn" in t and ("⏳" in t or "Last call" in t)]


async def discard_on_board(rig: BotRig, table: Table, user: FakeUser) -> StoredMessage:
    """The player to move picks hand slot 1 on the group board and discards it."""
    surface = board(rig, table)
    await rig.tg.tap(user, surface, "🂠1")
    await rig.tg.tap(user, surface, "🗑 Discard")
    return surface
