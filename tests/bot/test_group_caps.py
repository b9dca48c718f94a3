"""One incoming update, at most one group message, and a burst of the same update not one each.

Each path by which an update can make the bot write in a group has a cap (docs/ARCHITECTURE.md,
*What one update may cost a group*): a command's answer the group needs once in a while, a
refusal, /board, a change of the pace, a replay file sent in the group: said once a minute at
most per chat and topic, later ones standing in it; a change of the group's language redraws as
spare budget allows. A burst of ten costs one message, and the next minute may say it again.
"""

from __future__ import annotations

import random
from datetime import timedelta

import pytest
from sqlmodel import Session, select

from tests.bot.conftest import BotRig
from tests.bot.helpers import BOT, board_of, current_game, start_game
from tests.bot.pacing_support import run_sweep
from tests.bot.players import Player
from tests.bot.test_stats_history import quick_game
from tests.fakes.telegram import FakeChat, FakeUser
from tgbot.store.models import Notice

BURST = 10
MINUTE = timedelta(seconds=61)


def said(rig: BotRig, chat: FakeChat) -> int:
    return len(rig.fake.messages(chat.id))


async def burst(rig: BotRig, chat: FakeChat, user: FakeUser, text: str, times: int = BURST) -> int:
    """`text` sent `times` times, a second apart; how many messages the bot posted meanwhile."""
    before = said(rig, chat)
    for _ in range(times):
        await rig.tg.send(chat, user, text)
        rig.clock.advance(timedelta(seconds=1))
    await rig.tg.advance(61)  # whatever waits for the budget goes out
    return said(rig, chat) - before


@pytest.mark.parametrize(
    "command",
    [
        "/help",
        "/start",
        "/rules",
        "/language",
        "/top",
        "/history",
        "/stats",
        "/settings",
        "/quiet 23-08 +2",  # the creator's: a change each time
        "/foo",  # refused: not a command
        "/pause",  # refused: not the creator
        "/newgame",  # a game runs here
    ],
)
async def test_a_burst_of_one_command_costs_the_group_one_message_a_minute(rig: BotRig, command: str) -> None:
    fake = rig.fake
    ana, ben = fake.user(1, "Ana"), fake.user(2, "Ben")
    group = fake.group("Friends")
    await start_game(rig, group, ana, [ben])
    sender = ben if command == "/pause" else ana
    name, _sep, args = command.partition(" ")
    text = f"{name}{BOT} {args}".strip()
    assert await burst(rig, group, sender, text) == 1
    rig.clock.advance(MINUTE)
    assert await burst(rig, group, sender, text, times=1) == 1  # a minute on: news again
    assert not rig.tg.errors


async def test_the_answers_of_a_burst_come_to_show_the_last_one(rig: BotRig) -> None:
    """/quiet twice within the minute: the one reply shows the hours set last."""
    fake = rig.fake
    ana, ben = fake.user(1, "Ana"), fake.user(2, "Ben")
    group = fake.group("Friends")
    await start_game(rig, group, ana, [ben])
    before = said(rig, group)
    await rig.tg.send(group, ana, f"/quiet{BOT} 23-08 +2")
    await rig.tg.send(group, ana, f"/quiet{BOT} 22-07 +2")
    await rig.tg.advance(61)
    replies = fake.messages(group.id)[before:]
    assert len(replies) == 1 and (replies[0].text or "").startswith("🌙 Quiet hours: 22:00–07:00 (UTC+2).")


async def test_each_forum_topic_and_each_person_gets_its_own_answer(rig: BotRig) -> None:
    fake = rig.fake
    ana, ben = fake.user(1, "Ana"), fake.user(2, "Ben")
    forum = fake.forum("Club", topics={11: "Table one", 12: "Table two"})
    for topic in (11, 12):
        await rig.tg.send(forum, ana, f"/help{BOT}", thread_id=topic)
    for user in (ana, ben):
        await rig.tg.send(forum, user, f"/stats{BOT}", thread_id=11)
    assert said(rig, forum) == 4


async def test_board_again_at_most_once_a_minute(rig: BotRig) -> None:
    fake = rig.fake
    ana, ben = fake.user(1, "Ana"), fake.user(2, "Ben")
    group = fake.group("Friends")
    _game, first = await start_game(rig, group, ana, [ben])
    assert await burst(rig, group, ben, f"/board{BOT}") == 1
    board = board_of(rig, current_game(rig, group.id))
    assert board.message_id != first.message_id  # posted again at the bottom, once
    rig.clock.advance(MINUTE)
    assert await burst(rig, group, ben, f"/board{BOT}", times=1) == 1


async def test_pace_changes_in_a_burst_say_so_once_showing_the_last(rig: BotRig) -> None:
    fake = rig.fake
    ana, ben = fake.user(1, "Ana"), fake.user(2, "Ben")
    group = fake.group("Friends")
    game, _board = await start_game(rig, group, ana, [ben])
    gid = game.id or 0
    await rig.tg.send(group, ana, f"/settings{BOT}")
    menu = fake.last_message(group.id)
    before = said(rig, group)
    for pace in ["quick", "slow", "casual"] * 3 + ["relaxed"]:
        answer = await rig.tg.tap_data(ana, menu, f"ln:{gid}:p:{pace}")
        assert answer.text and answer.text.startswith("Pace:")
    await rig.tg.advance(61)
    notices = fake.messages(group.id)[before:]
    assert len(notices) == 1 and "is now relaxed" in (notices[0].text or ""), [m.text for m in notices]


async def test_a_replay_sent_in_the_group_goes_once_a_minute(rig: BotRig) -> None:
    fake = rig.fake
    ana, ben = fake.user(1, "Ana"), fake.user(2, "Ben")  # neither opened a private chat
    group = fake.group("Friends")
    gid, _tally = await quick_game(rig, group, [Player(ana, random.Random(5)), Player(ben, random.Random(6))])
    await rig.tg.send(group, ana, f"/history{BOT}")
    listing = fake.last_message(group.id)
    before = said(rig, group)
    answers = [await rig.tg.tap(ben, listing, f"⬇️ #{gid}") for _ in range(5)]
    await rig.tg.advance(61)
    files = [m for m in fake.messages(group.id)[before:] if m.kind == "document"]
    assert len(files) == 1 and said(rig, group) - before == 1
    assert all("just sent in this chat" in (a.text or "") for a in answers[1:])


async def test_a_change_of_the_groups_language_redraws_with_spare_budget_only(rig: BotRig) -> None:
    """Anyone may tap the group's language picker: its redraw of the live board waits for the
    group's spare budget (a cosmetic edit), while a move's board goes out at once."""
    fake = rig.fake
    ana, ben = fake.user(1, "Ana"), fake.user(2, "Ben")
    group = fake.group("Friends")
    _game, board = await start_game(rig, group, ana, [ben])
    await rig.tg.advance(61)  # the set-up's writes are out of the window
    for i in range(12):  # a busy minute: 12 answers, each a person's own stats
        await rig.tg.send(group, fake.user(10 + i, f"P{i}"), f"/stats{BOT}")
    await rig.tg.send(group, ben, f"/language{BOT}")
    picker = fake.last_message(group.id)
    now = current_game(rig, group.id)
    mover = ana if "Ana, your move" in (board.text or "") else ben
    tapped, first = rig.timer.monotonic(), len(fake.calls)
    # The mover's two taps come one after the other (a person's taps do); the language tap lands
    # between them, at once with the discard.
    await rig.tg.process(fake.callback_update(mover, board, f"k:{now.id}:{now.version}:h:0"))
    await rig.tg.process_many(
        [
            fake.callback_update(ben, picker, "lg:es"),
            fake.callback_update(mover, board, f"k:{now.id}:{now.version}:d"),
        ]
    )
    assert current_game(rig, group.id).version == now.version + 1
    writes = [
        c for c in fake.calls[first:] if c.chat_id == group.id and c.ok and c.method != "answerCallbackQuery"
    ]
    times = fake.write_times(group.id)[-len(writes) :]
    when = {(c.method, c.params.get("message_id")): t for c, t in zip(writes, times, strict=True)}
    assert when[("sendMessage", None)] - tapped < 1.0  # the next board, at once
    assert when[("editMessageText", board.message_id)] - tapped > 50  # the redraw, with spare budget
    assert "¡te toca!" in (board_of(rig, current_game(rig, group.id)).text or "")


async def test_the_sweep_forgets_notices_after_a_day(rig: BotRig) -> None:
    """A notice's window is a minute: the rows of chats, people and games long gone do not pile up."""
    fake = rig.fake
    ana = fake.user(1, "Ana")
    group = fake.group("Friends")
    await rig.tg.send(group, ana, f"/help{BOT}")
    rig.clock.advance(timedelta(hours=23))
    await rig.tg.send(group, ana, f"/rules{BOT}")
    rig.clock.advance(timedelta(hours=2))
    await run_sweep(rig)
    with Session(rig.deps.db.engine) as session:
        kept = [n.key for n in session.exec(select(Notice)).all()]
    assert kept == ["rules:0"]
