"""Helpers for the pacing and sweep tests: start a table, move the clock, run the sweep, read the store,
and drive the services directly (no bot) for the transaction-level tests."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from tests.bot.conftest import BotRig
from tests.bot.helpers import (
    BOT,
    board_of,
    current_game,
    game_row,
    open_private_chats,
    seat_panel,
    stored_state,
    texts,
)
from tests.fakes.telegram import ApiCall, FakeChat, FakeUser, StoredMessage
from tgbot import callbacks as cb
from tgbot import jobs
from tgbot.pacing import PaceName
from tgbot.services import lobby, lobby_keys, play, surfaces
from tgbot.services.call import Answer
from tgbot.services.context import load_game
from tgbot.services.env import Env
from tgbot.services.game_clock import start_when_shown
from tgbot.services.origins import Command, Tap
from tgbot.services.people import Person
from tgbot.services.sweep import SweepReport
from tgbot.store.db import session_scope
from tgbot.store.models import Game, OutboxRow


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
    panels: Sequence[str] = (),
    pace: str | None = None,
    computers: int = 0,
    group: FakeChat | None = None,
) -> Table:
    """A started game: the first name creates it, the others join.

    `dm`: these open a private chat with the bot (/start) first, which alone turns no panel on;
    `panels`: these also open their private panel after the start, with the board's "📱 Panel"
    key (a deep link to ``/start g<game>``).
    """
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
    table = Table(group, users, game_id, lobby)
    for user in users:
        if user.first_name in panels:
            await open_panel(rig, table, user)
    return table


async def open_panel(rig: BotRig, table: Table, user: FakeUser) -> StoredMessage:
    """`user` taps the board's "📱 Panel" key: its deep link opens the private chat with /start g<id>."""
    links = [d for t, d in board(rig, table).buttons if t == "📱 Panel"]
    assert links and links[0] is not None and links[0].endswith(f"?start=g{table.game_id}"), links
    payload = links[0].rsplit("?start=", 1)[1]
    await rig.tg.send(rig.fake.private(user), user, f"/start {payload}")
    return panel(rig, table, user)


def panel(rig: BotRig, table: Table, user: FakeUser) -> StoredMessage:
    """The message that shows `user`'s private panel of the table's game now."""
    return seat_panel(rig, table.game_id, table.users.index(user), user)


def to_move(rig: BotRig, table: Table) -> FakeUser:
    state = stored_state(rig, table.game_id)
    return table.users[state.current]


def board(rig: BotRig, table: Table) -> StoredMessage:
    """The live board of the table's game."""
    return board_of(rig, game_row(rig, table.game_id))


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


async def run_sweep(rig: BotRig) -> tuple[SweepReport, list[ApiCall]]:
    """One pass of the sweep (what the "sweep" and "wake" jobs run), waiting for what it sent."""
    first = len(rig.fake.calls)
    baseline = asyncio.all_tasks()
    task = asyncio.ensure_future(jobs.run_sweep(rig.deps))
    await rig.tg.settle(baseline)
    return task.result(), rig.fake.calls[first:]


# --- the services without the bot: a database, an `Env`, taps -----------------------------------

ANA, BEN = Person(1, "Ana"), Person(2, "Ben")


def env_at(now: datetime, pace: str = "casual") -> Env:
    return Env(now=now, default_pace=PaceName(pace), new_seed=lambda: 7)


def tap_by(user_id: int, chat_id: int) -> Tap:
    """A key of the group board, tapped by `user_id`."""
    person = ANA if user_id == ANA.id else BEN
    return Tap(person, chat_id, None, False)


def service_game(db: Engine, chat_id: int, pace: str, now: datetime) -> int:
    """A started two-player game (Ana and Ben) in group `chat_id`, made through the services."""
    env = env_at(now, pace)
    with session_scope(db) as session:
        created = lobby.newgame(session, env, Command(ANA, chat_id, chat_title="Friends"))
        assert created.game_id is not None
        assert lobby_keys.join(
            session, env, tap_by(BEN.id, chat_id), cb.Join(created.game_id)
        ).text.startswith("You're in!")
        lobby_keys.start_game(session, env, tap_by(ANA.id, chat_id), cb.Start(created.game_id))
        game = session.get(Game, created.game_id)
        assert game is not None and game.status == "playing", "the game started"
    board_seen(db, created.game_id, now)
    return created.game_id


def board_seen(db: Engine, game_id: int, now: datetime) -> None:
    """What a sender does when the live board reaches the group (no bot runs here): the turn it
    shows starts its clock now."""
    with session_scope(db) as session:
        game = session.get(Game, game_id)
        assert game is not None
        start_when_shown(session, env_at(now), game.chat_id, surfaces.board(game))


def user_to_move(db: Engine, game_id: int) -> int:
    with Session(db) as session:
        ctx = load_game(session, game_id)
        assert ctx is not None and ctx.current is not None and ctx.current.user_id is not None
        return ctx.current.user_id


def discard_first_card(db: Engine, game_id: int, now: datetime) -> Answer:
    """The player to move taps hand card 1 and Discard on the group board, in one transaction."""
    user = user_to_move(db, game_id)
    with session_scope(db) as session:
        game = session.get(Game, game_id)
        assert game is not None
        tap, env = tap_by(user, game.chat_id), env_at(now)
        play.pick_hand(session, env, tap, cb.PickHand(game_id, game.version, 0))
        answer = play.discard(session, env, tap, cb.Discard(game_id, game.version))
    board_seen(db, game_id, now)
    return answer


def waiting_texts(db: Engine, chat_id: int) -> list[str]:
    """What the outbox still holds for a chat (the services' output, before any sender ran)."""
    with Session(db) as session:
        rows = session.exec(select(OutboxRow).where(OutboxRow.chat_id == chat_id).order_by(col(OutboxRow.id)))
        return [str(json.loads(row.payload).get("text", "")) for row in rows]
