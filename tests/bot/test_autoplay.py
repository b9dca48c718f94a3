"""The seats that do not wait for a person are played after the commit that gave them the turn
(tgbot/services/autoplay.py): one move a transaction, each applied once, due in the game row.

A person's tap is answered from a transaction that played no computer move. What the bot still
owes lives in the game row (the clock: the turn started, no reminder, no deadline, a wake-up a
few seconds on), so a bot that stops right after a person's commit plays the computers after its
restart, once, and the board after them reports the person's move and theirs together. To hold
that moment open, these tests lose what a commit asked of the process (`lose_after_commit`), as a
process that dies right after its commit does.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import replace
from datetime import timedelta

from sqlmodel import Session, select

import engine
from tests.bot.conftest import BotRig, running_bot
from tests.bot.helpers import (
    BOT,
    board_of,
    current_game,
    live_panel,
    moves_of,
    open_panel,
    players_of,
    state_of,
)
from tests.bot.players import Player, data_is, play_turn
from tests.bot.test_computers import report_of, tap_settings
from tests.bot.test_record_readds import AnswerWatch
from tests.fakes.flood import FloodLimits
from tests.fakes.telegram import FakeChat, FakeUser
from tests.fakes.timer import VirtualTimer
from tgbot.game_settings import GameSettings
from tgbot.pacing import resolve
from tgbot.services.context import parse_settings
from tgbot.store.db import AfterCommit
from tgbot.store.models import Game, GamePlayer
from tgbot.time_source import ManualClock
from tgbot.turn_clock import AUTOPLAY_TAKEOVER

ON_ITS_WAY = "⏳ The next board is on its way: it shows up at the bottom in a moment."


def lose_after_commit(rig: BotRig) -> Callable[[], None]:
    """From now on the process forgets the turns its commits leave it to play (as if it died right
    after each commit); the function returned undoes it."""
    db = rig.deps.db
    original = db.on_commit
    assert original is not None

    def forgetting(notes: AfterCommit) -> None:
        original(replace(notes, autoplay={}))

    db.on_commit = forgetting

    def undo() -> None:
        db.on_commit = original

    return undo


def first_to_move(players: int, seats: tuple[int, ...]) -> Callable[[], int]:
    """Game seeds whose first turn is one of `seats`."""
    config = GameSettings().engine_config(players)
    seed = next(s for s in range(1, 500) if engine.new_game(config, s).current in seats)
    return lambda: seed


async def hard_table(rig: BotRig, group: FakeChat, ana: FakeUser, *joiners: FakeUser) -> Game:
    """Ana (and `joiners`, seated after her) against Hard computers up to four seats, started."""
    await rig.tg.send(group, ana, f"/newgame{BOT}")
    lobby = rig.fake.last_message(group.id)
    for user in joiners:
        assert (await rig.tg.tap(user, lobby, "✋ Join")).text.startswith("You're in!")
    for _ in range(3 - len(joiners)):
        await tap_settings(rig, ana, lobby, "🤖 Hard")
    await rig.tg.tap(ana, lobby, "↩️ Back")
    await rig.tg.tap(ana, lobby, "▶️ Start")
    game = current_game(rig, group.id)
    assert game.status == "playing"
    return game


def clock_columns(game: Game) -> tuple[object, ...]:
    return game.turn_started_at, game.next_nudge_at, game.deadline_at, game.wake_at


async def test_a_computer_first_to_move_plays_after_the_start_key_is_answered(db_url: str) -> None:
    fake = AnswerWatch(timer=VirtualTimer(), flood=FloodLimits())
    async with running_bot(db_url, first_to_move(4, (1, 2, 3)), fake=fake) as rig:
        fake.engine = rig.deps.db.engine
        group, ana = fake.group("First"), fake.user(1, "Ana")
        game = await hard_table(rig, group, ana)
        # the Start key's popup came when the log held the deal alone
        answered = [log for log in fake.log_at_answer.values() if log]
        assert answered and answered[0] == ["system"], answered
        # then the computers before Ana moved, and the first board opens with their moves
        assert game.id is not None
        moves = moves_of(rig, game.id)
        assert [m.source for m in moves[1:]] == ["ai"] * (len(moves) - 1) and len(moves) > 1
        assert state_of(game).current == 0
        board = board_of(rig, game)
        assert all(line.startswith("🤖 ") for line in report_of(board.content)), board.content
        assert "👉 Ana, your move!" in board.content


async def test_a_restart_between_a_move_and_the_computers_plays_them_once_after_it(
    db_url: str, seeds: Callable[[], int]
) -> None:
    clock = ManualClock()
    fake = AnswerWatch(clock=clock.now, timer=VirtualTimer(), flood=FloodLimits())
    group, ana = fake.group("Restart"), fake.user(1, "Ana")
    player = Player(ana, random.Random(5), use_t_cards=False)
    async with running_bot(db_url, seeds, clock=clock, fake=fake) as rig:
        game = await hard_table(rig, group, ana)
        assert game.id is not None
        gid = game.id
        board = board_of(rig, game)
        lose_after_commit(rig)
        before_move = len(fake.calls)
        await play_turn(rig.tg, fake, board, player, private=False)
        # Ana's move is in; the computer after her has not moved, and no board came
        moved = current_game(rig, group.id)
        logged = moves_of(rig, gid)
        assert logged[-1].source == "player" and moved.version == logged[-1].seq
        computer = state_of(moved).current
        assert computer != 0
        assert board_of(rig, moved).message_id == board.message_id
        # the bot's turn: started, no reminder, no deadline, and due a few seconds on
        assert clock_columns(moved) == (clock.now(), None, None, clock.now() + AUTOPLAY_TAKEOVER)
        # a key of her board, meanwhile: the next board is on its way
        key = next(d for _t, d in fake.buttons(board) if d and d.startswith(f"k:{gid}:"))
        assert (await rig.tg.tap(ana, board, data_is(key))).text == ON_ITS_WAY

    async with running_bot(db_url, seeds, clock=clock, fake=fake) as rig:
        first_call = len(fake.calls)
        await rig.tg.run_job("sweep")  # not due yet: the process that owed it may still play it
        assert len(moves_of(rig, gid)) == len(logged)
        clock.advance(AUTOPLAY_TAKEOVER * 2 + game_deadline(rig, game))  # long past any deadline
        await rig.tg.run_job("sweep")
        after = moves_of(rig, gid)
        again = current_game(rig, group.id)
        # every computer moved once (the log is 1..version), as a computer, not by the idle default
        assert [m.seq for m in after] == list(range(1, again.version + 1))
        burst = after[len(logged) :]
        assert burst and all(m.source == "ai" for m in burst), [m.source for m in burst]
        assert state_of(again).current == 0 or again.status == "finished"
        # no reminder for a computer; one group message: the next board (or a round's summary
        # first), opening with Ana's move, then the computers'
        posted = [
            fake.message(group.id, c.response["result"]["message_id"]).content
            for c in fake.calls[first_call:]
            if c.chat_id == group.id and c.method == "sendMessage" and c.ok
        ]
        assert posted and not any("your turn" in text for text in posted), posted
        # what the group read since her move (a round she ended was summed up at her commit)
        lines = [
            line
            for c in fake.calls[before_move:]
            if c.chat_id == group.id and c.method == "sendMessage" and c.ok
            for line in report_of(fake.message(group.id, c.response["result"]["message_id"]).content)
        ]
        assert lines[0].startswith("Ana") and any(line.startswith("🤖 ") for line in lines), lines
        await rig.tg.run_job("sweep")
        clock.advance(AUTOPLAY_TAKEOVER * 2)
        await rig.tg.run_job("sweep")
        assert len(moves_of(rig, gid)) == len(after)  # once


def game_deadline(rig: BotRig, game: Game) -> timedelta:
    pace = resolve(parse_settings(game.settings).pace, rig.deps.custom_pace)
    assert pace.deadline is not None
    return pace.deadline


async def test_a_move_in_the_panel_closes_it_at_its_commit_and_the_next_turn_comes_after_the_computers(
    db_url: str, seeds: Callable[[], int]
) -> None:
    clock = ManualClock()
    fake = AnswerWatch(clock=clock.now, timer=VirtualTimer(), flood=FloodLimits())
    group, ana = fake.group("Panel"), fake.user(1, "Ana")
    async with running_bot(db_url, seeds, clock=clock, fake=fake) as rig:
        await rig.tg.send(fake.private(ana), ana, "/start")
        game = await hard_table(rig, group, ana)
        assert game.id is not None
        await open_panel(rig, ana, board_of(rig, game))
        panel = live_panel(rig, game.id, ana)
        undo = lose_after_commit(rig)
        first_call = len(fake.calls)
        await play_turn(rig.tg, fake, panel, Player(ana, random.Random(8), use_t_cards=False), private=True)
        undo()
        # at her commit: her panel says what she played and has no keys; nothing else is sent
        closed = live_panel(rig, game.id, ana)
        played = moves_of(rig, game.id)[-1]
        assert played.source == "player" and not any(d and d.startswith("k:") for _t, d in closed.buttons)
        assert "Ana" in closed.content or "discard" in closed.content, closed.content
        sent = [c for c in fake.calls[first_call:] if c.method.startswith("send") and c.ok]
        summaries = [c for c in sent if c.chat_id == group.id and "🏁" in c.params.get("text", "")]
        assert sent == summaries, [(c.method, c.chat_id) for c in sent]  # (her move ended a round)
        clock.advance(AUTOPLAY_TAKEOVER)
        await rig.tg.run_job("sweep")
        now = current_game(rig, group.id)
        assert now.version > played.seq and state_of(now).current == 0
        # her turn's notification comes with the board that starts it: her panel, anew
        turn = live_panel(rig, game.id, ana)
        assert turn.message_id != closed.message_id and "👉 Your move!" in turn.content
        assert any(d == f"k:{game.id}:{now.version}:c" for _t, d in turn.buttons)
        assert "👉 Ana, your move!" in board_of(rig, now).content


async def test_a_pause_between_a_move_and_the_computers_holds_them_until_the_game_goes_on(
    db_url: str, seeds: Callable[[], int]
) -> None:
    clock = ManualClock()
    fake = AnswerWatch(clock=clock.now, timer=VirtualTimer(), flood=FloodLimits())
    group, ana = fake.group("Pause"), fake.user(1, "Ana")
    async with running_bot(db_url, seeds, clock=clock, fake=fake) as rig:
        game = await hard_table(rig, group, ana)
        assert game.id is not None
        undo = lose_after_commit(rig)
        await play_turn(
            rig.tg, fake, board_of(rig, game), Player(ana, random.Random(2), False), private=False
        )
        undo()
        before = len(moves_of(rig, game.id))
        await rig.tg.send(group, ana, "/pause")
        clock.advance(AUTOPLAY_TAKEOVER * 2)
        await rig.tg.run_job("sweep")
        assert len(moves_of(rig, game.id)) == before  # paused: nobody plays
        first_call = len(fake.calls)
        await rig.tg.send(group, ana, "/resume")
        resumed = current_game(rig, group.id)
        assert [m.source for m in moves_of(rig, game.id)[before:]] == ["ai"] * (resumed.version - before)
        assert resumed.version > before
        posted = [
            c.params.get("text", "")
            for c in fake.calls[first_call:]
            if c.chat_id == group.id and c.method == "sendMessage" and c.ok
        ]
        # the group is told at once; the board comes after the computers, under their moves
        assert posted[0] == "▶️ The game goes on!", posted
        if resumed.status == "playing":
            assert "👉 Ana, your move!" in board_of(rig, resumed).content


async def test_a_player_back_before_the_bot_played_their_turn_gets_it(
    db_url: str, seeds: Callable[[], int]
) -> None:
    """Bea is away: the bot plays her turns at once. She sends /back between Ana's move and the
    bot's move for her: the turn is hers again, with its board and her mention."""
    clock = ManualClock()
    fake = AnswerWatch(clock=clock.now, timer=VirtualTimer(), flood=FloodLimits())
    group, ana, bea = fake.group("Back"), fake.user(1, "Ana"), fake.user(2, "Bea")
    # seats: Ana, Bea, two computers; a computer first, then Ana
    async with running_bot(db_url, first_to_move(4, (2, 3)), clock=clock, fake=fake) as rig:
        game = await hard_table(rig, group, ana, bea)
        assert game.id is not None
        assert state_of(game).current == 0, "the computers moved first, then it is Ana's turn"
        set_away(rig, game.id, 1)
        undo = lose_after_commit(rig)
        await play_turn(
            rig.tg, fake, board_of(rig, game), Player(ana, random.Random(4), False), private=False
        )
        undo()
        armed = current_game(rig, group.id)
        assert state_of(armed).current == 1 and moves_of(rig, game.id)[-1].source == "player"
        await rig.tg.send(group, bea, "/back")
        clock.advance(AUTOPLAY_TAKEOVER)
        await rig.tg.run_job("sweep")
        now = current_game(rig, group.id)
        assert now.version == armed.version, "the bot did not play Bea's turn"
        board = board_of(rig, now)
        assert "👉 Bea, your move!" in board.content
        assert report_of(board.content)[0].startswith("Ana")  # Ana's move, reported once
        # her clock started when the board reached the group: a deadline, like any person's turn
        assert now.turn_started_at == clock.now() and now.deadline_at is not None


def set_away(rig: BotRig, game_id: int, seat: int) -> None:
    with Session(rig.deps.db.engine) as session:
        query = select(GamePlayer).where(GamePlayer.game_id == game_id, GamePlayer.seat == seat)
        player = session.exec(query).one()
        player.away = True
        session.add(player)
        session.commit()
    assert {p.seat: p.away for p in players_of(rig, game_id)}[seat]
