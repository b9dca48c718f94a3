"""Files (the score chart, replays) follow a group's migration like messages do.

A file is an outbox row like any message (`services.output.send_file`, what the replay download
and the score chart use); its chat's sender delivers it and hands what Telegram says about the
group back to the services (`services.chat_events.SenderTrouble`).
"""

from __future__ import annotations

import base64

from sqlmodel import Session

from tests.bot.conftest import BotRig
from tests.bot.helpers import run_service, start_game
from tgbot.services import output
from tgbot.store.models import Game

PNG = b"\x89PNG\r\n\x1a\n" + b"0" * 32
MEDIA = {"kind": "photo", "filename": "chart.png", "data": base64.b64encode(PNG).decode()}


async def send_photo_to_game(rig: BotRig, game: Game, caption: str = "📈") -> None:
    """Queue a photo for the game's group (and topic) and wait until its sender is done."""
    await run_service(
        rig, lambda s, env: output.send_file(s, env, game.chat_id, caption, MEDIA, game.thread_id)
    )


async def test_a_file_sent_to_a_migrated_group_moves_the_game_and_arrives_once(rig: BotRig) -> None:
    fake, tg = rig.fake, rig.tg
    ana = fake.user(1, "Ana")
    old = fake.group("Old friends", kind="group")
    await tg.send(old, ana, "/newgame@tweak_test_bot")
    with Session(rig.deps.db.engine) as session:
        game = session.get(Game, 1)
        assert game is not None
    new_id = -1_009_999_000_077
    fake.migrate_update(old.id, new_id)  # migrated; the service message was not processed yet

    await send_photo_to_game(rig, game)

    tried = fake.calls_to("sendPhoto")
    assert [c.chat_id for c in tried if not c.ok] == [old.id]  # the old id once, never again
    photos = [c for c in tried if c.ok]
    assert [c.chat_id for c in photos] == [new_id]  # then the new id, once
    assert [m.kind for m in fake.messages(new_id)].count("photo") == 1
    with Session(rig.deps.db.engine) as session:
        moved = session.get(Game, 1)
        assert moved is not None and moved.chat_id == new_id
    assert not tg.errors


async def test_a_file_the_bot_may_no_longer_send_pauses_the_group_games(rig: BotRig) -> None:
    fake, tg = rig.fake, rig.tg
    game, _board = await start_game(rig, fake.group("Friends"), fake.user(1, "Ana"), [fake.user(2, "Ben")])
    fake.fail_next("sendPhoto", 403, "Forbidden: bot was kicked from the supergroup chat")

    await send_photo_to_game(rig, game)

    assert [c.ok for c in fake.calls_to("sendPhoto")] == [False]  # refused, and not tried again
    with Session(rig.deps.db.engine) as session:
        held = session.get(Game, 1)
        assert held is not None and held.status == "paused" and held.paused_until is None
    assert not tg.errors
