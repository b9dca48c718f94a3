"""Every tap is validated on the server: forged, stale and other people's taps change nothing.

Each bad tap must be answered with a popup (so the user's key stops spinning and they learn why) and
leave the game exactly as it was: same status, version, state JSON and move log.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import text as sql
from sqlmodel import Session

from engine import Sum, legal_actions
from engine.actions import encode
from tests.bot.conftest import BotRig, running_bot
from tests.bot.helpers import board_id, board_of, current_game, moves_of, snapshot, start_game, state_of
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
    # Not our format at all, too long, not ASCII, empty or missing; and the keys of the old
    # format (the whole draft in the key), which this version no longer reads.
    for data in (
        "garbage",
        "k:",
        f"k:{gid}:{v}:h",
        f"k:{gid}:{v}:c:1",
        f"k:{gid}:{v}:q:1",
        f"p:{gid}:{v}:",
        f"p:{gid}:{v}:S0.1",
        f"c:{gid}:{v}:0:1",
        f"m:{gid}:{v}:D0",
        f"p:{gid}:{v}:B",  # a [T!] play of the old menus: a [T!] key chooses now, Claim plays
        f"k:{gid}:{v}:b",
        "x" * 65,
        f"h:{gid}🃏",
        "",
        None,
    ):
        await assert_refused(rig, mover, board, data, invalid)
    # A game id beyond the database's integer column (PostgreSQL would raise on the query).
    for data in ("h:999999999999", f"k:2147483648:{v}:h:0", "lj:99999999999", f"t:4294967296:{v}:bomb"):
        await assert_refused(rig, mover, board, data, invalid)
    # A game that does not exist.
    gone = "This game no longer exists."
    for data in (
        f"k:{gid + 1000}:{v}:h:0",
        f"h:{gid + 1000}",
        f"t:{gid + 1000}:{v}:joker",
        f"ls:{gid + 1000}",
    ):
        await assert_refused(rig, mover, board, data, gone)
    # Keys that point at cards that are not there: hand slot 4 of 3, table card 5 of 2.
    gone_cards = "Those cards are no longer there."
    for data in (f"k:{gid}:{v}:h:3", f"k:{gid}:{v}:t:4", f"k:{gid}:{v}:t:63"):
        await assert_refused(rig, mover, board, data, gone_cards)
    # Claim or discard with nothing chosen.
    await assert_refused(rig, mover, board, f"k:{gid}:{v}:c", "Pick a hand card first.")
    await assert_refused(rig, mover, board, f"k:{gid}:{v}:d", "Pick a hand card first.")
    # [T!] cards nobody holds.
    for data in (f"t:{gid}:{v}:bomb", f"t:{gid}:{v}:joker", f"t:{gid}:{v}:thief", f"t:{gid}:{v}:any"):
        await assert_refused(rig, mover, board, data, "You don't hold that [T!] card.")
    # Lobby keys of a game that already started.
    closed = "This lobby is closed."
    for data in (f"lj:{gid}", f"ll:{gid}", f"la:{gid}:hard", f"lo:{gid}", f"ls:{gid}"):
        await assert_refused(rig, mover, board, data, closed)
    await assert_refused(rig, mover, board, f"ln:{gid}:t:-", closed)
    ben = mover if mover.first_name == "Ben" else other  # not the creator
    await assert_refused(rig, ben, board, f"lc:{gid}", closed)
    await assert_refused(rig, ben, board, f"ln:{gid}:p:live", CREATOR_ONLY)
    await assert_refused(rig, mover, board, "lg:zz", None)
    assert not rig.tg.errors


async def test_taps_of_other_players_and_outsiders_are_refused(rig: BotRig) -> None:
    gid, mover, other, board = await two_player_game(rig)
    zoe = rig.fake.user(9, "Zoe")
    v = current_game(rig).version
    turn = f"It's {mover.first_name}'s turn."
    # The other player taps the board's keys (and forges a [T!] play for the mover's seat).
    await assert_refused(rig, other, board, f"k:{gid}:{v}:h:0", turn)
    await assert_refused(rig, other, board, f"k:{gid}:{v}:t:1", turn)
    await assert_refused(rig, other, board, f"k:{gid}:{v}:d", turn)
    await assert_refused(rig, other, board, f"t:{gid}:{v}:bomb", turn)
    await assert_refused(rig, other, board, f"t:{gid}:{v}:any", turn)
    for _text, data in rig.fake.buttons(board):
        if data and data.startswith("k:"):
            await assert_refused(rig, other, board, data, turn)
    # Someone who is not in the game: every game key, "My hand" included.
    outsider = "You're not in this game. Start your own with /newgame!"
    for data in (f"h:{gid}", f"k:{gid}:{v}:h:0", f"k:{gid}:{v}:d", f"t:{gid}:{v}:bomb", f"t:{gid}:{v}:any"):
        await assert_refused(rig, zoe, board, data, outsider)
    await assert_refused(rig, zoe, board, f"ln:{gid}:p:live", CREATOR_ONLY)
    assert not rig.tg.errors


async def test_stale_keys_get_a_popup_and_lose_their_keys(rig: BotRig) -> None:
    gid, mover, other, board = await two_player_game(rig)
    old_keys = [d for _t, d in rig.fake.buttons(board) if d and d[0] in "kpt"]
    await rig.tg.tap(mover, board, "🂠1")
    await rig.tg.tap(mover, rig.fake.message(board.chat_id, board.message_id), "🗑 Discard")
    game = current_game(rig)
    assert game.version == 2 and board_id(rig, game) != board.message_id
    assert rig.fake.message(board.chat_id, board.message_id).buttons == []  # the old board lost its keys
    stale = "This board is out of date: the live one is at the bottom of the chat."
    for data in old_keys:
        # the old keys, tapped by the old mover (now waiting) and by the new mover
        await assert_refused(rig, mover, board, data, stale)
        await assert_refused(rig, other, board, data, stale)
    # the live board's own keys carry the new version
    current = board_of(rig, game)
    game_keys = [d for _t, d in current.buttons if d and d[:2] in ("k:", "p:", "t:")]
    assert game_keys and all(d.startswith(f"{d[0]}:{gid}:2:") for d in game_keys)
    assert not rig.tg.errors


async def test_a_stale_key_left_on_an_old_message_loses_its_keys(rig: BotRig) -> None:
    """An old message that still shows keys (it predates this version of the bot, which never
    took them off) is cleared by the first tap on it."""
    gid, mover, _other, board = await two_player_game(rig)
    await rig.tg.tap(mover, board, "🂠1")
    await rig.tg.tap(mover, rig.fake.message(board.chat_id, board.message_id), "🗑 Discard")
    old = rig.fake.message(board.chat_id, board.message_id)
    old.reply_markup = {"inline_keyboard": [[{"text": "🂠1", "callback_data": f"k:{gid}:1:h:0"}]]}
    with Session(rig.deps.db.engine) as session:  # no record of its keys being taken
        session.execute(sql("DELETE FROM shown_messages WHERE surface LIKE 'keys:%'"))
        session.commit()
    answer = await rig.tg.tap_data(mover, old, f"k:{gid}:1:h:0")
    assert answer.text == "This board is out of date: the live one is at the bottom of the chat."
    assert rig.fake.message(board.chat_id, board.message_id).buttons == []


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
        user = players[state.current]
        await rig.tg.tap(user, board_of(rig, game), "🂠1")
        await rig.tg.tap(user, board_of(rig, game), "🗑 Discard")
    else:
        raise AssertionError("no sum came up")
    user = players[state.current]
    choice = sums[0]
    await rig.tg.tap(user, board_of(rig, game), f"🂠{choice.hand + 1}")
    for position in choice.table:
        await rig.tg.tap_data(user, board_of(rig, game), f"k:{gid}:{game.version}:t:{position}")
    claim = f"k:{gid}:{game.version}:c"
    board = board_of(rig, game)
    moves_before = len(moves_of(rig, gid))
    # Two taps of the same key arrive together (a double tap, or two devices).
    updates = [rig.fake.callback_update(user, board, claim) for _ in "12"]
    await rig.tg.process_many(updates)
    answers = [rig.fake.answers[u["callback_query"]["id"]] for u in updates]
    assert all(a.answered for a in answers)
    stale = "This board is out of date: the live one is at the bottom of the chat."
    on_its_way = "⏳ The next board is on its way: it shows up at the bottom in a moment."
    texts = sorted(a.text or "" for a in answers)
    assert texts in (["Done!", stale], ["Done!", on_its_way]), texts  # (the new board sent yet, or not)
    after = current_game(rig)
    assert after.version == game.version + 1
    moves = moves_of(rig, gid)
    assert len(moves) == moves_before + 1
    assert moves[-1].code == encode(choice) and moves[-1].seq == after.version
    # and a third tap, later, is stale too
    await assert_refused(rig, user, board, claim, stale)
    assert not rig.tg.errors


async def test_forged_game_ids_are_refused_on_postgresql(pg_url: str, seeds: Callable[[], int]) -> None:  # noqa: F811
    """Game ids are a 32-bit column there: a forged 12-digit id must not reach a query (DataError)."""
    async with running_bot(pg_url, seeds) as rig:
        gid, mover, other, board = await two_player_game(rig)
        v = current_game(rig).version
        invalid = "That key is not valid any more."
        for data in ("h:999999999999", f"k:2147483648:{v}:h:0", "lj:99999999999", "ln:999999999999:t:-"):
            await assert_refused(rig, mover, board, data, invalid)
        await assert_refused(rig, other, board, f"h:{gid + 1000}", "This game no longer exists.")
        # The board's 📱 Panel and the lobby's 🔔 deep links with a forged id beyond the column: a
        # plain answer (they parse as strictly as keys).
        chat = rig.fake.private(mover)
        unknown = "I don't know that link, so nothing changed. /help lists what I can do."
        for forged in ("g2147483648", "g99999999999", "p2147483648"):
            await rig.tg.send(chat, mover, f"/start {forged}")
            assert rig.fake.last_message(chat.id).text == unknown
        assert not rig.tg.errors
