"""A crash with messages still waiting in the outbox: after the restart each is delivered, once.

A real `tweakbot` process plays against the fake Bot API over HTTP. Telegram answers the group's
writes with 429 for a while, so the move's report and the next board wait in the outbox; the
process is killed with SIGKILL (no shutdown code runs) and started again on the same database.
"""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

from tests.fakes import FakeTelegram
from tests.fakes.telegram import TEST_TOKEN
from tests.ops.fake_http import FakeBotApiServer
from tests.ops.processes import bot_env, keyed, start_a_game, start_bot, until


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
