"""Pacing through the real Application: reminders, deadlines, away players, pause, quiet hours, lobbies.

Time only moves when a test moves the `ManualClock`; the sweep runs when a test runs the JobQueue's
"sweep" job (the scheduler itself is paused), exactly as the repeating job would run it.
"""

from __future__ import annotations

import asyncio
import json
import re
from datetime import datetime, timedelta

import pytest
from sqlmodel import Session

import engine
from tests.bot.conftest import BotRig, running_bot
from tests.bot.helpers import BOT, game_row, moves_of, players_of, stored_state, texts
from tests.bot.pacing_support import (
    board,
    discard_on_board,
    open_lobby,
    panel,
    reminders,
    sent,
    start_table,
    sweep_after,
    sweep_at,
    to_move,
)
from tgbot.pacing import PACES, format_duration
from tgbot.render.cards import card as card_label
from tgbot.store.models import Game

SECOND = timedelta(seconds=1)
MIN = timedelta(minutes=1)
HOUR = timedelta(hours=1)
DAY = timedelta(days=1)
IDLE = re.compile(r"⏰ (\w+) was idle: (🟥|🟧|🟨|🟩|🟦|🟪)([1-6]) was discarded for them")


def idle_default_label(rig: BotRig, game_id: int) -> str:
    """The card the engine's idle default would discard for the player to move now."""
    state = stored_state(rig, game_id)
    action = engine.default_action(state, state.current)
    return card_label(state.hands[state.current][action.hand])


# --- each pace ----------------------------------------------------------------------------------


@pytest.mark.parametrize("key", ["live", "quick", "casual", "slow"])
async def test_each_pace_reminds_twice_then_plays_for_the_idle_player(rig: BotRig, key: str) -> None:
    pace = PACES[key]
    assert pace.deadline is not None
    table = await start_table(rig, pace=key)
    start = rig.clock.now()
    idle = to_move(rig, table)
    group = table.group.id
    game = game_row(rig, table.game_id)
    assert (game.next_nudge_at, game.deadline_at) == (start + pace.nudge, start + pace.deadline)

    assert reminders(await sweep_at(rig, start + pace.nudge - SECOND)) == []
    first = await sweep_at(rig, start + pace.nudge)
    assert texts(first) == [f'⏳ <a href="tg://user?id={idle.id}">{idle.first_name}</a>, it\'s your turn!']
    assert reminders(await sweep_at(rig, start + pace.deadline * 0.8 - SECOND)) == []
    last = await sweep_at(rig, start + pace.deadline * 0.8)
    assert len(sent(last, group)) == 1
    assert texts(last) == [
        f'⏰ Last call, <a href="tg://user?id={idle.id}">{idle.first_name}</a>: your turn will be played '
        f"for you in {format_duration(pace.deadline * 0.2)}."
    ]
    assert await sweep_at(rig, start + pace.deadline - SECOND) == []
    version = game_row(rig, table.game_id).version
    discarded = idle_default_label(rig, table.game_id)
    played = await sweep_at(rig, start + pace.deadline)
    game = game_row(rig, table.game_id)
    assert game.version == version + 1
    assert moves_of(rig, table.game_id)[-1].source == "idle"
    # the new board opens with the report: exactly the idle sentence, gender-neutral
    idle_line = f"⏰ {idle.first_name} was idle: {discarded} was discarded for them"
    assert [t.split("\n")[0] for t in texts(played, group)] == [idle_line]
    # the new board mentions the other player and their clock starts now
    assert to_move(rig, table) is not idle
    assert f"👉 {to_move(rig, table).first_name}, your move!" in board(rig, table).content
    assert (game.next_nudge_at, game.deadline_at) == (
        start + pace.deadline + pace.nudge,
        start + pace.deadline + pace.deadline,
    )


async def test_relaxed_reminds_once_a_day_and_never_plays_for_anyone(rig: BotRig) -> None:
    table = await start_table(rig, pace="relaxed")
    start = rig.clock.now()
    idle = to_move(rig, table)
    version = game_row(rig, table.game_id).version
    assert game_row(rig, table.game_id).deadline_at is None
    assert reminders(await sweep_at(rig, start + DAY - SECOND)) == []
    for day in range(1, 11):
        assert len(reminders(await sweep_at(rig, start + day * DAY))) == 1, day
        assert reminders(await sweep_at(rig, start + day * DAY + 23 * HOUR)) == []
    game = game_row(rig, table.game_id)
    assert game.version == version and game.status == "playing"
    assert to_move(rig, table) is idle
    assert game.nudges_sent == 10 and game.next_nudge_at == start + 11 * DAY


# --- reminders ----------------------------------------------------------------------------------


async def test_reminders_go_privately_with_the_turn_panel(rig: BotRig) -> None:
    """Like the turn's own notification: the player who has a private chat is reminded there,
    the last call too, and the group is not woken for them."""
    table = await start_table(rig, panels=("Ana", "Ben"))
    start = rig.clock.now()
    idle = to_move(rig, table)
    panel_before = panel(rig, table, idle)
    assert any((d or "").startswith("k:") for _t, d in panel_before.buttons), "the turn panel has its keys"
    calls = await sweep_at(rig, start + 2 * HOUR)
    assert sent(calls, table.group.id) == []
    private = sent(calls, idle.id)
    assert len(private) == 1
    assert not private[0].params.get("disable_notification"), "a reminder notifies"
    reminder = rig.fake.last_message(idle.id)
    assert reminder.text is not None and reminder.text.startswith("⏳ Reminder: it's your turn!")
    assert reminder.message_id == panel(rig, table, idle).message_id, "the reminder is the live panel"
    assert any((d or "").startswith(f"k:{table.game_id}:") for _t, d in reminder.buttons), "with the keys"
    assert not panel_before.buttons, "the old panel lost its keys: one live panel"
    calls = await sweep_at(rig, start + 12 * HOUR * 0.8)
    assert sent(calls, table.group.id) == []
    assert [t.split(":")[0] for t in texts(sent(calls, idle.id))] == ["⏰ Last call in <b>Friends</b>"]
    reminder = panel(rig, table, idle)  # the last call came with the panel again
    # the reminder panel works: the player discards from it
    version = game_row(rig, table.game_id).version
    await rig.tg.tap(idle, reminder, lambda _t, d: d == f"k:{table.game_id}:{version}:h:0")
    await rig.tg.tap(idle, reminder, "🗑 Discard")
    assert moves_of(rig, table.game_id)[-1].source == "player"


async def test_without_a_private_chat_the_first_reminder_is_a_group_mention(rig: BotRig) -> None:
    table = await start_table(rig)
    idle = to_move(rig, table)
    calls = await sweep_after(rig, 2 * HOUR)
    assert [c.chat_id for c in calls if c.method == "sendMessage"] == [table.group.id]
    assert texts(calls) == [f'⏳ <a href="tg://user?id={idle.id}">{idle.first_name}</a>, it\'s your turn!']
    assert not sent(calls, table.group.id)[0].params.get("disable_notification"), "a reminder notifies"


async def test_a_private_chat_without_the_panel_gets_a_private_note(rig: BotRig) -> None:
    """/start alone turns no panel on: a player who plays on the group board is reminded with a
    note in private (not the whole group woken); if they block the bot, the group mention."""
    table = await start_table(rig, dm=("Ana", "Ben"))
    idle = to_move(rig, table)
    assert [p.panel for p in players_of(rig, table.game_id)] == [False, False]
    calls = await sweep_after(rig, 2 * HOUR)
    assert [c.chat_id for c in calls if c.method == "sendMessage"] == [idle.id]
    assert texts(calls) == ["⏳ Reminder: it's your move in <b>Friends</b>."]
    rig.fake.block_user(idle.id)
    calls = await sweep_after(rig, 12 * HOUR * 0.8 - 2 * HOUR)
    assert [t.split(",")[0] for t in texts(sent(calls, table.group.id))] == ["⏰ Last call"]
    reminder = rig.fake.last_message(table.group.id)
    assert reminder.reply_to is not None and reminder.reply_to.message_id == board(rig, table).message_id


async def test_a_blocked_private_chat_falls_back_to_the_group(rig: BotRig) -> None:
    table = await start_table(rig, panels=("Ana", "Ben"))
    idle = to_move(rig, table)
    rig.fake.block_user(idle.id)
    calls = await sweep_after(rig, 2 * HOUR)
    assert texts(sent(calls, table.group.id)) == [
        f'⏳ <a href="tg://user?id={idle.id}">{idle.first_name}</a>, it\'s your turn!'
    ]
    players = {p.user_id: p for p in players_of(rig, table.game_id)}
    assert players[idle.id].user_id == idle.id
    from tgbot.store.models import User

    with Session(rig.deps.db.engine) as session:
        user = session.get(User, idle.id)
        assert user is not None and not user.can_dm


async def test_never_more_than_two_reminders_per_turn(rig: BotRig) -> None:
    table = await start_table(rig, pace="quick")
    start = rig.clock.now()
    count = 0
    for minute in range(1, 60):  # a sweep every minute up to the deadline
        count += len(reminders(await sweep_at(rig, start + minute * MIN)))
    assert count == 2
    assert game_row(rig, table.game_id).version == 1 + len(
        [m for m in moves_of(rig, table.game_id) if m.seq > 1]
    )


async def test_no_reminder_once_the_player_has_acted(rig: BotRig) -> None:
    table = await start_table(rig)
    start = rig.clock.now()
    first = to_move(rig, table)
    rig.clock.set(start + 2 * HOUR - SECOND)
    await discard_on_board(rig, table, first)
    moved_at = rig.clock.now()
    calls = await sweep_at(rig, start + 2 * HOUR)
    assert reminders(calls) == []
    # the next player's clock started with the move
    other = to_move(rig, table)
    assert other is not first
    calls = await sweep_at(rig, moved_at + 2 * HOUR)
    assert texts(calls) == [f'⏳ <a href="tg://user?id={other.id}">{other.first_name}</a>, it\'s your turn!']


async def test_a_reminder_decided_for_an_old_turn_is_not_sent(
    rig: BotRig, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The sweep decided a reminder, but the player moved before it went out: it is dropped."""
    table = await start_table(rig)
    idle = to_move(rig, table)
    start = rig.clock.now()
    # The group's messages wait in the outbox (its sender has not got to them yet).
    waiting: set[int] = set()
    monkeypatch.setattr(rig.deps.delivery, "wake", waiting.update)
    await sweep_at(rig, start + 2 * HOUR)
    game = game_row(rig, table.game_id)
    assert game.nudges_sent == 1, "the reminder was decided"
    surface = board(rig, table)
    await rig.tg.tap_data(idle, surface, f"k:{table.game_id}:{game.version}:h:0")
    answer = await rig.tg.tap_data(idle, surface, f"k:{table.game_id}:{game.version}:d")
    assert answer.text == "Done!"
    assert moves_of(rig, table.game_id)[-1].source == "player"
    monkeypatch.undo()
    assert table.group.id in waiting
    first = len(rig.fake.calls)
    baseline = asyncio.all_tasks()
    rig.deps.delivery.wake(waiting)
    await rig.tg.settle(baseline)
    calls = rig.fake.calls[first:]
    assert reminders(calls) == [], "the reminder for the turn that is over is not sent"
    assert texts(calls, table.group.id), "the move's report and the new board are"
    assert to_move(rig, table) is not idle
    assert f"👉 {to_move(rig, table).first_name}, your move!" in board(rig, table).content


# --- deadlines and away players -----------------------------------------------------------------


async def idle_turn(rig: BotRig, table_game: int) -> list:  # type: ignore[type-arg]
    """Let the player to move run out of time (live pace: 3 minutes) and sweep."""
    game = game_row(rig, table_game)
    assert game.deadline_at is not None
    return await sweep_at(rig, game.deadline_at)


async def test_two_idle_turns_in_a_row_mark_a_player_away_until_they_tap_anything(rig: BotRig) -> None:
    table = await start_table(rig, pace="live")
    idle = to_move(rig, table)
    active = next(u for u in table.users if u is not idle)
    await idle_turn(rig, table.game_id)  # idle's first timeout
    assert {p.user_id: p.timeouts for p in players_of(rig, table.game_id)}[idle.id] == 1
    await discard_on_board(rig, table, active)
    calls = await idle_turn(rig, table.game_id)  # the second in a row
    me = {p.user_id: p for p in players_of(rig, table.game_id)}[idle.id]
    assert me.away and me.timeouts == 2
    assert (
        f"💤 {idle.first_name} missed two turns and is now away: their turns are played at once until they "
        "tap any key of the game or send /back."
    ) in texts(calls, table.group.id)
    assert "💤" in board(rig, table).content  # the board shows the away seat
    # away: the turn is played at once, without waiting, right after the other player's move
    before = len(moves_of(rig, table.game_id))
    await discard_on_board(rig, table, active)
    moves = moves_of(rig, table.game_id)
    assert [m.source for m in moves[before:]] == ["player", "away"]
    assert to_move(rig, table) is active
    # tapping anything in the game brings the player back
    answer = await rig.tg.tap(idle, board(rig, table), "👀 My hand")
    assert answer.show_alert
    me = {p.user_id: p for p in players_of(rig, table.game_id)}[idle.id]
    assert not me.away and me.timeouts == 0
    await discard_on_board(rig, table, active)
    assert to_move(rig, table) is idle, "the turn waits for the player again"


async def test_back_command_in_the_group_and_in_private(rig: BotRig) -> None:
    table = await start_table(rig, pace="live")
    idle = to_move(rig, table)
    active = next(u for u in table.users if u is not idle)
    await idle_turn(rig, table.game_id)
    await discard_on_board(rig, table, active)
    await idle_turn(rig, table.game_id)
    assert {p.user_id: p.away for p in players_of(rig, table.game_id)}[idle.id]
    calls = await rig.tg.send(table.group, idle, f"/back{BOT}")
    assert texts(calls) == ["👋 Welcome back! Your turns wait for you again."]
    assert not {p.user_id: p.away for p in players_of(rig, table.game_id)}[idle.id]
    calls = await rig.tg.send(table.group, idle, f"/back{BOT}")
    assert texts(calls) == ["You were not away."]
    # away again, then /back in the private chat with the bot
    await discard_on_board(rig, table, active)
    await idle_turn(rig, table.game_id)
    await discard_on_board(rig, table, active)
    await idle_turn(rig, table.game_id)
    assert {p.user_id: p.away for p in players_of(rig, table.game_id)}[idle.id]
    calls = await rig.tg.send(rig.fake.private(idle), idle, "/back")
    assert texts(sent(calls, idle.id)) == ["👋 Welcome back! Your turns wait for you again."]
    assert texts(sent(calls, table.group.id)) == [f"👋 {idle.first_name} is back."]
    assert not {p.user_id: p.away for p in players_of(rig, table.game_id)}[idle.id]


async def test_acting_resets_the_count_of_idle_turns(rig: BotRig) -> None:
    table = await start_table(rig, pace="live")
    idle = to_move(rig, table)
    active = next(u for u in table.users if u is not idle)
    await idle_turn(rig, table.game_id)
    await discard_on_board(rig, table, active)
    await discard_on_board(rig, table, idle)  # the player is here again: the count starts over
    assert {p.user_id: p.timeouts for p in players_of(rig, table.game_id)}[idle.id] == 0
    await discard_on_board(rig, table, active)
    await idle_turn(rig, table.game_id)
    me = {p.user_id: p for p in players_of(rig, table.game_id)}[idle.id]
    assert me.timeouts == 1 and not me.away


async def test_when_every_human_is_away_the_game_ends_as_abandoned_with_scores_kept(rig: BotRig) -> None:
    table = await start_table(rig, pace="live")
    calls: list = []  # type: ignore[type-arg]
    for _ in range(4):  # Ana, Ben, Ana (away), Ben (away): nobody is left
        calls = await idle_turn(rig, table.game_id)
    game = game_row(rig, table.game_id)
    assert game.status == "abandoned"
    assert game.finished_at == rig.clock.now()
    assert (game.wake_at, game.next_nudge_at, game.deadline_at) == (None, None, None)
    state = stored_state(rig, table.game_id)
    assert not state.is_over  # the state is kept as it was, totals included
    group_texts = texts(calls, table.group.id)
    final = [t for t in group_texts if "🛑" in t]  # under the report of the moves before it
    assert len(final) == 1
    assert "Every player has left or is away: the game is over, scores kept." in final[0]
    for seat, user in enumerate(table.users):
        assert f"{user.first_name} — {state.totals[seat] + state.round_score(seat)}" in final[0]
    assert not [t for t in group_texts if "now away" in t], "the end of the game says it all"
    # nothing more happens to it
    assert await sweep_after(rig, DAY) == []
    calls = await rig.tg.send(table.group, table.users[0], f"/newgame{BOT}")
    assert "New game of TWEAK!" in texts(calls)[0]


async def test_one_human_and_a_computer_abandoned_when_the_human_goes_away(rig: BotRig) -> None:
    table = await start_table(rig, ("Ana",), pace="live", computers=1)
    for _ in range(2):
        assert to_move(rig, table).first_name == "Ana"
        await idle_turn(rig, table.game_id)
    assert game_row(rig, table.game_id).status == "abandoned"
    assert [m.source for m in moves_of(rig, table.game_id)].count("idle") == 2


# --- pause ---------------------------------------------------------------------------------------


async def test_pause_stops_every_clock_and_resume_starts_a_fresh_one(rig: BotRig) -> None:
    table = await start_table(rig, pace="live")
    ana, ben = table.users
    player = to_move(rig, table)
    old_board = board(rig, table)
    version = game_row(rig, table.game_id).version
    assert f"k:{table.game_id}:{version}:h:0" in [d for _t, d in old_board.buttons]
    calls = await rig.tg.send(table.group, ben, f"/pause{BOT}")
    assert texts(calls) == ["Only the creator or a group admin can do that."]
    calls = await rig.tg.send(table.group, ana, f"/pause{BOT}")
    assert texts(calls)[0].startswith("⏸ Game paused: no reminders and no deadlines.")
    assert "in 7 days" in texts(calls)[0]
    game = game_row(rig, table.game_id)
    assert game.status == "paused"
    assert (game.next_nudge_at, game.deadline_at) == (None, None)
    assert game.paused_until == rig.clock.now() + 7 * DAY
    assert game.version == version
    assert not old_board.buttons, "a paused board offers no keys"
    # days pass: no reminder, no auto-play
    for hours in (1, 5, 24, 24 * 5):  # 150 h, still inside the 7 days
        assert await sweep_after(rig, hours * HOUR) == []
    assert game_row(rig, table.game_id).version == version
    # a move is refused while paused (keys the board had, from a client that still shows them)
    answer = await rig.tg.tap_data(player, old_board, f"k:{table.game_id}:{version}:h:0")
    assert answer.text == "The game is paused. /resume to continue."
    answer = await rig.tg.tap_data(player, old_board, f"k:{table.game_id}:{version}:d")
    assert answer.text == "The game is paused. /resume to continue."
    assert game_row(rig, table.game_id).version == version
    # a chat admin may resume too
    calls = await rig.tg.send(table.group, ben, f"/resume{BOT}")
    assert texts(calls) == ["Only the creator or a group admin can do that."]
    rig.fake.mark_admin(table.group.id, ben.id)
    calls = await rig.tg.send(table.group, ben, f"/resume{BOT}")
    # the fresh board says so above itself (one group message, not two)
    assert [t.split("\n\n")[0] for t in texts(sent(calls, table.group.id))] == ["▶️ The game goes on!"]
    resumed_at = rig.clock.now()
    game = game_row(rig, table.game_id)
    assert game.status == "playing"
    assert (game.next_nudge_at, game.deadline_at) == (resumed_at + MIN, resumed_at + 3 * MIN)
    assert not old_board.buttons, "the old board lost its keys; a fresh one is at the bottom"
    assert board(rig, table).message_id != old_board.message_id
    assert board(rig, table).content.startswith("▶️ The game goes on!\n\n")
    assert f"👉 {player.first_name}, your move!" in board(rig, table).content
    calls = await sweep_at(rig, resumed_at + 3 * MIN)
    assert game_row(rig, table.game_id).version == version + 1


async def test_a_pause_lifts_by_itself(tmp_path: object, db_url: str) -> None:
    async with running_bot(db_url, pause_max=timedelta(days=2)) as rig:
        table = await start_table(rig, pace="live")
        await rig.tg.send(table.group, table.users[0], f"/pause{BOT}")
        paused_at = rig.clock.now()
        assert await sweep_at(rig, paused_at + 2 * DAY - SECOND) == []
        calls = await sweep_at(rig, paused_at + 2 * DAY)
        # the fresh board at the bottom says so above itself
        assert [t.split("\n\n")[0] for t in texts(sent(calls, table.group.id))] == [
            "▶️ The pause is over: the game goes on."
        ]
        game = game_row(rig, table.game_id)
        assert game.status == "playing" and game.paused_until is None
        assert game.deadline_at == rig.clock.now() + 3 * MIN
        assert board(rig, table).content.startswith("▶️ The pause is over: the game goes on.\n\n")
        assert "your move!" in board(rig, table).content
        assert board(rig, table).buttons


async def test_pause_and_resume_refusals(rig: BotRig) -> None:
    table = await start_table(rig)
    ana = table.users[0]
    calls = await rig.tg.send(table.group, ana, f"/resume{BOT}")
    assert texts(calls) == ["The game is not paused."]
    await rig.tg.send(table.group, ana, f"/pause{BOT}")
    calls = await rig.tg.send(table.group, ana, f"/pause{BOT}")
    assert texts(calls) == ["The game is already paused."]
    empty = rig.fake.group("Empty")
    calls = await rig.tg.send(empty, ana, f"/pause{BOT}")
    assert texts(calls) == ["There is no game here. Start one with /newgame."]


# --- quiet hours ---------------------------------------------------------------------------------


async def test_quiet_hours_hold_reminders_to_their_end(rig: BotRig) -> None:
    rig.clock.set(datetime(2026, 1, 1, 15, 30))  # 22:30 at UTC+7
    group = rig.fake.group("Night owls")
    ana = rig.fake.user(1, "Ana")
    # no game yet, so no creator: quiet hours move deadlines, only a group admin sets them
    calls = await rig.tg.send(group, ana, f"/quiet{BOT} 23-08 +7")
    assert texts(calls) == ["Only the creator or a group admin can do that."]
    rig.fake.mark_admin(group.id, ana.id)
    calls = await rig.tg.send(group, ana, f"/quiet{BOT} 23-08 +7")
    assert texts(calls) == [
        "🌙 Quiet hours: 23:00–08:00 (UTC+7). Reminders wait until they end, and deadlines move to their end."
    ]
    table = await start_table(rig, group=group)  # casual: the reminder is due at 00:30 local
    idle = to_move(rig, table)
    for moment in (datetime(2026, 1, 1, 17, 30), datetime(2026, 1, 1, 23, 0), datetime(2026, 1, 2, 0, 59)):
        assert reminders(await sweep_at(rig, moment)) == [], moment
    calls = await sweep_at(rig, datetime(2026, 1, 2, 1, 0))  # 08:00 local
    assert texts(calls) == [f'⏳ <a href="tg://user?id={idle.id}">{idle.first_name}</a>, it\'s your turn!']


async def test_a_deadline_inside_quiet_hours_moves_to_their_end(rig: BotRig) -> None:
    rig.clock.set(datetime(2026, 1, 1, 15, 58))  # 22:58 at UTC+7; live: the deadline would be 23:01
    group = rig.fake.group("Night owls")
    rig.fake.mark_admin(group.id, 1)
    calls = await rig.tg.send(group, rig.fake.user(1, "Ana"), f"/quiet{BOT} 23-08 +7")
    assert texts(calls)[0].startswith("🌙 Quiet hours: 23:00–08:00 (UTC+7).")
    table = await start_table(rig, group=group, pace="live")
    rig.clock.set(datetime(2026, 1, 1, 15, 58))
    game = game_row(rig, table.game_id)
    assert game.deadline_at == datetime(2026, 1, 2, 1, 0)
    version = game.version
    assert len(reminders(await sweep_at(rig, datetime(2026, 1, 1, 15, 59)))) == 1  # 22:59: not yet quiet
    for moment in (datetime(2026, 1, 1, 16, 1), datetime(2026, 1, 1, 20, 0), datetime(2026, 1, 2, 0, 59)):
        assert await sweep_at(rig, moment) == [], moment  # no last call and no auto-play at night
    assert game_row(rig, table.game_id).version == version
    calls = await sweep_at(rig, datetime(2026, 1, 2, 1, 0))
    assert game_row(rig, table.game_id).version == version + 1
    assert [t for t in texts(calls) if IDLE.search(t)]


async def test_setting_quiet_hours_moves_the_clock_of_the_running_turn(rig: BotRig) -> None:
    rig.clock.set(datetime(2026, 1, 1, 6, 0))  # 13:00 at UTC+7; casual: the deadline at 01:00 local
    table = await start_table(rig)
    assert game_row(rig, table.game_id).deadline_at == datetime(2026, 1, 1, 18, 0)
    await rig.tg.send(table.group, table.users[0], f"/quiet{BOT} 23-08 +7")
    game = game_row(rig, table.game_id)
    assert game.deadline_at == datetime(2026, 1, 2, 1, 0)
    assert game.next_nudge_at == datetime(2026, 1, 1, 8, 0)
    calls = await rig.tg.send(table.group, table.users[0], f"/quiet{BOT} off")
    assert texts(calls) == ["🔔 Quiet hours are off."]
    assert game_row(rig, table.game_id).deadline_at == datetime(2026, 1, 1, 18, 0)
    calls = await rig.tg.send(table.group, table.users[0], f"/quiet{BOT} at night")
    assert texts(calls) == ["I could not read that. Example: /quiet 23-08 +7"]


# --- lobbies -------------------------------------------------------------------------------------


async def test_a_lobby_nobody_starts_closes_after_24_hours(rig: BotRig) -> None:
    ana = rig.fake.user(1, "Ana")
    group, lobby, game_id = await open_lobby(rig, ana, [rig.fake.user(2, "Ben")])
    opened = rig.clock.now()
    assert await sweep_at(rig, opened + DAY - SECOND) == []
    calls = await sweep_at(rig, opened + DAY)
    assert lobby.text == "⌛ This lobby closed: nobody started the game in time. Send /newgame to try again."
    assert not lobby.buttons
    assert [c.method for c in calls] == ["editMessageText"]
    assert game_row(rig, game_id).status == "expired"
    calls = await rig.tg.send(group, ana, f"/newgame{BOT}")
    assert "New game of TWEAK!" in texts(calls)[0]


async def test_the_lobby_lifetime_is_configurable(db_url: str) -> None:
    async with running_bot(db_url, lobby_ttl=timedelta(hours=1)) as rig:
        _group, lobby, game_id = await open_lobby(rig, rig.fake.user(1, "Ana"), [])
        await sweep_after(rig, HOUR)
        assert game_row(rig, game_id).status == "expired"
        assert lobby.text is not None and lobby.text.startswith("⌛")


# --- the pace of a running game ------------------------------------------------------------------


async def test_settings_in_a_running_game_changes_the_pace_and_restarts_the_clock(rig: BotRig) -> None:
    table = await start_table(rig)
    ana, ben = table.users
    calls = await rig.tg.send(table.group, ben, f"/settings{BOT}")
    menu = rig.fake.last_message(table.group.id)
    assert menu.text is not None and menu.text.startswith("⚙️ Pace of this game: casual")
    assert [t for t, _d in menu.buttons] == ["live", "quick", "✅ casual", "slow", "relaxed"]
    answer = await rig.tg.tap(ben, menu, "quick")
    assert answer.text == "Only the creator or a group admin can do that."
    assert game_row(rig, table.game_id).deadline_at == rig.clock.now() + 12 * HOUR  # unchanged
    rig.clock.advance(30 * MIN)
    calls = await rig.tg.send(table.group, ben, f"/settings{BOT}")
    menu = rig.fake.last_message(table.group.id)
    answer = await rig.tg.tap(ana, menu, "quick")
    assert answer.text == "Pace: quick"
    assert not menu.buttons
    now = rig.clock.now()
    game = game_row(rig, table.game_id)
    assert json.loads(game.settings)["pace"] == "quick"
    assert (game.next_nudge_at, game.deadline_at) == (now + 10 * MIN, now + HOUR)
    assert "⚙️ The pace of this game is now quick; the turn clock starts again." in texts(
        rig.fake.calls, table.group.id
    )
    assert calls
    version = game.version
    await sweep_at(rig, now + HOUR)
    assert game_row(rig, table.game_id).version == version + 1


async def test_operator_pace_from_the_environment_is_the_default_and_selectable(db_url: str) -> None:
    async with running_bot(
        db_url, nudge_after=timedelta(minutes=5), deadline_after=timedelta(minutes=20)
    ) as rig:
        ana = rig.fake.user(1, "Ana")
        _group, lobby, game_id = await open_lobby(rig, ana, [rig.fake.user(2, "Ben")])
        assert lobby.text is not None and "pace: custom (5 min / 20 min)" in lobby.text
        await rig.tg.tap(ana, lobby, "⚙️ Settings")
        assert "✅ custom" in [t for t, _d in lobby.buttons]  # the key names it; the text has its times
        await rig.tg.tap(ana, lobby, "live")
        assert "pace: live" in (lobby.text or "")
        await rig.tg.tap(ana, lobby, "custom")
        await rig.tg.tap(ana, lobby, "↩️ Back")
        await rig.tg.tap(ana, lobby, "▶️ Start")
        start = rig.clock.now()
        game = game_row(rig, game_id)
        assert (game.next_nudge_at, game.deadline_at) == (start + 5 * MIN, start + 20 * MIN)
        assert len(reminders(await sweep_at(rig, start + 5 * MIN))) == 1
        assert len(reminders(await sweep_at(rig, start + 16 * MIN))) == 1  # 80% of 20 min
        version = game_row(rig, game_id).version
        await sweep_at(rig, start + 20 * MIN)
        assert game_row(rig, game_id).version == version + 1
        with Session(rig.deps.db.engine) as session:
            assert session.get(Game, game_id) is not None


async def test_the_idle_players_private_panel_is_closed_with_what_was_played(rig: BotRig) -> None:
    table = await start_table(rig, pace="live", panels=("Ana", "Ben"))
    idle = to_move(rig, table)
    shown = panel(rig, table, idle)
    assert shown.buttons
    discarded = idle_default_label(rig, table.game_id)
    await sweep_after(rig, 3 * MIN)
    assert not shown.buttons
    assert f"⏰ {idle.first_name} was idle: {discarded} was discarded for them" in shown.content


async def test_pause_needs_a_started_game_and_an_admin_may_change_the_pace(rig: BotRig) -> None:
    ana, ben = rig.fake.user(1, "Ana"), rig.fake.user(2, "Ben")
    group, lobby, game_id = await open_lobby(rig, ana, [ben])
    calls = await rig.tg.send(group, ana, f"/pause{BOT}")
    assert texts(calls) == ["The game has not started yet."]
    calls = await rig.tg.send(group, ana, f"/settings{BOT}")
    assert texts(calls) == ["Use the ⚙️ Settings key of the lobby."]
    await rig.tg.tap(ana, lobby, "▶️ Start")
    rig.fake.mark_admin(group.id, ben.id)
    await rig.tg.send(group, ben, f"/settings{BOT}")
    answer = await rig.tg.tap(ben, rig.fake.last_message(group.id), "slow")
    assert answer.text == "Pace: slow"
    assert json.loads(game_row(rig, game_id).settings)["pace"] == "slow"
    forged = await rig.tg.tap_data(ben, rig.fake.last_message(group.id), f"ln:{game_id}:p:turbo")
    assert forged.text == "That setting is not available."
