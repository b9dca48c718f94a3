"""Flood-proof play (issue "Flood-proof play"): every tap answered at once, deliveries paced per chat.

Telegram's limits are on in the fake (20 writes a minute per group, one a second per private
chat, 30 a second in all, 429 beyond), on a virtual timer, so a minute of play takes a moment.
Senders here are left running in the background (the test client does not wait for them), so taps
arrive at the pace a person taps, whatever the senders are doing.
"""

from __future__ import annotations

import re
from typing import Any

from sqlmodel import Session

from engine import Sum, legal_actions, seat_view
from engine.cards import VALUE
from tests.bot.conftest import BotRig
from tests.bot.helpers import (
    board_again,
    board_id,
    board_of,
    current_game,
    drain,
    start_game,
    state_of,
    waiting_rows,
)
from tests.fakes.telegram import FakeChat, FakeUser
from tgbot.store.models import Draft


def senders_in_background(rig: BotRig) -> None:
    rig.tg.ignore_tasks = lambda task: task.get_name().startswith("send:")


async def game_in(rig: BotRig, title: str, base: int) -> tuple[FakeChat, FakeUser, FakeUser, int]:
    fake = rig.fake
    ana, ben = fake.user(base + 1, f"Ana{base}"), fake.user(base + 2, f"Ben{base}")
    group = fake.group(title)
    game, _board = await start_game(rig, group, ana, [ben])
    assert game.id is not None
    mover = ana if state_of(game).current == 0 else ben
    return group, mover, ana if mover is ben else ben, game.id


async def test_two_taps_a_second_for_a_minute_all_answered_with_the_running_sum_and_no_group_write(
    rig: BotRig,
) -> None:
    group, mover, _other, gid = await game_in(rig, "Busy", 0)
    senders_in_background(rig)
    game = current_game(rig)
    state = state_of(game)
    table = len(state.table)
    hand = len(state.hands[state.current])
    board = board_of(rig, game)
    shown = (board.text, board.keyboard)
    writes_before = len(rig.fake.write_times(group.id))
    answers = []
    for i in range(120):  # 2 taps a second for a minute, alternating hand and table cards
        key = (
            f"k:{gid}:{game.version}:h:{i % hand}" if i % 3 == 0 else f"k:{gid}:{game.version}:t:{i % table}"
        )
        answers.append(await rig.tg.tap_data(mover, board, key))
        await rig.tg.advance(0.5)
    # every tap was answered, at once (the answer never waits for a chat message)
    assert all(a.answered and a.answered_at == a.created_at for a in answers)
    # each toast shows the true running sum of the draft as it was after that tap
    with Session(rig.deps.db.engine) as session:
        draft = session.get(Draft, (gid, state.current))
        assert draft is not None and draft.version == game.version
    chosen = [p for p in range(table) if draft.mask >> p & 1]
    view = seat_view(state, state.current)
    if draft.hand is not None and chosen:
        total = VALUE[view.hand[draft.hand]] + sum(VALUE[view.table[p]] for p in chosen)  # type: ignore[index]
        assert f"= {total}" in (answers[-1].text or "")
    await drain(rig)
    # composing cost the group nothing: the board is as it was posted
    assert len(rig.fake.write_times(group.id)) == writes_before
    assert (board.text, board.keyboard) == shown
    assert rig.fake.count_429() == 0


async def spend_the_budget(rig: BotRig, group: FakeChat, user: FakeUser, boards: int = 17) -> None:
    """`boards` times /board in a few seconds: each posts the board again, and the old one's keys
    wait to be taken off (the group's budget is 18 writes a minute)."""
    for _ in range(boards):
        await board_again(rig, group, user)
        await rig.tg.advance(0.2)


async def test_a_throttled_group_never_delays_a_quiet_one(rig: BotRig) -> None:
    busy, busy_mover, _b, _busy_gid = await game_in(rig, "Busy", 0)
    quiet, quiet_mover, _q, quiet_gid = await game_in(rig, "Quiet", 10)
    senders_in_background(rig)
    await rig.tg.advance(61)  # the set-up's writes are out of the window
    # The busy group spends its whole budget.
    await spend_the_budget(rig, busy, busy_mover, 24)
    assert len(waiting_rows(rig)) > 0  # rows are waiting for the busy group's budget
    # A move in the quiet group is shown at once.
    quiet_game = current_game(rig, quiet.id)
    before = rig.timer.monotonic()
    board = board_of(rig, quiet_game)
    await rig.tg.tap_data(quiet_mover, board, f"k:{quiet_gid}:{quiet_game.version}:h:0")
    await rig.tg.tap_data(quiet_mover, board, f"k:{quiet_gid}:{quiet_game.version}:d")
    await rig.tg.advance(0.5)
    after = current_game(rig, quiet.id)
    assert after.version == quiet_game.version + 1
    new_board = board_id(rig, after)
    assert new_board is not None and new_board != board.message_id
    writes = [t for t in rig.fake.write_times(quiet.id) if t >= before]
    assert writes and min(writes) - before < 1.0  # the new board, under its report, at once
    await drain(rig)
    assert rig.fake.count_429() == 0


async def test_a_429_pauses_that_chat_only_and_the_message_arrives_once(rig: BotRig) -> None:
    slow, slow_mover, _s, slow_gid = await game_in(rig, "Slow", 0)
    other, other_mover, _o, other_gid = await game_in(rig, "Other", 10)
    senders_in_background(rig)
    await rig.tg.advance(61)  # the set-up's writes are out of the window
    # Telegram answers 429 to the slow group's next write (an accident: the bot stays within budget).
    rig.fake.fail_next("*", 429, retry_after=7, chat_id=slow.id)
    slow_game = current_game(rig, slow.id)
    board = board_of(rig, slow_game)
    start = rig.timer.monotonic()
    await rig.tg.tap_data(slow_mover, board, f"k:{slow_gid}:{slow_game.version}:h:0")
    answer = await rig.tg.tap_data(slow_mover, board, f"k:{slow_gid}:{slow_game.version}:d")
    assert answer.answered and answer.text == "Done!"
    other_game = current_game(rig, other.id)
    other_board = board_of(rig, other_game)
    await rig.tg.tap_data(other_mover, other_board, f"k:{other_gid}:{other_game.version}:h:0")
    await rig.tg.tap_data(other_mover, other_board, f"k:{other_gid}:{other_game.version}:d")
    await rig.tg.advance(1.0)
    # the other group went on at once; the slow one waits out retry_after
    assert [t for t in rig.fake.write_times(other.id) if t >= start]
    assert not [t for t in rig.fake.write_times(slow.id) if start <= t < start + 7]
    await drain(rig)
    # then its report and new board arrive, once each
    texts = [m.text for m in rig.fake.messages(slow.id)]
    assert sum("discards" in (t or "") for t in texts) == 1
    boards = [m for m in rig.fake.messages(slow.id) if any(d and d.startswith("k:") for _t, d in m.buttons)]
    assert len(boards) == 1 and boards[0].message_id == board_id(rig, current_game(rig, slow.id))
    assert rig.fake.count_429(slow.id) == 1 and rig.fake.count_429(other.id) == 0


async def test_the_next_board_goes_ahead_of_every_clean_up(rig: BotRig) -> None:
    """With the group's budget spent and old boards waiting to lose their keys, a move's board
    still goes within the minute, before every one of those clean-ups."""
    group, mover, _other, gid = await game_in(rig, "Race", 0)
    senders_in_background(rig)
    await rig.tg.advance(61)
    board = board_of(rig, current_game(rig))  # its keys work while it is the game's version
    await spend_the_budget(rig, group, mover)
    game = current_game(rig)
    assert len(waiting_rows(rig)) > 0  # keys waiting to be taken off old boards
    tapped = rig.timer.monotonic()
    first = len(rig.fake.calls)
    await rig.tg.tap_data(mover, board, f"k:{gid}:{game.version}:h:0")
    await rig.tg.tap_data(mover, board, f"k:{gid}:{game.version}:d")
    await drain(rig)
    new = current_game(rig)
    new_board = board_of(rig, new)
    posted = [t for t in rig.fake.write_times(group.id) if t >= tapped]
    assert posted and min(posted) - tapped < 60
    assert re.search(r"👉 .+, your move!", new_board.text or "")
    calls = [c for c in rig.fake.calls[first:] if c.chat_id == group.id and c.ok]
    methods = [c.method for c in calls if c.method in ("sendMessage", "editMessageReplyMarkup")]
    assert methods[0] == "sendMessage" and "sendMessage" not in methods[1:], methods  # the board first
    assert rig.fake.max_writes_in_window(group.id, 60) <= 20


async def test_many_taps_at_once_in_many_groups_are_all_answered(rig: BotRig) -> None:
    """Five groups of two players; everyone taps at once, forged and stale taps mixed in."""
    senders_in_background(rig)
    tables = [await game_in(rig, f"G{i}", 100 * i) for i in range(5)]
    updates = []
    for group, mover, other, gid in tables:
        game = current_game(rig, group.id)
        board = board_of(rig, game)
        updates += [
            rig.fake.callback_update(mover, board, f"k:{gid}:{game.version}:t:0"),
            rig.fake.callback_update(mover, board, f"k:{gid}:{game.version}:h:1"),
            rig.fake.callback_update(other, board, f"k:{gid}:{game.version}:t:1"),  # not their turn
            rig.fake.callback_update(mover, board, f"k:{gid}:{game.version - 1}:t:0"),  # stale
            rig.fake.callback_update(mover, board, f"k:{gid}:{game.version}:z:0"),  # forged
            rig.fake.callback_update(other, board, f"h:{gid}"),
        ]
    await rig.tg.process_many(updates)
    answers = [rig.fake.answers[u["callback_query"]["id"]] for u in updates]
    assert all(a.answered for a in answers)
    await drain(rig)
    for group, *_rest in tables:
        assert rig.fake.max_writes_in_window(group.id, 60) <= 20
    assert rig.fake.count_429() == 0


async def test_a_player_can_claim_before_the_board_catches_up(rig: BotRig) -> None:
    """In a group whose budget is spent the board lags behind the taps; Claim is always on it and
    claims the draft the bot keeps, so the player need not wait for a redraw."""
    _group, mover, _other, gid = await game_in(rig, "Lagging", 0)
    senders_in_background(rig)
    game = current_game(rig)
    state = state_of(game)
    sums = [a for a in legal_actions(state, state.current) if isinstance(a, Sum)]
    choice = sums[0] if sums else None  # no sum on this deal: discard instead, with the same keys
    board = board_of(rig, game)  # the keyboard as first shown: nothing selected
    keys = [f"k:{gid}:{game.version}:h:{choice.hand if choice else 0}"]
    keys += [f"k:{gid}:{game.version}:t:{p}" for p in (choice.table if choice else ())]
    for key in keys:
        await rig.tg.tap_data(mover, board, key)
    final = "✅ Claim" if choice else "🗑 Discard"
    answer = await rig.tg.tap(mover, board, final)  # on the old keyboard, straight away
    assert answer.text == "Done!"
    after = current_game(rig)
    assert after.version == game.version + 1
    await drain(rig)


async def test_a_sender_waiting_for_the_budget_is_not_stirred_by_clean_ups(rig: BotRig) -> None:
    """In a spent group, stale taps on old boards (each asks for their keys to be taken off, at the
    lowest priority) cost the waiting sender no database work; the move after them wakes it."""
    group, mover, other, gid = await game_in(rig, "Busy", 0)
    senders_in_background(rig)
    await rig.tg.advance(61)
    board = board_of(rig, current_game(rig))
    # 8 boards in a few seconds, each but the last leaving keys to take off: 14 writes, past the
    # 12 a minute clean-ups may use, below the 18 of the game's record; the last old boards' keys wait
    for _ in range(8):
        await board_again(rig, group, other)
        await rig.tg.advance(0.2)
    keyed = [m for m in rig.fake.messages(group.id) if any(d for _t, d in m.buttons)]
    old_boards = [m for m in keyed if any(d.startswith("k:") for _t, d in m.buttons if d)]
    game = current_game(rig)
    assert board_id(rig, game) is not None  # every board is out; only clean-ups wait
    delivery = rig.deps.delivery
    transactions: list[float] = []
    original = delivery.store

    async def counted(work: Any) -> Any:
        transactions.append(rig.timer.monotonic())
        return await original(work)

    delivery.store = counted  # type: ignore[method-assign]
    await rig.tg.advance(2.0)
    assert len(waiting_rows(rig)), "the budget should be spent, with clean-ups waiting"
    before = len(transactions)
    for old in old_boards[:-1]:  # taps on old boards whose keys are still on (not the player's turn)
        await rig.tg.tap_data(other, old, f"k:{gid}:{game.version}:t:0")
        await rig.tg.advance(0.05)
    assert len(transactions) - before <= 2
    moved_at = rig.timer.monotonic()
    await rig.tg.tap_data(mover, board, f"k:{gid}:{game.version}:h:0")
    await rig.tg.tap_data(mover, board, f"k:{gid}:{game.version}:d")
    await rig.tg.advance(0.05)
    assert current_game(rig).version > game.version
    assert any(t >= moved_at for t in transactions), "the move should wake the waiting sender"
