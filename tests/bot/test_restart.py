"""A restart loses nothing: a new Application over the same database continues mid-turn."""

from __future__ import annotations

from collections.abc import Callable

from engine.cards import TKind
from tests.bot.conftest import running_bot
from tests.bot.helpers import current_game, moves_of, private_panel, set_state, start_game, state_of
from tests.bot.players import EMOJI_VALUE
from tests.fakes import FakeTelegram
from tests.fakes.telegram import StoredMessage
from tgbot.clock import ManualClock


def table_key(message: StoredMessage, position: int) -> str:
    """The key of a table card: the first row holds the hand, table cards follow."""
    keys = [
        b["callback_data"]
        for row in message.keyboard[1:]
        for b in row
        if EMOJI_VALUE.fullmatch(b["text"].removeprefix("✅"))
    ]
    return str(keys[position])


async def test_a_new_application_continues_the_game_mid_turn(db_url: str, seeds: Callable[[], int]) -> None:
    clock = ManualClock()
    fake = FakeTelegram(clock=clock.now)  # the same Telegram (chats, messages) across the restarts
    ana, ben = fake.user(1, "Ana"), fake.user(2, "Ben")
    group = fake.group("Friends")
    users = {0: ana, 1: ben}

    async with running_bot(db_url, seeds, clock=clock, fake=fake) as first:
        await first.tg.send(fake.private(ana), ana, "/start")
        await first.tg.send(fake.private(ben), ben, "/start")
        game, board = await start_game(first, group, ana, [ben])
        assert game.id is not None
        gid = game.id
        state = state_of(game)
        mover = users[state.current]
        waiting = users[1 - state.current]
        # Give the player to move a Joker and show it on a fresh board (test set-up only).
        state.holdings[state.current].append(TKind.JOKER.value)
        set_state(first, gid, state)
        await first.tg.send(group, mover, "/board@tweak_test_bot")
        assert board.buttons == []  # /board took the keys off the old board
        board = fake.message(group.id, current_game(first).board_message_id or 0)
        # Mid-turn: the Joker is played (version 2), then hand slot 2 is selected (a draft in the keys).
        await first.tg.tap(mover, board, "🃏 Joker")
        await first.tg.tap(mover, board, "🃏 Target +1")
        assert f"Joker +1: target {state.target + 1} this turn" in board.text
        await first.tg.tap(mover, board, "🂠2")
        assert "✏️ 🂠2 = ?" in board.text
        assert current_game(first).version == 2
        assert not first.tg.errors

    # The process is gone; a new one starts over the same database file.
    async with running_bot(db_url, seeds, clock=clock, fake=fake) as second:
        # The old board's keys still work: the draft travels in the keys, the game in the database.
        await second.tg.tap(mover, board, lambda t, d: d == table_key(board, 0))
        assert "✏️ 🂠2 + " in board.text and any(t.startswith("✅") for t, _d in board.buttons)
        answer = await second.tg.tap(mover, board, "🗑 Discard")
        assert answer.text == "Done!"
        after = current_game(second)
        assert after.version == 3 and after.status == "playing"
        assert [m.code for m in moves_of(second, gid)][1:] == ["J+", "D1"]
        assert state_of(after).current == 1 - state.current
        # The next player composes in their private panel: a hand card and a table card...
        panel = private_panel(fake, waiting)
        assert "👉 Your move!" in panel.text
        hand_key = next(d for _t, d in panel.buttons if d and d.startswith(f"c:{gid}:3:0:"))
        await second.tg.tap(waiting, panel, lambda t, d: d == hand_key)
        await second.tg.tap(waiting, panel, lambda t, d: d == table_key(panel, 0))
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
        # the group got the move report and a new board mentioning the first player again
        assert f"{waiting.first_name} discards" in fake.message(group.id, after.board_message_id or 0).text
        assert f"{mover.first_name}, your move!" in fake.message(group.id, final.board_message_id or 0).text
        assert not third.tg.errors
