"""A game in a chat the bot is not in, through inline mode: a private chat between two friends,
a group without the bot.

There the bot can post nothing: every game message is one a person posted from its inline list
(the lobby, each turn's pick, the board brought back), which the bot then edits. These tests
play through the fake Telegram, which refuses the bot any message into such a chat, answers
taps there without the message (only its inline id and `chat_instance`), and keeps the chat's
transcript as its people read it; they re-add the scores from that transcript alone.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass

import pytest
from sqlmodel import Session, col, select

from engine.actions import decode
from tests.bot.conftest import BotRig, running_bot
from tests.bot.helpers import drain, game_row, inline_fake, open_private_chats, players_of, state_of
from tests.bot.pacing_support import sweep_at
from tests.bot.test_record_readds import Entry, reading
from tests.fakes.flood import FloodLimits
from tests.fakes.telegram import FakeChat, FakeTelegram, FakeUser, StoredMessage
from tests.fakes.timer import VirtualTimer
from tgbot.inline_data import BoardHere, PickedMoves
from tgbot.render.inline_table import DIVIDER
from tgbot.store.models import FINISHED, DeliveryChat, Game
from tgbot.tables import TableKind

PLAY, HAND = "🎯 Play", "👀 My hand"
MAX_TURNS = 300


@pytest.fixture
async def rig(db_url: str, seeds: Callable[[], int]) -> AsyncIterator[BotRig]:
    async with running_bot(db_url, seeds, fake=inline_fake()) as bot:
        yield bot


def games(rig: BotRig) -> list[Game]:
    with Session(rig.deps.db.engine) as session:
        return list(session.exec(select(Game).order_by(col(Game.id))).all())


def via_bot(fake: FakeTelegram, chat: FakeChat) -> list[StoredMessage]:
    return [m for m in fake.transcript(chat) if m.via_bot is not None]


def transcript_entries(fake: FakeTelegram, chat: FakeChat) -> list[Entry]:
    """The chat as its people read it: each game message (a person's post the bot has edited) in
    its parts — what a group would have read as messages of their own (`DIVIDER`)."""
    entries: list[Entry] = []
    for message in fake.transcript(chat):
        if message.via_bot is None:
            entries.append(Entry(message.content, by_bot=False))
            continue
        for part in message.content.split(f"\n{DIVIDER}\n"):
            entries.append(Entry(part))
    return entries


@dataclass
class Table:
    """A table in a chat the bot is not in, driven as its people would."""

    rig: BotRig
    chat: FakeChat
    people: list[FakeUser]

    @property
    def fake(self) -> FakeTelegram:
        return self.rig.fake

    def live(self) -> StoredMessage:
        """The newest game message: the live board."""
        return via_bot(self.fake, self.chat)[-1]

    async def post_lobby(self, creator: FakeUser) -> StoredMessage:
        listed = await self.rig.tg.inline_query(creator, "", chat=self.chat)
        assert listed.titles[0] == "🎴 New game here"
        await self.rig.tg.pick(creator, self.chat, listed, "new")
        await drain(self.rig)
        return self.live()

    async def lobby_to_start(self, creator: FakeUser, goal_down: int = 6, hints: bool = True) -> Game:
        lobby = self.live()
        for person in self.people:
            if person is not creator:
                await self.rig.tg.tap(person, lobby, "✋ Join")
        await self.rig.tg.tap(creator, lobby, "⚙️ Settings")
        await drain(self.rig)
        for _ in range(goal_down):
            await self.rig.tg.tap(creator, lobby, "Goal −20")
        if hints:
            await self.rig.tg.tap(creator, lobby, "💡 Hints on")
        await self.rig.tg.tap(creator, lobby, "↩️ Back")
        await self.rig.tg.tap(creator, lobby, "▶️ Start")
        await drain(self.rig)
        (game,) = [g for g in games(self.rig) if g.status != "cancelled"]
        return game

    async def play_turn(self, game_id: int) -> None:
        """The player to move opens 🎯 Play on the live board and posts the first move listed."""
        game = game_row(self.rig, game_id)
        state = state_of(game)
        mover = next(p for p in self.people if p.id == _user_of(self.rig, game_id, state.current))
        answer = await self.rig.tg.tap_switch_inline(mover, self.live(), PLAY)
        move = next(rid for rid in answer.result_ids if PickedMoves.read(rid) is not None)
        for code in move.split(":", 1)[1].split(" "):
            decode(code)  # a move, as the engine writes it
        await self.rig.tg.pick(mover, self.chat, answer, move)
        await drain(self.rig)


def _user_of(rig: BotRig, game_id: int, seat: int) -> int:
    user_id = players_of(rig, game_id)[seat].user_id
    assert user_id is not None
    return user_id


async def play_out(table: Table, game_id: int) -> int:
    """Turns until the game is over; how many were played."""
    for turn in range(MAX_TURNS):
        if game_row(table.rig, game_id).status == FINISHED:
            return turn
        await table.play_turn(game_id)
    raise AssertionError("the game did not end")


async def test_two_friends_play_a_whole_game_in_their_own_chat(rig: BotRig) -> None:
    fake = rig.fake
    ana, ben = fake.user(1, "Ana"), fake.user(2, "Ben")
    await open_private_chats(rig, [ana])  # Ben never started the bot
    chat = fake.private_between(ana, ben)
    table = Table(rig, chat, [ana, ben])

    await table.post_lobby(ana)
    lobby = table.live()
    assert "Players (1/6)" in lobby.content and "✋ Join" in [t for t, _d in lobby.buttons]
    game = await table.lobby_to_start(ana)
    assert TableKind.of_chat(game.chat_id) is TableKind.INLINE
    assert game.chat_instance == fake.chat_instance(chat.id)
    posts_before = len(via_bot(fake, chat))

    turns = await play_out(table, game.id or 0)

    # The bot never wrote into the chat: every message there is a person's, via the bot.
    assert all(m.via_bot is not None for m in fake.transcript(chat))
    assert not [c for c in fake.calls_to("sendMessage") if c.chat_id == chat.id]
    # One message a turn: the mover's own post, which the bot made the next board.
    assert len(via_bot(fake, chat)) - posts_before == turns
    # The chat alone re-adds to every round summary and the standings.
    record, problems = reading(transcript_entries(fake, chat))
    assert problems == []
    assert record.standings is not None and record.summaries
    # Only the last message keeps keys (the standings' rematch); every older one lost them.
    assert [m.buttons for m in via_bot(fake, chat)[:-1] if m.buttons] == []
    assert [t for t, _d in table.live().buttons] == ["🔁 Rematch"]

    # 🔁 Rematch types its query: the list offers the rematch, posted as a new lobby with the same
    # settings (goal 20), which the other player joins.
    listed = await rig.tg.tap_switch_inline(ben, table.live(), "🔁 Rematch")
    assert listed.titles == ["🔁 Rematch here"]
    await rig.tg.pick(ben, chat, listed, listed.result_ids[0])
    await drain(rig)
    rematch = table.live()
    assert "goal: 20" in rematch.content and "Players (1/6)" in rematch.content
    await rig.tg.tap(ana, rematch, "✋ Join")
    await drain(rig)
    assert "Players (2/6)" in rematch.content
    newest = games(rig)[-1]
    assert newest.creator_id == ben.id and newest.chat_instance == fake.chat_instance(chat.id)


async def test_a_game_keeps_its_id_and_shares_its_chat_s_budget_with_the_rematch(rig: BotRig) -> None:
    """The first tap tells a game the chat its lobby was posted in: the game keeps the id it was
    made with, and what it and the chat's next game (a rematch: a new lobby message) edit there
    is counted on one budget, as Telegram counts edits of inline messages on their chat."""
    fake, tg = rig.fake, rig.tg
    ana, ben = fake.user(1, "Ana"), fake.user(2, "Ben")
    chat = fake.private_between(ana, ben)
    table = Table(rig, chat, [ana, ben])
    await table.post_lobby(ana)
    (made,) = games(rig)
    game = await table.lobby_to_start(ana)
    await play_out(table, game.id or 0)
    listed = await tg.tap_switch_inline(ben, table.live(), "🔁 Rematch")
    await tg.pick(ben, chat, listed, listed.result_ids[0])
    await drain(rig)
    rematch = table.live()
    await tg.tap(ana, rematch, "✋ Join")
    await drain(rig)
    assert "Players (2/6)" in rematch.content  # the rematch's lobby, edited after its first tap

    first, second = games(rig)
    assert first.chat_id == made.chat_id and first.chat_instance == fake.chat_instance(chat.id)
    assert second.chat_id != first.chat_id  # each game is made under its own lobby's id
    with Session(rig.deps.db.engine) as session:
        spent = session.exec(select(DeliveryChat).where(col(DeliveryChat.chat_id) < 0)).all()
    assert len(spent) == 1 and spent[0].recent != "[]"  # one budget for the chat's two games


async def test_a_group_without_the_bot_plays_with_a_computer_and_re_adds(rig: BotRig) -> None:
    fake = rig.fake
    ana, ben, cy = fake.user(1, "Ana"), fake.user(2, "Ben"), fake.user(3, "Cy")
    await open_private_chats(rig, [ben])
    club = fake.group("Club", with_bot=False)
    table = Table(rig, club, [ana, ben, cy])
    await table.post_lobby(ana)
    await rig.tg.tap(ana, table.live(), "🤖 Add computer")
    game = await table.lobby_to_start(ana, goal_down=4)
    assert len(players_of(rig, game.id or 0)) == 4
    posts_before = len(via_bot(fake, club))
    turns = await play_out(table, game.id or 0)

    assert not [c for c in fake.calls_to("sendMessage") if c.chat_id == club.id]
    assert len(via_bot(fake, club)) - posts_before == turns  # a post a turn, the computer's included
    record, problems = reading(transcript_entries(fake, club))
    assert problems == [] and record.standings is not None
    computer = next(p.name for p in players_of(rig, game.id or 0) if p.ai_level)
    assert any(move.who == computer for move in record.moves)  # its moves are in the record too
    # Ben, who started the bot, was told of each of his turns in private; nobody else could be.
    pings = [m for m in fake.messages(ben.id) if "Your move" in m.content]
    assert pings and not fake.messages(cy.id)


async def test_a_move_posted_again_from_its_old_list_says_it_played_nothing(rig: BotRig) -> None:
    """The list a move was picked from can still be open in the person's app: posting that move
    again is a new message of the chat, not the first post arriving twice. It plays nothing and
    says so (the chat would read the move twice, and keep a second message with keys); the first
    post's chosen result delivered again changes nothing."""
    fake, tg = rig.fake, rig.tg
    ana, ben = fake.user(1, "Ana"), fake.user(2, "Ben")
    chat = fake.private_between(ana, ben)
    table = Table(rig, chat, [ana, ben])
    await table.post_lobby(ana)
    gid = (await table.lobby_to_start(ana)).id or 0
    mover = next(p for p in (ana, ben) if p.id == _user_of(rig, gid, state_of(game_row(rig, gid)).current))
    listed = await tg.tap_switch_inline(mover, table.live(), PLAY)
    move = next(rid for rid in listed.result_ids if PickedMoves.read(rid) is not None)
    chosen = fake.pick_inline_result(mover, chat, listed, move)
    await tg.process_many(chosen)
    await drain(rig)
    board, version = table.live(), game_row(rig, gid).version
    shown = board.content
    await tg.process_many(chosen)  # Telegram delivers the post's chosen result again
    await tg.pick(mover, chat, listed, move)  # the same move posted again from the same list
    await drain(rig)
    again = table.live()
    assert again.message_id != board.message_id and game_row(rig, gid).version == version
    assert again.content == (
        f"⚠️ {mover.first_name}, that pick came from an old list: nothing was played. Tap 🎯 Play again."
    )
    assert [m.message_id for m in via_bot(fake, chat) if m.buttons] == [board.message_id]
    assert board.content == shown
    _record, problems = reading(transcript_entries(fake, chat))
    assert problems == []


async def test_a_posted_move_becomes_the_board_before_the_old_board_loses_its_keys(rig: BotRig) -> None:
    """The chat takes about one edit a second: the mover's post is edited into the next board
    first, and the board before it loses its keys after, so nobody waits a second for the old
    board's keys to go."""
    fake = rig.fake
    ana, ben = fake.user(1, "Ana"), fake.user(2, "Ben")
    chat = fake.private_between(ana, ben)
    table = Table(rig, chat, [ana, ben])
    await table.post_lobby(ana)
    gid = (await table.lobby_to_start(ana)).id or 0
    for _turn in range(3):
        old = table.live()
        first_call = len(fake.calls)
        await table.play_turn(gid)
        new = table.live()
        assert new.message_id != old.message_id
        edited = [
            c.params["inline_message_id"]
            for c in fake.calls[first_call:]
            if c.ok and c.method.startswith("editMessage") and "inline_message_id" in c.params
        ]
        assert edited[:2] == [new.inline_message_id, old.inline_message_id]
        assert not old.buttons and [t for t, _d in new.buttons] == [PLAY, HAND]


async def test_a_burst_of_old_picks_never_holds_up_the_next_board(rig: BotRig) -> None:
    """Each pick posted from an old list is edited to say it played nothing, but with the chat's
    spare budget only (a group allows about 20 writes a minute): the next board still goes out
    at once, and every old pick is told in time."""
    fake, tg = rig.fake, rig.tg
    ana, ben, cy = fake.user(1, "Ana"), fake.user(2, "Ben"), fake.user(3, "Cy")
    club = fake.group("Club", with_bot=False)
    table = Table(rig, club, [ana, ben, cy])
    await table.post_lobby(ana)
    gid = (await table.lobby_to_start(ana)).id or 0
    await drain(rig)
    await tg.advance(61.0)  # the lobby's edits leave the budget's window
    first = next(p for p in table.people if p.id == _user_of(rig, gid, state_of(game_row(rig, gid)).current))
    old = await tg.tap_switch_inline(first, table.live(), PLAY)
    picks = [rid for rid in old.result_ids if PickedMoves.read(rid) is not None]
    await table.play_turn(gid)
    board = table.live()
    rig.tg.ignore_tasks = lambda task: task.get_name().startswith("send:")  # taps do not wait for sends
    for _ in range(20):  # the last mover taps through their old list, a pick a second
        await tg.process_many(fake.pick_inline_result(first, club, old, picks[0]))
        await tg.advance(1.1)
    mover = next(p for p in table.people if p.id == _user_of(rig, gid, state_of(game_row(rig, gid)).current))
    listed = await tg.tap_switch_inline(mover, board, PLAY)
    move = next(rid for rid in listed.result_ids if PickedMoves.read(rid) is not None)
    version = game_row(rig, gid).version
    await tg.process_many(fake.pick_inline_result(mover, club, listed, move))
    post = via_bot(fake, club)[-1]
    await tg.advance(3.0)
    assert game_row(rig, gid).version > version
    assert [t for t, _d in post.buttons] == [PLAY, HAND]  # the next board, within seconds
    await drain(rig)
    notes = [m for m in via_bot(fake, club) if "came from an old list" in m.content]
    assert len(notes) == 20 and fake.count_429() == 0


async def test_taps_from_outside_the_game_or_its_chat_change_nothing(rig: BotRig) -> None:
    fake, tg = rig.fake, rig.tg
    ana, ben, eve = fake.user(1, "Ana"), fake.user(2, "Ben"), fake.user(5, "Eve")
    chat = fake.private_between(ana, ben)
    table = Table(rig, chat, [ana, ben])
    lobby = await table.post_lobby(ana)
    # Only its poster starts it: no admin exists in such a chat, and the lobby says so.
    assert "Whoever posted this lobby starts the game." in lobby.content
    assert "group admin" not in lobby.content
    refused = await tg.tap(ben, table.live(), "▶️ Start")
    assert refused.text == "Only whoever posted this lobby can do that."
    assert not [c for c in fake.calls if c.method == "getChatMember"]  # nobody to ask
    game = await table.lobby_to_start(ana)
    board = table.live()
    before = (game_row(rig, game.id or 0).version, board.content)
    # A player of another game taps 👀 My hand on this board: not theirs to see.
    outsider = await tg.tap(eve, board, HAND)
    assert outsider.text.startswith("You're not in this game.") and "/newgame" not in outsider.text
    # The same key from another chat (a copy of the message there): refused, nothing changes.
    elsewhere = fake.private_between(ben, eve)
    update = fake.callback_update(ben, board, f"h:{game.id}")
    update["callback_query"]["chat_instance"] = fake.chat_instance(elsewhere.id)
    await tg.process(update)
    assert fake.answers[update["callback_query"]["id"]].text == "That key is not valid any more."
    # A lobby key forged onto the running game's board: there is no lobby any more.
    forged = await tg.tap_data(ben, board, f"lj:{game.id}")
    assert forged.text == "This lobby is closed."
    await drain(rig)
    assert (game_row(rig, game.id or 0).version, table.live().content) == before


async def test_a_second_lobby_in_a_chat_with_a_game_points_at_the_first(rig: BotRig) -> None:
    fake, tg = rig.fake, rig.tg
    ana, ben = fake.user(1, "Ana"), fake.user(2, "Ben")
    chat = fake.private_between(ana, ben)
    table = Table(rig, chat, [ana, ben])
    first = await table.post_lobby(ana)
    await tg.tap(ben, first, "✋ Join")  # the chat is known from this tap on
    second = await table.post_lobby(ben)
    refused = await tg.tap(ana, second, "✋ Join")
    assert refused.text == "A game is already open in this chat: play that one."
    await drain(rig)
    assert "A game is already open in this chat" in second.content and not second.buttons
    statuses = {g.inline_id: g.status for g in games(rig)}
    assert statuses[first.inline_message_id] == "lobby" and statuses[second.inline_message_id] == "cancelled"
    # The first lobby goes on as before.
    assert "Players (2/6)" in first.content


async def test_without_inline_feedback_the_lobby_says_what_to_turn_on(
    db_url: str, seeds: Callable[[], int]
) -> None:
    async with running_bot(db_url, seeds, fake=inline_fake(feedback=False)) as rig:
        fake, tg = rig.fake, rig.tg
        ana, ben = fake.user(1, "Ana"), fake.user(2, "Ben")
        chat = fake.private_between(ana, ben)
        listed = await tg.inline_query(ana, "", chat=chat)
        await tg.pick(ana, chat, listed, "new")
        posted = via_bot(fake, chat)[-1]
        assert games(rig) == []  # the bot never heard of the post
        first = await tg.tap(ben, posted, "✋ Join")
        assert "inline feedback" in first.text
        await drain(rig)
        assert "/setinlinefeedback" in posted.content and not posted.buttons
        edits = len(posted.history)
        await tg.tap_data(ana, posted, "nl")  # a second tap: the popup again, no second edit
        await drain(rig)
        assert len(posted.history) == edits and games(rig) == []


async def test_a_deleted_board_leaves_the_game_going_and_comes_back_from_the_list(rig: BotRig) -> None:
    """Either friend may delete any message of their chat, the live board too. The game goes on
    without it (the idle default at the deadline is recorded all the same), and the board comes
    back from the inline list with what happened meanwhile."""
    fake, tg = rig.fake, rig.tg
    ana, ben = fake.user(1, "Ana"), fake.user(2, "Ben")
    chat = fake.private_between(ana, ben)
    table = Table(rig, chat, [ana, ben])
    await table.post_lobby(ana)
    game = await table.lobby_to_start(ana)
    gid = game.id or 0
    await table.play_turn(gid)
    await table.play_turn(gid)
    board = table.live()
    idle = game_row(rig, gid)
    fake.delete_by(ana, board)
    assert idle.deadline_at is not None
    await sweep_at(rig, idle.deadline_at)  # nobody moved in time: the bot plays for them
    await drain(rig)
    assert game_row(rig, gid).version == idle.version + 1 and game_row(rig, gid).inline_id is None
    mover = next(p for p in (ana, ben) if p.id == _user_of(rig, gid, state_of(game_row(rig, gid)).current))
    listed = await tg.inline_query(mover, "", chat=chat)
    assert "📋 Board here" in listed.titles
    await tg.pick(mover, chat, listed, BoardHere(gid).data)
    await tg.tap(mover, table.live(), "📋 Show the board")  # (the tap tells the bot the chat)
    await drain(rig)
    back = table.live()
    assert back.message_id != board.message_id and PLAY in [t for t, _d in back.buttons]
    assert game_row(rig, gid).inline_id == back.inline_message_id
    # It opens with all the deleted message held (the last move) and the idle default since.
    lines = back.content.split("\n")
    assert lines[0] in board.content.split("\n") and lines[1].startswith("⏰ ") and " was idle: " in lines[1]
    await play_out(table, gid)  # and the game goes on to its end


async def test_the_game_goes_on_after_a_restart(db_url: str, seeds: Callable[[], int]) -> None:
    fake = inline_fake()
    ana, ben = fake.user(1, "Ana"), fake.user(2, "Ben")
    chat = fake.private_between(ana, ben)
    async with running_bot(db_url, seeds, fake=fake) as rig:
        table = Table(rig, chat, [ana, ben])
        await table.post_lobby(ana)
        gid = (await table.lobby_to_start(ana)).id or 0
        for _ in range(3):
            await table.play_turn(gid)
    async with running_bot(db_url, seeds, fake=fake) as rig:
        table = Table(rig, chat, [ana, ben])
        await play_out(table, gid)
        _record, problems = reading(transcript_entries(fake, chat))
        assert problems == []


async def test_fast_taps_on_an_inline_lobby_are_paced_not_stormed(rig: BotRig) -> None:
    """Thirty setting taps in a private chat between two: Telegram allows that chat about one
    edit a second; the lobby's edits coalesce and keep to it (the rig fails on any 429)."""
    fake, tg = rig.fake, rig.tg
    ana, ben = fake.user(1, "Ana"), fake.user(2, "Ben")
    chat = fake.private_between(ana, ben)
    table = Table(rig, chat, [ana, ben])
    lobby = await table.post_lobby(ana)
    await tg.tap(ana, lobby, "⚙️ Settings")
    await drain(rig)
    rig.tg.ignore_tasks = lambda task: task.get_name().startswith("send:")  # taps do not wait for sends
    for i in range(30):
        await tg.tap(ana, lobby, "Goal +20" if i % 2 else "Goal −20")
    await drain(rig)
    assert fake.count_429() == 0
    assert fake.max_writes_in_window(chat.id, 1.0) <= 1
    assert fake.count_calls(chat.id, {"editMessageText"}, only_ok=True) <= 3  # the edits coalesced


async def test_the_help_tells_how_to_play_in_any_chat_only_with_inline_mode(
    db_url: str, seeds: Callable[[], int]
) -> None:
    for inline, said in ((True, True), (False, False)):
        fake = inline_fake() if inline else FakeTelegram(timer=VirtualTimer(), flood=FloodLimits())
        async with running_bot(db_url, seeds, fake=fake) as rig:
            ana = rig.fake.user(1, "Ana")
            await rig.tg.send(rig.fake.private(ana), ana, "/help")
            text = rig.fake.last_message(ana.id).content
            assert ("🎴 New game here" in text and "@tweak_test_bot" in text) is said, text[-200:]


async def test_the_private_turns_link_names_a_chat_the_bot_is_not_in_as_its_table(rig: BotRig) -> None:
    """A chat the bot is not in has no title the bot may know: the lobby's 🔔 link answers with
    the name the inline list gives its table, its players, in the reader's language (and so do
    the turn notices)."""
    fake, tg = rig.fake, rig.tg
    ana, ben = fake.user(1, "Ana"), fake.user(2, "Ben", language_code="es")
    await open_private_chats(rig, [ana])  # Ben never started the bot
    chat = fake.private_between(ana, ben)
    table = Table(rig, chat, [ana, ben])
    await table.post_lobby(ana)
    await tg.tap(ben, table.live(), "✋ Join")
    await drain(rig)
    (game,) = games(rig)

    calls = await tg.tap_url(ben, table.live(), "🔔 Get my turns in private")

    assert [c.params.get("text") for c in calls if c.method == "sendMessage" and c.chat_id == ben.id] == [
        f"🔔 ¡Hecho! Tus turnos del juego #{game.id} en <b>TWEAK! con Ana, Ben</b> te llegarán aquí, "
        "en privado, y el chat no sonará por ellos."
    ]
    # His turns are told so too, in his language though the table speaks English.
    game = await table.lobby_to_start(ana)
    while not fake.messages(ben.id)[-1].content.startswith("🔔 Te toca"):
        await table.play_turn(game.id or 0)
    assert fake.messages(ben.id)[-1].content == "🔔 Te toca en TWEAK! con Ana, Ben."
    assert not tg.errors
