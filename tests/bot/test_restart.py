"""A restart loses nothing: a new Application over the same database continues mid-turn."""

from __future__ import annotations

from collections.abc import Callable

from engine.cards import VALUE, TKind
from tests.bot.conftest import running_bot
from tests.bot.helpers import (
    board_of,
    current_game,
    live_panel,
    moves_of,
    set_state,
    start_game,
    state_of,
)
from tests.fakes import FakeTelegram
from tests.fakes.flood import FloodLimits
from tests.fakes.timer import VirtualTimer
from tgbot.render.cards import card
from tgbot.time_source import ManualClock


def key(data: str) -> Callable[[str, str | None], bool]:
    return lambda _text, key_data: key_data == data


async def test_a_new_application_continues_the_game_mid_turn(db_url: str, seeds: Callable[[], int]) -> None:
    clock = ManualClock()
    # The same Telegram (chats, messages, flood windows on one virtual timer) across the restarts.
    fake = FakeTelegram(clock=clock.now, timer=VirtualTimer(), flood=FloodLimits())
    ana, ben = fake.user(1, "Ana"), fake.user(2, "Ben")
    group = fake.group("Friends")
    users = {0: ana, 1: ben}

    async with running_bot(db_url, seeds, clock=clock, fake=fake) as first:
        game, board = await start_game(first, group, ana, [ben])
        assert game.id is not None
        gid = game.id
        state = state_of(game)
        mover = users[state.current]
        waiting = users[1 - state.current]
        # The waiting player opens their private panel (the board's 📱 Panel key): no keys yet.
        await first.tg.send(fake.private(waiting), waiting, f"/start g{gid}")
        assert "Your hand:" in live_panel(first, gid, waiting).text
        assert live_panel(first, gid, waiting).buttons == []
        # Give the player to move a Joker and show it on a fresh board (test set-up only).
        joker = TKind.JOKER.value
        holder = next((h for h in state.holdings if joker in h), None)
        (state.tdeck if holder is None else holder).remove(joker)  # the edition keeps its count
        state.holdings[state.current].append(joker)
        set_state(first, gid, state)
        await first.tg.send(group, mover, "/board@tweak_test_bot")
        assert board.buttons == []  # /board took the keys off the old board
        board = board_of(first, current_game(first))
        # Mid-turn: the Joker is chosen and played alone (version 2; no new board: the table did
        # not change, the board's keys go on working), then hand slot 2 is chosen (a draft on the
        # server).
        choice = await first.tg.tap(mover, board, "🃏 Joker")
        assert f"the target becomes {state.target + 1}" in (choice.text or "")
        played = await first.tg.tap(mover, board, "✅ Claim")
        assert "Joker" in (played.text or "") and current_game(first).version == 2
        answer = await first.tg.tap(mover, board, "🂠2")
        assert answer.text and answer.text.startswith(card(state.hands[state.current][1]))
        assert current_game(first).version == 2
        assert not first.tg.errors

    # The process is gone; a new one starts over the same database file.
    async with running_bot(db_url, seeds, clock=clock, fake=fake) as second:
        # The board's keys still work: each carries one step, the draft waits in the database.
        table0, hand1 = state.table[0], state.hands[state.current][1]
        answer = await second.tg.tap(mover, board, key(f"k:{gid}:1:t:0"))
        total = VALUE[hand1] + VALUE[table0]
        assert (answer.text or "").startswith(f"{card(hand1)} + {card(table0)} = {total}")
        if total != state.target + 1:
            assert f"(target {state.target + 1})" in (answer.text or "")
        answer = await second.tg.tap(mover, board, "🗑 Discard")
        assert answer.text == "Done!"
        after = current_game(second)
        assert after.version == 3 and after.status == "playing"
        assert [m.code for m in moves_of(second, gid)][1:] == ["J+", "D1"]
        assert state_of(after).current == 1 - state.current
        # The next player composes in their private panel: a hand card and a table card...
        panel = live_panel(second, gid, waiting)
        assert "👉 Your move!" in panel.text
        await second.tg.tap(waiting, panel, key(f"k:{gid}:3:h:0"))
        await second.tg.tap(waiting, panel, key(f"k:{gid}:3:t:0"))
        assert "✏️" in panel.text
        assert not second.tg.errors

    # ... and after another restart, finishes the move from the same panel.
    async with running_bot(db_url, seeds, clock=clock, fake=fake) as third:
        answer = await third.tg.tap(waiting, panel, "🗑 Discard")
        assert answer.text == "Done!"
        final = current_game(third)
        assert final.version == 4 and state_of(final).current == state.current
        assert [m.code for m in moves_of(third, gid)][1:] == ["J+", "D1", "D0"]
        assert panel.buttons == [] and panel.text.startswith("✔️ Played in Friends:")
        # the group got a new board under the move's report, mentioning the first player again
        assert board_of(third, final).text.startswith(f"{waiting.first_name} discards")
        assert f"{mover.first_name}, your move!" in board_of(third, final).text
        assert not third.tg.errors
