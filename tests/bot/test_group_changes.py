"""Telegram's real world: groups that change under a running game (issue: migrations, removals, …).

Every test drives the real Application through the fake Bot API and checks both what the users
see (messages, keys, popups) and what the store keeps (chat id, status, state).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

from sqlmodel import Session, col, select

from engine import check_invariants
from tests.bot.conftest import BotRig
from tests.bot.helpers import (
    BOT,
    board_id,
    board_of,
    current_game,
    game_row,
    live_panel,
    lobby_id,
    players_of,
    set_state,
    stored_state,
    texts,
)
from tests.fakes.telegram import BOT_ID, MESSAGE_METHODS, ApiCall, FakeChat, FakeUser, StoredMessage
from tgbot.render.limits import REPORT_BUDGET
from tgbot.store.models import Chat, User

# --- helpers ---------------------------------------------------------------------------------------


def chat_row(rig: BotRig, chat_id: int) -> Chat | None:
    with Session(rig.deps.db.engine) as session:
        return session.get(Chat, chat_id)


def user_row(rig: BotRig, user_id: int) -> User:
    with Session(rig.deps.db.engine) as session:
        user = session.get(User, user_id)
        assert user is not None
        return user


def board(rig: BotRig, game_id: int) -> StoredMessage:
    return board_of(rig, game_row(rig, game_id))


def hand_key(surface: StoredMessage, slot: int = 0) -> tuple[str, str]:
    """(label, data) of the compose key of hand card ``slot`` (k:<game>:<version>:h:<slot>)."""
    return next(
        (text, data) for text, data in surface.buttons if data and data.split(":")[3:] == ["h", str(slot)]
    )


async def open_panels(rig: BotRig, game_id: int, users: list[FakeUser]) -> None:
    """Each player opens the game's private panel (the board's 📱 Panel key: /start g<id>)."""
    for user in users:
        await rig.tg.send(rig.fake.private(user), user, f"/start g{game_id}")


async def lobby(
    rig: BotRig, group: FakeChat, users: list[FakeUser], thread: int | None = None
) -> tuple[StoredMessage, int]:
    await rig.tg.send(group, users[0], f"/newgame{BOT}", thread_id=thread)
    game = current_game(rig, group.id)
    shown = lobby_id(rig, game)
    assert game.id is not None and shown is not None
    message = rig.fake.message(group.id, shown)
    for user in users[1:]:
        assert (await rig.tg.tap(user, message, "✋ Join")).text.startswith("You're in!")
    return message, game.id


async def started(rig: BotRig, group: FakeChat, users: list[FakeUser], thread: int | None = None) -> int:
    message, game_id = await lobby(rig, group, users, thread)
    await rig.tg.tap(users[0], message, "▶️ Start")
    assert game_row(rig, game_id).status == "playing"
    return game_id


def to_move(rig: BotRig, game_id: int, users: list[FakeUser]) -> FakeUser:
    return users[stored_state(rig, game_id).current]


async def discard(
    rig: BotRig, game_id: int, users: list[FakeUser], surface: StoredMessage | None = None
) -> None:
    """The player to move discards hand slot 1 on the group board (or the given surface)."""
    user = to_move(rig, game_id, users)
    surface = surface or board(rig, game_id)
    label, data = hand_key(surface)
    if not label.startswith("👉"):  # not chosen yet (a tap on a chosen card unchooses it)
        await rig.tg.tap(user, surface, lambda _t, d: d == data)
    await rig.tg.tap(user, surface, "🗑 Discard")


def sends_to(calls: list[ApiCall], chat_id: int) -> list[ApiCall]:
    return [c for c in calls if c.method == "sendMessage" and c.chat_id == chat_id]


# --- a group upgraded to a supergroup ----------------------------------------------------------------


async def test_migration_moves_game_and_settings_and_reposts_the_board(rig: BotRig) -> None:
    fake, tg = rig.fake, rig.tg
    ana, ben = fake.user(1, "Ana"), fake.user(2, "Ben")
    old = fake.group("Old friends", kind="group")
    game_id = await started(rig, old, [ana, ben])
    await tg.send(old, ana, f"/quiet{BOT} 23-08 +2")
    before = stored_state(rig, game_id)
    new_id = -1_009_999_000_001

    calls = await tg.process(fake.migrate_update(old.id, new_id, by=ana))

    game = game_row(rig, game_id)
    assert game.chat_id == new_id and game.status == "playing"
    assert stored_state(rig, game_id) == before
    moved = chat_row(rig, new_id)
    assert moved is not None
    assert (moved.quiet_start, moved.quiet_end, moved.utc_offset_minutes) == (23, 8, 120)
    assert moved.language == "en"
    new_board = board_of(rig, game)
    assert new_board.chat_id == new_id
    assert "supergroup" in new_board.content and any(d and d.startswith("k:") for _t, d in new_board.buttons)
    assert not [c for c in calls if c.chat_id == old.id]  # nothing is sent to the old id, so nothing can loop
    # The twin message in the new chat finds nothing left to do: no second board.
    calls = await tg.process(fake.migrate_from_update(old.id, new_id, by=ana))
    assert not [c for c in calls if c.method in MESSAGE_METHODS]
    assert board_id(rig, game_row(rig, game_id)) == new_board.message_id
    # The game goes on in the new chat; commands there find it.
    await discard(rig, game_id, [ana, ben])
    assert game_row(rig, game_id).version == game.version + 1
    after_move = board_id(rig, game_row(rig, game_id))
    new_chat = fake.chat(new_id)
    await tg.send(new_chat, ana, f"/board{BOT}")
    assert board_id(rig, game_row(rig, game_id)) not in (None, after_move)
    assert board(rig, game_id).chat_id == new_id


async def test_a_send_that_finds_the_group_migrated_moves_the_game_and_retries_once(rig: BotRig) -> None:
    fake, tg = rig.fake, rig.tg
    ana, ben = fake.user(1, "Ana"), fake.user(2, "Ben")
    old = fake.group("Old friends", kind="group")
    game_id = await started(rig, old, [ana, ben])
    mover = to_move(rig, game_id, [ana, ben])
    await open_panels(rig, game_id, [mover])
    report = board(rig, game_id)
    new_id = -1_009_999_000_002
    fake.migrate_update(old.id, new_id)  # Telegram migrated; the service message is not processed yet

    start = len(fake.calls)
    panel = live_panel(rig, game_id, mover)
    await discard(rig, game_id, [ana, ben], surface=panel)  # the report and new board go to the old id first

    game = game_row(rig, game_id)
    assert game.chat_id == new_id and game.version == 2
    calls = fake.calls[start:]
    assert len([c for c in calls if c.chat_id == old.id]) == 1  # tried once, then never again
    fresh = board_of(rig, game)
    assert fresh.chat_id == new_id and fresh.buttons
    # The move report, which could not be written over the old board, is in the new chat.
    assert f"{mover.first_name} discards" not in report.content
    assert any(f"{mover.first_name} discards" in m.content for m in fake.messages(new_id))
    # The twin service messages arrive later: the board is there already, nothing is re-posted.
    calls = await tg.process(fake.migrate_from_update(old.id, new_id))
    calls += await tg.process(fake.migrate_update(old.id, new_id))
    assert not [c for c in calls if c.method in MESSAGE_METHODS]
    assert board_id(rig, game_row(rig, game_id)) == fresh.message_id


async def test_a_retry_that_is_migrated_again_is_not_followed(rig: BotRig) -> None:
    fake, tg = rig.fake, rig.tg
    ana, ben = fake.user(1, "Ana"), fake.user(2, "Ben")
    old = fake.group("Old friends", kind="group")
    game_id = await started(rig, old, [ana, ben])
    middle, last = -1_009_999_000_003, -1_009_999_000_004
    fake.migrate_update(old.id, middle)
    fake.migrate_update(middle, last)  # a broken server pointing further and further

    start = len(fake.calls)
    await tg.send(old, ana, f"/board{BOT}")
    sent = [c for c in fake.calls[start:] if c.method == "sendMessage"]
    assert [c.chat_id for c in sent].count(middle) == 1 and last not in [c.chat_id for c in sent]
    assert game_row(rig, game_id).chat_id == middle
    # one try at the old id, one at the new one, and nothing more (nothing loops, nothing waits)
    writes = [c.chat_id for c in fake.calls[start:] if c.method in MESSAGE_METHODS]
    assert writes == [old.id, middle]
    assert not await tg.advance(120)


# --- the bot removed and added back ------------------------------------------------------------------


async def test_bot_removed_pauses_with_state_kept_and_board_resumes_after_it_is_back(rig: BotRig) -> None:
    fake, tg = rig.fake, rig.tg
    ana, ben = fake.user(1, "Ana"), fake.user(2, "Ben")
    group = fake.group("Friends")
    await tg.send(fake.private(ben), ben, "/start")
    game_id = await started(rig, group, [ana, ben])
    before, version = stored_state(rig, game_id), game_row(rig, game_id).version

    await tg.process(fake.my_chat_member_update(group, ana, "kicked"))

    game = game_row(rig, game_id)
    assert game.status == "paused" and game.paused_until is None and game.wake_at is None
    chat = chat_row(rig, group.id)
    assert chat is not None and chat.bot_removed
    # Days pass: no reminder, no deadline, no automatic end of the pause, nothing sent.
    start = len(fake.calls)
    rig.clock.advance(timedelta(days=30))
    await tg.run_job("sweep")
    assert not [c for c in fake.calls[start:] if c.method == "sendMessage"]
    assert game_row(rig, game_id).status == "paused" and stored_state(rig, game_id) == before

    calls = await tg.process(fake.my_chat_member_update(group, ana, "member"))
    assert any("/board" in t for t in texts(sends_to(calls, group.id)))
    chat = chat_row(rig, group.id)
    assert chat is not None and not chat.bot_removed
    assert game_row(rig, game_id).status == "paused"  # only /board (or /resume) goes on

    await tg.send(group, ben, f"/board{BOT}")
    game = game_row(rig, game_id)
    assert game.status == "playing" and game.version == version and stored_state(rig, game_id) == before
    assert game.deadline_at is not None and game.deadline_at > rig.clock.now()
    assert "The game goes on" in board(rig, game_id).content
    await discard(rig, game_id, [ana, ben])
    assert game_row(rig, game_id).version == version + 1


async def test_a_403_from_the_group_pauses_its_games_too(rig: BotRig) -> None:
    fake, tg = rig.fake, rig.tg
    ana, ben = fake.user(1, "Ana"), fake.user(2, "Ben")
    group = fake.group("Friends")
    game_id = await started(rig, group, [ana, ben])
    fake.set_member_status(group.id, BOT_ID, "kicked")  # the my_chat_member update was lost
    rig.clock.advance(timedelta(hours=3))  # casual pace: the group reminder is due
    await tg.run_job("sweep")
    game = game_row(rig, game_id)
    assert game.status == "paused" and game.paused_until is None


# --- players leaving, blocking the bot ---------------------------------------------------------------


async def test_a_player_who_leaves_the_group_is_played_by_the_idle_default(rig: BotRig) -> None:
    fake, tg = rig.fake, rig.tg
    ana, ben, cid = fake.user(1, "Ana"), fake.user(2, "Ben"), fake.user(3, "Cid")
    users = [ana, ben, cid]
    group = fake.group("Friends")
    game_id = await started(rig, group, users)
    leaver = to_move(rig, game_id, users)
    version = game_row(rig, game_id).version

    calls = await tg.process(fake.left_member_update(group, leaver))

    left = [p for p in players_of(rig, game_id) if p.user_id == leaver.id]
    assert left and left[0].left
    assert game_row(rig, game_id).version > version  # their turn was played at once
    assert to_move(rig, game_id, users) != leaver
    assert any("left the group" in t for t in texts(calls))
    assert not check_invariants(stored_state(rig, game_id))
    # The chat_member update about the same departure changes nothing more.
    version = game_row(rig, game_id).version
    calls = await tg.process(fake.chat_member_update(group, leaver, "left"))
    assert game_row(rig, game_id).version == version and not texts(calls)


async def test_a_member_kicked_from_the_group_leaves_the_lobby(rig: BotRig) -> None:
    fake, tg = rig.fake, rig.tg
    ana, ben = fake.user(1, "Ana"), fake.user(2, "Ben")
    group = fake.group("Friends")
    message, game_id = await lobby(rig, group, [ana, ben])
    await tg.process(fake.chat_member_update(group, ben, "kicked", by=ana))
    assert [p.user_id for p in players_of(rig, game_id)] == [ana.id]
    assert "Ben" not in message.content


async def test_a_blocked_private_chat_falls_back_to_the_group(rig: BotRig) -> None:
    fake, tg = rig.fake, rig.tg
    ana, ben = fake.user(1, "Ana"), fake.user(2, "Ben")
    group = fake.group("Friends")
    game_id = await started(rig, group, [ana, ben])
    waiting = next(u for u in (ana, ben) if u != to_move(rig, game_id, [ana, ben]))
    await open_panels(rig, game_id, [waiting])  # they use the private panel
    fake.block_user(waiting.id)

    await discard(rig, game_id, [ana, ben])  # now it's the blocked player's turn: the panel fails

    assert to_move(rig, game_id, [ana, ben]) == waiting
    assert [c.ok for c in fake.calls if c.chat_id == waiting.id][-1:] == [False]  # the panel was refused
    assert not user_row(rig, waiting.id).can_dm
    assert f"tg://user?id={waiting.id}" in (board(rig, game_id).source or "")  # the board mentions them
    start = len(fake.calls)
    rig.clock.advance(timedelta(hours=3))
    await tg.run_job("sweep")
    calls = fake.calls[start:]
    assert not [c for c in calls if c.chat_id == waiting.id]  # no more private attempts
    assert any("it's your turn" in t for t in texts(sends_to(calls, group.id)))


async def test_blocking_and_unblocking_the_bot_in_private_updates_the_dm_flag(rig: BotRig) -> None:
    fake, tg = rig.fake, rig.tg
    ana = fake.user(1, "Ana")
    chat = fake.private(ana)
    await tg.send(chat, ana, "/start")
    assert user_row(rig, ana.id).can_dm
    await tg.process(fake.my_chat_member_update(chat, ana, "kicked", old_status="member"))
    assert not user_row(rig, ana.id).can_dm
    await tg.process(fake.my_chat_member_update(chat, ana, "member", old_status="kicked"))
    assert user_row(rig, ana.id).can_dm


# --- forum topics --------------------------------------------------------------------------------------


async def test_one_game_per_forum_topic_and_every_message_in_its_topic(rig: BotRig) -> None:
    fake, tg = rig.fake, rig.tg
    ana, ben, cid, dan = (fake.user(i, n) for i, n in enumerate(("Ana", "Ben", "Cid", "Dan"), 1))
    forum = fake.forum("Forum", topics={11: "Table one", 12: "Table two"})
    start = len(fake.calls)
    first = await started(rig, forum, [ana, ben], thread=11)
    second = await started(rig, forum, [cid, dan], thread=12)
    assert first != second
    assert (game_row(rig, first).thread_id, game_row(rig, second).thread_id) == (11, 12)
    await discard(rig, first, [ana, ben])
    await discard(rig, second, [cid, dan])
    await discard(rig, first, [ana, ben])
    await tg.send(forum, ben, f"/board{BOT}", thread_id=11)
    rig.clock.advance(timedelta(hours=3))
    await tg.run_job("sweep")
    assert (game_row(rig, first).version, game_row(rig, second).version) == (3, 2)

    sent = [c for c in fake.calls[start:] if c.method == "sendMessage" and c.chat_id == forum.id and c.ok]
    assert len(sent) >= 8
    assert all(c.params.get("message_thread_id") in (11, 12) for c in sent), [c.params for c in sent]
    for game_id, thread in ((first, 11), (second, 12)):
        assert board(rig, game_id).message_thread_id == thread
    # A command in one topic never touches the other topic's game.
    await tg.send(forum, cid, f"/cancel{BOT}", thread_id=12)
    assert game_row(rig, second).status == "cancelled" and game_row(rig, first).status == "playing"


# --- a board deleted by an admin or no longer editable --------------------------------------------------


async def test_a_deleted_board_is_replaced_by_board_command_a_move_and_a_reminder(rig: BotRig) -> None:
    fake, tg = rig.fake, rig.tg
    ana, ben = fake.user(1, "Ana"), fake.user(2, "Ben")
    group = fake.group("Friends")
    game_id = await started(rig, group, [ana, ben])
    await open_panels(rig, game_id, [ana, ben])  # both use their private panels

    # 1. /board
    board(rig, game_id).deleted = True  # an admin deleted it
    await tg.send(group, ana, f"/board{BOT}")
    assert not board(rig, game_id).deleted and board(rig, game_id).buttons

    # 2. a move from the private panel
    gone = board(rig, game_id)
    gone.deleted = True
    mover = to_move(rig, game_id, [ana, ben])
    panel = live_panel(rig, game_id, mover)
    version = game_row(rig, game_id).version
    await discard(rig, game_id, [ana, ben], surface=panel)
    assert game_row(rig, game_id).version == version + 1
    fresh = board(rig, game_id)
    assert not fresh.deleted and fresh.buttons
    # the new board opens with the report, as always (the deleted one only lost its keys)
    reports = [m for m in fake.messages(group.id) if m.content.startswith(f"{mover.first_name} discards")]
    assert reports == [fresh]

    # 3. a sweep reminder in the group, as a reply to the board (the player blocked the bot in
    # private, so the reminder falls back to the group mention): the board is gone
    fresh.deleted = True
    waiting = to_move(rig, game_id, [ana, ben])
    fake.block_user(waiting.id)
    rig.clock.advance(timedelta(hours=3))
    start = len(fake.calls)
    await tg.run_job("sweep")
    replacement = board(rig, game_id)
    assert not replacement.deleted and replacement.buttons and replacement is not fresh
    reminders = [m for m in fake.messages(group.id) if "it's your turn" in m.content]
    # the board is back at the bottom first (it is the game's record), and the reminder answers it
    assert len(reminders) == 1 and reminders[0].reply_to is not None
    assert reminders[0].reply_to.message_id == replacement.message_id
    assert reminders[0] is fake.last_message(group.id)
    assert any(c.method == "sendMessage" and c.chat_id == group.id for c in fake.calls[start:])


async def test_a_reminder_replies_to_the_board_when_it_is_there(rig: BotRig) -> None:
    fake, tg = rig.fake, rig.tg
    ana, ben = fake.user(1, "Ana"), fake.user(2, "Ben")
    group = fake.group("Friends")
    game_id = await started(rig, group, [ana, ben])  # no private chat: reminders are in the group
    old_board = board_id(rig, game_row(rig, game_id))
    rig.clock.advance(timedelta(hours=3))
    calls = await tg.run_job("sweep")
    reminder = [c for c in sends_to(calls, group.id) if c.ok]
    assert len(reminder) == 1 and reminder[0].params["reply_parameters"]["message_id"] == old_board
    assert reminder[0].params.get("disable_notification") in (None, False)  # a reminder notifies
    assert board_id(rig, game_row(rig, game_id)) == old_board


async def test_an_edit_that_fails_on_the_group_board_posts_a_fresh_one(rig: BotRig) -> None:
    """The live board is redrawn in place when the group's language changes; Telegram refuses the
    edit (the message is too old to edit): the board is posted again, its report kept."""
    fake, tg = rig.fake, rig.tg
    ana, ben = fake.user(1, "Ana"), fake.user(2, "Ben")
    group = fake.group("Friends")
    game_id = await started(rig, group, [ana, ben])
    old = board(rig, game_id)
    await tg.send(group, ana, f"/language{BOT}")
    picker = fake.last_message(group.id)
    fake.fail_next("editMessageText", 400, "Bad Request: message can't be edited", times=1)
    answer = await tg.tap(ana, picker, lambda _t, d: d == "lg:es")
    assert answer.answered
    fresh = board(rig, game_id)
    assert fresh.message_id != old.message_id and fresh.buttons
    assert "✅ Cantar" in [t for t, _d in fresh.buttons]  # in the group's new language
    mover = to_move(rig, game_id, [ana, ben])
    await tg.tap(mover, fresh, key_with(f"k:{game_id}:1:h:0"))
    await tg.tap(mover, fresh, key_with(f"k:{game_id}:1:d"))
    assert game_row(rig, game_id).version == 2


# --- long content stays inside Telegram's limits --------------------------------------------------------

LONG_NAMES = [
    "Alexandria <b>&amp;</b> Maximiliana Von Hohenzollern-Sigmaringen the 3rd",
    "Bartholomew Christopherson-Featherstonehaugh of the Northern Isles",
    "Cassiopeia Montgomery-Wolfeschlegelsteinhausenbergerdorff Junior",
    "ダニエル・ヴァン・デル・ヴェストハイゼン・アレクサンドロヴィッチ・ローゼンクランツ・ギルデンスターン",
    "Evangelina Konstantinopoulou-Papadopoulou-Hatzidakis-Antonopoulos",
    "Ferdinand 🃏🃏🃏 Wellington-Smythe of House Lancaster & Sons & Daughters",
]


def key_with(data: str) -> Callable[[str, str | None], bool]:
    return lambda _text, key_data: key_data == data


def assert_within_limits(message: StoredMessage) -> None:
    keys = message.keyboard
    assert sum(len(r) for r in keys) <= 100, message.buttons
    assert all(len(r) <= 8 for r in keys), [len(r) for r in keys]
    assert len(message.content.encode("utf-16-le")) // 2 <= 4096
    for _text, data in message.buttons:
        if data and not data.startswith("https://"):
            assert len(data.encode()) <= 64, data


async def test_six_long_names_a_full_table_and_many_t_cards_fit(rig: BotRig) -> None:
    fake, tg = rig.fake, rig.tg
    users = [fake.user(i + 1, name[:64]) for i, name in enumerate(LONG_NAMES)]
    group = fake.group("G" * 128)
    message, game_id = await lobby(rig, group, users)
    await tg.tap(users[0], message, "⚙️ Settings")
    await tg.tap(users[0], message, "Extended")
    await tg.tap(users[0], message, "↩️ Back")
    await tg.tap(users[0], message, "▶️ Start")
    game = game_row(rig, game_id)
    # The worst table: every number card that is not in a hand lies on it; [T!] cards everywhere.
    big = stored_state(rig, game_id)
    big.table = big.table + big.deck[1:]
    big.deck = big.deck[:1]
    for seat in range(big.players):  # the edition's [T!] cards are conserved: back to the deck first
        big.tdeck.extend(big.holdings[seat])
        big.holdings[seat] = []
    for seat in range(big.players):
        big.holdings[seat] = [big.tdeck.pop() for _ in range(2 if seat != big.current else 6) if big.tdeck]
    assert not check_invariants(big) and len(big.table) >= 30
    set_state(rig, game_id, big)

    await tg.send(group, users[0], f"/board{BOT}")
    surface = board(rig, game_id)
    assert_within_limits(surface)
    # Room for the longest move report above it (render/limits.py), with a margin.
    assert len(surface.content.encode("utf-16-le")) // 2 + REPORT_BUDGET + 500 <= 4096
    table_keys = [d for _t, d in surface.buttons if d and d.startswith(f"k:{game_id}:") and ":t:" in d]
    assert len(table_keys) == len(big.table)
    mover = users[big.current]
    popup = await tg.tap(mover, surface, "👀 My hand")
    assert popup.answered and popup.text and len(popup.text.encode("utf-16-le")) // 2 <= 200
    # Compose a draft with many table cards: the keys and the toast stay within the limits.
    await tg.tap(mover, surface, "🂠1")
    for position in range(0, len(big.table), 2):
        answer = await tg.tap(mover, surface, key_with(f"k:{game_id}:{game.version}:t:{position}"))
        assert answer.answered and answer.text
        assert len(answer.text.encode("utf-16-le")) // 2 <= 200
        assert_within_limits(surface)
    chosen = (len(big.table) + 1) // 2
    # (the group board is not redrawn while the player composes: the draft is in the popup)
    assert not [t for t, _d in surface.buttons if t.startswith("✅") and t != "✅ Claim"]
    # The private panel of the player to move shows the draft, and each [T!] play chosen in turn.
    await tg.send(fake.private(mover), mover, f"/start g{game_id}")
    panel = live_panel(rig, game_id, mover)
    assert_within_limits(panel)
    assert sum(1 for t, _d in panel.buttons if t.startswith("✅") and t != "✅ Claim") == chosen
    for _text, data in [b for b in panel.buttons if (b[1] or "").startswith("t:")]:
        for _ in range(7):  # every choice of that kind, then none
            answer = await tg.tap(mover, panel, key_with(data or ""))
            assert answer.text and len(answer.text.encode("utf-16-le")) // 2 <= 200
            assert_within_limits(panel)
    assert game_row(rig, game_id).version == game.version  # choosing changed nothing


def test_a_long_burst_report_is_cut_into_messages_that_fit_and_loses_no_line() -> None:
    from tgbot.render.limits import chunks as _chunks
    from tgbot.render.limits import visible_length

    lines = [f"🤖 <b>Bot Normal {i}</b>: 🟥1 + 🟧2 + 🟨3 = {i} · <b>TWEAK!</b>" for i in range(300)]
    runs = _chunks(lines)
    assert len(runs) > 1 and [line for run in runs for line in run] == lines
    assert all(sum(visible_length(line) + 1 for line in run) <= REPORT_BUDGET for run in runs)
    assert _chunks(lines[:3]) == [lines[:3]] and _chunks([]) == [[]]
    assert visible_length("<b>a &amp; b</b>") == 5


# --- bad input: a short answer, no traceback, no state change ------------------------------------------


def snapshot(rig: BotRig, game_id: int) -> tuple[str, int, str | None, list[tuple[int, int | None, bool]]]:
    game = game_row(rig, game_id)
    return (
        game.status,
        game.version,
        game.state,
        [(p.seat, p.user_id, p.left) for p in players_of(rig, game_id)],
    )


async def test_unknown_commands_get_a_short_answer_only_when_addressed_to_the_bot(rig: BotRig) -> None:
    fake, tg = rig.fake, rig.tg
    ana = fake.user(1, "Ana")
    group = fake.group("Friends")
    for text in ("/foo", "/foo@other_bot", "/board@other_bot", "/newgame@other_bot extra"):
        calls = await tg.send(group, ana, text)
        assert not [c for c in calls if c.method == "sendMessage"], text
    calls = await tg.send(group, ana, f"/foo{BOT} bar")
    assert [t for t in texts(calls)] == ["I don't know that command. /help lists what I can do."]
    calls = await tg.send(group, ana, f"/help{BOT}")
    assert len([c for c in calls if c.method == "sendMessage"]) == 1  # only the help, no "unknown"
    private = fake.private(ana)
    calls = await tg.send(private, ana, "/foo")
    assert texts(calls) == ["I don't know that command. /help lists what I can do."]
    calls = await tg.send(private, ana, "hello")
    assert len(texts(calls)) == 1 and "/help" in texts(calls)[0]
    for text in ("5", "twenty"):  # the hint at most once a minute
        rig.clock.advance(timedelta(seconds=20))
        assert not await tg.send(private, ana, text), text
    rig.clock.advance(timedelta(seconds=21))
    calls = await tg.send(private, ana, "again")
    assert len(texts(calls)) == 1 and "/help" in texts(calls)[0]


async def test_commands_with_junk_arguments(rig: BotRig) -> None:
    fake, tg = rig.fake, rig.tg
    ana, ben = fake.user(1, "Ana"), fake.user(2, "Ben")
    group = fake.group("Friends")
    private = fake.private(ana)
    for payload in ("junkpayload", "g", "g99999999999999999999999999", "g²", "g-1", "🃏"):
        calls = await tg.send(private, ana, f"/start {payload}")
        assert len(texts(calls)) == 1, payload
    calls = await tg.send(group, ana, f"/quiet{BOT} blah")
    assert texts(calls) == ["I could not read that. Example: /quiet 23-08 +7"]
    rig.clock.advance(timedelta(seconds=61))  # (the same refusal within a minute stands in the one above)
    calls = await tg.send(group, ana, f"/quiet{BOT} 99-99 +99")
    assert texts(calls) == ["I could not read that. Example: /quiet 23-08 +7"]
    calls = await tg.send(group, ana, f"/board{BOT} now please")
    assert texts(calls) == ["There is no game here. Start one with /newgame."]
    game_id = await started(rig, group, [ana, ben])
    before = snapshot(rig, game_id)
    for text in (
        f"/newgame{BOT} extra words",
        f"/pause{BOT} forever and ever",
        f"/resume{BOT} 12",
        f"/back{BOT} x",
        f"/settings{BOT} y",
        f"/language{BOT} klingon",
        f"/rules{BOT} 99",
        f"/help{BOT} me",
    ):
        calls = await tg.send(group, ben, text)
        assert texts(calls), text
    assert snapshot(rig, game_id) == before


async def test_callbacks_from_old_versions_and_forged_ones(rig: BotRig) -> None:
    fake, tg = rig.fake, rig.tg
    ana, ben, eve = fake.user(1, "Ana"), fake.user(2, "Ben"), fake.user(3, "Eve")
    group, other = fake.group("Friends"), fake.group("Elsewhere")
    game_id = await started(rig, group, [ana, ben])
    _message, other_lobby = await lobby(rig, other, [eve])
    surface = board(rig, game_id)
    before, other_before = snapshot(rig, game_id), snapshot(rig, other_lobby)
    seen = (surface.content, surface.buttons)
    invalid = "That key is not valid any more."
    for data in (
        "",
        "x",
        "join",
        "m:1",
        "lj:abc",
        "play:1:2:S0.1",
        "c:1:1:9:fffffffffffffffff",
        "m:99999999999999:1:D0",
        "r:-1",
        "lg:EN",
        "é:1",
        "A" * 64,
    ):
        answer = await tg.tap_data(ana, surface, data)
        assert answer.text == invalid, (data, answer.text)
    for data in (
        f"m:{game_id}:1:ZZZZ",
        f"m:{game_id}:1:S9.1",
        f"m:{game_id}:7:D0",
        f"c:{game_id}:1:7:0",
        f"c:{game_id}:1:0:ffffff",
        f"k:{game_id}:1:h:7",
        f"k:{game_id}:1:t:63",
        f"k:{game_id}:7:d",
        f"k:{game_id}:1:c",
        f"p:{game_id}:1:T9",
        f"p:{game_id}:0:B",
        f"t:{game_id}:1:bomb",
        f"h:{game_id + 100}",
        f"ln:{game_id}:zz:1",
        f"la:{game_id}:easy",
        f"lj:{game_id}",
        f"lj:{other_lobby}",  # a lobby key of another group, tapped here
        "r:99",
        "lg:xx",
    ):
        for user in (ana, ben, eve):
            answer = await tg.tap_data(user, surface, data)
            assert answer.answered and answer.text, (data, user.first_name)
    assert snapshot(rig, game_id) == before
    assert snapshot(rig, other_lobby) == other_before  # the forged join from another chat did nothing
    assert (surface.content, surface.buttons) == seen  # a forged rules/language key did not overwrite it
    # The real rules and language keys still work on their own messages.
    await tg.send(group, eve, f"/rules{BOT}")
    rules = fake.last_message(group.id)
    first_page = rules.content
    await tg.tap(eve, rules, "Next ➡️")
    assert rules.content != first_page
    await tg.send(group, eve, f"/language{BOT}")
    await tg.tap(eve, fake.last_message(group.id), "Español")
    assert game_row(rig, game_id).language == "es"


async def test_migration_carries_per_chat_rows_such_as_stats(rig: BotRig) -> None:
    from tgbot.store import models

    stats_model = getattr(models, "PlayerStats", None)
    if stats_model is None:  # pragma: no cover - the stats table is not there yet
        return
    fake, tg = rig.fake, rig.tg
    ana = fake.user(1, "Ana")
    old = fake.group("Old friends", kind="group")
    new_id = -1_009_999_000_009
    now = rig.clock.now()
    with Session(rig.deps.db.engine) as session:
        session.add(stats_model(chat_id=old.id, user_id=ana.id, games=3, wins=2, updated_at=now))
        session.add(stats_model(chat_id=old.id, user_id=2, games=1, wins=0, updated_at=now))
        session.add(stats_model(chat_id=new_id, user_id=ana.id, games=1, wins=1, updated_at=now))
        session.commit()
    await tg.process(fake.migrate_update(old.id, new_id, by=ana))
    with Session(rig.deps.db.engine) as session:
        rows = session.exec(select(stats_model).order_by(col(stats_model.user_id))).all()
        assert [(r.chat_id, r.user_id, r.games, r.wins) for r in rows] == [
            (new_id, ana.id, 4, 3),
            (new_id, 2, 1, 0),
        ]


async def test_a_reminder_that_finds_the_group_migrated_brings_the_board_along(rig: BotRig) -> None:
    fake, tg = rig.fake, rig.tg
    ana, ben, cid = fake.user(1, "Ana"), fake.user(2, "Ben"), fake.user(3, "Cid")
    old, other = fake.group("Old", kind="group"), fake.group("Other", kind="group")
    game_id = await started(rig, old, [ana, ben])
    lobby_message, other_game = await lobby(rig, other, [cid])
    new_id, other_new = -1_009_999_000_011, -1_009_999_000_012
    fake.migrate_update(old.id, new_id)
    rig.clock.advance(timedelta(hours=3))
    await tg.run_job("sweep")  # the reminder goes to the old id: moved, sent again, board re-posted
    game = game_row(rig, game_id)
    assert game.chat_id == new_id
    reposted = board_of(rig, game)
    assert reposted.chat_id == new_id and reposted.buttons
    assert any("it's your turn" in m.content for m in fake.messages(new_id))
    # A lobby moves too, and is posted again in the new chat.
    await tg.process(fake.migrate_update(other.id, other_new, by=cid))
    moved = game_row(rig, other_game)
    shown = lobby_id(rig, moved)
    assert moved.chat_id == other_new and shown is not None
    assert "✋ Join" in [t for t, _d in fake.message(other_new, shown).buttons]
    assert lobby_message.chat_id == other.id
