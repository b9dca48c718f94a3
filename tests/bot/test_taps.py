"""Every tap is validated on the server: forged, stale and other people's taps change nothing.

Each bad tap must be answered with a popup (so the user's key stops spinning and they learn why) and
leave the game exactly as it was: same status, version, state JSON and move log.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from engine import Sum, legal_actions
from engine.actions import encode
from tests.bot.conftest import BotRig, running_bot
from tests.bot.helpers import current_game, moves_of, snapshot, start_game, state_of
from tests.fakes.telegram import CallbackAnswer, FakeUser, StoredMessage
from tests.pg import pg_url  # noqa: F401  (pytest fixture)

CREATOR_ONLY = "Only the creator or a group admin can do that."


async def assert_refused(
    rig: BotRig, user: FakeUser, message: StoredMessage, data: str | None, popup: str | None
) -> CallbackAnswer:
    """``popup`` is the exact text expected, or None for any non-empty text."""
    game = current_game(rig)
    assert game.id is not None
    before = snapshot(rig, game.id)
    first = len(rig.fake.calls)
    answer = await rig.tg.tap_data(user, message, data)
    assert answer.answered, data
    assert answer.text if popup is None else answer.text == popup, (data, answer.text)
    assert snapshot(rig, game.id) == before, data
    sent = [c for c in rig.fake.calls[first:] if c.method == "sendMessage"]
    assert sent == [], (data, [c.params.get("text") for c in sent])
    return answer


async def two_player_game(rig: BotRig) -> tuple[int, FakeUser, FakeUser, StoredMessage]:
    """Ana and Ben play in "Friends"; returns the game id, the player to move, the other, the board."""
    fake = rig.fake
    ana, ben = fake.user(1, "Ana"), fake.user(2, "Ben")
    group = fake.group("Friends")
    game, board = await start_game(rig, group, ana, [ben])
    assert game.id is not None
    state = state_of(game)
    mover, other = (ana, ben) if state.current == 0 else (ben, ana)
    return game.id, mover, other, board


async def test_forged_and_garbled_callback_data_is_refused(rig: BotRig) -> None:
    gid, mover, other, board = await two_player_game(rig)
    v = current_game(rig).version
    invalid = "That key is not valid any more."
    # Not our format at all, too long, not ASCII, empty or missing.
    for data in (
        "garbage",
        "c:",
        f"c:{gid}:{v}:0",
        f"m:{gid}:{v}:",
        f"c:{gid}:{v}:0:{'f' * 17}",
        f"m:{gid}:{v}:" + "S0." + "1" * 60,
        "x" * 65,
        f"h:{gid}🃏",
        "",
        None,
    ):
        await assert_refused(rig, mover, board, data, invalid)
    # A game id beyond the database's integer column (PostgreSQL would raise on the query).
    for data in ("h:999999999999", f"c:2147483648:{v}:0:1", "lj:99999999999", f"m:4294967296:{v}:D0"):
        await assert_refused(rig, mover, board, data, invalid)
    # A game that does not exist.
    gone = "This game no longer exists."
    for data in (
        f"c:{gid + 1000}:{v}:0:1",
        f"m:{gid + 1000}:{v}:D0",
        f"h:{gid + 1000}",
        f"t:{gid + 1000}:{v}:joker",
        f"ls:{gid + 1000}",
    ):
        await assert_refused(rig, mover, board, data, gone)
    # Keys that point at cards that are not there: hand slot 4 of 3, table cards 5+ of 2.
    for data in (f"c:{gid}:{v}:3:0", f"c:{gid}:{v}:x:4", f"c:{gid}:{v}:0:ffffffff"):
        await assert_refused(rig, mover, board, data, invalid)
    gone_cards = "Those cards are no longer there."
    for data in (f"m:{gid}:{v}:D3", f"m:{gid}:{v}:S5.1", f"m:{gid}:{v}:S0.1c"):
        await assert_refused(rig, mover, board, data, gone_cards)
    # Engine codes that are not actions (a sum without table cards is not one either).
    for data in (f"m:{gid}:{v}:Q7", f"m:{gid}:{v}:S0.0", f"m:{gid}:{v}:J0", f"m:{gid}:{v}:D"):
        await assert_refused(rig, mover, board, data, invalid)
    # [T!] cards nobody holds.
    for data in (f"m:{gid}:{v}:B", f"m:{gid}:{v}:J+", f"m:{gid}:{v}:T1", f"t:{gid}:{v}:bomb"):
        await assert_refused(rig, mover, board, data, "You don't hold that [T!] card.")
    # Lobby keys of a game that already started.
    closed = "This lobby is closed."
    for data in (f"lj:{gid}", f"ll:{gid}", f"ln:{gid}:t:-", f"la:{gid}:hard", f"lo:{gid}", f"ls:{gid}"):
        await assert_refused(rig, mover, board, data, closed)
    ben = mover if mover.first_name == "Ben" else other  # not the creator
    await assert_refused(rig, ben, board, f"lc:{gid}", CREATOR_ONLY)
    await assert_refused(rig, ben, board, f"ln:{gid}:p:live", CREATOR_ONLY)
    await assert_refused(rig, mover, board, "lg:zz", None)
    assert not rig.tg.errors


async def test_taps_of_other_players_and_outsiders_are_refused(rig: BotRig) -> None:
    gid, mover, other, board = await two_player_game(rig)
    zoe = rig.fake.user(9, "Zoe")
    v = current_game(rig).version
    turn = f"It's {mover.first_name}'s turn."
    # The other player taps the board's keys (and forges a move for the mover's seat).
    await assert_refused(rig, other, board, f"c:{gid}:{v}:0:0", turn)
    await assert_refused(rig, other, board, f"c:{gid}:{v}:1:1", turn)
    await assert_refused(rig, other, board, f"m:{gid}:{v}:D0", turn)
    await assert_refused(rig, other, board, f"t:{gid}:{v}:any", turn)
    for _text, data in rig.fake.buttons(board):
        if data and data.startswith("c:"):
            await assert_refused(rig, other, board, data, turn)
    # Someone who is not in the game: every game key, "My hand" included.
    outsider = "You're not in this game. Start your own with /newgame!"
    for data in (f"h:{gid}", f"c:{gid}:{v}:0:0", f"m:{gid}:{v}:D0", f"t:{gid}:{v}:any"):
        await assert_refused(rig, zoe, board, data, outsider)
    await assert_refused(rig, zoe, board, f"lc:{gid}", CREATOR_ONLY)
    await assert_refused(rig, zoe, board, f"ln:{gid}:p:live", CREATOR_ONLY)
    assert not rig.tg.errors


async def test_stale_keys_get_a_popup_and_a_fresh_board(rig: BotRig) -> None:
    gid, mover, other, board = await two_player_game(rig)
    old_keys = [d for _t, d in rig.fake.buttons(board) if d and d[0] in "cmt"]
    await rig.tg.tap(mover, board, "🂠1")
    await rig.tg.tap(mover, board, "🗑 Discard")
    game = current_game(rig)
    assert game.version == 2 and game.board_message_id != board.message_id
    assert board.buttons == []  # the old board became the move report
    stale = "This board is out of date. Here is the current one."
    for data in old_keys:
        # the old keys, tapped by the old mover (now waiting) and by the new mover
        await assert_refused(rig, mover, board, data, stale)
        await assert_refused(rig, other, board, data, stale)
    # a stale key on the current board message redraws it with current keys
    current = rig.fake.message(game.chat_id, game.board_message_id or 0)
    await assert_refused(rig, other, current, f"c:{gid}:1:0:1", stale)
    game_keys = [d for _t, d in current.buttons if d and d[:2] in ("c:", "m:", "t:")]
    assert game_keys and all(d.startswith(f"{d[0]}:{gid}:2:") for d in game_keys)
    assert not rig.tg.errors


async def test_double_tap_on_claim_applies_once(rig: BotRig) -> None:
    gid, mover, other, board = await two_player_game(rig)
    players = {0: mover, 1: other} if state_of(current_game(rig)).current == 0 else {1: mover, 0: other}
    # Discard until the player to move has a sum to claim.
    for _ in range(40):
        game = current_game(rig)
        state = state_of(game)
        sums = [a for a in legal_actions(state, state.current) if isinstance(a, Sum)]
        if sums:
            break
        board = rig.fake.message(game.chat_id, game.board_message_id or 0)
        user = players[state.current]
        await rig.tg.tap(user, board, "🂠1")
        await rig.tg.tap(user, board, "🗑 Discard")
    else:
        raise AssertionError("no sum came up")
    user = players[state.current]
    board = rig.fake.message(game.chat_id, game.board_message_id or 0)
    choice = sums[0]
    claim = f"m:{gid}:{game.version}:{encode(choice)}"
    moves_before = len(moves_of(rig, gid))
    # Two taps of the same key arrive together (a double tap, or two devices).
    updates = [rig.fake.callback_update(user, board, claim) for _ in "12"]
    await asyncio.gather(*(rig.tg.process(u) for u in updates))
    answers = [rig.fake.answers[u["callback_query"]["id"]] for u in updates]
    assert all(a.answered for a in answers)
    assert sorted(a.text or "" for a in answers) == [
        "Done!",
        "This board is out of date. Here is the current one.",
    ]
    after = current_game(rig)
    assert after.version == game.version + 1
    moves = moves_of(rig, gid)
    assert len(moves) == moves_before + 1
    assert moves[-1].code == encode(choice) and moves[-1].seq == after.version
    # and a third tap, later, is stale too
    await assert_refused(rig, user, board, claim, "This board is out of date. Here is the current one.")
    assert not rig.tg.errors


async def test_forged_game_ids_are_refused_on_postgresql(pg_url: str, seeds: Callable[[], int]) -> None:  # noqa: F811
    """Game ids are a 32-bit column there: a forged 12-digit id must not reach a query (DataError)."""
    async with running_bot(pg_url, seeds) as rig:
        gid, mover, other, board = await two_player_game(rig)
        v = current_game(rig).version
        invalid = "That key is not valid any more."
        for data in ("h:999999999999", f"c:2147483648:{v}:0:1", "lj:99999999999", "ln:999999999999:t:-"):
            await assert_refused(rig, mover, board, data, invalid)
        await assert_refused(rig, other, board, f"h:{gid + 1000}", "This game no longer exists.")
        assert not rig.tg.errors
