"""Hands stay secret: group messages and keys show only public cards, hands go to popups only."""

from __future__ import annotations

import random
import re

import pytest

from tests.bot.conftest import BotRig
from tests.bot.helpers import (
    GroupPrivacyWatch,
    assert_board_shows_only_public_cards,
    assert_group_calls_show_only_public_cards,
    board_id,
    current_game,
    state_of,
)
from tests.bot.players import HAND_SLOT, Player, board_part, play_turn, to_move
from tests.fakes.telegram import FakeChat, FakeUser
from tgbot.render.cards import card as card_label
from tgbot.render.cards import t_label

MAX_TURNS = 400
T_KINDS = ("thief", "joker", "shifter", "bomb")


def popup_hand(text: str) -> list[str]:
    """The hand a "👀 My hand" popup lists, slot by slot, as card labels."""
    slots = [(int(m.group(1)), m.group(2) + m.group(3)) for m in HAND_SLOT.finditer(text)]
    assert [n for n, _label in slots] == list(range(1, len(slots) + 1)), text
    return [label for _n, label in slots]


async def check_my_hand(rig: BotRig, user: FakeUser, seat: int, board_id: int, group: FakeChat) -> None:
    """A "👀 My hand" tap costs one answerCallbackQuery, to the tapper, with exactly their hand."""
    state = state_of(current_game(rig, group.id))
    board = rig.fake.message(group.id, board_id)
    first = len(rig.fake.calls)
    answer = await rig.tg.tap(user, board, "👀 My hand")
    calls = rig.fake.calls[first:]
    assert [c.method for c in calls] == ["answerCallbackQuery"]
    assert answer.user_id == user.id and answer.show_alert
    assert answer.text is not None
    assert popup_hand(answer.text.splitlines()[0]) == [card_label(c) for c in state.hands[seat]]


@pytest.mark.parametrize("face_down", [False, True], ids=["t-face-up", "t-face-down"])
async def test_group_game_never_shows_a_hand_card_in_the_group(rig: BotRig, face_down: bool) -> None:
    fake, tg = rig.fake, rig.tg
    names = ["Ana", "Ben", "Cai"]
    users = [fake.user(i + 1, n) for i, n in enumerate(names)]
    players = [Player(u, random.Random(30 + i)) for i, u in enumerate(users)]
    group = fake.group("Friends")
    await tg.send(group, users[0], "/newgame@tweak_test_bot")
    lobby = fake.last_message(group.id)
    for user in users[1:]:
        await tg.tap(user, lobby, "✋ Join")
    await tg.tap(users[0], lobby, "⚙️ Settings")
    for _ in range(5):
        await tg.tap(users[0], lobby, "Goal −20")
    if face_down:
        await tg.tap(users[0], lobby, "[T!] face down")
    await tg.tap(users[0], lobby, "↩️ Back")
    assert "goal: 20" in lobby.text and ("face down" in lobby.text) == face_down
    await tg.tap(users[0], lobby, "▶️ Start")
    watch = GroupPrivacyWatch(rig, group)

    reports = 0
    won_t = 0
    for turn in range(MAX_TURNS):
        game = current_game(rig, group.id)
        if game.status != "playing":
            break
        before = state_of(game)
        live = board_id(rig, game)
        assert live is not None
        board = fake.message(group.id, live)
        assert_board_shows_only_public_cards(fake, board, before)
        if face_down:
            # nobody sees which [T!] cards the others won, not even their names on the board
            # (a card played is public: the report above the board may name it)
            assert not any(t_label("en", k) in board_part(board.text) for k in T_KINDS), board.text
            assert all(not re.match(r"t:\d+:\d+:(?!any)", d or "") for _t, d in board.buttons)
        player = to_move(board.text, players)
        assert player is not None
        # someone else peeks at their own hand: a popup for them alone
        other = players[(players.index(player) + 1 + turn % 2) % 3]
        await check_my_hand(rig, other.user, players.index(other), live, group)
        first = len(fake.calls)
        await play_turn(tg, fake, board, player, private=False)
        after = state_of(current_game(rig, group.id))
        calls = fake.calls[first:]
        assert_group_calls_show_only_public_cards(calls, group.id, before, after)
        # the old board lost its keys (the new one opens with the move's report)
        assert board.buttons == [] or after.turn == before.turn
        reports += 1
        gained = sum(len(h) for h in after.holdings) + sum(len(u) for u in after.used_t)
        won_t = max(won_t, gained)
        if face_down:
            texts = [str(c.params.get("text", "")) for c in calls if c.chat_id == group.id]
            assert not any(re.search(r"wins a (Thief|Joker|Shifter|Bomb)", t) for t in texts), texts
    else:
        raise AssertionError("the game did not end")
    assert current_game(rig, group.id).status == "finished"
    assert reports > 10 and won_t > 0
    # no hand popup ever became a message: every hand listing went out as a callback answer
    for call in fake.calls:
        if call.method in ("sendMessage", "editMessageText") and call.chat_id == group.id:
            assert "Your hand" not in str(call.params.get("text", ""))
    # the watch really looked: a whole game's taps and group calls (about 50 or more, by the deal)
    assert watch.checked_taps > 50 and watch.checked_calls > 30
    assert not tg.errors
