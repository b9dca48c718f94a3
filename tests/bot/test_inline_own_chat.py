"""A game in a chat the bot is not in keeps its record whole and stays in its own chat.

* A person may delete the live board, and the bot is not told: the board brought back (📋 Board
  here) must still hold every line the deleted one held, or the chat no longer re-adds.
* Only the game's own chat plays it: a board brought into another chat, or a move listed there,
  would split the record between two chats.
* What the bot advises in such a chat must work there (no command the bot cannot read), and it
  never posts advice in a person's name.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime

import pytest

from tests.bot.conftest import BotRig, running_bot
from tests.bot.helpers import drain, game_row, inline_fake, players_of, state_of
from tests.bot.pacing_support import sweep_at
from tests.bot.test_inline_table import HAND, PLAY, Table, transcript_entries, via_bot
from tests.bot.test_record_readds import BOARD_TITLE, reading
from tests.fakes.telegram import FakeChat, FakeUser, StoredMessage
from tgbot.callbacks import ShowBoard
from tgbot.inline_data import BoardHere, PickedMoves
from tgbot.store.models import FINISHED

SHOW = "📋 Show the board"


@pytest.fixture
async def rig(db_url: str, seeds: Callable[[], int]) -> AsyncIterator[BotRig]:
    async with running_bot(db_url, seeds, fake=inline_fake()) as bot:
        yield bot


def report_of(message: StoredMessage) -> list[str]:
    """The move lines a board opens with (what is above its title)."""
    lines = message.content.split("\n")
    title = next(i for i, line in enumerate(lines) if BOARD_TITLE.match(line))
    return [line for line in lines[:title] if line]


async def board_here(rig: BotRig, person: FakeUser, chat: FakeChat, game_id: int) -> StoredMessage:
    """`person` types @bot in `chat`, posts 📋 Board here of the game and taps its key."""
    listed = await rig.tg.inline_query(person, "", chat=chat)
    await rig.tg.pick(person, chat, listed, BoardHere(game_id).data)
    posted = via_bot(rig.fake, chat)[-1]
    await rig.tg.tap(person, posted, SHOW)
    await drain(rig)
    return posted


async def test_a_board_deleted_unbeknown_to_the_bot_hands_its_lines_to_the_next(rig: BotRig) -> None:
    """Ben deletes the live board, which holds Ana's move; nothing is edited before Ana brings
    the board back. The new board opens with that move, and the chat re-adds to the round's
    summary."""
    fake = rig.fake
    ana, ben = fake.user(1, "Ana"), fake.user(2, "Ben")
    chat = fake.private_between(ana, ben)
    table = Table(rig, chat, [ana, ben])
    await table.post_lobby(ana)
    gid = (await table.lobby_to_start(ana)).id or 0
    first_round = state_of(game_row(rig, gid)).round
    for _turn in range(20):  # until the live board holds a sum that scores
        await table.play_turn(gid)
        if any(not line.endswith(" · +0") and " · +" in line for line in report_of(table.live())):
            break
    assert state_of(game_row(rig, gid)).round == first_round
    deleted = table.live()
    held = report_of(deleted)
    fake.delete_by(ben, deleted)

    back = await board_here(rig, ana, chat, gid)
    assert back.message_id != deleted.message_id and game_row(rig, gid).inline_id == back.inline_message_id
    assert report_of(back)[: len(held)] == held  # it opens with all the deleted board held

    while game_row(rig, gid).status != FINISHED and state_of(game_row(rig, gid)).round == first_round:
        await table.play_turn(gid)
    record, problems = reading(transcript_entries(fake, chat))
    assert record.summaries and problems == []


def mover_of(table: Table, game_id: int) -> FakeUser:
    seat = state_of(game_row(table.rig, game_id)).current
    user_id = players_of(table.rig, game_id)[seat].user_id
    return next(p for p in table.people if p.id == user_id)


async def two_friends_playing(rig: BotRig) -> tuple[Table, int]:
    fake = rig.fake
    ana, ben = fake.user(1, "Ana"), fake.user(2, "Ben")
    table = Table(rig, fake.private_between(ana, ben), [ana, ben])
    await table.post_lobby(ana)
    gid = (await table.lobby_to_start(ana)).id or 0
    await table.play_turn(gid)
    return table, gid


async def test_board_here_in_another_chat_says_where_the_game_is_and_changes_nothing(rig: BotRig) -> None:
    """Ana brings the board of her game with Ben into her chat with Eve, who does not play: the
    post says where the game is played, keeps no key, and the game's own board stays live."""
    fake, tg = rig.fake, rig.tg
    table, gid = await two_friends_playing(rig)
    ana, eve = table.people[0], fake.user(5, "Eve")
    board, version = table.live(), game_row(rig, gid).version
    other = fake.private_between(ana, eve)

    listed = await tg.inline_query(ana, "", chat=other)
    await tg.pick(ana, other, listed, BoardHere(gid).data)
    posted = via_bot(fake, other)[-1]
    said = await tg.tap(ana, posted, SHOW)
    assert "is played in the chat where its lobby was posted" in said.text
    again = await tg.tap_data(eve, posted, ShowBoard(gid).data)  # from an app not yet redrawn
    assert again.text == said.text
    await drain(rig)
    assert "is played in the chat where its lobby was posted" in posted.content and not posted.buttons
    assert len(posted.history) == 1  # one edit, however often it was tapped
    assert game_row(rig, gid).inline_id == board.inline_message_id and game_row(rig, gid).version == version
    assert [t for t, _d in board.buttons] == [PLAY, HAND] and table.live() is board
    # In the game's own chat the same post brings the board: the record goes on there.
    here = await board_here(rig, ana, table.chat, gid)
    assert game_row(rig, gid).inline_id == here.inline_message_id and not board.buttons
    assert [t for t, _d in here.buttons] == [PLAY, HAND]


async def test_moves_are_listed_only_from_the_board_in_the_games_own_chat(rig: BotRig) -> None:
    """The list does not say its chat, nor does a posted pick: moves are listed only for the query
    the board's 🎯 Play key types in the game's chat. Typed by hand in another chat, the list
    offers nothing to post and says where the game is played."""
    fake, tg = rig.fake, rig.tg
    table, gid = await two_friends_playing(rig)
    mover, eve = mover_of(table, gid), fake.user(5, "Eve")
    other = fake.private_between(mover, eve)
    for typed in (f"g{gid}", f"g{gid} 5 3 1", "5 3 1"):
        listed = await tg.inline_query(mover, typed, chat=other)
        assert listed.result_ids == [], (typed, listed.titles)
        assert listed.button is not None and "played in its own chat" in listed.button["text"]
    # The board's own key lists the moves, in the game's chat.
    answer = await tg.tap_switch_inline(mover, table.live(), PLAY)
    assert [rid for rid in answer.result_ids if PickedMoves.read(rid) is not None]


async def test_what_an_outsider_is_told_works_in_a_chat_without_the_bot(rig: BotRig) -> None:
    """Eve, in the chat but not in its game: 👀 My hand tells her how to start a game there (not
    /newgame, which the bot cannot read), and a list with no game of hers offers nothing to post
    in her name — its button opens the help in her private chat."""
    fake, tg = rig.fake, rig.tg
    ana, ben, eve = fake.user(1, "Ana"), fake.user(2, "Ben"), fake.user(5, "Eve")
    club = fake.group("Club", with_bot=False)
    table = Table(rig, club, [ana, ben])
    await table.post_lobby(ana)
    gid = (await table.lobby_to_start(ana)).id or 0
    popup = await tg.tap(eve, table.live(), HAND)
    assert "/newgame" not in popup.text and "🎴 New game here" in popup.text
    for typed in (f"g{gid}", f"rematch g{gid}"):
        listed = await tg.inline_query(eve, typed, chat=club)
        assert listed.result_ids == [] and listed.button is not None, typed
    await tg.process_many(fake.results_button_updates(eve, listed))
    await drain(rig)
    assert "🎴 New game here" in fake.last_message(eve.id).content


async def test_an_away_player_is_told_of_back_where_the_bot_reads_it(rig: BotRig) -> None:
    """Ben misses two turns: the game's message tells him to send /back to the bot in private
    (it cannot read /back in the game's chat)."""
    table, gid = await two_friends_playing(rig)
    ben = table.people[1]
    for _turn in range(8):
        if "is now away" in table.live().content:
            break
        if mover_of(table, gid) is ben:
            await sweep_at(rig, game_row(rig, gid).deadline_at or datetime.now(UTC))
            await drain(rig)
        else:
            await table.play_turn(gid)
    away = next(line for line in table.live().content.split("\n") if "is now away" in line)
    assert away.endswith("send /back to @tweak_test_bot in private."), away


async def test_a_second_lobby_points_at_a_first_that_is_still_a_lobby(rig: BotRig) -> None:
    """The first game is still a lobby: there is no board to bring down, so the second lobby
    points at the lobby, not at 📋 Board here."""
    fake, tg = rig.fake, rig.tg
    ana, ben = fake.user(1, "Ana"), fake.user(2, "Ben")
    table = Table(rig, fake.private_between(ana, ben), [ana, ben])
    first = await table.post_lobby(ana)
    await tg.tap(ben, first, "✋ Join")
    second = await table.post_lobby(ben)
    await tg.tap(ana, second, "✋ Join")
    await drain(rig)
    assert "join its lobby above" in second.content and "Board here" not in second.content


async def test_a_deleted_board_at_a_table_with_a_computer_still_re_adds(rig: BotRig) -> None:
    """The same in a group without the bot, with a computer whose moves follow each person's:
    Cy, an admin, deletes the live board; the game is played to its end and the group re-adds."""
    fake = rig.fake
    ana, ben, cy = fake.user(1, "Ana"), fake.user(2, "Ben"), fake.user(3, "Cy")
    club = fake.group("Club", with_bot=False)
    fake.mark_admin(club.id, cy.id)
    table = Table(rig, club, [ana, ben, cy])
    await table.post_lobby(ana)
    await rig.tg.tap(ana, table.live(), "🤖 Add computer")
    gid = (await table.lobby_to_start(ana, goal_down=4)).id or 0
    for _turn in range(3):
        await table.play_turn(gid)
    held = report_of(table.live())
    fake.delete_by(cy, table.live())
    back = await board_here(rig, ben, club, gid)
    assert report_of(back)[: len(held)] == held
    while game_row(rig, gid).status != FINISHED:
        await table.play_turn(gid)
    record, problems = reading(transcript_entries(fake, club))
    assert record.standings is not None and problems == []
