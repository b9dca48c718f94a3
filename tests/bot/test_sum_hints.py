"""Sum hints, a table setting (issue "Keep the game a game"): off by default, the player finds the
sum and 🎯 Play only checks the values they type; on, 🎯 Play lists every sum, best first."""

from __future__ import annotations

import pytest

from engine import GameState
from tests.bot.conftest import BotRig
from tests.bot.helpers import BOT, board_of, current_game, moves_of, set_state, state_of
from tests.bot.test_inline import PLAY, inline_rig, played_codes, two_players  # noqa: F401
from tests.fakes.telegram import FakeUser
from tgbot.render.cards import card as card_label

#: The first line of the list: the live target and what to do, the table under it.
HOW_TO = "🎯 Target 9 · 🧮 type your sum, e.g. 5 3 1"


def deal(rig: BotRig, game_id: int, hand: list[str], table: list[str], target: int) -> GameState:
    """Test set-up: the player to move holds `hand`, the table shows `table`, and the top card of
    the deck has the back `target` (every card kept once: the cards are swapped with the deck's
    and, when the deal gave one of them to another player, with that player's)."""
    state = state_of(current_game(rig))
    seat = state.current
    others = [s for s in range(state.players) if s != seat]
    pool = [*state.hands[seat], *state.table, *state.deck, *(c for s in others for c in state.hands[s])]
    for c in [*hand, *table]:
        pool.remove(c)
    state.hands[seat], state.table = list(hand), list(table)
    top = next(c for c in pool if state.back_of(c) == target)
    pool.remove(top)
    for s in others:
        size = len(state.hands[s])
        state.hands[s], pool = pool[:size], pool[size:]
    state.deck = [*pool, top]
    set_state(rig, game_id, state)
    assert state.target == target
    return state


#: The player's hand and the table of most tests here (a 2-player game: red, orange, yellow and
#: green): the target 9 is made by 🟥5 (hand) with a 3 and the 🟨1 of the table, the 3 orange or
#: yellow; the 🟩3 and the 🟧1 of the hand make 9 with nothing on this table (there is no 5 on it).
HAND = ["R5a", "G3a", "O1a"]
TABLE = ["O3a", "Y3a", "Y1a", "G4a"]


@pytest.fixture
async def no_hints(inline_rig: BotRig) -> tuple[BotRig, int, FakeUser, FakeUser]:  # noqa: F811
    """A table with sum hints off (the default), Ana or Ben to move."""
    _group, game, mover, other = await two_players(inline_rig, hints=False)
    assert game.id is not None
    return inline_rig, game.id, mover, other


async def test_hints_are_off_by_default_and_every_surface_says_which(rig: BotRig) -> None:
    fake, tg = rig.fake, rig.tg
    ana, ben = fake.user(1, "Ana"), fake.user(2, "Ben")
    group = fake.group("Friends")
    await tg.send(group, ana, f"/newgame{BOT}")
    lobby = fake.last_message(group.id)
    assert "🧠 Sum hints off" in lobby.content
    await tg.tap(ben, lobby, "✋ Join")
    await tg.tap(ana, lobby, "⚙️ Settings")
    assert "✅ 🧠 Hints off" in [t for t, _d in lobby.buttons]
    await tg.tap(ana, lobby, "💡 Hints on")
    assert "💡 Sum hints on" in lobby.content and "✅ 💡 Hints on" in [t for t, _d in lobby.buttons]
    await tg.tap(ana, lobby, "🧠 Hints off")
    await tg.tap(ana, lobby, "↩️ Back")
    await tg.tap(ana, lobby, "▶️ Start")
    game = current_game(rig, group.id)
    assert "🧠 hints off" in board_of(rig, game).content
    await tg.send(group, ana, f"/settings{BOT}")
    assert "🧠 Sum hints off" in fake.last_message(group.id).content
    # changeable only before the start
    answer = await tg.tap_data(ana, board_of(rig, game), f"ln:{game.id}:h:1")
    assert answer.text == "This lobby is closed." and "🧠" in board_of(rig, game).content


async def test_without_hints_play_lists_no_sum_but_checks_the_typed_values(
    no_hints: tuple[BotRig, int, FakeUser, FakeUser],
) -> None:
    rig, gid, mover, _other = no_hints
    deal(rig, gid, HAND, TABLE, 9)
    board = board_of(rig, current_game(rig))
    listed = await rig.tg.tap_switch_inline(mover, board, PLAY)
    titles = [r["title"] for r in listed.results]
    assert titles[0] == HOW_TO
    assert listed.results[0]["description"] == "Table: 🟧3 🟨3 🟨1 🟩4"  # TABLE, card by card
    assert not [t for t in titles if "=" in t], "no sum is offered"
    assert [t for t in titles if t.startswith("🗑")], "the discards are"
    # the player found 5 + 3 + 1 and types it (any order): only sums of exactly those values
    typed = await rig.tg.inline_query(mover, f"g{gid} 1 5 3", chat=rig.fake.chat(board.chat_id))
    # one line per choice of colours, each with what it takes (red 5: 5 points, the others 1 each)
    assert sorted(r["title"] for r in typed.results) == [
        "🟥5 + 🟧3 + 🟨1 = 9 · +7",
        "🟥5 + 🟨3 + 🟨1 = 9 · +7",
    ]
    # a pick plays it
    pick = next(r for r in typed.results if "🟧3" in r["title"])
    await rig.tg.pick(mover, rig.fake.chat(board.chat_id), typed, pick["id"])
    assert moves_of(rig, gid)[-1].code == played_codes(pick["id"])[-1]


@pytest.mark.parametrize("typed", ["5 3 1", "531", "5+3+1", "５ ３ １", "５＋３＋１", "५ ३ १", "१,३,५"])
async def test_typed_values_in_every_script_are_read(
    no_hints: tuple[BotRig, int, FakeUser, FakeUser], typed: str
) -> None:
    rig, gid, mover, _other = no_hints
    deal(rig, gid, HAND, TABLE, 9)
    board = board_of(rig, current_game(rig))
    answer = await rig.tg.inline_query(mover, f"g{gid} {typed}", chat=rig.fake.chat(board.chat_id))
    assert len(answer.results) == 2 and all(" = 9 · +" in r["title"] for r in answer.results)


async def test_a_wrong_sum_says_why_and_plays_nothing(
    no_hints: tuple[BotRig, int, FakeUser, FakeUser],
) -> None:
    rig, gid, mover, other = no_hints
    deal(rig, gid, HAND, TABLE, 9)
    board = board_of(rig, current_game(rig))
    chat = rig.fake.chat(board.chat_id)
    wrong = await rig.tg.inline_query(mover, f"g{gid} 5 3 3", chat=chat)
    assert [r["title"] for r in wrong.results] == ["5 + 3 + 3 = 11 · the target is 9"]
    missing = await rig.tg.inline_query(mover, f"g{gid} 6 3", chat=chat)
    assert [r["title"] for r in missing.results] == [
        "6 + 3: you need one of these in your hand and the others on the table"
    ]
    seven = await rig.tg.inline_query(mover, f"g{gid} 7 2", chat=chat)
    assert [r["title"] for r in seven.results] == ["Card values go from 1 to 6."]
    # picking the line anyway plays nothing
    version = current_game(rig).version
    await rig.tg.pick(mover, chat, wrong, wrong.results[0]["id"])
    assert current_game(rig).version == version
    # someone else typing a sum learns whose turn it is, nothing more
    theirs = await rig.tg.inline_query(other, f"g{gid} 5 3 1", chat=chat)
    assert [r["title"] for r in theirs.results] == [f"It's {mover.first_name}'s turn"]


async def test_a_pick_from_a_list_older_than_the_move_is_refused(
    no_hints: tuple[BotRig, int, FakeUser, FakeUser],
) -> None:
    rig, gid, mover, _other = no_hints
    deal(rig, gid, HAND, TABLE, 9)
    board = board_of(rig, current_game(rig))
    chat = rig.fake.chat(board.chat_id)
    typed = await rig.tg.inline_query(mover, f"g{gid} 5 3 1", chat=chat)
    # the player plays on the board meanwhile
    await rig.tg.tap(mover, board, "🂠3")
    await rig.tg.tap(mover, board, "🗑 Discard")
    version = current_game(rig).version
    await rig.tg.pick(mover, chat, typed, typed.results[0]["id"])
    assert current_game(rig).version == version
    assert "that pick came from an old list" in rig.fake.last_message(chat.id).content


async def test_without_hints_the_popup_never_says_a_card_makes_no_sum(
    no_hints: tuple[BotRig, int, FakeUser, FakeUser],
) -> None:
    rig, gid, mover, _other = no_hints
    deal(rig, gid, ["R5a", "G3a", "G6a"], TABLE, 8)  # no 2 on the table, one 1: the 6 makes no 8
    board = board_of(rig, current_game(rig))
    answer = await rig.tg.tap(mover, board, "🂠3")
    assert answer.text == f"{card_label('G6a')} selected. Now pick table cards."
    # a wrong claim is still refused with the reason: 6 + 3 is 9
    await rig.tg.tap_data(mover, board, f"k:{gid}:{current_game(rig).version}:t:0")
    refused = await rig.tg.tap(mover, board, "✅ Claim")
    assert refused.show_alert and refused.text == "9 is not the target 8. Nothing was played."


async def test_with_hints_the_popup_says_so(inline_rig: BotRig) -> None:  # noqa: F811
    _group, game, mover, _other = await two_players(inline_rig, hints=True)
    assert game.id is not None
    deal(inline_rig, game.id, ["R5a", "G3a", "G6a"], TABLE, 8)
    answer = await inline_rig.tg.tap(mover, board_of(inline_rig, current_game(inline_rig)), "🂠3")
    assert answer.text == f"{card_label('G6a')} selected. It makes no sum here: you can discard it."
