"""Whole games through the real Application and the fake Telegram, by tapping shown keys only."""

from __future__ import annotations

import random
from collections import Counter

from engine import check_invariants
from tests.bot.conftest import BotRig
from tests.bot.helpers import (
    GroupPrivacyWatch,
    assert_board_shows_only_public_cards,
    board_of,
    current_game,
    state_of,
)
from tests.bot.players import Player, play_turn, to_move

MAX_TURNS = 3000


async def test_two_player_game_in_the_group_to_the_final_standings(rig: BotRig) -> None:
    fake, tg = rig.fake, rig.tg
    ana, ben = fake.user(1, "Ana"), fake.user(2, "Ben")
    players = [Player(ana, random.Random(1)), Player(ben, random.Random(2))]
    group = fake.group("Friends")
    await tg.send(group, ana, "/newgame@tweak_test_bot")
    lobby = fake.last_message(group.id)
    assert lobby is not None and "Ana" in lobby.text
    await tg.tap(ben, lobby, "✋ Join")
    assert "Ben" in lobby.text
    await tg.tap(ana, lobby, "▶️ Start")
    watch = GroupPrivacyWatch(rig, group)  # each tap: group messages show only public cards

    kinds: Counter[str] = Counter()
    for _turn in range(MAX_TURNS):
        game = current_game(rig)
        if game.status != "playing":
            break
        state = state_of(game)
        assert check_invariants(state) == []
        board = board_of(rig, game)
        assert_board_shows_only_public_cards(fake, board, state)
        player = to_move(board.text, players)
        assert player is not None, board.text
        kinds[await play_turn(tg, fake, board, player, private=False)] += 1
    game = current_game(rig)
    assert game.status == "finished"
    final = state_of(game)
    assert final.is_over and max(final.totals) >= 140
    texts = [m.content for m in fake.messages(group.id)]
    standings = [t for t in texts if "Game over" in t]
    assert len(standings) == 1
    winner = players[final.winners[0]].name
    assert f"Winner: {winner}" in standings[0] or "Shared win" in standings[0]
    assert any("Round 1 is over" in t for t in texts)
    assert kinds["sum"] > 10 and kinds["discard"] > 0
    assert watch.checked_taps > 50
    assert not tg.errors
