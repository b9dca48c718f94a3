"""Two-tap turns through inline mode: the 🎯 Play key lists the mover's legal moves, privately,
and a pick plays the move (issue "Two-tap turns")."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from engine import apply, decode, seat_view, sum_options
from engine.actions import Sum
from engine.cards import COLOUR_OF, POINTS, VALUE
from tests.bot.conftest import BotRig, running_bot
from tests.bot.helpers import board_of, current_game, inline_fake, moves_of, set_state, state_of
from tests.fakes.telegram import FakeChat, FakeUser
from tgbot.i18n import LANGUAGES
from tgbot.store.models import Game

PLAY = "🎯 Play"


@pytest.fixture
async def inline_rig(db_url: str, seeds: Callable[[], int]) -> AsyncIterator[BotRig]:
    async with running_bot(db_url, seeds, fake=inline_fake()) as bot:
        yield bot


async def two_players(
    rig: BotRig, lang: str = "en", hints: bool = True
) -> tuple[FakeChat, Game, FakeUser, FakeUser]:
    """Ana and Ben at a table (with sum hints on unless `hints` is False)."""
    ana = rig.fake.user(1, "Ana", language_code=lang)
    ben = rig.fake.user(2, "Ben", language_code=lang)
    group = rig.fake.group("Friends")
    # the keys are in the group's language: tap them by their data
    await rig.tg.send(group, ana, "/newgame@tweak_test_bot")
    lobby = rig.fake.last_message(group.id)
    gid = next(d for _t, d in lobby.buttons if d and d.startswith("lj:")).split(":")[1]
    await rig.tg.tap_data(ben, lobby, f"lj:{gid}")
    await rig.tg.tap_data(ana, lobby, f"ln:{gid}:h:{int(hints)}")
    await rig.tg.tap_data(ana, lobby, f"ls:{gid}")
    game = current_game(rig, group.id)
    mover, other = (ana, ben) if state_of(game).current == 0 else (ben, ana)
    return group, game, mover, other


def played_codes(result_id: str) -> list[str]:
    return result_id.split(":", 1)[1].split(" ")


async def test_the_play_key_lists_the_movers_moves_best_first_and_only_to_them(inline_rig: BotRig) -> None:
    rig = inline_rig
    _group, game, mover, other = await two_players(rig)
    board = board_of(rig, game)
    assert any(t == PLAY for t, _d in board.buttons), board.buttons
    answer = await rig.tg.tap_switch_inline(mover, board, PLAY)
    assert answer.is_personal and answer.cache_time == 0
    state = state_of(game)
    view = seat_view(state, state.current)
    # Every result is a legal move (or a [T!] card to play first), worked out by the engine.
    sums = [r for r in answer.results if "=" in r["title"]]
    expected_sums = {
        (o.hand_value, o.counts) for o in sum_options(list(view.hand or ()), list(view.table), view.target)
    }
    assert len(sums) == len(expected_sums)
    for result in answer.results:
        after = state
        for code in played_codes(result["id"]):
            after, _events = apply(after, after.current, code)  # raises if not legal
    # Best first: TWEAKs first, then by points taken.
    keys = [("TWEAK!" not in r["title"], -int(re.search(r"\+(\d+)$", r["title"]).group(1))) for r in sums]  # type: ignore[union-attr]
    assert keys == sorted(keys)
    # A sum's title reads like the move report, and its points are the rules' points.
    for result in sums:
        code = played_codes(result["id"])[-1]
        action = decode(code)
        assert isinstance(action, Sum)
        cards = [view.hand[action.hand], *(view.table[p] for p in action.table)]  # type: ignore[index]
        assert result["title"].startswith(" + ".join(f"{_emoji(c)}{VALUE[c]}" for c in cards))
        # a TWEAK with [T!] cards left wins one, worth 2 points (RULES §5.3), whichever it is
        wins_t = "TWEAK!" in result["title"] and view.tdeck_size > 0
        assert ("wins a [T!] card" in result["title"]) == wins_t
        assert result["title"].endswith(f"+{sum(POINTS[c] for c in cards) + (2 if wins_t else 0)}")
    # Every discard is offered too.
    discards = [r for r in answer.results if r["title"].startswith("🗑")]
    assert len(discards) == len(view.hand or ())
    # Someone else querying learns whose turn it is, nothing more.
    others = await rig.tg.tap_switch_inline(other, board, PLAY)
    assert len(others.results) == 1 and others.results[0]["title"] == f"It's {mover.first_name}'s turn"


def _emoji(card: str) -> str:
    return {"R": "🟥", "O": "🟧", "Y": "🟨", "G": "🟩", "B": "🟦", "P": "🟪"}[COLOUR_OF[card]]


async def test_a_pick_plays_the_move_once_and_costs_the_group_only_the_new_board(inline_rig: BotRig) -> None:
    rig = inline_rig
    group, game, mover, _other = await two_players(rig)
    await rig.tg.advance(61)  # the set-up's writes are out of the window
    board = board_of(rig, game)
    answer = await rig.tg.tap_switch_inline(mover, board, PLAY)
    choice = next(r for r in answer.results if r["title"].startswith("🗑"))
    writes_before = len(rig.fake.write_times(group.id))
    await rig.tg.pick(mover, group, answer, choice["id"])  # feedback and the via message both arrive
    after = current_game(rig)
    assert after.version == game.version + 1
    moves = moves_of(rig, game.id or 0)
    assert [m.code for m in moves[-1:]] == played_codes(choice["id"]) and moves[-1].source == "player"
    # The player's own message announces the move ("via" the bot)...
    via = [m for m in rig.fake.messages(group.id, include_incoming=True) if m.via_bot]
    assert len(via) == 1 and mover.first_name in (via[0].text or "") and "🗑" in (via[0].text or "")
    # ...so the turn's urgent writes are the new board only (the old board's keys go later).
    new_board = board_of(rig, after)
    assert new_board.message_id != board.message_id
    turn_writes = rig.fake.write_times(group.id)[writes_before:]
    assert 1 <= len(turn_writes) <= 2
    assert rig.fake.message(group.id, board.message_id).buttons == []  # the old board is not live


@pytest.mark.parametrize("same", [False, True], ids=["another move", "the move just played"])
async def test_a_pick_from_an_old_list_is_refused_once_and_changes_nothing(
    inline_rig: BotRig, same: bool
) -> None:
    """The move is played with the keys meanwhile; the old list's pick is then another discard,
    or that very discard. Either way its posted message comes after the board that reported the
    move, so the group is told it played nothing (unanswered, the same discard would read as made
    twice), once, though the pick arrives twice (the chosen result and the posted message)."""
    rig = inline_rig
    group, game, mover, _other = await two_players(rig)
    board = board_of(rig, game)
    old = await rig.tg.tap_switch_inline(mover, board, PLAY)
    await rig.tg.tap(mover, board, "🂠1")
    await rig.tg.tap(mover, rig.fake.message(group.id, board.message_id), "🗑 Discard")
    moved = current_game(rig)
    assert [m.code for m in moves_of(rig, game.id or 0)[-1:]] == ["D0"]
    stale = next(r for r in old.results if r["title"].startswith("🗑") and r["id"].endswith(":D0") == same)
    await rig.tg.pick(mover, group, old, stale["id"])
    assert current_game(rig).version == moved.version
    assert len(moves_of(rig, game.id or 0)) == moved.version
    chat = rig.fake.messages(group.id, include_incoming=True)
    assert chat[-2].via_bot and "🗑" in (chat[-2].text or "")  # the pick, after the board
    assert "that pick came from an old list: nothing was played" in (chat[-1].text or "")
    warnings = [m for m in chat if "from an old list" in (m.text or "")]
    assert len(warnings) == 1, [m.text for m in warnings]


async def test_without_inline_feedback_the_posted_message_plays_the_move(
    db_url: str, seeds: Callable[[], int]
) -> None:
    async with running_bot(db_url, seeds, fake=inline_fake(feedback=False)) as rig:
        group, game, mover, _other = await two_players(rig)
        answer = await rig.tg.tap_switch_inline(mover, board_of(rig, game), PLAY)
        choice = answer.results[0]
        await rig.tg.pick(mover, group, answer, choice["id"])
        assert current_game(rig).version == game.version + len(played_codes(choice["id"]))


async def test_without_inline_mode_there_is_no_play_key(rig: BotRig) -> None:
    _group, game, _mover, _other = await two_players(rig)
    assert not any(t == PLAY for t, _d in board_of(rig, game).buttons)


async def test_a_big_table_pages_with_next_offset(inline_rig: BotRig) -> None:
    rig = inline_rig
    group, game, mover, _other = await two_players(rig)
    state = state_of(game)
    # All but one card of the deck on the table, a 2, a 3 and a 4 in hand and a Joker (its ±1
    # sums count too): more moves than the 50 one answer may hold, whatever the deal.
    pool = [*state.table, *state.deck[1:], *state.hands[state.current]]
    hand = [next(c for c in pool if VALUE[c] == v) for v in (2, 3, 4)]
    state.hands[state.current] = hand
    state.table = [c for c in pool if c not in hand]
    state.deck = state.deck[:1]
    state.tdeck.remove("joker")
    state.holdings[state.current].append("joker")
    set_state(rig, game.id or 0, state)
    first = await rig.tg.inline_query(mover, f"g{game.id}", chat=group)
    assert first.next_offset, "more moves than one answer holds"
    assert len(first.results) == 50
    second = await rig.tg.inline_query(mover, f"g{game.id}", offset=first.next_offset, chat=group)
    assert set(first.result_ids).isdisjoint(second.result_ids)


@pytest.mark.parametrize("lang", sorted(LANGUAGES))
async def test_the_list_and_the_announcement_in_every_language(
    lang: str, db_url: str, seeds: Callable[[], int], tmp_path: Path
) -> None:
    async with running_bot(db_url, seeds, fake=inline_fake()) as rig:
        group, game, mover, other = await two_players(rig, lang)
        play = next(t for t, d in board_of(rig, game).buttons if t.startswith("🎯"))
        answer = await rig.tg.tap_switch_inline(mover, board_of(rig, game), play)
        discard = next(r for r in answer.results if r["title"].startswith("🗑"))
        assert discard["description"]
        if lang != "en":
            assert discard["description"] != "Your turn ends; the card goes to the table."
        others = await rig.tg.tap_switch_inline(other, board_of(rig, game), play)
        assert mover.first_name in others.results[0]["title"]
        await rig.tg.pick(mover, group, answer, discard["id"])
        assert current_game(rig).version == game.version + 1


async def test_a_tweak_that_wins_a_t_card_is_offered_then_reported_in_their_own_tense(
    db_url: str, seeds: Callable[[], int]
) -> None:
    """The list offers the move before it is played, the report tells it after: in Hindi the
    [T!] card the TWEAK wins is "gets" in the one and "got" in the other (one English text, two
    catalog messages told apart by their context)."""
    async with running_bot(db_url, seeds, fake=inline_fake()) as rig:
        ana = rig.fake.user(1, "Ana", language_code="hi")
        ben = rig.fake.user(2, "Ben", language_code="hi")
        group = rig.fake.group("Dost")
        await rig.tg.send(group, ana, "/newgame@tweak_test_bot")
        lobby = rig.fake.last_message(group.id)
        gid = next(d for _t, d in lobby.buttons if d and d.startswith("lj:")).split(":")[1]
        await rig.tg.tap_data(ben, lobby, f"lj:{gid}")
        await rig.tg.tap_data(ana, lobby, f"ln:{gid}:f:1")  # won [T!] cards face down
        await rig.tg.tap_data(ana, lobby, f"ln:{gid}:h:1")  # the list shows every sum
        await rig.tg.tap_data(ana, lobby, f"ls:{gid}")
        game = current_game(rig, group.id)
        state = state_of(game)
        mover = (ana, ben)[state.current]
        # One card on the table, and in hand the card that takes it for the target: a TWEAK.
        # (The deck's top card, the last, keeps the target; every card stays in the game.)
        top = state.deck[-1]
        pool = [*state.table, *state.deck[:-1], *state.hands[state.current]]
        table, hand = next(
            (t, h) for t in pool for h in pool if t != h and VALUE[t] + VALUE[h] == state.target
        )
        rest = [c for c in pool if c not in (table, hand)]
        state.table = [table]
        state.hands[state.current] = [hand, *rest[:2]]
        state.deck = [*rest[2:], top]
        set_state(rig, game.id or 0, state)

        answer = await rig.tg.inline_query(mover, f"g{game.id}", chat=group)
        tweak = next(r for r in answer.results if "TWEAK!" in r["title"])
        assert "· एक [T!] कार्ड मिलता है ·" in tweak["title"]
        await rig.tg.pick(mover, group, answer, tweak["id"])

        report = [m.content for m in rig.fake.messages(group.id) if "TWEAK!" in m.content][-1]
        assert "· एक [T!] कार्ड मिला ·" in report, report
