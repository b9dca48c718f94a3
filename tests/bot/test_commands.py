"""Every command of the bot, in a group and in private, through the real Application."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from sqlmodel import Session

from tests.bot.conftest import BotRig
from tests.bot.helpers import (
    BOT,
    current_game,
    group_writes,
    live_panel,
    lobby_id,
    moves_of,
    new_lobby,
    panel_id,
    start_game,
    state_of,
)
from tests.bot.helpers import board_of as live_board
from tests.fakes.telegram import MESSAGE_METHODS, FakeChat, FakeUser, StoredMessage
from tgbot.render.cards import card, cards
from tgbot.store.models import Chat

CREATOR_ONLY = "Only the creator or a group admin can do that."
#: Past the minute in which a group gets one answer of a kind (`output.say_capped`).
REPEAT = timedelta(seconds=61)
NO_GAME = "There is no game here. Start one with /newgame."
POINTER = "A game is already running here. Scroll up to its board, or send /board."


def last_text(rig: BotRig, chat: FakeChat) -> str:
    return rig.fake.last_message(chat.id).text or ""


def mover_of(rig: BotRig, users: dict[int, FakeUser]) -> FakeUser:
    return users[state_of(current_game(rig)).current]


def board_of(rig: BotRig, chat: FakeChat) -> StoredMessage:
    return live_board(rig, current_game(rig, chat.id))


# --- /newgame ---------------------------------------------------------------------------------------


async def test_newgame_twice_points_at_the_running_lobby_and_then_the_board(rig: BotRig) -> None:
    fake, tg = rig.fake, rig.tg
    ana, ben = fake.user(1, "Ana"), fake.user(2, "Ben")
    group = fake.group("Friends")
    lobby = await new_lobby(rig, group, ana, [ben])
    assert "New game of TWEAK!" in lobby.text and "• Ana" in lobby.text and "• Ben" in lobby.text
    calls = await tg.send(group, ben, f"/newgame{BOT}")
    assert [c.method for c in calls] == ["sendMessage"]
    pointer = fake.last_message(group.id)
    assert pointer.text == POINTER
    assert pointer.reply_to is lobby
    assert len([m for m in fake.messages(group.id) if "New game of TWEAK!" in m.text]) == 1

    await tg.tap(ana, lobby, "▶️ Start")
    board = board_of(rig, group)
    rig.clock.advance(timedelta(minutes=1))  # one pointer a minute per game (see below)
    await tg.send(group, ana, "/newgame")  # without the @suffix it works as well
    assert fake.last_message(group.id).text == POINTER
    assert fake.last_message(group.id).reply_to is board
    assert current_game(rig).status == "playing"  # and nothing else changed
    assert not tg.errors


async def test_repeated_newgame_gets_one_pointer_a_minute(rig: BotRig) -> None:
    fake, tg = rig.fake, rig.tg
    ana, ben = fake.user(1, "Ana"), fake.user(2, "Ben")
    group = fake.group("Friends")
    game, board = await start_game(rig, group, ana, [ben])
    calls = await tg.send(group, ben, f"/newgame{BOT}")
    assert [c.method for c in calls] == ["sendMessage"]
    assert fake.last_message(group.id).reply_to is board
    # Sixty more in the same minute, by anyone: not one more message, and the game is untouched.
    for n in range(60):
        rig.clock.advance(timedelta(milliseconds=900))
        calls = await tg.send(group, (ana, ben)[n % 2], f"/newgame{BOT}" if n % 3 else "/newgame")
        assert calls == [], n
    assert [m.text for m in fake.messages(group.id)].count(POINTER) == 1
    assert current_game(rig).id == game.id and current_game(rig).version == game.version
    # A minute after the pointer, it is answered again, under the board.
    rig.clock.advance(timedelta(seconds=7))
    await tg.send(group, ana, f"/newgame{BOT}")
    assert [m.text for m in fake.messages(group.id)].count(POINTER) == 2
    assert fake.last_message(group.id).reply_to is board
    # The window is per game: a game in another group gets its own pointer at once.
    other = fake.group("Others")
    await start_game(rig, other, ben, [ana])
    await tg.send(other, ana, f"/newgame{BOT}")
    assert fake.last_message(other.id).text == POINTER
    assert not tg.errors


async def test_commands_for_another_bot_are_ignored(rig: BotRig) -> None:
    fake = rig.fake
    ana = fake.user(1, "Ana")
    group = fake.group("Friends")
    for command in ("/newgame@other_bot", "/help@other_bot", "/board@other_bot", "/rules@OtherBot"):
        calls = await rig.tg.send(group, ana, command)
        assert calls == [], command
    assert fake.messages(group.id) == []
    # the suffix is matched without regard to case, like Telegram does
    await rig.tg.send(group, ana, "/newgame@Tweak_Test_Bot")
    assert "New game of TWEAK!" in last_text(rig, group)


# --- /board -----------------------------------------------------------------------------------------


async def test_board_reposts_the_board_and_the_old_one_loses_its_keys(rig: BotRig) -> None:
    fake, tg = rig.fake, rig.tg
    ana, ben = fake.user(1, "Ana"), fake.user(2, "Ben")
    group = fake.group("Friends")
    game, old = await start_game(rig, group, ana, [ben])
    before = state_of(game)
    await tg.tap(mover_of(rig, {0: ana, 1: ben}), old, "🂠1")  # a draft on the old board
    calls = await tg.send(group, ben, f"/board{BOT}")
    assert sorted(c.method for c in calls if c.method in MESSAGE_METHODS) == [
        "editMessageReplyMarkup",
        "sendMessage",
    ]
    assert old.buttons == []
    new = board_of(rig, group)
    assert new.message_id != old.message_id and new is fake.last_message(group.id)
    assert "✏️" not in new.text and not any("👉" in t for t, _d in new.buttons)  # a draft is private
    assert any(t == "👀 My hand" for t, _d in new.buttons)
    after = current_game(rig)
    assert after.version == game.version and state_of(after) == before
    # the new board is the one that plays, with the card chosen before the /board
    mover = mover_of(rig, {0: ana, 1: ben})
    answer = await tg.tap(mover, new, "🗑 Discard")
    assert answer.text == "Done!" and current_game(rig).version == game.version + 1


async def test_board_in_the_lobby_reposts_the_lobby(rig: BotRig) -> None:
    fake = rig.fake
    ana = fake.user(1, "Ana")
    group = fake.group("Friends")
    lobby = await new_lobby(rig, group, ana, [])
    await rig.tg.send(group, ana, "/board")
    assert lobby.buttons == []
    fresh = fake.last_message(group.id)
    assert fresh is not lobby and "New game of TWEAK!" in fresh.text
    assert lobby_id(rig, current_game(rig)) == fresh.message_id
    answer = await rig.tg.tap(fake.user(2, "Ben"), fresh, "✋ Join")
    assert answer.text.startswith("You're in!") and "• Ben" in fresh.text


async def test_board_without_a_game(rig: BotRig) -> None:
    ana = rig.fake.user(1, "Ana")
    group = rig.fake.group("Friends")
    await rig.tg.send(group, ana, "/board")
    assert last_text(rig, group) == NO_GAME


# --- /leave -----------------------------------------------------------------------------------------


async def test_leave_in_the_lobby(rig: BotRig) -> None:
    fake = rig.fake
    ana, ben, cai = fake.user(1, "Ana"), fake.user(2, "Ben"), fake.user(3, "Cai")
    group = fake.group("Friends")
    lobby = await new_lobby(rig, group, ana, [ben, cai])
    await rig.tg.send(group, ben, f"/leave{BOT}")
    assert "• Ben" not in lobby.text and "• Ana" in lobby.text and "• Cai" in lobby.text
    assert "Players (2/6)" in lobby.text
    await rig.tg.send(group, ben, "/leave")
    assert last_text(rig, group) == "You're not in this game. Start your own with /newgame!"
    # the Leave key does the same
    answer = await rig.tg.tap(cai, lobby, "🚪 Leave")
    assert answer.text == "You left the lobby." and "• Cai" not in lobby.text


async def test_leave_in_a_game_autoplays_the_seat_and_the_last_human_ends_it(rig: BotRig) -> None:
    fake, tg = rig.fake, rig.tg
    ana, ben, cai = fake.user(1, "Ana"), fake.user(2, "Ben"), fake.user(3, "Cai")
    users = {0: ana, 1: ben, 2: cai}
    group = fake.group("Friends")
    game, _board = await start_game(rig, group, ana, [ben, cai])
    assert game.id is not None
    # someone who is not to move leaves: nothing is played yet
    state = state_of(game)
    leaver = users[(state.current + 1) % 3]
    await tg.send(group, leaver, f"/leave{BOT}")
    assert last_text(rig, group) == (
        f"🚪 {leaver.first_name} left the game: the bot plays their seat from now on (points kept)."
    )
    assert current_game(rig).version == game.version
    await tg.send(group, leaver, "/leave")
    assert last_text(rig, group) == "You already left this game."
    # the player to move discards: the leaver's turn is played by the bot at once
    mover = users[state.current]
    board = board_of(rig, group)
    await tg.tap(mover, board, "🂠1")
    await tg.tap(mover, board, "🗑 Discard")
    moves = moves_of(rig, game.id)
    assert [m.source for m in moves[1:]] == ["player", "left"]
    assert moves[-1].seat == list(users.values()).index(leaver)
    report = board_of(rig, group).text  # the next board opens with the report of both moves
    assert f"🚪 {leaver.first_name}" in report  # the auto-played move is tagged in the report
    assert board.buttons == [] and "🚪" not in board.text  # the old board lost its keys, not its text
    after = state_of(current_game(rig))
    assert users[after.current] not in (leaver, mover)
    assert f"{leaver.first_name} 🚪" in board_of(rig, group).text  # marked on the board
    # the other two leave: the last one ends the game, points kept
    remaining = [u for u in (ana, ben, cai) if u is not leaver]
    await tg.send(group, remaining[0], "/leave")
    assert current_game(rig).status == "playing"
    totals = state_of(current_game(rig)).scores_total()
    await tg.send(group, remaining[1], "/leave")
    final = current_game(rig)
    assert final.status == "abandoned"
    assert state_of(final).scores_total() == totals
    texts = [m.text for m in fake.messages(group.id)]
    ended = [t for t in texts if t.startswith("🛑 Every player has left or is away: the game is over")]
    assert len(ended) == 1
    for seat, user in users.items():
        assert f"{user.first_name} — {totals[seat]}" in ended[0]
    assert "…" not in texts  # the last board keeps its text and only loses its keys
    assert all(m.buttons == [] for m in fake.messages(group.id))
    assert not tg.errors


async def test_leave_by_the_player_to_move_plays_their_turn(rig: BotRig) -> None:
    fake, tg = rig.fake, rig.tg
    ana, ben = fake.user(1, "Ana"), fake.user(2, "Ben")
    users = {0: ana, 1: ben}
    group = fake.group("Friends")
    game, board = await start_game(rig, group, ana, [ben])
    assert game.id is not None
    mover = mover_of(rig, users)
    calls = await tg.send(group, mover, "/leave")
    moves = moves_of(rig, game.id)
    assert len(moves) == 2 and moves[-1].source == "left"
    assert board.buttons == []  # the board became the move report
    fresh = board_of(rig, group)
    other = ben if mover is ana else ana
    assert f"{other.first_name}, your move!" in fresh.text
    assert current_game(rig).status == "playing"
    # The notice is silent; the new board, which mentions the player to move, notifies.
    sent = {c.response["result"]["message_id"]: c for c in calls if c.method == "sendMessage" and c.ok}
    notice = f"🚪 {mover.first_name} left the game: the bot plays their seat from now on (points kept)."
    notices = [m for m in fake.messages(group.id) if m.text == notice]
    assert len(notices) == 1 and set(sent) == {notices[0].message_id, fresh.message_id}
    assert sent[notices[0].message_id].params.get("disable_notification") is True
    assert not sent[fresh.message_id].params.get("disable_notification")


# --- /cancel ----------------------------------------------------------------------------------------


async def test_cancel_needs_the_creator_or_an_admin(rig: BotRig) -> None:
    fake, tg = rig.fake, rig.tg
    ana, ben, cai = fake.user(1, "Ana"), fake.user(2, "Ben"), fake.user(3, "Cai")
    group = fake.group("Friends")
    _game, board = await start_game(rig, group, ana, [ben])
    await tg.send(group, ben, f"/cancel{BOT}")
    assert last_text(rig, group) == CREATOR_ONLY
    await tg.send(group, cai, "/cancel")
    assert last_text(rig, group) == CREATOR_ONLY
    assert current_game(rig).status == "playing" and board.buttons != []
    fake.mark_admin(group.id, cai.id)
    await tg.send(group, cai, "/cancel")
    assert last_text(rig, group) == "✖️ The game was cancelled."
    assert current_game(rig).status == "cancelled"
    assert board.buttons == []
    await tg.send(group, ana, "/cancel")
    assert last_text(rig, group) == NO_GAME
    # a new game can start now
    await tg.send(group, ben, "/newgame")
    assert "New game of TWEAK!" in last_text(rig, group)


async def test_cancel_in_the_lobby_by_the_creator_and_by_the_cancel_key(rig: BotRig) -> None:
    fake = rig.fake
    ana, ben = fake.user(1, "Ana"), fake.user(2, "Ben")
    group = fake.group("Friends")
    lobby = await new_lobby(rig, group, ana, [ben])
    answer = await rig.tg.tap(ben, lobby, "✖️ Cancel")
    assert answer.text == CREATOR_ONLY and current_game(rig).status == "lobby"
    await rig.tg.tap(ana, lobby, "✖️ Cancel")
    assert current_game(rig).status == "cancelled"
    assert lobby.buttons == [] and "cancelled" in lobby.text


# --- /quiet ----------------------------------------------------------------------------------------


def quiet_hours_of(rig: BotRig, chat: FakeChat) -> tuple[int | None, int | None]:
    with Session(rig.deps.db.engine) as session:
        row = session.get(Chat, chat.id)
        return (row.quiet_start, row.quiet_end) if row is not None else (None, None)


async def test_quiet_needs_the_creator_of_a_running_game_or_an_admin(rig: BotRig) -> None:
    fake, tg = rig.fake, rig.tg
    ana, ben, cai = fake.user(1, "Ana"), fake.user(2, "Ben"), fake.user(3, "Cai")
    group = fake.group("Friends")
    # No game in the group: only an admin may set them.
    await tg.send(group, ben, f"/quiet{BOT} 23-08 +2")
    assert last_text(rig, group) == CREATOR_ONLY and quiet_hours_of(rig, group) == (None, None)
    await start_game(rig, group, ana, [ben])
    # A player who did not create the game, and someone outside it: refused, nothing changes.
    for user in (ben, cai):
        rig.clock.advance(REPEAT)  # (the same refusal within a minute stands in the one above)
        await tg.send(group, user, f"/quiet{BOT} 23-08 +2")
        assert last_text(rig, group) == CREATOR_ONLY
        assert quiet_hours_of(rig, group) == (None, None)
    # The creator may.
    await tg.send(group, ana, f"/quiet{BOT} 23-08 +2")
    assert last_text(rig, group).startswith("🌙 Quiet hours: 23:00–08:00 (UTC+2).")
    assert quiet_hours_of(rig, group) == (23, 8)
    # So may a group admin.
    fake.mark_admin(group.id, cai.id)
    rig.clock.advance(REPEAT)
    await tg.send(group, cai, f"/quiet{BOT} off")
    assert last_text(rig, group) == "🔔 Quiet hours are off."
    assert quiet_hours_of(rig, group) == (None, None)
    assert not tg.errors


# --- the lobby --------------------------------------------------------------------------------------


async def test_the_lobby_seats_six_and_refuses_a_seventh(rig: BotRig) -> None:
    fake = rig.fake
    users = [fake.user(i, f"P{i}") for i in range(1, 8)]
    group = fake.group("Friends")
    lobby = await new_lobby(rig, group, users[0], users[1:6])
    assert "Players (6/6)" in lobby.text
    answer = await rig.tg.tap(users[6], lobby, "✋ Join")
    assert answer.text == "The table is full (6 players)."
    assert "P7" not in lobby.text
    answer = await rig.tg.tap(users[0], lobby, "🤖 Add computer")
    assert answer.text == "The table is full (6 players)."
    answer = await rig.tg.tap(users[1], lobby, "✋ Join")
    assert answer.text == "You're already in."
    await rig.tg.tap(users[0], lobby, "▶️ Start")
    game = current_game(rig)
    assert game.status == "playing" and state_of(game).players == 6


async def test_start_with_one_player_is_refused(rig: BotRig) -> None:
    fake = rig.fake
    ana, ben = fake.user(1, "Ana"), fake.user(2, "Ben")
    group = fake.group("Friends")
    lobby = await new_lobby(rig, group, ana, [])
    answer = await rig.tg.tap(ana, lobby, "▶️ Start")
    assert answer.text == "At least 2 players are needed."
    assert current_game(rig).status == "lobby"
    await rig.tg.tap(ben, lobby, "✋ Join")
    answer = await rig.tg.tap(ben, lobby, "▶️ Start")
    assert answer.text == CREATOR_ONLY
    await rig.tg.tap(ana, lobby, "▶️ Start")
    assert current_game(rig).status == "playing"


async def test_an_admin_may_start_the_lobby(rig: BotRig) -> None:
    fake = rig.fake
    ana, ben = fake.user(1, "Ana"), fake.user(2, "Ben")
    group = fake.group("Friends")
    lobby = await new_lobby(rig, group, ana, [ben])
    fake.mark_admin(group.id, ben.id)
    await rig.tg.tap(ben, lobby, "▶️ Start")
    assert current_game(rig).status == "playing"


# --- /help, /rules, /start --------------------------------------------------------------------------


async def test_help_answers_in_groups_and_in_private(rig: BotRig) -> None:
    fake = rig.fake
    ana = fake.user(1, "Ana")
    group = fake.group("Friends")
    for chat, command in ((group, f"/help{BOT}"), (fake.private(ana), "/help")):
        calls = await rig.tg.send(chat, ana, command)
        assert [c.method for c in calls] == ["sendMessage"]
        text = last_text(rig, chat)
        assert text.startswith("❓ Playing TWEAK! with the bot")
        for command_name in ("/board", "/leave", "/rules", "/language", "/help"):
            assert command_name in text
    # /start in a group answers with the help too
    await rig.tg.send(group, ana, f"/start{BOT}")
    assert last_text(rig, group).startswith("❓ Playing TWEAK! with the bot")


async def test_rules_pages_with_next_and_back(rig: BotRig) -> None:
    fake = rig.fake
    ana = fake.user(1, "Ana")
    group = fake.group("Friends")
    await rig.tg.send(group, ana, f"/rules{BOT}")
    page = fake.last_message(group.id)
    assert "TWEAK! – the goal and the cards" in page.text and page.text.endswith("1/7")
    assert [t for t, _d in page.buttons] == ["Next ➡️"]
    seen = [page.text]
    for n in range(2, 8):
        answer = await rig.tg.tap(ana, page, "Next ➡️")
        assert answer.answered
        assert page.text.endswith(f"{n}/7")
        seen.append(page.text)
    assert [t for t, _d in page.buttons] == ["⬅️ Back"]
    assert "Scoring and winning" in page.text
    await rig.tg.tap(ana, page, "⬅️ Back")
    assert page.text == seen[5]
    assert [t for t, _d in page.buttons] == ["⬅️ Back", "Next ➡️"]
    assert len(set(seen)) == 7
    assert len(fake.messages(group.id)) == 1  # paging edits the one message


async def test_start_in_private_offers_the_add_to_group_key(rig: BotRig) -> None:
    fake = rig.fake
    ana = fake.user(1, "Ana")
    chat = fake.private(ana)
    await rig.tg.send(chat, ana, "/start")
    welcome = fake.last_message(chat.id)
    assert welcome.text.startswith("👋 Hi, I'm tweak_test_bot!")
    keys = welcome.keyboard
    assert len(keys) == 1 and len(keys[0]) == 1
    assert keys[0][0]["url"] == "https://t.me/tweak_test_bot?startgroup=tweak"
    assert "group" in keys[0][0]["text"]


async def test_start_alone_sends_no_panels(rig: BotRig) -> None:
    """/start opens the private chat, but panels go only to players who use them: the others get
    a short note when their turn starts (their one notification of it)."""
    fake, tg = rig.fake, rig.tg
    ana, ben = fake.user(1, "Ana"), fake.user(2, "Ben")
    users = {0: ana, 1: ben}
    for user in (ana, ben):
        await tg.send(fake.private(user), user, "/start")
    group = fake.group("Friends")
    game, board = await start_game(rig, group, ana, [ben])
    assert game.id is not None
    mover = users[state_of(game).current]
    await tg.tap(mover, board, "🂠1")
    await tg.tap(mover, board, "🗑 Discard")
    for seat, user in users.items():
        assert panel_id(rig, game.id, seat, user.id) is None
        private = [m.text for m in fake.messages(user.id)]
        assert private[0].startswith("👋 Hi") and all(t == "🔔 Your move in Friends." for t in private[1:])
    assert not tg.errors


async def test_start_with_a_game_payload_opens_that_games_panel(rig: BotRig) -> None:
    fake, tg = rig.fake, rig.tg
    ana, ben, zoe = fake.user(1, "Ana"), fake.user(2, "Ben"), fake.user(9, "Zoe")
    users = {0: ana, 1: ben}
    group = fake.group("Friends")
    game, board = await start_game(rig, group, ana, [ben])
    gid = game.id
    assert gid is not None
    state = state_of(game)
    # the group board's key deep-links into the private chat with this payload
    links = [d for t, d in board.buttons if t == "📱 Panel"]
    assert links == [f"https://t.me/tweak_test_bot?start=g{gid}"]
    mover, waiting = users[state.current], users[1 - state.current]
    for user in (mover, waiting):
        await tg.send(fake.private(user), user, f"/start g{gid}")
    panel = live_panel(rig, gid, mover)
    assert panel is fake.last_message(mover.id)
    assert panel.text.startswith("🎲 Your game in Friends") and "👉 Your move!" in panel.text
    hand = state.hands[state.current]
    assert f"Your hand: {cards(hand)}" in panel.text
    assert [t for t, _d in panel.buttons[: len(hand)]] == [card(c) for c in hand]
    # the player who waits sees their hand, without keys
    waiting_view = fake.last_message(waiting.id)
    assert waiting_view is live_panel(rig, gid, waiting)
    assert f"Your hand: {cards(state.hands[1 - state.current])}" in waiting_view.text
    assert waiting_view.buttons == []
    # the panel plays: a discard from private costs the group one message, the new board with the
    # report (and, last of all, the old board's keys)
    fake.reset_counts()
    answer = await tg.tap(mover, panel, lambda t, d: d == f"k:{gid}:1:h:0")
    assert answer.text and answer.text.startswith(card(hand[0]))
    assert fake.count_calls(chat_id=group.id, methods=MESSAGE_METHODS) == 0  # composing is private
    old_text = board.text
    first = len(fake.calls)
    await tg.tap(mover, panel, "🗑 Discard")
    assert group_writes(fake, group.id, first) == ["sendMessage", "editMessageReplyMarkup"]
    assert board_of(rig, group).text.startswith(f"{mover.first_name} discards {card(hand[0])}")
    assert board.text == old_text and board.buttons == []
    # the turn is over: the panel says what was played and has no keys
    assert panel.buttons == [] and panel.text.startswith("✔️ Played in Friends:")
    assert f"discards {card(hand[0])}" in panel.text
    # the waiting player, who opened their panel, gets it with keys now that it is their turn
    turn = live_panel(rig, gid, waiting)
    assert "👉 Your move!" in turn.text and any(d and d.startswith(f"k:{gid}:2:h:") for _t, d in turn.buttons)
    # an outsider and an unknown game get a plain answer
    await tg.send(fake.private(zoe), zoe, f"/start g{gid}")
    assert last_text(rig, fake.private(zoe)) == "You're not in this game. Start your own with /newgame!"
    await tg.send(fake.private(zoe), zoe, f"/start g{gid + 99}")
    assert last_text(rig, fake.private(zoe)) == "That game is not running any more."
    assert not tg.errors


@dataclass
class PanelGame:
    """Ana and Ben playing in a group, the player to move with their private panel open."""

    gid: int
    group: FakeChat
    users: dict[int, FakeUser]
    mover: FakeUser
    panel: StoredMessage


async def panel_game(rig: BotRig) -> PanelGame:
    fake = rig.fake
    ana, ben = fake.user(1, "Ana"), fake.user(2, "Ben")
    users = {0: ana, 1: ben}
    group = fake.group("Friends")
    game, _board = await start_game(rig, group, ana, [ben])
    assert game.id is not None
    mover = users[state_of(game).current]
    await rig.tg.send(fake.private(mover), mover, f"/start g{game.id}")
    return PanelGame(game.id, group, users, mover, live_panel(rig, game.id, mover))


async def test_a_panel_is_edited_while_it_is_the_newest_message_else_posted_anew(rig: BotRig) -> None:
    fake, tg = rig.fake, rig.tg
    table = await panel_game(rig)
    gid, mover, panel = table.gid, table.mover, table.panel
    # While it is the newest message of the chat, composing edits it in place.
    await tg.tap(mover, panel, lambda t, d: d == f"k:{gid}:1:h:0")
    assert live_panel(rig, gid, mover) is panel and "✏️" in panel.text
    # Something else is written to that chat (the rules): the next change posts the panel anew
    # at the bottom, and the old one loses its keys.
    await tg.send(fake.private(mover), mover, "/rules")
    assert fake.last_message(mover.id) is not panel
    await tg.tap(mover, panel, lambda t, d: d == f"k:{gid}:1:t:0")
    fresh = live_panel(rig, gid, mover)
    assert fresh is not panel and fresh is fake.last_message(mover.id)
    assert panel.buttons == [] and fresh.buttons and "✏️" in fresh.text
    # The draft went on: the hand card chosen on the old panel is still chosen.
    assert any(t.startswith("👉") for t, _d in fresh.buttons)
    assert not tg.errors


async def test_composing_on_the_group_board_turns_the_panel_off_for_that_game(rig: BotRig) -> None:
    fake, tg = rig.fake, rig.tg
    table = await panel_game(rig)
    gid, group, users, first, panel = table.gid, table.group, table.users, table.mover, table.panel
    second = next(u for u in users.values() if u is not first)
    assert panel.buttons
    # The panel user composes on the group board this time: the panel turns off for this game,
    # and the one on screen loses its keys at once (it no longer follows the move).
    await tg.tap(first, board_of(rig, group), "🂠1")
    assert panel.buttons == [] and live_panel(rig, gid, first) is panel
    await tg.tap(first, board_of(rig, group), "🗑 Discard")
    seen = [(m.message_id, m.text, m.buttons) for m in fake.messages(first.id)]
    await tg.tap(second, board_of(rig, group), "🂠1")
    await tg.tap(second, board_of(rig, group), "🗑 Discard")
    assert state_of(current_game(rig)).current == list(users.values()).index(first)
    # their turn again, but no panel comes: only the turn's note (their one notification)
    now = [(m.message_id, m.text, m.buttons) for m in fake.messages(first.id)]
    assert now[: len(seen)] == seen and [t for _i, t, _b in now[len(seen) :]] == ["🔔 Your move in Friends."]
    assert f"{first.first_name}, your move!" in board_of(rig, group).text
    assert not tg.errors


async def test_a_move_played_from_a_retired_panel_closes_that_panel(rig: BotRig) -> None:
    tg = rig.tg
    table = await panel_game(rig)
    gid, group, users, first, panel = table.gid, table.group, table.users, table.mover, table.panel
    await tg.tap(first, board_of(rig, group), "🂠1")
    assert panel.buttons == [] and "↪️" in panel.text  # composing on the board retired it
    # A Discard from that panel all the same (a key it still showed a moment ago): the move is
    # played in private, so the panel is on again, and closes with what was played.
    answer = await tg.tap_data(first, panel, f"k:{gid}:{current_game(rig).version}:d")
    assert answer.text is not None and users[state_of(current_game(rig)).current] is not first
    assert "↪️" not in panel.text and panel.buttons == []
    assert not tg.errors


async def test_newgame_with_the_lobby_deleted_still_answers_without_a_reply(rig: BotRig) -> None:
    fake, tg = rig.fake, rig.tg
    ana, ben = fake.user(1, "Ana"), fake.user(2, "Ben")
    group = fake.group("Friends")
    lobby = await new_lobby(rig, group, ana, [ben])
    lobby.deleted = True  # an admin deleted it
    await tg.send(group, ben, f"/newgame{BOT}")
    pointers = [m for m in fake.messages(group.id) if m.text == POINTER]
    assert len(pointers) == 1 and pointers[0].reply_to is None
    # The pointer found the lobby gone: the lobby is posted again, under it, and still works.
    fresh = fake.last_message(group.id)
    assert fresh.message_id > pointers[0].message_id and lobby_id(rig, current_game(rig)) == fresh.message_id
    assert "• Ana" in fresh.text and "• Ben" in fresh.text
    answer = await tg.tap(fake.user(3, "Cai"), fresh, "✋ Join")
    assert answer.text.startswith("You're in!") and "• Cai" in fresh.text
    assert not tg.errors


async def test_a_forged_language_key_answers_in_the_tappers_own_language(rig: BotRig) -> None:
    fake, tg = rig.fake, rig.tg
    ana = fake.user(1, "Ana", language_code="en")
    private = fake.private(ana)
    await tg.send(private, ana, "/language")
    await tg.tap(ana, fake.last_message(ana.id), "Español")
    await tg.send(private, ana, "/language")
    picker = fake.last_message(ana.id)
    answer = await tg.tap_data(ana, picker, "lg:xx")
    assert answer.show_alert and answer.text == "Idioma desconocido."
    assert not tg.errors
