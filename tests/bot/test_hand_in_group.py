"""🃏 My cards in a group the bot is in (issue 61): a person's own view, an ephemeral message only
they see, in place of the board; composing and playing a turn on it; the popups it falls back to.

* The tap shows the tapper their own view in place of the board, to nobody else, and its answer
  carries their cards (a missed ephemeral message still leaves them seen).
* A sum composed by taps on the view and claimed is played once; the view goes and the group gets
  the next board, as after a move on the board.
* A key of another seat's view, or of an earlier turn, is refused and changes nothing.
* Telegram refusing the view (a chat where ephemeral messages are refused, an old Bot API server
  that posts it publicly) falls back to the hand popup in the same tap; a key of a view that
  expired answers with a popup, and the next 🃏 My cards opens a fresh view.
"""

from __future__ import annotations

from dataclasses import astuple

from engine.actions import Sum, decode
from engine.cards import VALUE
from engine.state import GameState
from tests.bot.conftest import BotRig
from tests.bot.helpers import board_of, current_game, moves_of, set_state, start_game, state_of
from tests.bot.players import data_is
from tests.fakes.telegram import FakeChat, FakeUser, StoredMessage
from tgbot import callbacks as cb
from tgbot.render.cards import card

MY_CARDS = "🃏 My cards"


async def two_player_game(rig: BotRig) -> tuple[FakeChat, FakeUser, FakeUser, StoredMessage, int]:
    """A game of Ana and Ben in a group: the group, the mover, the other, the board, the game."""
    fake = rig.fake
    ana, ben = fake.user(1, "Ana"), fake.user(2, "Ben")
    group = fake.group("Cards")
    game, board = await start_game(rig, group, ana, [ben])
    mover = (ana, ben)[state_of(game).current]
    other = ben if mover is ana else ana
    assert game.id is not None
    return group, mover, other, board, game.id


def with_a_sum(state: GameState) -> tuple[GameState, str, str]:
    """The state with the mover's first hand card and the first table card making the target (a
    card of the deck, not its top, swapped onto the table); those two cards."""
    hand = state.hands[state.current][0]
    needed = state.target - VALUE[hand]
    spare = next(i for i, c in enumerate(state.deck[:-1]) if VALUE.get(c) == needed)
    state.deck[spare], state.table[0] = state.table[0], state.deck[spare]
    return state, hand, state.table[0]


async def test_the_tapper_sees_their_own_view_in_place_of_the_board(rig: BotRig) -> None:
    fake, tg = rig.fake, rig.tg
    group, mover, other, board, gid = await two_player_game(rig)
    state = state_of(current_game(rig, group.id))
    seat_of = {mover.id: state.current, other.id: 1 - state.current}
    for person in (other, mover):
        answer = await tg.tap(person, board, MY_CARDS)
        hand = state.hands[seat_of[person.id]]
        assert all(card(c) in answer.text for c in hand), "the toast carries the tapper's cards"
        assert not answer.show_alert
        view = fake.last_ephemeral(group, person)
        assert view.replaces is not None and view.replaces.message_id == board.message_id
        assert all(card(c) in (view.text or "") for c in hand)
    # each sees their own in place of the board; the group as a whole sees only the board
    for person, someone_else in ((mover, other), (other, mover)):
        mine = fake.last_ephemeral(group, person)
        assert any(m is mine for m in fake.transcript(group, person))
        assert all(m is not mine for m in fake.transcript(group, someone_else))
        assert all(m is not board for m in fake.transcript(group, person)), "the view is in its place"
    assert not any("(only you)" in line for line in fake.read_chat(group))
    # the mover's view has their cards as keys; the other's none to play
    assert any(d and d.startswith(f"e:{gid}:") for _t, d in fake.buttons(fake.last_ephemeral(group, mover)))
    assert not any(d and d.startswith("e:") for _t, d in fake.buttons(fake.last_ephemeral(group, other)))


async def test_a_sum_composed_on_the_view_is_played_once_and_the_view_goes(rig: BotRig) -> None:
    fake, tg = rig.fake, rig.tg
    group, mover, _other, board, gid = await two_player_game(rig)
    state, hand, table = with_a_sum(state_of(current_game(rig, group.id)))
    set_state(rig, gid, state)
    game = current_game(rig, group.id)
    keys = cb.CardsKey(gid, game.version, state.current)
    await tg.tap(mover, board, MY_CARDS)
    view = fake.last_ephemeral(group, mover)
    await tg.tap(mover, view, data_is(cb.CardsPickHand(*astuple(keys), 0).data))
    assert fake.last_ephemeral(group, mover) is view, "edited in place"
    answer = await tg.tap(mover, view, data_is(cb.CardsPickTable(*astuple(keys), 0).data))
    assert card(hand) in answer.text and card(table) in (view.text or "")
    before = len(fake.messages(group.id))
    await tg.tap(mover, view, "✅ Claim")
    played = [decode(m.code) for m in moves_of(rig, gid) if not m.code.startswith("start")]
    assert played == [Sum(0, (0,))], "the sum, played once"
    assert fake.ephemeral_messages(group, mover) == [], "the view is gone"
    await tg.advance(5)
    new_board = board_of(rig, current_game(rig, group.id))
    assert new_board.message_id != board.message_id and len(fake.messages(group.id)) == before + 1


async def test_a_forged_seat_and_a_stale_version_are_refused(rig: BotRig) -> None:
    fake, tg = rig.fake, rig.tg
    group, mover, other, board, gid = await two_player_game(rig)
    game = current_game(rig, group.id)
    seat = state_of(game).current
    await tg.tap(other, board, MY_CARDS)
    view = fake.last_ephemeral(group, other)
    # the other player forges a key of the mover's view onto their own
    forged = await tg.tap_data(other, view, f"e:{gid}:{game.version}:{seat}:h:0")
    assert forged.text == "That key is not valid any more." and forged.show_alert
    await tg.tap(mover, board, MY_CARDS)
    view = fake.last_ephemeral(group, mover)
    stale = await tg.tap_data(mover, view, f"e:{gid}:{game.version - 1}:{seat}:h:0")
    assert stale.text.startswith("This board is out of date")
    assert current_game(rig, group.id).version == game.version
    assert [m.code for m in moves_of(rig, gid) if not m.code.startswith("start")] == []
    keys = [t for t, _d in fake.buttons(fake.last_ephemeral(group, mover))]
    assert not any(t.startswith("👉") for t in keys), "the draft is as it was"


async def test_a_refused_view_falls_back_to_the_hand_popup_in_the_same_tap(rig: BotRig) -> None:
    fake, tg = rig.fake, rig.tg
    group, mover, _other, board, _gid = await two_player_game(rig)
    hand = state_of(current_game(rig, group.id)).hands[state_of(current_game(rig, group.id)).current]
    fake.refuse_ephemeral(group)
    answer = await tg.tap(mover, board, MY_CARDS)
    assert answer.show_alert and all(card(c) in answer.text for c in hand)
    assert fake.ephemeral_messages(group, mover) == []
    # an old Bot API server posts the view publicly: it is taken back, the popup shows the cards
    fake.refuse_ephemeral(group, None)
    fake.ephemeral_supported = False
    before = [m.message_id for m in fake.messages(group.id) if not m.deleted]
    answer = await tg.tap(mover, board, MY_CARDS)
    assert answer.show_alert and all(card(c) in answer.text for c in hand)
    after = [m.message_id for m in fake.messages(group.id) if not m.deleted]
    assert after == before, "the public copy of the view was deleted"


async def test_an_expired_views_key_answers_with_a_popup_and_a_fresh_view_works(rig: BotRig) -> None:
    fake, tg = rig.fake, rig.tg
    group, mover, _other, board, gid = await two_player_game(rig)
    state, hand, _table = with_a_sum(state_of(current_game(rig, group.id)))
    set_state(rig, gid, state)
    game = current_game(rig, group.id)
    await tg.tap(mover, board, MY_CARDS)
    view = fake.last_ephemeral(group, mover)
    # the tap reaches the bot as the view expires (the person's app still showed it)
    update = fake.callback_update(mover, view, cb.CardsPickHand(gid, game.version, state.current, 0).data)
    fake.expire_ephemeral(view)
    await tg.process(update)
    answer = fake.answers[update["callback_query"]["id"]]
    assert answer.answered and card(hand) in answer.text, "the popup says the sum composed"
    assert fake.ephemeral_messages(group, mover) == []
    await tg.tap(mover, board, MY_CARDS)
    fresh = fake.last_ephemeral(group, mover)
    assert "👉" + card(hand) in [t for t, _d in fake.buttons(fresh)], "the draft was kept"


async def test_refresh_on_the_view_redraws_it_in_place(rig: BotRig) -> None:
    """🔄 Refresh (on the view of a player waiting for their turn) edits that view, sends no other."""
    fake, tg = rig.fake, rig.tg
    group, _mover, other, board, _gid = await two_player_game(rig)
    await tg.tap(other, board, MY_CARDS)
    view = fake.last_ephemeral(group, other)
    answer = await tg.tap(other, view, "🔄 Refresh")
    assert not answer.show_alert and "Your hand" in answer.text
    assert fake.ephemeral_messages(group, other) == [view], "edited in place, no second view"


async def test_a_t_card_played_on_the_view_leaves_the_turn_and_the_view_to_its_player(rig: BotRig) -> None:
    fake, tg = rig.fake, rig.tg
    group, mover, _other, board, gid = await two_player_game(rig)
    state = state_of(current_game(rig, group.id))
    state.tdeck.remove("shifter")  # the mover draws it
    state.holdings[state.current] = ["shifter"]
    set_state(rig, gid, state)
    version = current_game(rig, group.id).version
    await tg.tap(mover, board, MY_CARDS)
    view = fake.last_ephemeral(group, mover)
    await tg.tap(mover, view, data_is(cb.CardsChooseT(gid, version, state.current, "F").data))
    await tg.tap(mover, view, "✅ Claim")
    played = [m.code for m in moves_of(rig, gid) if not m.code.startswith("start")]
    assert played == ["F"]
    assert fake.ephemeral_messages(group, mover) == [view], "the turn goes on: the view stays"
    after = current_game(rig, group.id).version
    assert after == version + 1
    assert all(d.startswith(f"e:{gid}:{after}:") for _t, d in fake.buttons(view) if d and d.startswith("e:"))
