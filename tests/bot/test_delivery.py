"""Files (the score chart, replays) follow a group's migration like messages do."""

from __future__ import annotations

from sqlmodel import Session

from tests.bot.conftest import BotRig
from tests.bot.helpers import start_game
from tgbot import delivery
from tgbot.store.models import Game

PNG = b"\x89PNG\r\n\x1a\n" + b"0" * 32


async def test_a_file_sent_to_a_migrated_group_moves_the_game_and_arrives_once(rig: BotRig) -> None:
    fake, tg = rig.fake, rig.tg
    ana = fake.user(1, "Ana")
    old = fake.group("Old friends", kind="group")
    await tg.send(old, ana, "/newgame@tweak_test_bot")
    with Session(rig.deps.db) as session:
        game = session.get(Game, 1)
        assert game is not None
    new_id = -1_009_999_000_077
    fake.migrate_update(old.id, new_id)  # migrated; the service message was not processed yet

    sent = await delivery.send_file_to_game(rig.deps, tg.app.bot, game, "photo", PNG, "chart.png", "📈")

    assert sent.message_id is not None and sent.migrated_to == new_id
    photos = [c for c in fake.calls_to("sendPhoto") if c.ok]
    assert [c.chat_id for c in photos] == [new_id]
    with Session(rig.deps.db) as session:
        moved = session.get(Game, 1)
        assert moved is not None and moved.chat_id == new_id


async def test_a_file_the_bot_may_no_longer_send_pauses_the_group_games(rig: BotRig) -> None:
    fake, tg = rig.fake, rig.tg
    game, _board = await start_game(rig, fake.group("Friends"), fake.user(1, "Ana"), [fake.user(2, "Ben")])
    fake.fail_next("sendPhoto", 403, "Forbidden: bot was kicked from the supergroup chat")

    sent = await delivery.send_file_to_game(rig.deps, tg.app.bot, game, "photo", PNG, "chart.png")

    assert sent.blocked
    with Session(rig.deps.db) as session:
        held = session.get(Game, 1)
        assert held is not None and held.status == "paused"
