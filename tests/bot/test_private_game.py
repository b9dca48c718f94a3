"""A whole 4-player game composed in the private panels, with the group's Telegram budget measured."""

from __future__ import annotations

import random
from collections import Counter

from engine.invariants import check_invariants
from tests.bot.conftest import BotRig
from tests.bot.helpers import (
    GroupPrivacyWatch,
    assert_board_shows_only_public_cards,
    assert_group_calls_show_only_public_cards,
    current_game,
    moves_of,
    open_private_chats,
    private_panel,
    state_of,
)
from tests.bot.players import Player, play_turn, to_move
from tests.fakes.telegram import MESSAGE_METHODS

MAX_TURNS = 400


async def test_four_players_compose_in_private_panels_to_the_final_standings(rig: BotRig) -> None:
    fake, tg = rig.fake, rig.tg
    names = ["Ana", "Ben", "Cai", "Dee"]
    users = [fake.user(i + 1, n) for i, n in enumerate(names)]
    players = [Player(u, random.Random(10 + i)) for i, u in enumerate(users)]
    await open_private_chats(rig, users)
    group = fake.group("Friends")

    await tg.send(group, users[0], "/newgame@tweak_test_bot")
    lobby = fake.last_message(group.id)
    for user in users[1:]:
        await tg.tap(user, lobby, "✋ Join")
    await tg.tap(users[0], lobby, "⚙️ Settings")
    for _ in range(4):
        await tg.tap(users[0], lobby, "Goal −20")
    assert "goal: 20" in lobby.text
    await tg.tap(users[0], lobby, "↩️ Back")
    await tg.tap(users[0], lobby, "▶️ Start")
    watch = GroupPrivacyWatch(rig, group)
    assert "has started: Ana, Ben, Cai, Dee" in lobby.text

    per_turn: list[int] = []  # group calls of ordinary turns
    special: list[int] = []  # group calls of turns that ended a round or the game
    kinds: Counter[str] = Counter()
    for _turn in range(MAX_TURNS):
        game = current_game(rig, group.id)
        if game.status != "playing":
            break
        before = state_of(game)
        assert check_invariants(before) == []
        assert game.board_message_id is not None
        board = fake.message(group.id, game.board_message_id)
        assert_board_shows_only_public_cards(fake, board, before)
        player = to_move(board.text, players)
        assert player is not None, board.text
        panel = private_panel(fake, player.user)
        assert "👉 Your move!" in panel.text and f"Target {before.target}" in panel.text
        first_call = len(fake.calls)
        fake.reset_counts()
        kinds[await play_turn(tg, fake, panel, player, private=True)] += 1
        group_calls = fake.count_calls(chat_id=group.id, methods=MESSAGE_METHODS)
        after = state_of(current_game(rig, group.id))
        assert after.turn != before.turn or after.round != before.round or after.is_over, (
            "the turn did not end"
        )
        assert_group_calls_show_only_public_cards(fake.calls[first_call:], group.id, before, after)
        # the panel that was used is closed: no keys left, the played move is recorded there
        assert panel.buttons == [] and panel.text.startswith("✔️ Played in Friends:")
        (special if after.round != before.round or after.is_over else per_turn).append(group_calls)
    else:
        raise AssertionError("the game did not end")

    game = current_game(rig, group.id)
    assert game.status == "finished"
    final = state_of(game)
    assert final.is_over and max(final.totals) >= 20
    standings = [m.content for m in fake.messages(group.id) if "Game over" in m.content]
    assert len(standings) == 1
    text = standings[0]
    winners = [names[s] for s in final.winners]
    if len(winners) == 1:
        assert f"Winner: {winners[0]} 🎉" in text
    else:
        assert f"Shared win: {', '.join(winners)} 🎉" in text
    # every player appears with their final total, best first
    order = sorted(range(4), key=lambda s: (-final.totals[s], s))
    lines = [line for line in text.splitlines() if " — " in line]
    assert [line.split(" ", 1)[1] for line in lines] == [f"{names[s]} — {final.totals[s]}" for s in order]
    assert text.rstrip().endswith("Play again with /newgame")

    # composing in private costs the group nothing: a turn is the move report and the new board
    assert per_turn and special
    assert max(per_turn) <= 3, Counter(per_turn)
    assert sum(per_turn) / len(per_turn) <= 3
    assert (sum(per_turn) + sum(special)) / (len(per_turn) + len(special)) <= 3
    assert kinds["sum"] > 5 and kinds["discard"] > 0 and "t-then-gone" not in kinds, kinds
    # [T!] cards were played from the panels too (each costs one in-place edit of the board)
    t_moves = [m for m in moves_of(rig, game.id or 0) if m.code[0] in "TJFB" and m.source == "player"]
    assert t_moves and 3 in per_turn
    assert watch.checked_taps > 50 and watch.checked_calls > 50
    assert not tg.errors
