"""One notification for the mover (issue "Keep the game a game"): a turn wakes only the player to
move. When they have a private chat with the bot, the board goes to the group silently and the bot
tells them there (their panel if they play in it, else a short note); otherwise the board's mention
notifies the group. Reminders follow the same rule.

A *notification* here is a message Telegram delivers with sound: any message sent without
``disable_notification`` (in a group, to every member; in a private chat, to that person).
"""

from __future__ import annotations

import random
from collections import Counter
from datetime import timedelta

from tests.bot.conftest import BotRig
from tests.bot.helpers import BOT, board_of, current_game, live_panel, state_of
from tests.bot.players import Player, play_turn, to_move
from tests.fakes.telegram import ApiCall, FakeChat, FakeUser


def notifications(calls: list[ApiCall], group: FakeChat, table: list[FakeUser]) -> Counter[str]:
    """Who was notified by these calls: everyone at the table for a notifying group message, the
    person for a notifying private one."""
    woken: Counter[str] = Counter()
    for call in calls:
        if call.method not in ("sendMessage", "sendPhoto", "sendDocument") or not call.ok:
            continue
        if call.params.get("disable_notification") in (True, "true", "True"):
            continue
        if call.chat_id == group.id:
            woken.update(u.first_name for u in table)
        else:
            woken.update(u.first_name for u in table if u.id == call.chat_id)
    return woken


async def three_at_a_table(rig: BotRig) -> tuple[FakeChat, list[FakeUser]]:
    """Ana never wrote to the bot; Ben and Cai did (/start in private). Ana creates the game."""
    fake, tg = rig.fake, rig.tg
    ana, ben, cai = fake.user(1, "Ana"), fake.user(2, "Ben"), fake.user(3, "Cai")
    for user in (ben, cai):
        await tg.send(fake.private(user), user, "/start")
    group = fake.group("Friends")
    await tg.send(group, ana, f"/newgame{BOT}")
    lobby = fake.last_message(group.id)
    for user in (ben, cai):
        await tg.tap(user, lobby, "✋ Join")
    await tg.tap(ana, lobby, "▶️ Start")
    await tg.send(fake.private(cai), cai, f"/start g{current_game(rig, group.id).id}")  # Cai: panel
    return group, [ana, ben, cai]


async def test_a_turn_notifies_only_its_player_when_they_have_a_private_chat(rig: BotRig) -> None:
    fake, tg = rig.fake, rig.tg
    group, table = await three_at_a_table(rig)
    _ana, _ben, cai = table
    players = [Player(u, random.Random(i), use_t_cards=False) for i, u in enumerate(table)]
    per_mover: dict[str, list[Counter[str]]] = {u.first_name: [] for u in table}
    for _turn in range(15):
        game = current_game(rig, group.id)
        if game.status != "playing":
            break
        board = board_of(rig, game)
        player = to_move(board.text, players)
        assert player is not None
        surface = live_panel(rig, game.id or 0, cai) if player.user is cai else board
        first = len(fake.calls)
        await play_turn(tg, fake, surface, player, private=player.user is cai)
        after = current_game(rig, group.id)
        if after.status != "playing" or state_of(after).round != state_of(game).round:
            continue  # a round's end: its summary is silent, but the turn is not a plain one
        nxt = to_move(board_of(rig, after).text, players)
        assert nxt is not None
        per_mover[nxt.name].append(notifications(fake.calls[first:], group, table))
    for name, turns in per_mover.items():
        assert turns, f"{name} never got a turn"
        for woken in turns:
            if name == "Ana":  # no private chat: the board's mention in the group wakes the table
                assert woken == Counter({"Ana": 1, "Ben": 1, "Cai": 1}), woken
            else:  # the board is silent; the mover alone is told, in private
                assert woken == Counter({name: 1}), (name, woken)
    # Cai plays in her panel: her notification is the panel itself, posted anew at the bottom
    cai_turn = live_panel(rig, current_game(rig, group.id).id or 0, cai)
    assert cai_turn.chat_id == cai.id
    assert not tg.errors


async def test_reminders_follow_the_same_rule(rig: BotRig) -> None:
    fake, tg = rig.fake, rig.tg
    group, table = await three_at_a_table(rig)
    game = current_game(rig, group.id)
    players = [Player(u, random.Random(i), use_t_cards=False) for i, u in enumerate(table)]
    seen: dict[str, Counter[str]] = {}
    for _turn in range(8):  # a reminder for each player while it is their turn
        game = current_game(rig, group.id)
        mover = to_move(board_of(rig, game).text, players)
        assert mover is not None
        if mover.name not in seen:
            first = len(fake.calls)
            rig.clock.advance(timedelta(hours=2, minutes=1))  # casual: the first reminder after 2 h
            await tg.run_job("sweep")
            seen[mover.name] = notifications(fake.calls[first:], group, table)
        board = board_of(rig, game)
        surface = live_panel(rig, game.id or 0, mover.user) if mover.name == "Cai" else board
        await play_turn(tg, fake, surface, mover, private=mover.name == "Cai")
        if len(seen) == 3:
            break
    assert seen["Ana"] == Counter({"Ana": 1, "Ben": 1, "Cai": 1})  # a mention in the group
    assert seen["Ben"] == Counter({"Ben": 1})  # a note in his private chat
    assert seen["Cai"] == Counter({"Cai": 1})  # her panel, posted again with the reminder
    assert not tg.errors


async def test_a_private_chat_that_blocks_the_bot_falls_back_to_the_group_mention(rig: BotRig) -> None:
    fake, tg = rig.fake, rig.tg
    group, table = await three_at_a_table(rig)
    _ana, ben, cai = table
    players = [Player(u, random.Random(i), use_t_cards=False) for i, u in enumerate(table)]
    fake.block_user(ben.id)  # Ben blocks the bot in private
    for turn in range(6):
        game = current_game(rig, group.id)
        mover = to_move(board_of(rig, game).text, players)
        assert mover is not None
        if mover.name == "Ben" and turn > 0:  # his turn comes after a move (not the deal's first)
            break
        surface = live_panel(rig, game.id or 0, cai) if mover.name == "Cai" else board_of(rig, game)
        await play_turn(tg, fake, surface, mover, private=mover.name == "Cai")
    else:
        raise AssertionError("Ben never got a turn")
    mentions = [m for m in fake.messages(group.id) if m.content.startswith("👉 Ben, your move!")]
    assert mentions, "the group mention notified Ben instead"
