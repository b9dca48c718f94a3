"""Helpers for the pacing tests: start a table, move the clock, run the sweep, read the store."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from tests.bot.conftest import BotRig
from tests.bot.helpers import BOT, current_game, game_row, open_private_chats, stored_state, texts
from tests.fakes.telegram import ApiCall, FakeChat, FakeUser, StoredMessage


@dataclass
class Table:
    group: FakeChat
    users: list[FakeUser]  # by seat
    game_id: int
    lobby: StoredMessage

    def user_at(self, seat: int) -> FakeUser:
        return self.users[seat]


async def open_lobby(
    rig: BotRig, creator: FakeUser, joiners: Sequence[FakeUser], group: FakeChat | None = None
) -> tuple[FakeChat, StoredMessage, int]:
    group = group or rig.fake.group("Friends")
    await rig.tg.send(group, creator, f"/newgame{BOT}")
    lobby = rig.fake.last_message(group.id)
    for user in joiners:
        await rig.tg.tap(user, lobby, "✋ Join")
    game = current_game(rig, group.id)
    assert game.id is not None
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
    await open_private_chats(rig, [u for u in users if u.first_name in dm])
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
    state = stored_state(rig, table.game_id)
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
