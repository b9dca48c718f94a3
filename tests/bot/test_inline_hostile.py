"""Inline mode attacked by a careless or hostile player: dozens of inline queries, picks from old
lists, picks forged ahead of the game or for another chat's game, all in one turn. The game
changes only by a real move, and the group reads no more than one bot message beyond its boards:
each stale pick's notice would spend the group's budget and delay the next board for everyone.
"""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from tests.bot.conftest import BotRig, running_bot
from tests.bot.helpers import board_of, current_game, moves_of, players_of, state_of
from tests.bot.test_inline import PLAY, inline_fake, two_players
from tests.fakes.telegram import FakeChat, FakeUser, InlineAnswer, JSONDict
from tgbot.inline_data import PICK_MARK

STALE = "that pick came from an old list"


@pytest.fixture
async def inline_rig(db_url: str, seeds: Callable[[], int]) -> AsyncIterator[BotRig]:
    async with running_bot(db_url, seeds, fake=inline_fake()) as bot:
        yield bot


def forged_message(rig: BotRig, chat: FakeChat, user: FakeUser, result_id: str) -> JSONDict:
    """The message a pick posts, as Telegram delivers it, carrying a pick no list offered."""
    update = rig.fake.text_update(chat, user, "🎯 forged")
    link = f"https://t.me/{rig.fake.bot_user.username}?start=g1{PICK_MARK}{result_id.replace(' ', '_')}"
    message: dict[str, Any] = update["message"]
    message["via_bot"] = rig.fake.bot_user.to_dict()
    message["entities"] = [{"type": "text_link", "offset": 0, "length": 2, "url": link}]
    return update


def forged_choice(user: FakeUser, result_id: str, ids: itertools.count[int]) -> JSONDict:
    """A chosen inline result with a result id no list offered."""
    chosen = {"result_id": result_id, "from": user.to_dict(), "query": "g1"}
    return {"update_id": 900_000 + next(ids), "chosen_inline_result": chosen}


def to_move(rig: BotRig, chat: FakeChat, *users: FakeUser) -> FakeUser:
    """Whose turn it is in the chat's game."""
    game = current_game(rig, chat.id)
    seat = state_of(game).current
    user_id = next(p.user_id for p in players_of(rig, game.id or 0) if p.seat == seat)
    return next(u for u in users if u.id == user_id)


async def test_a_turn_of_hostile_inline_use_costs_the_group_one_notice_at_most(inline_rig: BotRig) -> None:
    rig = inline_rig
    group, game, first_mover, second = await two_players(rig)
    ana, ben = sorted((first_mover, second), key=lambda u: u.id)
    gid = game.id or 0
    elsewhere = rig.fake.group("Elsewhere")
    await rig.tg.send(elsewhere, ben, "/newgame@tweak_test_bot")  # a game of another chat
    # Two full rounds of turns, each mover keeping the list they were offered.
    old_lists: list[tuple[FakeUser, InlineAnswer]] = []
    for _ in range(6):
        mover = to_move(rig, group, ana, ben)
        board = board_of(rig, current_game(rig, group.id))
        old_lists.append((mover, await rig.tg.tap_switch_inline(mover, board, PLAY)))
        await rig.tg.tap(mover, board, "🂠1")
        await rig.tg.tap(mover, rig.fake.message(group.id, board.message_id), "🗑 Discard")
    turn = current_game(rig, group.id)
    moved = len(moves_of(rig, gid))
    first = len(rig.fake.messages(group.id))
    ids = itertools.count()
    # Ben taps through every old list of his (each pick is posted in the group and chosen)...
    bens = [(answer, r["id"]) for user, answer in old_lists if user is ben for r in answer.results]
    assert len(bens) >= 8
    for answer, result_id in bens:
        await rig.tg.pick(ben, group, answer, result_id)
    # ...types junk queries...
    for query in ("g999999999", f"g{gid} ५३१", "x" * 200, f"g{gid}", "", "g2147483648 12"):
        await rig.tg.inline_query(ben, query, chat=group)
    # ...and sends picks no list offered: ahead of the game, for the other chat's game, garbage.
    forged = [
        f"g{gid}v{turn.version + 5}:D0",
        f"g{gid}v{turn.version + 1}:D1",
        f"g{gid}v0:D0",
        f"g{gid + 1}v1:D0",
        f"g{gid}v{turn.version}:ZZ",
        "not a pick",
    ]
    for result_id in forged:
        await rig.tg.process(forged_message(rig, group, ben, result_id))
        await rig.tg.process(forged_choice(ben, result_id, ids))
    await rig.tg.process(forged_message(rig, elsewhere, ben, f"g{gid}v1:D0"))
    # Nothing was played.
    assert len(moves_of(rig, gid)) == moved and current_game(rig, group.id).version == turn.version
    # The player to move plays with a fresh list: the turn's one board.
    mover = to_move(rig, group, ana, ben)
    fresh = await rig.tg.tap_switch_inline(mover, board_of(rig, turn), PLAY)
    discard = next(r for r in fresh.results if r["title"].startswith("🗑"))
    await rig.tg.pick(mover, group, fresh, discard["id"])
    assert current_game(rig, group.id).version == turn.version + 1
    board = board_of(rig, current_game(rig, group.id))
    said = rig.fake.messages(group.id)[first:]
    beyond_boards = [m.text or "" for m in said if m.message_id != board.message_id]
    assert len(said) - len(beyond_boards) == 1  # the turn's board
    assert len(beyond_boards) == 1 and STALE in beyond_boards[0], beyond_boards
    assert rig.fake.messages(elsewhere.id)[1:] == []  # the other chat was told nothing


@pytest.mark.parametrize("kind", ["ahead", "another chat's game", "its turn, another player"])
async def test_a_forged_pick_posts_nothing_in_the_group(inline_rig: BotRig, kind: str) -> None:
    rig = inline_rig
    group, game, _mover, other = await two_players(rig)
    gid = game.id or 0
    elsewhere = rig.fake.group("Elsewhere")
    await rig.tg.send(elsewhere, other, "/newgame@tweak_test_bot")
    forged = {
        "ahead": (other, f"g{gid}v{game.version + 1}:D0"),
        "another chat's game": (other, f"g{gid + 1}v1:D0"),
        "its turn, another player": (other, f"g{gid}v{game.version}:D0"),
    }[kind]
    before = len(rig.fake.messages(group.id))
    await rig.tg.process(forged_message(rig, group, *forged))
    await rig.tg.process(forged_choice(forged[0], forged[1], itertools.count()))
    assert rig.fake.messages(group.id)[before:] == []
    assert current_game(rig, group.id).version == game.version


async def test_the_stale_pick_notice_is_said_once_a_turn(inline_rig: BotRig) -> None:
    """The second old pick of a turn is covered by the first's notice; in a later turn an old
    pick is news again."""
    rig = inline_rig
    group, game, ana, ben = await two_players(rig)
    old = await rig.tg.tap_switch_inline(ana, board_of(rig, game), PLAY)
    discards = [r["id"] for r in old.results if r["title"].startswith("🗑")]
    notices = lambda: [m for m in rig.fake.messages(group.id) if STALE in (m.text or "")]  # noqa: E731
    for _turn in range(2):
        board = board_of(rig, current_game(rig, group.id))
        mover = to_move(rig, group, ana, ben)
        await rig.tg.tap(mover, board, "🂠1")
        await rig.tg.tap(mover, rig.fake.message(group.id, board.message_id), "🗑 Discard")
        said = len(notices())
        for result_id in discards:
            await rig.tg.pick(ana, group, old, result_id)
        assert len(notices()) == said + 1
