"""A crash with messages still waiting in the outbox: after the restart each is delivered, once;
and a crash before the updates applied were confirmed: after the restart each is applied, once.

A real `tweakbot` process plays against the fake Bot API over HTTP. Telegram answers the group's
writes with 429 for a while, so the move's report and the next board wait in the outbox; the
process is killed with SIGKILL (no shutdown code runs) and started again on the same database.
"""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

from sqlmodel import Session, col, select

from tests.fakes import FakeTelegram
from tests.fakes.telegram import TEST_TOKEN
from tests.ops.fake_http import FakeBotApiServer
from tests.ops.processes import bot_env, keyed, start_a_game, start_bot, until
from tgbot.store.db import make_engine
from tgbot.store.models import GamePlayer


async def start(tmp_path: Path, api: FakeBotApiServer) -> asyncio.subprocess.Process:
    return await start_bot(tmp_path, bot_env(tmp_path, api.base_url), stdout=asyncio.subprocess.DEVNULL)


async def test_kill_9_with_messages_waiting_then_restart_delivers_each_once(tmp_path: Path) -> None:
    fake = FakeTelegram()
    ana, ben = fake.user(1, "Ana"), fake.user(2, "Ben")
    group = fake.group("Friends")
    async with FakeBotApiServer(fake, TEST_TOKEN) as api:
        first = await start(tmp_path, api)
        try:
            gid, board, mover = await start_a_game(fake, group, ana, ben)
            # From now on Telegram refuses the group's writes for a while.
            fake.fail_next("*", 429, retry_after=4, chat_id=group.id, times=1000)
            hand = fake.callback_update(mover, board, f"k:{gid}:1:h:0")
            discard = fake.callback_update(mover, board, f"k:{gid}:1:d")
            fake.queue_update(hand)
            await until(lambda: fake.answers[hand["callback_query"]["id"]].answered)
            fake.queue_update(discard)
            await until(lambda: fake.answers[discard["callback_query"]["id"]].answered)
            assert fake.answers[discard["callback_query"]["id"]].text == "Done!"
            await until(lambda: fake.count_429(group.id) >= 1)
        finally:
            first.send_signal(signal.SIGKILL)
            await first.wait()
        assert first.returncode == -signal.SIGKILL
        # Nothing of the move reached the group: the board still shows its keys, no new board.
        assert [m.message_id for m in keyed(fake, group.id, "k:")] == [board.message_id]
        fake.clear_faults()
        second = await start(tmp_path, api)
        try:
            await until(
                lambda: len(keyed(fake, group.id, "k:")) == 1 and keyed(fake, group.id, "k:")[0] != board
            )
            await asyncio.sleep(2.5)  # time for anything delivered twice to show up
        finally:
            second.send_signal(signal.SIGTERM)
            _out, err = await asyncio.wait_for(second.communicate(), 30)
        assert second.returncode == 0, err.decode()
    # One new board, with keys, under the move's report, once; the old board kept its text and
    # lost its keys; nothing shown twice.
    old = fake.message(group.id, board.message_id)
    assert old.buttons == [] and f"{mover.first_name} discards" not in (old.text or "")
    reports = [m for m in fake.messages(group.id) if f"{mover.first_name} discards" in (m.text or "")]
    boards = keyed(fake, group.id, "k:")
    assert len(boards) == 1 and boards[0].message_id != board.message_id
    assert reports == boards
    texts = [m.text for m in fake.messages(group.id) if m.from_bot]
    assert len(texts) == len(set(texts)), texts


async def test_kill_9_before_the_offset_is_confirmed_applies_each_update_once(tmp_path: Path) -> None:
    """Two updates fetched and applied (/newgame in one group, 🤖 Add computer in another's
    lobby), then kill -9 before the next getUpdates told Telegram so: after the restart both come
    again, are recognised, and change nothing (issue 62, item 7)."""
    fake = FakeTelegram()
    ana = fake.user(1, "Ana")
    first_group, second_group = fake.group("Friends"), fake.group("Others")
    async with FakeBotApiServer(fake, TEST_TOKEN) as api:
        first = await start(tmp_path, api)
        try:
            fake.queue_update(fake.command_update(first_group, ana, "/newgame@tweak_test_bot"))
            await until(lambda: keyed(fake, first_group.id, "lj:"))
            lobby = keyed(fake, first_group.id, "lj:")[0]
            computer = next(d for t, d in lobby.buttons if t == "🤖 Add computer")
            newgame = fake.command_update(second_group, ana, "/newgame@tweak_test_bot")
            tap = fake.callback_update(ana, lobby, computer)
            api.unconfirmed = tap["update_id"]  # fetched together, never confirmed
            fake.queue_update(newgame)
            fake.queue_update(tap)
            await until(lambda: fake.answers[tap["callback_query"]["id"]].answered)
            await until(lambda: "(2/6)" in (fake.message(first_group.id, lobby.message_id).text or ""))
            await until(lambda: keyed(fake, second_group.id, "lj:"))
        finally:
            first.send_signal(signal.SIGKILL)
            await first.wait()
        assert first.returncode == -signal.SIGKILL
        api.unconfirmed = None
        second = await start(tmp_path, api)
        try:
            # The restarted bot fetched them again and confirmed them (an offset past both).
            await until(
                lambda: any(
                    int(c.params.get("offset") or 0) > tap["update_id"] for c in fake.calls_to("getUpdates")
                )
            )
            await asyncio.sleep(2.5)  # time for anything applied twice to show up
        finally:
            second.send_signal(signal.SIGTERM)  # finishes the updates in flight
            _out, err = await asyncio.wait_for(second.communicate(), 30)
        log = err.decode()
        assert second.returncode == 0, log
    # One lobby in the second group, and no "A game is already running here" under it.
    said = [m.text or "" for m in fake.messages(second_group.id)]
    assert len(said) == 1 and "already" not in said[0], said
    # One computer in the first group's lobby.
    text = fake.message(first_group.id, lobby.message_id).text or ""
    assert "(2/6)" in text, text
    engine = make_engine(f"sqlite:///{tmp_path / 'bot.sqlite3'}")
    try:
        with Session(engine) as session:
            levels = session.exec(select(GamePlayer.ai_level).order_by(col(GamePlayer.game_id))).all()
    finally:
        engine.dispose()
    assert sorted(levels, key=str) == sorted([None, "normal", None], key=str)
    # Both were delivered again, and recognised.
    assert "action=newgame outcome=duplicate" in log and "action=add_computer outcome=duplicate" in log, log
