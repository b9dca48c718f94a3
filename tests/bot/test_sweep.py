"""The sweep under stress: restarts, a tap racing it, compare-and-set, failures and big backlogs."""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path

import pytest
import sqlalchemy
from sqlmodel import Session, select

import engine
from engine import GameState
from tests.bot.conftest import BotRig, running_bot
from tests.bot.helpers import BOT, game_row, moves_of, stored_state, texts
from tests.bot.pacing_support import (
    board,
    discard_on_board,
    open_lobby,
    reminders,
    start_table,
    sweep_at,
    to_move,
)
from tgbot import scheduler
from tgbot.clock import ManualClock
from tgbot.services import games, sweep
from tgbot.services.errors import ServiceError
from tgbot.services.games import TgUser
from tgbot.store.db import create_all, make_engine, session_scope
from tgbot.store.models import Game, GamePlayer, Move

MIN = timedelta(minutes=1)
HOUR = timedelta(hours=1)
T0 = datetime(2026, 1, 1, 12, 0, 0)


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
            "played for you in 2 h."
        ]
        assert await second.tg.run_job("sweep") == []


async def test_the_sweep_interval_comes_from_the_environment(db_url: str) -> None:
    async with running_bot(db_url, sweep_interval=timedelta(seconds=10)) as rig:
        jobs = rig.tg.app.job_queue.get_jobs_by_name("sweep")  # type: ignore[union-attr]
        assert jobs[0].job.trigger.interval == timedelta(seconds=10)


# --- a tap and the sweep at the same instant -----------------------------------------------------


@pytest.mark.parametrize("first", ["tap", "sweep"])
async def test_a_tap_and_the_sweep_at_the_same_instant_apply_one_move(rig: BotRig, first: str) -> None:
    table = await start_table(rig, pace="live")
    player = to_move(rig, table)
    surface = board(rig, table)
    await rig.tg.tap(player, surface, "🂠1")  # the discard key is on the board now
    game = game_row(rig, table.game_id)
    assert game.deadline_at is not None
    rig.clock.set(game.deadline_at)  # the deadline is now, and the player taps Discard now
    version = game.version
    key = f"game:{table.game_id}"
    tap_task: asyncio.Task[object] | None = None
    sweep_task: asyncio.Task[object] | None = None

    async def queued(count: int) -> None:
        while rig.deps.locks._users.get(key, 0) < count:
            await asyncio.sleep(0)

    # Hold the game's lock so both arrive while it is taken, in the chosen order (asyncio locks are FIFO).
    async with rig.deps.locks.hold(key):
        tap = rig.tg.tap(player, surface, "🗑 Discard")
        run = scheduler.run_sweep(rig.deps, rig.tg.app.bot)
        if first == "tap":
            tap_task = asyncio.ensure_future(tap)
            await queued(2)
            sweep_task = asyncio.ensure_future(run)
            await queued(3)
        else:
            sweep_task = asyncio.ensure_future(run)
            await queued(2)
            tap_task = asyncio.ensure_future(tap)
            await queued(3)
    answer, report = await asyncio.gather(tap_task, sweep_task)

    game = game_row(rig, table.game_id)
    assert game.version == version + 1, "exactly one move was applied"
    applied = [m for m in moves_of(rig, table.game_id) if m.seq == version + 1]
    assert len(applied) == 1
    assert isinstance(report, sweep.SweepReport)
    if first == "tap":
        assert applied[0].source == "player"
        assert answer.text == "Done!"
        assert report.plays == [] and report.examined == 0
    else:
        assert applied[0].source == "idle"
        assert answer.text == "This board is out of date. Here is the current one."
        assert len(report.plays) == 1
    assert not rig.tg.errors


async def test_gathered_tap_and_sweep_apply_once(rig: BotRig) -> None:
    """The same race without arranging the order: whoever wins, one move."""
    table = await start_table(rig, pace="live")
    player = to_move(rig, table)
    surface = board(rig, table)
    await rig.tg.tap(player, surface, "🂠1")
    game = game_row(rig, table.game_id)
    assert game.deadline_at is not None
    rig.clock.set(game.deadline_at)
    await asyncio.gather(
        rig.tg.tap(player, surface, "🗑 Discard"), scheduler.run_sweep(rig.deps, rig.tg.app.bot)
    )
    assert game_row(rig, table.game_id).version == game.version + 1
    assert len(moves_of(rig, table.game_id)) == game.version + 1


# --- compare-and-set at the service level --------------------------------------------------------


@pytest.fixture
def db(tmp_path: Path) -> sqlalchemy.engine.Engine:
    engine_ = make_engine(f"sqlite:///{tmp_path / 'cas.sqlite3'}")
    create_all(engine_)
    return engine_


_CHATS = itertools.count(100)


def new_game(db: sqlalchemy.engine.Engine, pace: str = "live", now: datetime = T0, chat_id: int = 0) -> int:
    """A started two-player game (Ana and Ben) in its own group (or `chat_id`)."""
    with session_scope(db) as session:
        chat_id = chat_id or -next(_CHATS)
        game = games.create_lobby(session, chat_id, None, TgUser(1, "Ana"), "en", now, pace, 86400)
        assert game.id is not None
        games.lobby_join(session, game.id, TgUser(2, "Ben"), now)
        games.start_game(session, game.id, 1, False, now, seed=7)
        return game.id


def user_to_move(db: sqlalchemy.engine.Engine, game_id: int) -> int:
    with Session(db) as session:
        ctx = games.load_context(session, game_id)
        assert ctx.current is not None and ctx.current.user_id is not None
        return ctx.current.user_id


def test_compare_and_set_refuses_the_second_of_two_sessions(db: sqlalchemy.engine.Engine) -> None:
    game_id = new_game(db)
    user = user_to_move(db, game_id)
    with Session(db) as tap, Session(db) as other:
        seen_by_tap = tap.get(Game, game_id)
        seen_by_other = other.get(Game, game_id)
        assert seen_by_tap is not None and seen_by_other is not None
        version = seen_by_tap.version
        state = GameState.from_json(json.loads(seen_by_other.state or "{}"))
        # the other writer (the sweep's idle move) commits first ...
        games.commit_move(
            other,
            seen_by_other,
            state,
            state.current,
            engine.default_action(state, state.current),
            "idle",
            T0 + 3 * MIN,
            None,
        )
        other.commit()
        # ... so the tap, which read the same version, is refused and writes nothing
        with pytest.raises(ServiceError) as refused:
            games.play(tap, game_id, version, user, "D0", T0 + 3 * MIN)
        assert refused.value.reason == "stale"
        tap.rollback()
    with Session(db) as session:
        moves = session.exec(select(Move).where(Move.game_id == game_id)).all()
        assert [(m.seq, m.source) for m in moves] == [(1, "system"), (2, "idle")]
        game = session.get(Game, game_id)
        assert game is not None and game.version == version + 1


def test_the_sweep_loses_the_compare_and_set_to_a_tap_and_writes_nothing(
    db: sqlalchemy.engine.Engine,
) -> None:
    game_id = new_game(db)
    user = user_to_move(db, game_id)
    deadline = T0 + 3 * MIN
    with Session(db) as sweeper:
        stale = sweeper.get(Game, game_id)  # the sweep read the due row ...
        assert stale is not None and stale.deadline_at == deadline
        with session_scope(db) as tap:  # ... a tap lands before the sweep writes
            games.play(tap, game_id, stale.version, user, "D0", deadline)
        report = sweep.SweepReport()
        with pytest.raises(ServiceError) as refused:
            sweep._handle(sweeper, stale, deadline, None, report)
        assert refused.value.reason == "stale"
        sweeper.rollback()
    with Session(db) as session:
        sources = [m.source for m in session.exec(select(Move).where(Move.game_id == game_id)).all()]
        assert sources == ["system", "player"]
    # and sweep_game turns a lost race into "nothing to do" (the game is no longer due)
    assert sweep.sweep_game(db, game_id, deadline, None, sweep.SweepReport()) is False


def test_sweep_game_refuses_a_game_that_is_no_longer_due(db: sqlalchemy.engine.Engine) -> None:
    game_id = new_game(db)
    report = sweep.SweepReport()
    assert sweep.sweep_game(db, game_id, T0 + MIN - timedelta(seconds=1), None, report) is False
    assert sweep.sweep_game(db, game_id, T0 + MIN, None, report) is True
    assert [r.last_call for r in report.reminders] == [False]


def test_the_sqlite_claim_holds_the_write_lock_until_commit(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'lock.sqlite3'}"
    db = make_engine(url)
    create_all(db)
    game_id = new_game(db)
    impatient = sqlalchemy.create_engine(url, connect_args={"timeout": 0.05})
    with Session(db) as sweeper:
        assert sweep._claim(sweeper, game_id, T0 + MIN) is not None
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
    real = sweep._handle

    def failing(session: Session, game: Game, *args: object) -> None:
        if game.id == broken:
            raise RuntimeError("boom")
        real(session, game, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(sweep, "_handle", failing)
    await sweep_at(rig, rig.clock.now() + timedelta(days=1))
    assert game_row(rig, fine).status == "expired"
    assert game_row(rig, broken).status == "lobby"  # rolled back, tried again next time
    assert "sweep of game" in caplog.text
    monkeypatch.setattr(sweep, "_handle", real)
    await rig.tg.run_job("sweep")
    assert game_row(rig, broken).status == "expired"
    assert lobby1.text is not None and lobby1.text.startswith("⌛")
    assert lobby2.text is not None and lobby2.text.startswith("⌛")


async def test_a_backlog_larger_than_one_batch_is_handled_in_one_sweep(
    rig: BotRig, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sweep, "SWEEP_BATCH", 2)
    ana = rig.fake.user(1, "Ana")
    ids = [(await open_lobby(rig, ana, [], rig.fake.group(f"G{i}")))[2] for i in range(5)]
    assert (await scheduler.run_sweep(rig.deps, rig.tg.app.bot)).examined == 0
    rig.clock.advance(timedelta(days=1))
    report = await scheduler.run_sweep(rig.deps, rig.tg.app.bot)
    assert len(report.expired_lobbies) == 5
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


# --- reminders decided together ------------------------------------------------------------------


def test_remind_many_decides_the_reminders_and_hands_back_the_rest(db: sqlalchemy.engine.Engine) -> None:
    first = new_game(db, "live")  # reminder at T0 + 1 min, deadline at T0 + 3 min
    last_call = new_game(db, "quick", T0 - 48 * MIN)  # 48 min = 80% of the hour: last call due
    deadline = new_game(db, "live", T0 - 2 * MIN)  # deadline at T0 + 1 min
    later = new_game(db, "casual")
    with session_scope(db) as session:  # the last call game already had its first reminder
        row = session.get(Game, last_call)
        assert row is not None
        row.nudges_sent, row.next_nudge_at, row.wake_at = 1, T0, T0
    now = T0 + MIN
    report = sweep.SweepReport()
    rest = sweep.remind_many(db, [first, last_call, deadline, later], now, None, report)
    assert rest == [deadline]
    assert sorted((r.game_id, r.last_call) for r in report.reminders) == [(first, False), (last_call, True)]
    assert report.examined == 2
    with Session(db) as session:
        a, b, c = (session.get(Game, i) for i in (first, last_call, later))
        assert a is not None and b is not None and c is not None
        assert (a.nudges_sent, a.next_nudge_at, a.wake_at) == (1, T0 + 2.4 * MIN, T0 + 2.4 * MIN)
        assert (b.nudges_sent, b.next_nudge_at, b.wake_at) == (2, None, T0 - 48 * MIN + HOUR)
        assert (c.nudges_sent, c.wake_at) == (0, T0 + 2 * HOUR)
    # nothing left to remind until the next step is due
    again = sweep.SweepReport()
    assert sweep.remind_many(db, [first, last_call], now, None, again) == []
    assert again.reminders == []


def test_remind_many_respects_quiet_hours_and_away_players(db: sqlalchemy.engine.Engine) -> None:
    from tgbot.services import table_control

    game_id = new_game(db, "casual", chat_id=-42)
    with session_scope(db) as session:
        table_control.set_quiet(session, -42, (23, 8, 420), T0)  # 16:00-01:00 UTC
        game = session.get(Game, game_id)
        assert game is not None
        assert game.next_nudge_at == T0 + 2 * HOUR  # 14:00 UTC: not quiet
        game.deadline_at = datetime(2026, 1, 2, 3, 0)  # 80% of the way is midnight UTC: quiet
    report = sweep.SweepReport()
    assert sweep.remind_many(db, [game_id], T0 + 2 * HOUR, None, report) == []
    with Session(db) as session:
        game = session.get(Game, game_id)
        assert game is not None
        # 80% of the way from 12:00 to 03:00 is 00:00 UTC (07:00 local): held to 01:00 UTC
        assert game.next_nudge_at == datetime(2026, 1, 2, 1, 0)
    user = user_to_move(db, game_id)
    with session_scope(db) as session:
        session.exec(
            sqlalchemy.update(GamePlayer).where(GamePlayer.user_id == user).values(away=True)  # type: ignore[arg-type]
        )
    report = sweep.SweepReport()
    sweep.remind_many(db, [game_id], datetime(2026, 1, 2, 1, 0), None, report)
    assert report.reminders == [] and report.examined == 1  # an away player is not reminded


def test_a_t_card_played_stops_the_reminders_but_not_the_deadline(db: sqlalchemy.engine.Engine) -> None:
    game_id = new_game(db, "quick")
    user = user_to_move(db, game_id)
    with session_scope(db) as session:  # the player to move holds a Joker
        game = session.get(Game, game_id)
        assert game is not None and game.state is not None
        data = json.loads(game.state)
        data["holdings"][data["current"]] = ["joker"]
        game.state = json.dumps(data)
    with session_scope(db) as session:
        result = games.play(session, game_id, 1, user, "J+", T0 + 5 * MIN)
        assert not any(o.main for o in result.outcomes)  # the turn goes on
    with Session(db) as session:
        game = session.get(Game, game_id)
        assert game is not None
        assert game.next_nudge_at is None and game.deadline_at == T0 + HOUR
        assert game.wake_at == T0 + HOUR
    report = sweep.SweepReport()
    assert sweep.sweep_game(db, game_id, T0 + 10 * MIN, None, report) is False  # no reminder
    assert sweep.sweep_game(db, game_id, T0 + HOUR, None, report) is True
    assert [o.source for result, _board in report.plays for o in result.outcomes] == ["idle"]
