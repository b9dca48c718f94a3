from __future__ import annotations

from tests.bot.conftest import BotRig


async def test_newgame_join_start_shows_board(rig: BotRig) -> None:
    fake, tg = rig.fake, rig.tg
    ana, ben = fake.user(1, "Ana"), fake.user(2, "Ben")
    group = fake.group("Friends")
    await tg.send(group, ana, "/newgame@tweak_test_bot")
    lobby = fake.last_message(group.id)
    assert lobby is not None
    await tg.tap(ben, lobby, "✋ Join")
    await tg.tap(ana, lobby, "▶️ Start")
    board = fake.last_message(group.id)
    assert board is not None
    print(board.text)
    print(fake.buttons(board))
