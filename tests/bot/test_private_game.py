"""A whole 4-player game composed in the private panels, with the group's Telegram budget measured.

Panels go only to players who ask for them: /start alone sends none; the board's "📱 Panel" key
(a deep link to ``/start g<game>``) turns a player's panel on.
"""

from __future__ import annotations

import random
from collections import Counter

from engine import check_invariants
from tests.bot.conftest import BotRig
from tests.bot.helpers import (
    GroupPrivacyWatch,
    assert_board_shows_only_public_cards,
    assert_group_calls_show_only_public_cards,
    board_of,
    current_game,
    moves_of,
    open_panel,
    open_private_chats,
    panel_id,
    panel_of,
    state_of,
)
from tests.bot.players import Player, play_turn, to_move
from tests.fakes.telegram import MESSAGE_METHODS, FakeUser, StoredMessage

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
    assert "has started: Ana, Ben, Cai, Dee" in lobby.text
    game = current_game(rig, group.id)
    gid = game.id or 0
    # /start alone turned no panel on: nobody got one when the game started
    assert all(panel_id(rig, gid, seat, u.id) is None for seat, u in enumerate(users))
    assert not [
        b
        for u in users
        for m in fake.messages(u.id)
        for row in m.keyboard
        for b in row
        if "callback_data" in b
    ]
    # each player taps the board's "📱 Panel" key: their panel, keys only for the player to move
    first = state_of(game)
    for seat, user in enumerate(users):
        await open_panel(rig, user, board_of(rig, current_game(rig, group.id)))
        panel = panel_of(rig, game, seat, user)
        assert panel.text.startswith("🎲 Your game in Friends") and "Your hand: " in panel.text
        assert bool(panel.buttons) == (seat == first.current), (seat, panel.buttons)
    watch = GroupPrivacyWatch(rig, group)

    per_turn: list[int] = []  # group calls of ordinary turns
    special: list[int] = []  # group calls of turns that ended a round or the game
    kinds: Counter[str] = Counter()
    for _turn in range(MAX_TURNS):
        game = current_game(rig, group.id)
        if game.status != "playing":
            break
        before = state_of(game)
        assert check_invariants(before) == []
        board = board_of(rig, game)
        assert_board_shows_only_public_cards(fake, board, before)
        player = to_move(board.text, players)
        assert player is not None, board.text
        assert players.index(player) == before.current
        panel = panel_of(rig, game, before.current, player.user)
        assert "👉 Your move!" in panel.text and f"Target {before.target}" in panel.text
        first_call = len(fake.calls)
        fake.reset_counts()
        kinds[await play_turn(tg, fake, panel, player, private=True)] += 1
        group_calls = fake.count_calls(chat_id=group.id, methods=MESSAGE_METHODS - {"editMessageReplyMarkup"})
        after = state_of(current_game(rig, group.id))
        played = [m for m in moves_of(rig, gid) if m.seq > game.version]
        t_played = any(m.code[0] in "TJFB" for m in played)
        assert after.turn != before.turn or after.round != before.round or after.is_over, (
            "the turn did not end"
        )
        assert_group_calls_show_only_public_cards(fake.calls[first_call:], group.id, before, after)
        # the panel that was used is closed: no keys left, the played move is recorded there
        assert panel.buttons == [] and panel.text.startswith("✔️ Played in Friends:")
        if after.round != before.round or after.is_over:
            special.append(group_calls)
        else:
            # a turn costs the group one message, the new board under the move's report, a [T!]
            # card played first in the panel included
            assert group_calls == 1, (group_calls, [m.code for m in played], t_played)
            per_turn.append(group_calls)
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
    assert text.endswith(lines[-1])  # the standings end with them: 🔁 Rematch is under them

    # every old board lost its keys once, last of all (a clean-up may wait for a later turn)
    keys_off = [
        c.params.get("message_id")
        for c in fake.calls
        if c.method == "editMessageReplyMarkup" and c.chat_id == group.id
    ]
    assert len(keys_off) == len(set(keys_off)) > 0
    # composing in private costs the group nothing: a turn is one message, the new board under the
    # move's report; a round's end adds its summary (the end of the game: standings and chart)
    assert per_turn and special
    assert set(per_turn) == {1}, Counter(per_turn)
    assert (sum(per_turn) + sum(special)) / (len(per_turn) + len(special)) <= 1.5
    assert kinds["sum"] > 5 and kinds["discard"] > 0 and "t-then-gone" not in kinds, kinds
    # [T!] cards were played from the panels too, and cost the group nothing more
    t_moves = [m for m in moves_of(rig, gid) if m.code[0] in "TJFB" and m.source == "player"]
    assert t_moves
    assert watch.checked_taps > 50 and watch.checked_calls > 50
    assert not tg.errors


async def discard_first_card(rig: BotRig, user: FakeUser, surface: StoredMessage) -> None:
    game = current_game(rig)
    await rig.tg.tap(user, surface, lambda _t, d: d == f"k:{game.id}:{game.version}:h:0")
    assert (
        await rig.tg.tap(user, surface, lambda _t, d: d == f"k:{game.id}:{game.version}:d")
    ).text == "Done!"


def keyed(rig: BotRig, user: FakeUser) -> list[StoredMessage]:
    """Messages in the user's private chat that still have keys to tap."""
    return [m for m in rig.fake.messages(user.id) if any("callback_data" in b for r in m.keyboard for b in r)]


async def test_panels_go_to_players_who_use_them_and_stay_at_the_bottom(rig: BotRig) -> None:
    fake, tg = rig.fake, rig.tg
    ana, ben = fake.user(1, "Ana"), fake.user(2, "Ben")
    await open_private_chats(rig, [ana, ben])  # both may be written to; neither asked for a panel
    group = fake.group("Duo")
    await tg.send(group, ana, "/newgame@tweak_test_bot")
    lobby = fake.last_message(group.id)
    await tg.tap(ben, lobby, "✋ Join")
    await tg.tap(ana, lobby, "▶️ Start")
    game = current_game(rig, group.id)
    gid = game.id or 0
    seat_of = {ana.id: 0, ben.id: 1}
    assert panel_id(rig, gid, 0, ana.id) is None and panel_id(rig, gid, 1, ben.id) is None
    # Ana opens her panel with the board's key; Ben plays on the board and never gets one.
    await open_panel(rig, ana, board_of(rig, game))
    panels: list[int] = []

    async def turn() -> FakeUser:
        game = current_game(rig, group.id)
        mover = (ana, ben)[state_of(game).current]
        if mover is ana:
            panel = panel_of(rig, game, 0, ana)
            assert "👉 Your move!" in (panel.text or "") and keyed(rig, ana) == [panel]
            panels.append(panel.message_id)
            await discard_first_card(rig, ana, panel)
            assert panel.buttons == [] and (panel.text or "").startswith("✔️ Played in Duo:")
        else:
            await discard_first_card(rig, ben, board_of(rig, game))
        assert keyed(rig, ben) == [] and panel_id(rig, gid, seat_of[ben.id], ben.id) is None
        return mover

    while len(panels) < 3:
        await turn()
    # each of her turns is posted anew at the bottom (a new message is what notifies her; the
    # closed one before it keeps what she played)
    assert panels[0] < panels[1] < panels[2]
    assert all(fake.message(ana.id, p).text.startswith("✔️ Played in Duo:") for p in panels[:2])
    # Ana composes on the group board this time: the panel is off for this game
    while (ana, ben)[state_of(current_game(rig, group.id)).current] is not ana:
        await turn()
    shown = len(fake.messages(ana.id))
    await discard_first_card(rig, ana, board_of(rig, current_game(rig, group.id)))
    assert keyed(rig, ana) == []
    for _ in range(4):  # her turns come and go on the board: no panel in private, a note a turn
        game = current_game(rig, group.id)
        mover = (ana, ben)[state_of(game).current]
        await discard_first_card(rig, mover, board_of(rig, game))
    notes = [m.text for m in fake.messages(ana.id)[shown:]]
    assert notes and set(notes) == {"🔔 Your move in Duo."} and keyed(rig, ana) == []
    assert not tg.errors
