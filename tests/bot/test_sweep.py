"""The sweep under stress: restarts, a tap racing it, compare-and-set, failures, big backlogs, and
waking on time for the next due game."""

from __future__ import annotations

import asyncio
import functools
import json
import sqlite3
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy
from sqlalchemy.orm.exc import StaleDataError
from sqlmodel import Session, select

from tests.bot.conftest import BotRig, running_bot
from tests.bot.helpers import BOT, game_row, moves_of, stored_state, texts
from tests.bot.pacing_support import (
    board,
    discard_first_card,
    discard_on_board,
    env_at,
    open_lobby,
    reminders,
    run_sweep,
    service_game,
    start_table,
    sweep_at,
    tap_by,
    to_move,
    user_to_move,
    waiting_texts,
)
from tests.fakes.telegram import ApiCall
from tgbot import callbacks as cb
from tgbot.services import moves, play, sweep, table_control
from tgbot.services.context import GameContext, contexts_of, load_game
from tgbot.services.origins import Command
from tgbot.services.people import Person
from tgbot.store.db import create_all, make_engine, session_scope
from tgbot.store.models import Game, GamePlayer, Move
from tgbot.time_source import ManualClock

SECOND = timedelta(seconds=1)
MIN = timedelta(minutes=1)
HOUR = timedelta(hours=1)
T0 = datetime(2026, 1, 1, 12, 0, 0)
STALE = "This board is out of date: the live one is at the bottom of the chat."
ON_ITS_WAY = "⏳ The next board is on its way: it shows up at the bottom in a moment."


# --- restart --------------------------------------------------------------------------------------


async def test_a_deadline_passed_while_the_bot_was_down_is_played_on_the_first_sweep(
    db_url: str, seeds: Callable[[], int]
) -> None:
    clock = ManualClock(T0)
    async with running_bot(db_url, seeds, clock=clock) as first:
        table = await start_table(first, pace="live")
        fake = first.fake
        idle = to_move(first, table)
        version = game_row(first, table.game_id).version
    clock.advance(2 * HOUR)  # down for two hours: the reminders and the deadline passed
    async with running_bot(db_url, seeds, clock=clock, fake=fake) as second:
        job = second.tg.app.job_queue.get_jobs_by_name("sweep")  # type: ignore[union-attr]
        assert len(job) == 1
        assert job[0].job.trigger.interval == timedelta(seconds=30)
        calls = await second.tg.run_job("sweep")
        game = game_row(second, table.game_id)
        assert game.version == version + 1
        assert moves_of(second, table.game_id)[-1].source == "idle"
        assert any(t.startswith(f"⏰ {idle.first_name} was idle:") for t in texts(calls, table.group.id))
        assert reminders(calls) == [], "no stale reminders after the fact"
        # the next player's clock starts at the catch-up, not while the bot was down
        assert game.deadline_at == clock.now() + 3 * MIN
        assert await second.tg.run_job("sweep") == []


async def test_reminders_missed_while_down_are_sent_once(db_url: str, seeds: Callable[[], int]) -> None:
    clock = ManualClock(T0)
    async with running_bot(db_url, seeds, clock=clock) as first:
        table = await start_table(first)  # casual: 2 h, last call at 9 h 36 min, deadline 12 h
        fake = first.fake
        idle = to_move(first, table)
    clock.advance(10 * HOUR)
    async with running_bot(db_url, seeds, clock=clock, fake=fake) as second:
        calls = await second.tg.run_job("sweep")
        assert texts(calls) == [
            f'⏰ Last call, <a href="tg://user?id={idle.id}">{idle.first_name}</a>: your turn will be '
            "played for you in 2 hours."
        ]
        assert await second.tg.run_job("sweep") == []


async def test_the_sweep_interval_comes_from_the_environment(db_url: str) -> None:
    async with running_bot(db_url, sweep_interval=timedelta(seconds=10)) as rig:
        jobs = rig.tg.app.job_queue.get_jobs_by_name("sweep")  # type: ignore[union-attr]
        assert jobs[0].job.trigger.interval == timedelta(seconds=10)


# --- waking on time -------------------------------------------------------------------------------


class Wakes:
    """The one-off "wake" jobs the bot schedules, each with the game moment it fires at.

    The JobQueue is paused in tests: `fire` plays the scheduler's part, running the soonest pending
    wake-up at its moment (a one-off job is gone once it fired, before it runs).
    """

    def __init__(self, rig: BotRig, monkeypatch: pytest.MonkeyPatch) -> None:
        self.rig = rig
        self.pending: list[tuple[datetime, Any]] = []
        queue = rig.tg.app.job_queue
        assert queue is not None
        schedule = type(queue).run_once

        def run_once(callback: Any, when: Any, *args: Any, **kwargs: Any) -> Any:
            job = schedule(queue, callback, when, *args, **kwargs)
            if kwargs.get("name") == "wake":
                assert isinstance(when, float), when
                self.pending.append((rig.clock.now() + timedelta(seconds=when), job))
            return job

        monkeypatch.setattr(type(queue), "run_once", lambda _queue, *a, **kw: run_once(*a, **kw))

    def moments(self) -> list[datetime]:
        """When the pending wake-ups fire, soonest first."""
        return sorted(at for at, job in self.pending if not job.removed)

    async def fire(self) -> tuple[datetime, list[ApiCall]]:
        """The soonest pending wake-up fires: the clock is set to its moment and its job runs."""
        at, job = min(((at, job) for at, job in self.pending if not job.removed), key=lambda p: p[0])
        self.rig.clock.set(at)
        job.schedule_removal()
        first = len(self.rig.fake.calls)
        baseline = asyncio.all_tasks()
        run = asyncio.ensure_future(job.run(self.rig.tg.app))
        await self.rig.tg.settle(baseline)
        run.result()
        return at, self.rig.fake.calls[first:]


async def test_after_a_move_in_a_live_game_the_bot_wakes_exactly_for_the_next_reminder(
    rig: BotRig, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A live reminder comes on time to the second, not at the next sweep (every 30 s)."""
    wakes = Wakes(rig, monkeypatch)
    table = await start_table(rig, pace="live")
    start = rig.clock.now()
    # the start scheduled the wake-up for the first reminder
    assert [at - start for at in wakes.moments()] == [MIN + timedelta(seconds=0.05)]
    rig.clock.set(start + 20 * SECOND)  # the player moves 20 s into the turn
    await discard_on_board(rig, table, to_move(rig, table))
    moved_at = rig.clock.now()
    waiting = to_move(rig, table)
    game = game_row(rig, table.game_id)
    due = moved_at + MIN
    assert (game.next_nudge_at, game.wake_at) == (due, due)
    # An earlier wake-up, for the turn that is over, finds nothing due and sets the next one.
    fired: list[datetime] = []
    for _ in range(3):
        at, calls = await wakes.fire()
        fired.append(at)
        if at >= due:
            break
        assert calls == [], "nothing was due at that wake-up"
        assert wakes.moments(), "a wake-up that found nothing due still sets the next one"
    # The one-off wake job runs at exactly the reminder's moment, and the reminder goes then.
    assert timedelta(0) <= fired[-1] - due <= timedelta(seconds=0.1), (fired, due)
    assert len(fired) <= 2, "no other wake-up (nor a 30 s sweep) was needed"
    assert texts(calls) == [
        f'⏳ <a href="tg://user?id={waiting.id}">{waiting.first_name}</a>, it\'s your turn!'
    ]
    # and the last call is next
    game = game_row(rig, table.game_id)
    assert game.nudges_sent == 1 and game.next_nudge_at == moved_at + 3 * MIN * 0.8
    assert game.next_nudge_at is not None
    assert timedelta(0) <= wakes.moments()[0] - game.next_nudge_at <= timedelta(seconds=0.1)


async def test_a_move_in_a_live_game_schedules_a_one_off_wake_at_its_reminder(
    rig: BotRig, monkeypatch: pytest.MonkeyPatch
) -> None:
    wakes = Wakes(rig, monkeypatch)
    table = await start_table(rig, pace="live")
    start = rig.clock.now()
    first = to_move(rig, table)
    at, calls = await wakes.fire()  # the first reminder, on time
    assert at - start == MIN + timedelta(seconds=0.05)
    assert len(reminders(calls)) == 1
    assert wakes.moments() == [start + 2.4 * MIN + timedelta(seconds=0.05)]  # next: the last call
    rig.clock.set(start + 70 * SECOND)
    await discard_on_board(rig, table, first)
    moved_at = rig.clock.now()
    assert game_row(rig, table.game_id).next_nudge_at == moved_at + MIN
    # the wake-up for the old turn's last call gave way to one for the new turn's reminder
    assert wakes.moments() == [moved_at + MIN + timedelta(seconds=0.05)]
    at, calls = await wakes.fire()
    waiting = to_move(rig, table)
    assert texts(calls) == [
        f'⏳ <a href="tg://user?id={waiting.id}">{waiting.first_name}</a>, it\'s your turn!'
    ]


# --- a tap and the sweep at the same instant -----------------------------------------------------


@pytest.mark.parametrize("first", ["tap", "sweep"])
async def test_a_tap_and_the_sweep_at_the_same_instant_apply_one_move(rig: BotRig, first: str) -> None:
    """At the deadline the player taps Discard and the sweep runs: whichever transaction commits
    first wins; the other one changes nothing."""
    table = await start_table(rig, pace="live")
    player = to_move(rig, table)
    surface = board(rig, table)
    await rig.tg.tap(player, surface, "🂠1")  # the discard key is on the board now
    discard = next(d for t, d in surface.buttons if t == "🗑 Discard")
    assert discard is not None
    game = game_row(rig, table.game_id)
    assert game.deadline_at is not None
    rig.clock.set(game.deadline_at)  # the deadline is now, and the player taps Discard now
    version = game.version
    if first == "tap":
        answer = await rig.tg.tap_data(player, surface, discard)
        report, calls = await run_sweep(rig)
    else:
        report, calls = await run_sweep(rig)
        answer = await rig.tg.tap_data(player, surface, discard)

    game = game_row(rig, table.game_id)
    assert game.version == version + 1, "exactly one move was applied"
    applied = [m for m in moves_of(rig, table.game_id) if m.seq == version + 1]
    assert len(applied) == 1
    if first == "tap":
        assert applied[0].source == "player"
        assert answer.text == "Done!"
        assert (report.examined, report.idle_moves) == (0, 0), "the game was no longer due"
        assert calls == []
    else:
        assert applied[0].source == "idle"
        assert answer.text == STALE
        assert (report.examined, report.idle_moves) == (1, 1)
        assert not surface.buttons  # the old board lost its keys; the new one opens with the report
        assert f"⏰ {player.first_name} was idle:" in board(rig, table).content
    assert not rig.tg.errors


async def test_a_tap_and_the_sweep_waiting_for_the_database_together_apply_once(rig: BotRig) -> None:
    """The same race without arranging the order: both wait for the database (another writer
    holds it), then go at once; whoever wins, one move, and the loser's answer says so."""
    table = await start_table(rig, pace="live")
    player = to_move(rig, table)
    surface = board(rig, table)
    await rig.tg.tap(player, surface, "🂠1")
    discard = next(d for t, d in surface.buttons if t == "🗑 Discard")
    game = game_row(rig, table.game_id)
    assert game.deadline_at is not None
    rig.clock.set(game.deadline_at)
    holder = sqlite3.connect(rig.db_url.removeprefix("sqlite:///"), isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # the write lock: every transaction of the bot waits
    try:
        tap = asyncio.ensure_future(rig.tg.tap_data(player, surface, discard))
        swept = asyncio.ensure_future(run_sweep(rig))
        await asyncio.sleep(0.3)
        assert not tap.done() and not swept.done(), "both wait for the database"
    finally:
        holder.execute("COMMIT")
        holder.close()
    answer, (report, _calls) = await asyncio.gather(tap, swept)
    assert game_row(rig, table.game_id).version == game.version + 1
    moves = moves_of(rig, table.game_id)
    assert len(moves) == game.version + 1
    if moves[-1].source == "player":
        assert answer.text == "Done!" and report.idle_moves == 0
    else:
        assert moves[-1].source == "idle"
        # The tap ran after the idle move: its board is out of date, or, when the next board has
        # not reached the chat yet (the two went at once), that one is on its way.
        assert answer.text in (STALE, ON_ITS_WAY) and report.idle_moves == 1
    assert not rig.tg.errors


# --- compare-and-set at the service level --------------------------------------------------------


@pytest.fixture
def db(tmp_path: Path) -> sqlalchemy.engine.Engine:
    engine_ = make_engine(f"sqlite:///{tmp_path / 'cas.sqlite3'}")
    create_all(engine_)
    return engine_


_CHATS = iter(range(100, 10**6))


def new_game(db: sqlalchemy.engine.Engine, pace: str = "live", now: datetime = T0, chat_id: int = 0) -> int:
    """A started two-player game (Ana and Ben) in its own group (or `chat_id`)."""
    return service_game(db, chat_id or -next(_CHATS), pace, now)


def test_compare_and_set_refuses_a_move_read_before_another_writer_committed(
    db: sqlalchemy.engine.Engine,
) -> None:
    game_id = new_game(db)
    with session_scope(db) as session:  # the tap read the game ...
        seen = load_game(session, game_id)
        assert seen is not None and seen.current is not None
    version = seen.game.version
    with session_scope(db) as other:  # ... the sweep's idle move commits first ...
        report = sweep.sweep_batch(other, env_at(T0 + 3 * MIN), [game_id])
        assert report.idle_moves == 1
    # ... so the tap, which read the same version, writes nothing: its UPDATE names the version
    # it read, which no row has any more
    with Session(db) as tap:
        moves.play(tap, env_at(T0 + 3 * MIN), seen, seen.current, "D0")  # applied in memory
        with pytest.raises(StaleDataError):
            tap.flush()
        tap.rollback()
    with Session(db) as session:
        moves_ = session.exec(select(Move).where(Move.game_id == game_id)).all()
        assert [(m.seq, m.source) for m in moves_] == [(1, "system"), (2, "idle")]
        game = session.get(Game, game_id)
        assert game is not None and game.version == version + 1


def test_the_sweep_loses_the_compare_and_set_to_a_tap_and_writes_nothing(
    db: sqlalchemy.engine.Engine,
) -> None:
    game_id = new_game(db)
    deadline = T0 + 3 * MIN
    with session_scope(db) as session:
        stale = session.get(Game, game_id)  # the sweep read the due row ...
        assert stale is not None and stale.deadline_at == deadline
    assert discard_first_card(db, game_id, deadline).text == "Done!"  # ... a tap lands first
    with Session(db) as sweeper:
        with pytest.raises(StaleDataError):
            sweep.handle(
                sweeper, env_at(deadline), contexts_of(sweeper, [stale])[game_id], sweep.SweepReport()
            )
            sweeper.flush()
        sweeper.rollback()
    with Session(db) as session:
        sources = [m.source for m in session.exec(select(Move).where(Move.game_id == game_id)).all()]
        assert sources == ["system", "player"]
    # and a batch that reads the game again finds it no longer due: nothing to do
    with session_scope(db) as session:
        report = sweep.sweep_batch(session, env_at(deadline), [game_id])
    assert (report.examined, report.idle_moves, report.reminders) == (0, 0, 0)


def test_a_batch_leaves_out_a_game_that_is_no_longer_due(db: sqlalchemy.engine.Engine) -> None:
    game_id = new_game(db)
    chat_id = game_row_of(db, game_id).chat_id
    before = waiting_texts(db, chat_id)
    with session_scope(db) as session:
        report = sweep.sweep_batch(session, env_at(T0 + MIN - SECOND), [game_id])
    assert report.examined == 0 and waiting_texts(db, chat_id) == before
    with session_scope(db) as session:
        report = sweep.sweep_batch(session, env_at(T0 + MIN), [game_id])
    assert (report.examined, report.reminders) == (1, 1)
    user, name = mover(db, game_id)
    assert waiting_texts(db, chat_id)[len(before) :] == [
        f'⏳ <a href="tg://user?id={user}">{name}</a>, it\'s your turn!'
    ]


def test_an_sqlite_transaction_of_the_sweep_holds_the_write_lock_until_commit(tmp_path: Path) -> None:
    """Every transaction starts with BEGIN IMMEDIATE: the due rows the sweep reads stay current
    until it commits (a tap from another process waits, then reads what the sweep wrote)."""
    url = f"sqlite:///{tmp_path / 'lock.sqlite3'}"
    db = make_engine(url)
    create_all(db)
    game_id = new_game(db)
    impatient = sqlalchemy.create_engine(url, connect_args={"timeout": 0.05})
    with Session(db) as sweeper:
        assert sweep.due(sweeper, T0 + MIN) == [game_id]
        with pytest.raises(sqlalchemy.exc.OperationalError, match="locked"), impatient.begin() as conn:
            conn.execute(
                sqlalchemy.text("UPDATE games SET version = version + 1 WHERE id = :id"), {"id": game_id}
            )
        sweeper.commit()
    with impatient.begin() as conn:  # free again
        conn.execute(
            sqlalchemy.text("UPDATE games SET updated_at = updated_at WHERE id = :id"), {"id": game_id}
        )
    impatient.dispose()


# --- failures and backlogs -----------------------------------------------------------------------


async def test_one_failing_game_does_not_hold_up_the_others(
    rig: BotRig, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    ana, ben = rig.fake.user(1, "Ana"), rig.fake.user(2, "Ben")
    _g1, lobby1, broken = await open_lobby(rig, ana, [ben], rig.fake.group("One"))
    _g2, lobby2, fine = await open_lobby(rig, ana, [ben], rig.fake.group("Two"))
    real = sweep.handle

    def failing(session: Session, env: Any, ctx: GameContext, report: sweep.SweepReport) -> None:
        if ctx.game_id == broken:
            raise RuntimeError("boom")
        real(session, env, ctx, report)

    monkeypatch.setattr(sweep, "handle", failing)
    await sweep_at(rig, rig.clock.now() + timedelta(days=1))
    assert game_row(rig, fine).status == "expired"
    assert game_row(rig, broken).status == "lobby"  # rolled back, tried again next time
    assert "sweep of game" in caplog.text
    monkeypatch.setattr(sweep, "handle", real)
    await rig.tg.run_job("sweep")
    assert game_row(rig, broken).status == "expired"
    assert lobby1.text is not None and lobby1.text.startswith("⌛")
    assert lobby2.text is not None and lobby2.text.startswith("⌛")


async def test_a_backlog_larger_than_one_batch_is_handled_in_one_sweep(
    rig: BotRig, monkeypatch: pytest.MonkeyPatch
) -> None:
    # two games a read and two a transaction: five due games take three of each
    monkeypatch.setattr(sweep, "BATCH", 2)
    monkeypatch.setattr(sweep, "due", functools.partial(sweep.due, limit=2))
    ana = rig.fake.user(1, "Ana")
    ids = [(await open_lobby(rig, ana, [], rig.fake.group(f"G{i}")))[2] for i in range(5)]
    assert (await run_sweep(rig))[0].examined == 0
    rig.clock.advance(timedelta(days=1))
    report, _calls = await run_sweep(rig)
    assert report.examined == 5 and report.failed == []
    assert {game_row(rig, i).status for i in ids} == {"expired"}


async def test_the_move_after_a_timeout_is_a_normal_turn(rig: BotRig) -> None:
    """After the idle move the game goes on normally: the next player can play from the new board."""
    table = await start_table(rig, pace="live")
    game = game_row(rig, table.game_id)
    assert game.deadline_at is not None
    await sweep_at(rig, game.deadline_at)
    player = to_move(rig, table)
    await discard_on_board(rig, table, player)
    assert [m.source for m in moves_of(rig, table.game_id)][1:] == ["idle", "player"]
    assert stored_state(rig, table.game_id).current != table.users.index(player)
    calls = await rig.tg.send(table.group, table.users[0], f"/board{BOT}")
    assert calls


# --- several games in one batch ------------------------------------------------------------------


def game_row_of(db: sqlalchemy.engine.Engine, game_id: int) -> Game:
    with Session(db) as session:
        game = session.get(Game, game_id)
        assert game is not None
        return game


def mover(db: sqlalchemy.engine.Engine, game_id: int) -> tuple[int, str]:
    user = user_to_move(db, game_id)
    return user, "Ana" if user == 1 else "Ben"


def test_one_batch_decides_each_game_as_on_its_own(db: sqlalchemy.engine.Engine) -> None:
    first = new_game(db, "live")  # reminder at T0 + 1 min, deadline at T0 + 3 min
    last_call = new_game(db, "quick", T0 - 48 * MIN)  # 48 min = 80% of the hour: last call due
    deadline = new_game(db, "live", T0 - 2 * MIN)  # deadline at T0 + 1 min
    later = new_game(db, "casual")
    with session_scope(db) as session:  # the last call game already had its first reminder
        row = session.get(Game, last_call)
        assert row is not None
        row.nudges_sent, row.next_nudge_at, row.wake_at = 1, T0, T0
    chats = {g: game_row_of(db, g).chat_id for g in (first, last_call, deadline, later)}
    before = {g: waiting_texts(db, c) for g, c in chats.items()}
    to_remind = {g: mover(db, g) for g in (first, last_call)}
    versions = {g: game_row_of(db, g).version for g in chats}
    now = T0 + MIN
    with session_scope(db) as session:
        report = sweep.sweep_batch(session, env_at(now), [first, last_call, deadline, later])
    assert (report.examined, report.reminders, report.idle_moves, report.failed) == (3, 2, 1, [])
    new = {g: waiting_texts(db, c)[len(before[g]) :] for g, c in chats.items()}
    user, name = to_remind[first]
    assert new[first] == [f'⏳ <a href="tg://user?id={user}">{name}</a>, it\'s your turn!']
    user, name = to_remind[last_call]
    assert new[last_call] == [
        f'⏰ Last call, <a href="tg://user?id={user}">{name}</a>: your turn will be played for you '
        "in 11 minutes."
    ]
    assert new[later] == []
    # (the board had not been sent yet: the report replaced its waiting content)
    assert any(" was idle: " in t for t in waiting_texts(db, chats[deadline]))
    a, b, c, d = (game_row_of(db, g) for g in (first, last_call, later, deadline))
    assert (a.nudges_sent, a.next_nudge_at, a.wake_at) == (1, T0 + 2.4 * MIN, T0 + 2.4 * MIN)
    assert (b.nudges_sent, b.next_nudge_at, b.wake_at) == (2, None, T0 - 48 * MIN + HOUR)
    assert (c.nudges_sent, c.wake_at) == (0, T0 + 2 * HOUR)
    # the next turn's clock waits for its board to reach the group
    assert d.version == versions[deadline] + 1
    assert (d.turn_started_at, d.deadline_at, d.wake_at) == (None, None, None)
    assert [g.version for g in (a, b, c)] == [versions[g] for g in (first, last_call, later)]
    # nothing left to do until the next step is due
    with session_scope(db) as session:
        again = sweep.sweep_batch(session, env_at(now), [first, last_call, deadline, later])
    assert (again.examined, again.reminders) == (0, 0)


def test_reminders_respect_quiet_hours_and_away_players(db: sqlalchemy.engine.Engine) -> None:
    game_id = new_game(db, "casual", chat_id=-42)
    with session_scope(db) as session:
        command = Command(Person(1, "Ana"), -42, chat_title="Night owls")
        command = replace(command, args="23-08 +7")
        table_control.quiet(session, env_at(T0), command)  # 16:00-01:00 UTC
    game = game_row_of(db, game_id)
    assert game.next_nudge_at == T0 + 2 * HOUR  # 14:00 UTC: not quiet
    with session_scope(db) as session:
        row = session.get(Game, game_id)
        assert row is not None
        row.deadline_at = datetime(2026, 1, 2, 3, 0)  # 80% of the way is midnight UTC: quiet
    with session_scope(db) as session:
        assert sweep.sweep_batch(session, env_at(T0 + 2 * HOUR), [game_id]).reminders == 1
    # 80% of the way from 12:00 to 03:00 is 00:00 UTC (07:00 local): held to 01:00 UTC
    assert game_row_of(db, game_id).next_nudge_at == datetime(2026, 1, 2, 1, 0)
    user = user_to_move(db, game_id)
    with session_scope(db) as session:
        session.exec(
            sqlalchemy.update(GamePlayer).where(GamePlayer.user_id == user).values(away=True)  # type: ignore[arg-type]
        )
    before = waiting_texts(db, -42)
    with session_scope(db) as session:
        report = sweep.sweep_batch(session, env_at(datetime(2026, 1, 2, 1, 0)), [game_id])
    assert report.examined == 1 and report.reminders == 0  # an away player is not reminded
    assert waiting_texts(db, -42) == before


def test_a_t_card_played_stops_the_reminders_but_not_the_deadline(db: sqlalchemy.engine.Engine) -> None:
    game_id = new_game(db, "quick")
    user = user_to_move(db, game_id)
    with session_scope(db) as session:  # the player to move holds a Joker
        game = session.get(Game, game_id)
        assert game is not None and game.state is not None
        data = json.loads(game.state)
        assert "joker" in data["tdeck"]
        data["tdeck"].remove("joker")  # moved, not copied: a saved game keeps every card once
        data["holdings"][data["current"]] = ["joker"]
        game.state = json.dumps(data)
        chat_id = game.chat_id
    with session_scope(db) as session:  # the Joker's key chooses +1, Claim plays it
        tap = tap_by(user, chat_id)
        play.choose_t(session, env_at(T0 + 5 * MIN), tap, cb.TChoice(game_id, 1, cb.TChoiceKind.JOKER))
        answer = play.claim(session, env_at(T0 + 5 * MIN), tap, cb.Claim(game_id, 1))
        assert "Joker" in answer.text and not answer.alert
    assert [m.code for m in moves_of_db(db, game_id)] == ["start:7", "J+"]  # the turn goes on
    game = game_row_of(db, game_id)
    assert game.next_nudge_at is None and game.deadline_at == T0 + HOUR
    assert game.wake_at == T0 + HOUR
    with session_scope(db) as session:
        assert sweep.sweep_batch(session, env_at(T0 + 10 * MIN), [game_id]).examined == 0  # no reminder
    with session_scope(db) as session:
        report = sweep.sweep_batch(session, env_at(T0 + HOUR), [game_id])
    assert (report.reminders, report.idle_moves) == (0, 1)
    assert [m.source for m in moves_of_db(db, game_id)] == ["system", "player", "idle"]


def moves_of_db(db: sqlalchemy.engine.Engine, game_id: int) -> list[Move]:
    with Session(db) as session:
        return list(session.exec(select(Move).where(Move.game_id == game_id).order_by(Move.seq)).all())  # type: ignore[arg-type]
