"""Typed sums on a person's own view in a group (issue 61, item 2), and /cards opening that view
(item 3).

* With sum hints off, the person replies to their view with the values of a sum they found; the
  reply is ephemeral, and the view is redrawn in place offering exactly the legal sums made of
  those values (worked out here from the engine's state); one tap plays one, once. The group sees
  neither the reply nor the view.
* Values that make no sum: the view says why and offers none; ↩️ Clear forgets them.
* /cards sent as an ephemeral command answers with the view, to that person only; where Telegram
  refuses the ephemeral answer, today's answer in private.
"""

from __future__ import annotations

from engine.actions import Sum, decode
from engine.cards import VALUE
from tests.bot.conftest import BotRig
from tests.bot.helpers import current_game, moves_of, open_private_chats, set_state, state_of
from tests.bot.test_hand_in_group import MY_CARDS, two_player_game, with_a_sum
from tests.fakes.bot_api.ephemeral import StoredEphemeral
from tests.fakes.telegram import FakeChat, FakeUser
from tgbot import callbacks as cb
from tgbot.render.cards import card


def offered(view: StoredEphemeral) -> list[tuple[str, Sum]]:
    """The sums the view offers as keys: (key data, the sum it plays)."""
    found: list[tuple[str, Sum]] = []
    for _text, data in view.buttons:
        key = cb.CardsPlay.read(data)
        if key is not None:
            (made,) = key.moves
            assert isinstance(made, Sum)
            found.append((key.data, made))
    return found


def seen_by(rig: BotRig, group: FakeChat, person: FakeUser | None) -> str:
    return "\n".join(rig.fake.read_chat(group, person))


async def test_values_typed_in_reply_offer_exactly_their_legal_sums_and_one_tap_plays_it(rig: BotRig) -> None:
    fake, tg = rig.fake, rig.tg
    group, mover, other, board, gid = await two_player_game(rig)
    state, hand_card, table_card = with_a_sum(state_of(current_game(rig, group.id)))
    set_state(rig, gid, state)
    await tg.tap(mover, board, MY_CARDS)
    view = fake.last_ephemeral(group, mover)
    assert not offered(view), "hints are off: no sum offered before values are typed"
    values = sorted((VALUE[hand_card], VALUE[table_card]))

    await tg.process(fake.ephemeral_reply_update(mover, view, f"{values[0]} {values[1]}"))

    assert fake.last_ephemeral(group, mover) is view, "the view is redrawn in place"
    assert [m for m in fake.ephemeral_messages(group, mover) if m.from_bot] == [view]
    # what the engine's state allows: a hand card and one table card of exactly those values,
    # each choice once as the person sees it (colour and value)
    hand, table = state.hands[state.current], state.table
    expected = {
        (card(h), card(t))
        for h in hand
        for t in table
        if sorted((VALUE[h], VALUE[t])) == values and VALUE[h] + VALUE[t] == state.target
    }
    sums = offered(view)
    shown = [(card(hand[s.hand]), card(table[s.table[0]])) for _d, s in sums if len(s.table) == 1]
    assert len(shown) == len(sums) and sorted(shown) == sorted(expected)
    # nobody else sees the reply or the view; the group's chat is as it was
    for someone in (None, other):
        assert str(values[0]) + " " + str(values[1]) not in seen_by(rig, group, someone)
        assert all(m is not view for m in fake.transcript(group, someone))
    # a compose tap keeps the typed values: the sums stay offered
    version = current_game(rig, group.id).version
    await tg.tap_data(mover, view, cb.CardsPickHand(gid, version, state.current, 0).data)
    assert [d for d, _s in offered(view)] == [d for d, _s in sums]
    # one tap plays it, once
    data, made = sums[0]
    await tg.tap_data(mover, view, data)
    played = [decode(m.code) for m in moves_of(rig, gid) if not m.code.startswith("start")]
    assert played == [made]
    assert [m for m in fake.ephemeral_messages(group, mover) if m.from_bot] == [], "the view goes"
    assert not tg.errors


async def test_values_that_make_no_sum_say_why_and_clear_forgets_them(rig: BotRig) -> None:
    fake, tg = rig.fake, rig.tg
    group, mover, _other, board, gid = await two_player_game(rig)
    state = state_of(current_game(rig, group.id))
    await tg.tap(mover, board, MY_CARDS)
    view = fake.last_ephemeral(group, mover)
    wrong = (1, 1) if state.target != 2 else (1, 2)  # never the target
    await tg.process(fake.ephemeral_reply_update(mover, view, f"{wrong[0]} {wrong[1]}"))
    text = view.text or ""
    assert f"{wrong[0]} + {wrong[1]} = {sum(wrong)}" in text and f"the target is {state.target}" in text
    assert not offered(view)
    await tg.process(fake.ephemeral_reply_update(mover, view, "no idea"))
    assert "Card values go from 1 to 6." in (view.text or "")
    assert fake.last_ephemeral(group, mover) is view
    await tg.tap(mover, view, "↩️ Clear")
    assert "Card values" not in (view.text or "") and "Reply to this message" in (view.text or "")
    assert [m.code for m in moves_of(rig, gid) if not m.code.startswith("start")] == []
    assert not tg.errors


async def test_values_typed_off_turn_are_refused_to_the_typist_alone(rig: BotRig) -> None:
    fake, tg = rig.fake, rig.tg
    group, mover, other, board, _gid = await two_player_game(rig)
    await tg.tap(other, board, MY_CARDS)
    view = fake.last_ephemeral(group, other)
    before = view.text
    await tg.process(fake.ephemeral_reply_update(other, view, "3 4"))
    note = fake.last_ephemeral(group, other)
    assert note is not view and view.text == before, "the view stays; a note answers the reply"
    assert mover.first_name in (note.text or "")
    assert all(m is not note for m in fake.transcript(group, mover))
    assert not tg.errors


async def test_cards_sent_unseen_shows_the_senders_view_to_them_only(rig: BotRig) -> None:
    fake, tg = rig.fake, rig.tg
    group, mover, other, _board, gid = await two_player_game(rig)
    state = state_of(current_game(rig, group.id))
    public_before = fake.read_chat(group)

    await tg.process(fake.ephemeral_command_update(group, mover, "/cards"))

    view = fake.last_ephemeral(group, mover)
    hand = state.hands[state.current]
    assert all(card(c) in (view.text or "") for c in hand)
    assert any(d and d.startswith(f"e:{gid}:") for _t, d in view.buttons), "the compose keys"
    assert fake.read_chat(group) == public_before, "the group sees nothing new"
    assert all(m is not view for m in fake.transcript(group, other))
    # typed values in reply to the view /cards opened redraw it
    target = state.target
    wrong = (1, 1) if target != 2 else (1, 2)
    await tg.process(fake.ephemeral_reply_update(mover, view, f"{wrong[0]} {wrong[1]}"))
    assert fake.last_ephemeral(group, mover) is view and f"the target is {target}" in (view.text or "")
    assert not tg.errors


async def test_cards_where_ephemeral_answers_are_refused_answers_in_private(rig: BotRig) -> None:
    fake, tg = rig.fake, rig.tg
    group, mover, _other, _board, _gid = await two_player_game(rig)
    await open_private_chats(rig, [mover])
    state = state_of(current_game(rig, group.id))
    private = fake.private(mover)
    before = len(fake.messages(private.id))
    fake.refuse_ephemeral(group)
    public_before = fake.read_chat(group)

    await tg.process(fake.ephemeral_command_update(group, mover, "/cards"))

    assert [m for m in fake.ephemeral_messages(group, mover) if m.from_bot] == []
    answers = fake.messages(private.id)[before:]
    assert len(answers) == 1 and all(card(c) in (answers[0].text or "") for c in state.hands[state.current])
    assert fake.read_chat(group) == public_before
    assert not tg.errors


async def test_values_typed_as_the_view_expires_get_a_fresh_view_in_reply(rig: BotRig) -> None:
    """The view the person replied to cannot be edited (it expired as the reply came): the bot
    answers the reply with a fresh view, within Telegram's 15 seconds of the reply."""
    fake, tg = rig.fake, rig.tg
    group, mover, other, board, gid = await two_player_game(rig)
    state, hand_card, table_card = with_a_sum(state_of(current_game(rig, group.id)))
    set_state(rig, gid, state)
    await tg.tap(mover, board, MY_CARDS)
    view = fake.last_ephemeral(group, mover)
    update = fake.ephemeral_reply_update(mover, view, f"{VALUE[hand_card]} {VALUE[table_card]}")
    fake.expire_ephemeral(view)
    await tg.process(update)
    fresh = fake.last_ephemeral(group, mover)
    assert fresh is not view and fresh.from_bot
    reply = [m for m in fake.ephemeral_messages(group, mover) if not m.from_bot][-1]
    assert fresh.reply_to is reply, "it answers the person's reply"
    sums = offered(fresh)
    typed = (VALUE[hand_card], VALUE[table_card])
    hand = state.hands[state.current]
    assert sums and all(s.table and VALUE[hand[s.hand]] in typed for _d, s in sums)
    await tg.tap_data(mover, fresh, sums[0][0])
    played = [decode(m.code) for m in moves_of(rig, gid) if not m.code.startswith("start")]
    assert played == [sums[0][1]]
    assert all(m is not fresh for m in fake.transcript(group, other))
    assert not tg.errors
