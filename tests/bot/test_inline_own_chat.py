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

import pytest

from tests.bot.conftest import BotRig, running_bot
from tests.bot.helpers import drain, game_row, inline_fake, state_of
from tests.bot.test_inline_table import Table, transcript_entries, via_bot
from tests.bot.test_record_readds import BOARD_TITLE, reading
from tests.fakes.telegram import FakeChat, FakeUser, StoredMessage
from tgbot.inline_data import BoardHere
from tgbot.store.models import FINISHED


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
    """`person` types @bot in `chat` and posts 📋 Board here of the game."""
    listed = await rig.tg.inline_query(person, "", chat=chat)
    await rig.tg.pick(person, chat, listed, BoardHere(game_id).data)
    await drain(rig)
    return via_bot(rig.fake, chat)[-1]


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
