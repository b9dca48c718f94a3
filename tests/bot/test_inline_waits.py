"""What a table in a chat without the bot waits for (issue 62, item 6): its boards never queue
behind what its budget spent on anything else, and its old posts lose their keys while the game
goes on, not minutes after it.

Such a chat takes about 20 edits a minute and one a second (`delivery.budget`); the rig's fake
Telegram enforces both (a 429 fails the test) on a virtual clock.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable

import pytest

from tests.bot.conftest import BotRig, running_bot
from tests.bot.helpers import drain, game_row, inline_fake, state_of
from tests.bot.test_inline_table import HAND, PLAY, Table, _user_of, games, via_bot
from tests.fakes.telegram import FakeUser, InlineAnswer, StoredMessage
from tgbot.inline_data import PickedMoves
from tgbot.store.models import FINISHED

LIVE_KEYS = {PLAY, HAND}


@pytest.fixture
async def rig(db_url: str, seeds: Callable[[], int]) -> AsyncIterator[BotRig]:
    async with running_bot(db_url, seeds, fake=inline_fake()) as bot:
        yield bot


def is_board(message: StoredMessage) -> bool:
    return [t for t, _d in message.buttons] == [PLAY, HAND]


def mover_of(table: Table, game_id: int) -> FakeUser:
    seat = state_of(game_row(table.rig, game_id)).current
    return next(p for p in table.people if p.id == _user_of(table.rig, game_id, seat))


async def listed_moves(table: Table, mover: FakeUser) -> InlineAnswer:
    """What 🎯 Play lists `mover`. The key types the same query on every board of a game (the game
    and a mark of its chat), so the newest post still showing it serves, even one a quicker
    player's post has replaced already."""
    shown = next(m for m in reversed(via_bot(table.fake, table.chat)) if PLAY in dict(m.buttons))
    return await table.rig.tg.tap_switch_inline(mover, shown, PLAY)


async def pick_first_move(table: Table, game_id: int) -> StoredMessage:
    """The mover opens 🎯 Play and posts the first move listed; the post."""
    mover = mover_of(table, game_id)
    listed = await listed_moves(table, mover)
    move = next(rid for rid in listed.result_ids if PickedMoves.read(rid) is not None)
    await table.rig.tg.process_many(table.fake.pick_inline_result(mover, table.chat, listed, move))
    return table.live()


async def seconds_until(rig: BotRig, done: Callable[[], bool], limit: float, step: float = 0.25) -> float:
    """Virtual seconds until `done()` holds (past `limit`: the limit and a bit)."""
    waited = 0.0
    while not done() and waited <= limit:
        await rig.tg.advance(step)
        waited += step
    return waited


async def test_a_pick_becomes_the_board_ahead_of_the_lobby_edits_that_spent_the_budget(rig: BotRig) -> None:
    """Ben cannot make up his mind: in, out, in again, each tap redrawing the lobby, a write of
    the chat's budget (about 20 a minute). Those edits take only the spare part of it, so the
    game's first board, and the first mover's post after it, become boards at once, not once the
    lobby's edits have left the minute."""
    fake, tg = rig.fake, rig.tg
    ana, ben, cy = fake.user(1, "Ana"), fake.user(2, "Ben"), fake.user(3, "Cy")
    club = fake.group("Club", with_bot=False)
    table = Table(rig, club, [ana, ben, cy])
    lobby = await table.post_lobby(ana)
    for person in (ben, cy):
        await tg.tap(person, lobby, "✋ Join")
    await tg.tap(ana, lobby, "⚙️ Settings")
    await drain(rig)
    await tg.tap(ana, lobby, "💡 Hints on")
    await tg.tap(ana, lobby, "↩️ Back")
    await drain(rig)
    await tg.advance(61.0)  # a fresh minute
    rig.tg.ignore_tasks = lambda task: task.get_name().startswith("send:")  # taps do not wait for sends
    for i in range(24):
        await tg.tap(ben, lobby, "✋ Join" if i % 2 else "🚪 Leave")
        await tg.advance(1.1)
    lobby_edits = fake.max_writes_in_window(club.id, 60.0)
    assert lobby_edits >= 12, lobby_edits  # the budget is spent, or the test shows nothing
    await tg.tap(ana, lobby, "▶️ Start")
    gid = next(g.id or 0 for g in games(rig) if g.status == "playing")
    assert await seconds_until(rig, lambda: is_board(table.live()), 5.0) <= 2.0  # the first board
    post = await pick_first_move(table, gid)
    calls = len(fake.calls)
    waited = await seconds_until(rig, lambda: is_board(post), 30.0)
    assert waited <= 2.0, f"the pick waited {waited} s to become the board"
    edits = [c for c in fake.calls[calls:] if c.ok and c.method.startswith("editMessage")]
    assert edits[0].params.get("inline_message_id") == post.inline_message_id  # the first edit since
    await drain(rig)
    assert fake.count_429() == 0


async def test_the_newest_pick_becomes_the_board_before_the_post_it_replaced_is_redrawn(
    rig: BotRig,
) -> None:
    """Three picks within a second (two quick players): the chat takes one edit a second, so the
    second post's edit into a board is still waiting when the third post arrives. The third post
    is the board now and goes first; the second, an old post already, gets its record after."""
    fake, tg = rig.fake, rig.tg
    ana, ben = fake.user(1, "Ana"), fake.user(2, "Ben")
    chat = fake.private_between(ana, ben)
    table = Table(rig, chat, [ana, ben])
    await table.post_lobby(ana)
    gid = (await table.lobby_to_start(ana)).id or 0
    await tg.advance(61.0)
    rig.tg.ignore_tasks = lambda task: task.get_name().startswith("send:")
    first = await pick_first_move(table, gid)
    second = await pick_first_move(table, gid)
    third = await pick_first_move(table, gid)
    assert len({first.message_id, second.message_id, third.message_id}) == 3
    calls = len(fake.calls)
    waited = await seconds_until(rig, lambda: is_board(third), 10.0, step=0.05)
    assert waited <= 1.1, f"the newest pick waited {waited} s to become the board"
    edits = [c for c in fake.calls[calls:] if c.ok and c.method.startswith("editMessage")]
    assert edits[0].params.get("inline_message_id") == third.inline_message_id
    await drain(rig)
    assert [m for m in via_bot(fake, chat) if m.buttons] == [third]
    assert fake.count_429() == 0


async def test_old_posts_lose_their_keys_while_a_brisk_game_goes_on(rig: BotRig) -> None:
    """Two friends play briskly: each posts their move 8 s after the board stands (read it, tap
    🎯 Play, pick), two writes a turn (the post made the board, the post before it stripped of
    its keys), 15 a minute of the chat's 18. The old posts' keys go with the spare budget as the
    game goes on: the boards never wait for them, and once the last board stands no older post
    shows 🎯 Play or 👀 My hand within 30 s (at the old cosmetic limit, a dozen writes a minute,
    dozens of posts kept their keys for minutes)."""
    fake, tg = rig.fake, rig.tg
    ana, ben = fake.user(1, "Ana"), fake.user(2, "Ben")
    chat = fake.private_between(ana, ben)
    table = Table(rig, chat, [ana, ben])
    await table.post_lobby(ana)
    gid = (await table.lobby_to_start(ana, goal_down=3)).id or 0
    await tg.advance(61.0)
    rig.tg.ignore_tasks = lambda task: task.get_name().startswith("send:")
    waits: list[float] = []
    for _turn in range(40):
        if game_row(rig, gid).status == FINISHED:
            break
        await tg.advance(8.0)
        post = await pick_first_move(table, gid)
        waits.append(await seconds_until(rig, lambda post=post: is_board(post) or _over(rig, gid), 30.0))
    assert max(waits) <= 1.5, waits  # (one second: the chat's own pace between two writes)
    await tg.advance(30.0)
    posts = via_bot(fake, chat)
    live = table.live()
    kept = [m.message_id for m in posts if m is not live and LIVE_KEYS & {t for t, _d in m.buttons}]
    assert kept == [], f"{len(kept)} of {len(posts)} old posts keep live keys 30 s after the last board"
    await drain(rig)
    assert fake.count_429() == 0


def _over(rig: BotRig, game_id: int) -> bool:
    return game_row(rig, game_id).status == FINISHED


async def test_old_picks_noted_at_a_brisk_pace_hold_no_old_board_keys_back(rig: BotRig) -> None:
    """A brisk game, a turn every 9 s, with one player posting a move from an old list every
    third turn: each such post is edited to say it played nothing (taking its key), and the old
    boards still lose theirs as the game goes on: those notes share the spare budget with the
    keys-off edits rather than holding them back (notes come first in the chat's queue)."""
    fake, tg = rig.fake, rig.tg
    ana, ben = fake.user(1, "Ana"), fake.user(2, "Ben")
    chat = fake.private_between(ana, ben)
    table = Table(rig, chat, [ana, ben])
    await table.post_lobby(ana)
    gid = (await table.lobby_to_start(ana, goal_down=0)).id or 0
    await tg.advance(61.0)
    rig.tg.ignore_tasks = lambda task: task.get_name().startswith("send:")
    player = mover_of(table, gid)
    old = await listed_moves(table, player)
    old_move = next(rid for rid in old.result_ids if PickedMoves.read(rid) is not None)
    played = 0
    for turn in range(30):
        played += 1
        if _over(rig, gid):
            break
        await tg.advance(9.0)
        if turn % 3 == 1:
            await tg.process_many(fake.pick_inline_result(player, chat, old, old_move))
        post = await pick_first_move(table, gid)
        await seconds_until(rig, lambda post=post: is_board(post) or _over(rig, gid), 30.0)
    await tg.advance(30.0)
    noted = [m for m in via_bot(fake, chat) if "came from an old list" in m.content]
    assert len(noted) >= 8
    live = table.live()
    kept = [m.message_id for m in via_bot(fake, chat) if m is not live and PLAY in dict(m.buttons)]
    assert kept == [], f"{len(kept)} old boards keep 🎯 Play 30 s after the last board ({played} turns)"
    await drain(rig)
    assert fake.count_429() == 0
