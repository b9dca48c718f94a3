"""`tweakbot` as operators run it: a real process, real HTTP to a fake Bot API, stopped by SIGTERM."""

from __future__ import annotations

import asyncio
import signal
import sqlite3
import time
from pathlib import Path

from sqlalchemy import inspect

from tests.fakes import FakeTelegram
from tests.fakes.flood import FloodLimits
from tests.fakes.telegram import TEST_TOKEN, FakeChat, StoredMessage
from tests.ops.fake_http import FakeBotApiServer
from tests.ops.processes import START_TIMEOUT, bot_env, running_bot, start_bot, until
from tgbot import migrations
from tgbot.store.db import make_engine


async def test_sigterm_finishes_the_update_in_flight_and_exits_cleanly(tmp_path: Path) -> None:
    fake = FakeTelegram()
    ana = fake.user(1, "Ana")
    group = fake.group("Friends")
    async with FakeBotApiServer(fake, TEST_TOKEN) as api:
        update = fake.command_update(group, ana, "/help@tweak_test_bot")
        fake.queue_update(update)
        api.hold("sendMessage", 1.0)  # the reply is in flight when SIGTERM arrives
        async with running_bot(tmp_path, bot_env(tmp_path, api.base_url)) as process:
            await asyncio.wait_for(api.arrived("sendMessage").wait(), START_TIMEOUT)
            process.send_signal(signal.SIGTERM)
            _out, err = await asyncio.wait_for(process.communicate(), 30)
    log = err.decode()
    assert process.returncode == 0, log
    assert "stopping (SIGTERM): finishing the updates in flight" in log
    assert log.rstrip().splitlines()[-1].endswith("tweakbot stopped cleanly"), log
    # The reply that was in flight was delivered, once.
    replies = [m for m in fake.messages(group.id) if m.from_bot]
    assert len(replies) == 1 and "/newgame" in replies[0].text
    sent = fake.calls_to("sendMessage")
    assert len(sent) == 1 and sent[0].ok
    # The update was confirmed to Telegram before exiting, so a restart does not handle it again.
    offsets = [int(call.params.get("offset") or 0) for call in fake.calls_to("getUpdates")]
    assert max(offsets) > update["update_id"]
    # One structured line for the update, and the token nowhere in the logs.
    lines = [line for line in log.splitlines() if "tweakbot.updates" in line]
    assert len(lines) == 1 and "action=help outcome=ok" in lines[0], log
    assert TEST_TOKEN not in log and TEST_TOKEN.split(":")[1] not in log
    # The bot migrated its database on start.
    engine = make_engine(f"sqlite:///{tmp_path / 'bot.sqlite3'}")
    try:
        assert migrations.current(engine) == migrations.head()
        assert "games" in inspect(engine).get_table_names()
    finally:
        engine.dispose()


async def test_migrate_command_only_migrates(tmp_path: Path) -> None:
    fake = FakeTelegram()
    async with FakeBotApiServer(fake, TEST_TOKEN) as api:
        process = await start_bot(tmp_path, bot_env(tmp_path, api.base_url), "migrate")
        _out, err = await asyncio.wait_for(process.communicate(), START_TIMEOUT)
    assert process.returncode == 0, err.decode()
    assert f"schema revision {migrations.head()}" in err.decode()
    assert api.requests == []  # it never talked to Telegram
    engine = make_engine(f"sqlite:///{tmp_path / 'bot.sqlite3'}")
    try:
        assert migrations.current(engine) == migrations.head()
    finally:
        engine.dispose()


async def _stop_within(process: asyncio.subprocess.Process, seconds: float) -> tuple[float, str]:
    started = time.monotonic()
    process.send_signal(signal.SIGTERM)
    _out, err = await asyncio.wait_for(process.communicate(), 30)
    return time.monotonic() - started, err.decode()


async def _play_until_board(
    fake: FakeTelegram, api: FakeBotApiServer, group: FakeChat
) -> tuple[int, StoredMessage]:
    ana, ben = fake.user(1, "Ana"), fake.user(2, "Ben")
    fake.queue_update(fake.command_update(group, ana, "/newgame@tweak_test_bot"))
    await until(lambda: any(d == "lj:1" for m in fake.messages(group.id) for _t, d in m.buttons))
    lobby = fake.last_message(group.id)
    fake.queue_update(fake.callback_update(ben, lobby, "lj:1"))
    await until(lambda: "Ben" in (fake.message(group.id, lobby.message_id).text or ""))
    fake.queue_update(fake.callback_update(ana, lobby, "ls:1"))
    await until(
        lambda: any((d or "").startswith("k:") for m in fake.messages(group.id) for _t, d in m.buttons)
    )
    board = next(m for m in fake.messages(group.id) if any((d or "").startswith("k:") for _t, d in m.buttons))
    return 1, board


async def test_sigterm_with_taps_queued_and_messages_waiting_exits_within_10_s(tmp_path: Path) -> None:
    fake = FakeTelegram(flood=FloodLimits())
    group = fake.group("Friends")
    async with (
        FakeBotApiServer(fake, TEST_TOKEN) as api,
        running_bot(tmp_path, bot_env(tmp_path, api.base_url), stdout=asyncio.subprocess.DEVNULL) as process,
    ):
        _gid, board = await _play_until_board(fake, api, group)
        users = {1: fake.user(1, "Ana"), 2: fake.user(2, "Ben")}
        mover = users[1] if "Ana, your move" in (board.text or "") else users[2]
        # Telegram holds back the group's messages: whatever the taps change has to wait.
        fake.fail_next("*", 429, retry_after=40, chat_id=group.id, times=1000)
        # a hand card chosen, then the move (its board can only wait), then taps on the old board
        # (updates are handled concurrently: the hand card is answered before the move is sent)
        hand = fake.callback_update(mover, board, "k:1:1:h:0")
        fake.queue_update(hand)
        await until(lambda: fake.answers[hand["callback_query"]["id"]].answered)
        taps = [fake.callback_update(mover, board, "k:1:1:d")]
        taps += [fake.callback_update(mover, board, f"k:1:1:t:{i % 2}") for i in range(28)]
        for tap in taps:
            fake.queue_update(tap)
        discard = taps[0]["callback_query"]["id"]
        await until(lambda: fake.answers[discard].answered)
        assert fake.answers[discard].text == "Done!"
        elapsed, log = await _stop_within(process, 10)
    assert process.returncode == 0, log
    assert elapsed < 10, (elapsed, log)
    assert log.rstrip().splitlines()[-1].endswith("tweakbot stopped cleanly"), log
    # Every tap that reached the bot was answered; none is lost (nothing of the draft was shown).
    answered = [t for t in taps if fake.answers[t["callback_query"]["id"]].answered]
    assert answered, "the taps were handled before the stop"
    engine = make_engine(f"sqlite:///{tmp_path / 'bot.sqlite3'}")
    try:
        with engine.connect() as connection:
            waiting = connection.exec_driver_sql("SELECT count(*) FROM outbox").scalar_one()
        assert waiting >= 1  # left for the next start
    finally:
        engine.dispose()


async def test_sigterm_while_the_database_hangs_exits_within_10_s(tmp_path: Path) -> None:
    fake = FakeTelegram()
    group = fake.group("Friends")
    ana = fake.user(1, "Ana")
    async with (
        FakeBotApiServer(fake, TEST_TOKEN) as api,
        running_bot(tmp_path, bot_env(tmp_path, api.base_url), stdout=asyncio.subprocess.DEVNULL) as process,
    ):
        fake.queue_update(fake.command_update(group, ana, "/newgame@tweak_test_bot"))
        await until(lambda: bool(fake.messages(group.id)))
        holder = sqlite3.connect(tmp_path / "bot.sqlite3", isolation_level=None, timeout=1)
        holder.execute("BEGIN EXCLUSIVE")
        try:
            lobby = fake.last_message(group.id)
            for _ in range(5):
                fake.queue_update(fake.callback_update(ana, lobby, "lo:1"))
            fake.queue_update(fake.command_update(group, ana, "/help@tweak_test_bot"))
            await asyncio.sleep(1.0)  # the updates are waiting for the database now
            elapsed, log = await _stop_within(process, 10)
        finally:
            holder.rollback()
            holder.close()
    assert process.returncode == 0, log
    assert elapsed < 10, (elapsed, log)


async def test_sigterm_when_the_bot_api_server_has_gone_away_exits_within_10_s(tmp_path: Path) -> None:
    """Forty taps are being handled, each waiting on Telegram twice in a row (a bystander's *Start*
    asks whether they are a group admin, then answers), when the Bot API server stops answering:
    every call hangs, polling included. A stop must not wait on it."""
    fake = FakeTelegram()
    group = fake.group("Friends")
    ana = fake.user(1, "Ana")
    async with (
        FakeBotApiServer(fake, TEST_TOKEN) as api,
        running_bot(tmp_path, bot_env(tmp_path, api.base_url), stdout=asyncio.subprocess.DEVNULL) as process,
    ):
        fake.queue_update(fake.command_update(group, ana, "/newgame@tweak_test_bot"))
        await until(lambda: any(d == "ls:1" for m in fake.messages(group.id) for _t, d in m.buttons))
        lobby = fake.last_message(group.id)
        api.hold("getChatMember", 4.0)
        for i in range(40):
            bystander = fake.user(100 + i, f"Guest{i}")
            fake.queue_update(fake.callback_update(bystander, lobby, "ls:1"))
        await asyncio.wait_for(api.arrived("getChatMember").wait(), START_TIMEOUT)
        api.go_away()
        elapsed, log = await _stop_within(process, 10)
    assert process.returncode == 0, log
    assert elapsed < 10, (elapsed, log)
    assert log.rstrip().splitlines()[-1].endswith("tweakbot stopped cleanly"), log
