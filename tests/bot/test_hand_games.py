"""🃏 My cards under the load a real table puts on it (issue 61, item 8): whole games played only
on people's own views, and the taps that go wrong around them.

* Three people play a whole group game with no key of the board but 🃏 My cards: every sum
  composed on the mover's own view (hand card, table cards, ✅ Claim), every discard (hand card,
  🗑 Discard), every kind of [T!] card chosen with the view's [T!] keys. The group still gets one
  message a turn, the chat re-adds to every round summary and to the standings as each player
  reads it (their own view of the chat), and no view ever reaches the group or anyone else.
* Double taps, a key of a view drawn before the move, a key forged for another seat, two people
  opening their views at once: nothing is played twice, nothing is lost.
* The bot stops after a tap's service committed and before the view was sent: the person's next
  🃏 My cards opens a fresh view with their draft, and nothing is played twice.
* An offline mover never gets their view; the toast of their tap carries their cards, they still
  play, and when they do not the idle clock moves the game on.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest

from engine.actions import Discard, Sum, decode
from engine.state import GameState
from tests.bot.conftest import BotRig, running_bot
from tests.bot.helpers import (
    assert_group_calls_show_only_public_cards,
    board_of,
    current_game,
    moves_of,
    set_state,
    state_of,
)
from tests.bot.test_hand_in_group import MY_CARDS, two_player_game, with_a_sum
from tests.bot.test_record_readds import (
    KIND_OF_CODE,
    T_LABELS,
    Entry,
    Match,
    Person,
    reading,
    reported_events,
)
from tests.fakes.bot_api.ephemeral import EPHEMERAL_METHODS, StoredEphemeral
from tests.fakes.telegram import ApiCall, FakeUser
from tgbot import callbacks as cb
from tgbot.handlers import views
from tgbot.render.cards import card
from tgbot.time_source import ManualClock

#: Seconds between two taps of a person (every tap on a view is an ephemeral write).
TAP_EVERY = 0.0


def is_ephemeral(call: ApiCall) -> bool:
    return "ephemeral_message_parameters" in call.params or call.method in EPHEMERAL_METHODS


def receiver_of(call: ApiCall) -> int:
    params: Any = call.params.get("ephemeral_message_parameters") or call.params
    if isinstance(params, str):
        params = json.loads(params)
    return int(params["receiver_user_id"])


class ViewMatch(Match):
    """Three people, and every move of theirs made on their own view (`Match` arranges the hidden
    cards so that each of them wins and plays every kind of [T!] card)."""

    async def start_game(self) -> None:
        seats = await self.seat_everyone()
        assert len(self.by_seat) == len(seats), "every seat a person's"
        self.view_calls = 0
        self.opened = 0

    def group_sends(self, first_call: int) -> int:
        """The bot's new public messages in the group (a view is no message of the group's)."""
        return sum(
            1
            for c in self.fake.calls[first_call:]
            if c.chat_id == self.group.id and c.method == "sendMessage" and c.ok and not is_ephemeral(c)
        )

    async def open_view(self, person: Person) -> StoredEphemeral:
        """The person's live view, or 🃏 My cards on the board opens it (the toast has their cards)."""
        fake = self.fake
        live = [m for m in fake.ephemeral_messages(self.group, person.user) if m.from_bot]
        if live:
            return live[-1]
        game = self.game()
        state = state_of(game)
        seat = next(s for s, p in self.by_seat.items() if p is person)
        answer = await self.rig.tg.tap(person.user, board_of(self.rig, game), MY_CARDS)
        assert not answer.show_alert
        assert all(card(c) in answer.text for c in state.hands[seat]), answer.text
        self.opened += 1
        view = fake.last_ephemeral(self.group, person.user)
        assert view.replaces is not None and view.replaces.message_id == board_of(self.rig, game).message_id
        return view

    async def view_tap(self, person: Person, kind: type[cb.CardsKey], *args: Any) -> str:
        """Tap the key of `kind` on the person's view (it must be there); its toast. Each tap's
        group writes show only public cards, and every ephemeral write is to the tapper."""
        game = self.game()
        before = state_of(game)
        data = kind(self.gid, game.version, before.current, *args).data
        view = await self.open_view(person)
        first = len(self.fake.calls)
        assert any(d == data for _t, d in view.buttons), (data, view.buttons)
        await self.rig.tg.advance(TAP_EVERY)  # a person's pace: the bot's 30 writes a second hold
        answer = await self.rig.tg.tap(person.user, view, lambda _t, d: d == data)
        assert not answer.show_alert, (data, answer.text)
        self.check_privacy(person.user, self.fake.calls[first:], before)
        return answer.text

    def check_privacy(self, tapper: FakeUser, calls: list[ApiCall], before: GameState) -> None:
        mine = [c for c in calls if c.chat_id == self.group.id and is_ephemeral(c)]
        assert all(receiver_of(c) == tapper.id for c in mine), [c.params for c in mine]
        self.view_calls += len(mine)
        public = [c for c in calls if not is_ephemeral(c)]
        assert_group_calls_show_only_public_cards(public, self.group.id, before, state_of(self.game()))
        for person in self.people:
            seen = [
                m for m in self.fake.transcript(self.group, person.user) if isinstance(m, StoredEphemeral)
            ]
            assert all(m.person_id == person.user.id for m in seen)
        assert not any("(only you)" in line for line in self.fake.read_chat(self.group))

    async def play_t(self, person: Person, way: str, code: str) -> None:
        """A Thief, Shifter or Bomb chosen with its key on the view and claimed: the turn goes
        on, on the same view, redrawn for the new version."""
        assert way == "view"
        view = await self.open_view(person)
        version = self.game().version
        await self.view_tap(person, cb.CardsChooseT, code)
        popup = await self.view_tap(person, cb.CardsClaim)
        label = T_LABELS[KIND_OF_CODE[code[0]].title()]
        assert f"{person.name} plays {label}" in popup, popup
        assert self.fake.last_ephemeral(self.group, person.user) is view, "the turn goes on on the view"
        assert self.game().version > version

    async def play_main(self, person: Person, way: str, main: Sum | Discard, joker: str | None) -> None:
        """The turn's sum (a Joker chosen first) or discard, composed on the view; the view goes."""
        assert way == "view"
        if joker:
            popup = await self.view_tap(person, cb.CardsChooseT, joker)
        popup = await self.view_tap(person, cb.CardsPickHand, main.hand)
        hand = state_of(self.game()).hands[state_of(self.game()).current]
        assert card(hand[main.hand]) in popup, popup
        if isinstance(main, Discard):
            await self.view_tap(person, cb.CardsDiscard)
        else:
            for position in main.table:
                await self.view_tap(person, cb.CardsPickTable, position)
            await self.view_tap(person, cb.CardsClaim)
        left = self.fake.ephemeral_messages(self.group, person.user)
        game = self.game()
        again = game.status == "playing" and self.by_seat[state_of(game).current] is person
        if not again:
            assert left == [], "the view closed"
        else:  # the others are out of cards: the view follows its player, redrawn for the new turn
            assert len(left) == 1 and all(
                d.startswith(f"e:{self.gid}:{game.version}:")
                for _t, d in left[0].buttons
                if d and d[:2] == "e:"
            )

    def check_views_record(self) -> None:
        """Each player's own reading of the chat re-adds to every summary and to the standings,
        and is the game: the engine's round points and totals, each move line once."""
        final = self.final
        assert final.is_over
        for person in self.people:
            transcript = [
                Entry(
                    m.content,
                    by_bot=m.from_bot,
                    via_bot=m.via_bot is not None,
                    sender=m.sender.get("first_name", ""),
                )
                for m in self.fake.transcript(self.group, person.user)
            ]
            assert not any("only you see this" in e.text for e in transcript)
            record, problems = reading(transcript)
            assert problems == [], "\n".join(problems)
            assert record.standings is not None
            assert len(record.summaries) == len(final.round_points) >= 1
            for summary, points in zip(record.summaries, final.round_points, strict=True):
                assert {who: p for who, (p, _t) in summary.rows.items()} == {
                    self.names[s]: points[s] for s in range(final.players)
                }
            assert record.standings.totals == {self.names[s]: t for s, t in enumerate(final.totals)}
            assert len(record.moves) == reported_events(self.moves)


async def test_three_people_play_a_whole_game_on_their_own_views_and_it_re_adds(
    db_url: str, seeds: Callable[[], int]
) -> None:
    """The seeds are the rig's (`SEED_BASE` + 1: 1001 unless told); `Match` swaps hidden cards so
    that each person wins every kind of [T!] card by a TWEAK the chat reports, and plays it."""
    match = ViewMatch(db_url, seeds, "Views")
    fake = match.fake
    match.people = [Person(fake.user(i, name), ("view",)) for i, name in ((1, "Ana"), (2, "Bea"), (3, "Cy"))]
    # 3 seats: the goal 120 → 60; the Extended [T!] deck
    await match.play(["Extended", "Goal −20", "Goal −20", "Goal −20"])

    match.check_views_record()
    match.check_messages()
    missing = [k for k in ("thief", "joker", "shifter", "bomb") if ("view", k) not in match.t_played]
    assert missing == [], f"[T!] cards never played on a view: {missing}"
    assert match.final.is_over
    played = [m for m in match.moves if m.source == "player"]
    assert {m.seat for m in played} == {0, 1, 2}
    assert fake.ephemeral_messages(match.group) == [], "no view outlives the game"


# --- taps that go wrong -------------------------------------------------------------------------


def played_codes(rig: BotRig, gid: int) -> list[str]:
    return [m.code for m in moves_of(rig, gid) if not m.code.startswith("start")]


async def test_double_taps_stale_and_forged_keys_and_two_views_at_once_play_nothing_twice(
    rig: BotRig,
) -> None:
    fake, tg = rig.fake, rig.tg
    group, mover, other, board, gid = await two_player_game(rig)
    state, hand, table = with_a_sum(state_of(current_game(rig, group.id)))
    set_state(rig, gid, state)
    version, seat = current_game(rig, group.id).version, state.current
    keys = (gid, version, seat)
    # both open their views at the same instant: one each, in place of the board, for each alone
    await tg.process_many([fake.callback_update(p, board, cb.MyCards(gid).data) for p in (mover, other)])
    for person in (mover, other):
        assert len([m for m in fake.ephemeral_messages(group, person) if m.from_bot]) == 1
    view, others_view = fake.last_ephemeral(group, mover), fake.last_ephemeral(group, other)
    # a double tap on a hand card: the draft toggles twice, as two taps do; one more picks it
    pick = cb.CardsPickHand(*keys, 0).data
    await tg.process_many([fake.callback_update(mover, view, pick) for _ in range(2)])
    await tg.tap_data(mover, view, pick)
    await tg.tap_data(mover, view, cb.CardsPickTable(*keys, 0).data)
    assert "👉" + card(hand) in [t for t, _d in fake.buttons(view)]
    assert "✅" + card(table) in [t for t, _d in fake.buttons(view)]
    # the other player forges the mover's ✅ Claim onto their own view: refused, nothing played
    forged = await tg.tap_data(other, others_view, cb.CardsClaim(*keys).data)
    assert forged.show_alert and played_codes(rig, gid) == []
    # a double tap on ✅ Claim: the sum is played once
    claims = [fake.callback_update(mover, view, cb.CardsClaim(*keys).data) for _ in range(2)]
    await tg.process_many(claims)
    assert [decode(c) for c in played_codes(rig, gid)] == [Sum(0, (0,))]
    assert all(fake.answers[u["callback_query"]["id"]].answered for u in claims)
    after = current_game(rig, group.id).version
    # a key of a view drawn before the move (the other's, still on their screen): stale, refused
    stale = await tg.tap_data(other, others_view, cb.CardsPickHand(gid, version, 1 - seat, 0).data)
    assert stale.text.startswith("This board is out of date"), stale.text
    assert current_game(rig, group.id).version == after
    assert [decode(c) for c in played_codes(rig, gid)] == [Sum(0, (0,))], "played once, nothing lost"


async def test_an_offline_mover_never_sees_the_view_but_the_toast_and_the_idle_clock_carry_on(
    rig: BotRig,
) -> None:
    fake, tg = rig.fake, rig.tg
    group, mover, other, board, gid = await two_player_game(rig)
    state = state_of(current_game(rig, group.id))
    hand = state.hands[state.current]
    fake.set_offline(mover)
    answer = await tg.tap(mover, board, MY_CARDS)
    assert all(card(c) in answer.text for c in hand), "the toast carries the cards"
    assert [m for m in fake.transcript(group, mover) if isinstance(m, StoredEphemeral)] == []
    assert board in fake.transcript(group, mover), "the board is still what they see"
    # the next 🃏 My cards, once back: a view they see, and they play on it
    fake.set_offline(mover, False)
    await tg.tap(mover, board, MY_CARDS)
    view = fake.last_ephemeral(group, mover)
    assert view.delivered and view in fake.transcript(group, mover)
    version = current_game(rig, group.id).version
    await tg.tap_data(mover, view, cb.CardsPickHand(gid, version, state.current, 0).data)
    await tg.tap_data(mover, view, cb.CardsDiscard(gid, version, state.current).data)
    assert [decode(c) for c in played_codes(rig, gid)] == [Discard(0)]
    # the other player is offline and never plays: the idle clock plays their turn
    await tg.advance(5)
    fake.set_offline(other)
    await tg.tap(other, board_of(rig, current_game(rig, group.id)), MY_CARDS)
    assert fake.ephemeral_messages(group, other)[-1].delivered is False
    before = len(played_codes(rig, gid))
    rig.clock.advance(timedelta(days=1))
    await tg.run_job("sweep")
    await tg.advance(5)
    moves = moves_of(rig, gid)
    assert len(played_codes(rig, gid)) == before + 1 and moves[-1].source == "idle"
    assert any(f"{other.first_name} was idle" in line for line in fake.read_chat(group, mover))


async def test_a_restart_between_the_commit_and_the_view_plays_nothing_twice(
    db_url: str, seeds: Callable[[], int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bot stops after a tap's service committed and before its view was sent (the view is
    never sent, the tap never answered); Telegram delivers the tap again to the restarted bot."""
    clock = ManualClock()
    async with running_bot(db_url, seeds, clock=clock) as first:
        fake = first.fake
        group, mover, _other, board, gid = await two_player_game(first)
        state, hand, _table = with_a_sum(state_of(current_game(first, group.id)))
        set_state(first, gid, state)
        version, seat = current_game(first, group.id).version, state.current
        await first.tg.tap(mover, board, MY_CARDS)
        view = fake.last_ephemeral(group, mover)
        await first.tg.tap_data(mover, view, cb.CardsPickHand(gid, version, seat, 0).data)
        await first.tg.tap_data(mover, view, cb.CardsPickTable(gid, version, seat, 0).data)
        fake.restart_app(mover)  # and their app too: the view is gone

        async def stopped(*_args: Any) -> Any:
            raise asyncio.CancelledError  # the process ends here: committed, nothing sent

        monkeypatch.setattr(views, "show", stopped)
        tap = fake.callback_update(mover, board, cb.MyCards(gid).data)
        with contextlib.suppress(asyncio.CancelledError):
            await first.tg.process(tap)
        monkeypatch.undo()
    async with running_bot(db_url, seeds, clock=clock, fake=fake) as second:
        await second.tg.tap(mover, board, MY_CARDS)
        fresh = fake.last_ephemeral(group, mover)
        assert "👉" + card(hand) in [t for t, _d in fake.buttons(fresh)], "the draft was kept"
        monkeypatch.setattr(views, "close", stopped)
        claim = fake.callback_update(mover, fresh, cb.CardsClaim(gid, version, seat).data)
        with contextlib.suppress(asyncio.CancelledError):
            await second.tg.process(claim)
        monkeypatch.undo()
    async with running_bot(db_url, seeds, clock=clock, fake=fake) as third:
        await third.tg.process(claim)  # delivered again after the restart
        assert [decode(c) for c in played_codes(third, gid)] == [Sum(0, (0,))], "played once"
        await third.tg.advance(5)
        new_board = board_of(third, current_game(third, group.id))
        assert new_board.message_id != board.message_id
