"""One test (or a few) per decision of RULES §6.2 that the engine settles.

The A-number is in every test name so a failing test points straight at the
decision it protects. A33 (spoken calls) and A44 (backs of hand cards) have no
engine behaviour to test.
"""

from __future__ import annotations

from collections import Counter

import pytest

from engine import (
    THRESHOLDS,
    Discard,
    GameConfig,
    IllegalActionError,
    MalformedActionError,
    NotYourTurnError,
    PlayBomb,
    PlayJoker,
    PlayShifter,
    PlayThief,
    Sum,
    apply,
    check,
    check_invariants,
    default_colours,
    legal_actions,
    new_game,
    public_view,
    seat_view,
    t_actions,
)
from engine.cards import (
    ALL_CARDS,
    BALANCED_BACK,
    BLUE_CARD_TARGET,
    COLOUR_ORDER,
    POINTS,
    VALUE,
    cards_of_colours,
    t_deck,
)
from engine.events import (
    Event,
    LostTurn,
    Refilled,
    RoundEnded,
    RoundStarted,
    Skipped,
    Summed,
    TPlayed,
    TurnStarted,
)
from engine.state import GameState

from .helpers import ALL_COLOURS, Picker, build, events_of, legal_sums, strings_in


def _filler(p: Picker, n: int, back: int = 8) -> list[str]:
    return [p.take(back=back) for _ in range(n)]


# --- A1 back numbers ---------------------------------------------------------------


def test_a1_back_number_counts() -> None:
    def counts(colours: tuple[str, ...]) -> Counter[int]:
        return Counter(BALANCED_BACK[c] for c in cards_of_colours(colours))

    assert counts(ALL_COLOURS) == {7: 14, 8: 14, 9: 13, 10: 13}
    assert counts(("R", "O", "Y", "G")) == {7: 9, 8: 9, 9: 9, 10: 9}
    assert counts(("R", "O", "Y", "G", "B")) == {7: 12, 8: 11, 9: 11, 10: 11}


def test_a1_back_formula_by_colour_and_rank() -> None:
    """RULES A1's table, written out: the colour's rank k (its cards by value) and the colour's
    place c (red 0 … purple 5) give back 7 + (k + c) mod 4."""
    expected = {
        "R": [7, 8, 9, 10, 7, 8, 9, 10, 7],
        "O": [8, 9, 10, 7, 8, 9, 10, 7, 8],
        "Y": [9, 10, 7, 8, 9, 10, 7, 8, 9],
        "G": [10, 7, 8, 9, 10, 7, 8, 9, 10],
        "B": [7, 8, 9, 10, 7, 8, 9, 10, 7],
        "P": [8, 9, 10, 7, 8, 9, 10, 7, 8],
    }
    for colour in COLOUR_ORDER:
        cards = sorted(cards_of_colours((colour.value,)), key=lambda c: (VALUE[c], c))
        assert [BALANCED_BACK[c] for c in cards] == expected[colour.value], colour


def test_a1_balanced_backs_drive_the_target() -> None:
    state = new_game(GameConfig(2), 5)
    assert state.backs is None
    assert state.target == BALANCED_BACK[state.deck[-1]]


def test_a1_random_backs_are_fixed_for_the_whole_game() -> None:
    cfg = GameConfig(2, back_numbers="random")
    state = new_game(cfg, 7)
    assert state.backs is not None
    assert set(state.backs) == set(cards_of_colours(cfg.colours))
    assert set(state.backs.values()) <= {7, 8, 9, 10}
    assert state.target == state.backs[state.deck[-1]]
    assert new_game(cfg, 7).backs == state.backs
    assert new_game(cfg, 8).backs != state.backs
    # Play the round out by hand: backs survive the re-deal.
    state.deck = []
    state.hands = [[state.hands[state.current][0]] if s == state.current else [] for s in range(2)]
    after, _ = apply(state, state.current, Discard(0))
    assert after.round == 2 and after.backs == state.backs
    assert after.target == state.backs[after.deck[-1]]


# --- A2-A6 sums and discards --------------------------------------------------------


def test_a2_sum_uses_exactly_one_hand_card() -> None:
    p = Picker()
    hand = [p.take(value=3), p.take(value=4)]
    state = build(hands=[hand, [p.take()]], table=[p.take(value=2)], deck=[p.take(back=9)])
    assert state.target == 9  # 3 + 4 + 2 would reach it, with two hand cards
    assert legal_sums(state, 0) == []
    for i in (0, 1):
        with pytest.raises(IllegalActionError) as err:
            check(state, 0, Sum(i, (0,)))
        assert err.value.reason == "wrong_total"
    state.table.append(p.take(value=4))
    assert legal_sums(state, 0) == [Sum(0, (0, 1))]  # 3 + 2 + 4


def test_a3_sum_needs_a_table_card() -> None:
    p = Picker()
    state = build(
        hands=[p.values(6, 2), [p.take()]], table=[], deck=[p.take(back=7)], holdings=[["joker"], []]
    )
    after, _ = apply(state, 0, PlayJoker(-1))
    assert after.target == 6  # the lone 6 would match, but needs a table card
    assert legal_actions(after, 0) == [Discard(0), Discard(1)]
    with pytest.raises(IllegalActionError) as err:
        check(after, 0, Sum(0, ()))
    assert err.value.reason == "no_table_cards"
    with pytest.raises(MalformedActionError):
        check(after, 0, "S0.0")


def test_a3_empty_table_allows_only_discards() -> None:
    p = Picker()
    state = build(hands=[p.values(1, 2, 3), [p.take()]], table=[], deck=[p.take(back=7)])
    assert legal_actions(state, 0) == [Discard(0), Discard(1), Discard(2)]


def test_a4_any_subset_of_table_cards() -> None:
    p = Picker()
    table = p.values(3, 2, 3, 5)
    hand = [p.take(value=1)]
    state = build(hands=[hand, [p.take()]], table=table, deck=[p.take(), p.take(back=9)])
    # 1 + 8: {3, 5} twice, {3, 2, 3} once: the seeds' own example is the last.
    assert sorted(legal_sums(state, 0), key=lambda s: s.table) == [
        Sum(0, (0, 1, 2)),
        Sum(0, (0, 3)),
        Sum(0, (2, 3)),
    ]
    after, events = apply(state, 0, Sum(0, (0, 1, 2)))
    assert after.piles[0] == [hand[0], table[0], table[1], table[2]]
    assert after.table == [table[3]]
    (summed,) = events_of(events, Summed)
    assert summed.target == 9 and not summed.tweak


def test_a4_only_table_positions_can_join_a_sum() -> None:
    p = Picker()
    state = build(hands=[p.values(1), [p.take()]], table=p.values(3), deck=[p.take(back=9)])
    with pytest.raises(IllegalActionError) as err:
        check(state, 0, Sum(0, (0, 1)))  # position 1 does not exist: no deck or pile card can join
    assert err.value.reason == "bad_table_index"


def test_a5_discard_allowed_when_a_sum_exists() -> None:
    p = Picker()
    hand = p.values(4, 1, 1)
    state = build(hands=[hand, [p.take()]], table=p.values(5), deck=_filler(p, 3, back=9))
    assert legal_sums(state, 0) == [Sum(0, (0,))]
    assert Discard(0) in legal_actions(state, 0)
    after, _ = apply(state, 0, Discard(0))
    assert after.table == [state.table[0], hand[0]] and after.piles[0] == []


def test_a6_any_hand_card_may_be_discarded() -> None:
    p = Picker()
    hand = p.values(1, 2, 3)
    state = build(hands=[hand, [p.take()]], deck=_filler(p, 3))
    assert [a for a in legal_actions(state, 0) if isinstance(a, Discard)] == [
        Discard(0),
        Discard(1),
        Discard(2),
    ]
    for i in range(3):
        after, _ = apply(state, 0, Discard(i))
        assert after.table == [hand[i]]


# --- A7, A8, A16 Bomb and Thief ------------------------------------------------------


def _bomb_state(rng: int) -> GameState:
    p = Picker()
    hands = [[p.take(value=1)], p.values(2, 3, 4), p.values(5, 6), []]
    return build(
        4, hands=hands, table=[p.take(value=1)], deck=_filler(p, 4), holdings=[["bomb"], [], [], []], rng=rng
    )


def test_a7_bomb_takes_one_card_from_each_opponent_with_cards() -> None:
    state = _bomb_state(1)
    after, events = apply(state, 0, PlayBomb())
    (played,) = events_of(events, TPlayed)
    assert set(played.dropped) == {1, 2}  # seat 3 has no cards and is skipped (A16)
    for victim in (1, 2):
        card = played.dropped[victim]
        assert Counter(after.hands[victim]) + Counter([card]) == Counter(state.hands[victim])
    assert after.table == [*state.table, played.dropped[1], played.dropped[2]]
    assert after.hands[0] == state.hands[0] and after.hands[3] == []
    assert after.used_t[0] == ["bomb"] and after.holdings[0] == [] and after.t_played == "bomb"


def test_a7_bomb_card_is_random_from_each_victim() -> None:
    seen: dict[int, set[str]] = {1: set(), 2: set()}
    for rng in range(60):
        _, events = apply(_bomb_state(rng), 0, PlayBomb())
        (played,) = events_of(events, TPlayed)
        for victim, card in played.dropped.items():
            seen[victim].add(card)
    state = _bomb_state(0)
    assert seen == {1: set(state.hands[1]), 2: set(state.hands[2])}


def test_a8_thief_victim_chosen_card_random() -> None:
    p = Picker()
    hands = [[p.take(value=1)], p.values(2, 3, 4), p.values(5, 6, 6)]
    deck = [p.take()]
    stolen: set[str] = set()
    for rng in range(60):
        state = build(3, hands=hands, deck=deck, holdings=[["thief"], [], []], rng=rng)
        after, events = apply(state, 0, PlayThief(2))
        (played,) = events_of(events, TPlayed)
        assert played.victim == 2 and after.hands[1] == hands[1]
        assert after.table == [played.card]
        stolen.add(played.card)
    assert stolen == set(hands[2])


def test_a16_thief_needs_a_victim_with_cards() -> None:
    p = Picker()
    state = build(
        3, hands=[p.values(1), [], p.values(2)], deck=[p.take()], holdings=[["thief", "bomb"], [], []]
    )
    assert t_actions(state, 0) == [PlayThief(2), PlayBomb()]
    with pytest.raises(IllegalActionError) as err:
        check(state, 0, PlayThief(1))
    assert err.value.reason == "victim_empty"


def test_thief_victims_are_offered_round_the_table_from_the_next_player() -> None:
    """Seat 2 of 4 picks from seat 3, then 0, then 1: the order the turns go in, not seat order,
    so a key that cycles through victims starts with the player after the thief."""
    p = Picker()
    hands = [p.values(1), p.values(2), p.values(3), p.values(4)]
    state = build(4, hands=hands, deck=[p.take()], holdings=[[], [], ["thief"], []], current=2)
    assert t_actions(state, 2) == [PlayThief(3), PlayThief(0), PlayThief(1)]


def test_a16_no_victims_no_thief_no_bomb() -> None:
    p = Picker()
    state = build(3, hands=[p.values(1), [], []], deck=[p.take()], holdings=[["thief", "bomb"], [], []])
    assert t_actions(state, 0) == []
    with pytest.raises(IllegalActionError) as err:
        check(state, 0, PlayBomb())
    assert err.value.reason == "no_victims"
    with pytest.raises(IllegalActionError) as err:
        check(state, 0, "T2")
    assert err.value.reason == "victim_empty"


# --- A9, A19, A26 TWEAK rewards and refills ----------------------------------------------


def _tweak_state(deck: list[str], tdeck: list[str] | None = None) -> tuple[GameState, list[str], list[str]]:
    p = Picker()
    p.used.update(deck)
    hand = [p.take(value=4), p.take(value=6), p.take(value=6)]
    table = [p.take(value=2), p.take(value=3)]
    state = build(hands=[hand, [p.take()]], table=table, deck=deck, tdeck=tdeck)
    return state, hand, table


def test_a9_tweak_with_empty_t_deck_wins_nothing() -> None:
    p = Picker()
    deck = [p.take(back=7), p.take(back=8), p.take(back=9)]
    state, hand, table = _tweak_state(deck, tdeck=[])
    assert state.target == 9
    after, events = apply(state, 0, Sum(0, (0, 1)))
    (summed,) = events_of(events, Summed)
    assert summed.tweak and summed.won_t is None
    assert after.holdings[0] == [] and after.tdeck == []
    assert after.piles[0] == [hand[0], *table]
    assert after.hands[0] == [hand[1], hand[2], deck[2]]
    assert after.table == [deck[1], deck[0]]  # the 2-card refill still happens


def test_a19_tweak_wins_top_of_t_deck() -> None:
    p = Picker()
    state, _, _ = _tweak_state([p.take(), p.take(), p.take(back=9)], tdeck=["thief", "joker", "bomb"])
    after, events = apply(state, 0, Sum(0, (0, 1)))
    assert events_of(events, Summed)[0].won_t == "bomb"
    assert after.holdings[0] == ["bomb"] and after.tdeck == ["thief", "joker"]


def test_a26_refill_hand_first_then_two_table_cards() -> None:
    p = Picker()
    deck = [p.take(), p.take(), p.take(), p.take(back=9)]
    state, hand, _ = _tweak_state(deck)
    after, events = apply(state, 0, Sum(0, (0, 1)))
    assert after.hands[0] == [hand[1], hand[2], deck[3]]
    assert after.table == [deck[2], deck[1]]
    assert after.deck == [deck[0]]
    assert events_of(events, Refilled) == [Refilled(0, (deck[3],), (deck[2], deck[1]))]


@pytest.mark.parametrize("deck_size", [1, 2])
def test_a26_short_deck_refills_hand_before_table(deck_size: int) -> None:
    p = Picker()
    deck = [p.take() for _ in range(deck_size - 1)] + [p.take(back=9)]
    state, hand, _ = _tweak_state(deck)
    after, _ = apply(state, 0, Sum(0, (0, 1)))
    assert after.hands[0] == [hand[1], hand[2], deck[-1]]
    assert after.table == deck[:-1]
    assert after.deck == []


def test_a26_no_table_refill_without_tweak() -> None:
    p = Picker()
    deck = [p.take(), p.take(), p.take(), p.take(back=9)]
    state, hand, _table = _tweak_state(deck)
    state.table.append(p.take(value=1))  # 4 + 2 + 3 no longer takes the whole table
    after, _ = apply(state, 0, Sum(0, (0, 1)))
    assert after.table == [state.table[2]]
    assert after.hands[0] == [hand[1], hand[2], deck[3]] and len(after.deck) == 3
    discarded, _ = apply(state, 0, Discard(1))
    assert discarded.table == [*state.table, hand[1]] and len(discarded.deck) == 3


# --- A10, A11 who starts, rotation ----------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_a10_first_player_is_after_dealer(players: int) -> None:
    for seed in range(10):
        state = new_game(GameConfig(players), seed)
        assert state.current == (state.dealer + 1) % players


def test_a11_turns_pass_to_next_seat() -> None:
    p = Picker()
    state = build(3, hands=[p.values(1, 1), p.values(2, 2), p.values(3, 3)], deck=_filler(p, 10), current=1)
    seats = []
    for _ in range(5):
        seat = state.current
        seats.append(seat)
        state, events = apply(state, seat, Discard(0))
        assert events_of(events, TurnStarted)[0].seat == (seat + 1) % 3
    assert seats == [1, 2, 0, 1, 2]


def test_a11_dealer_rotates_and_next_round_starts_after_new_dealer() -> None:
    p = Picker()
    state = build(3, hands=[[], [], [p.take()]], deck=[], current=2, dealer=2)
    after, events = apply(state, 2, Discard(0))
    assert events_of(events, RoundStarted) == [RoundStarted(2, 0, 1)]
    assert after.dealer == 0 and after.current == 1 and after.turn == 1


# --- A12-A15, A22, A29, A37, A38, A40 playing [T!] cards ------------------------------------------


def test_a12_joker_lasts_only_for_the_turn() -> None:
    p = Picker()
    state = build(
        hands=[p.values(1, 1), p.values(6)],
        table=p.values(3),
        deck=_filler(p, 4, back=8),
        holdings=[["joker"], []],
    )
    joked, _ = apply(state, 0, PlayJoker(1))
    assert joked.target == 9
    after, _ = apply(joked, 0, Discard(0))
    assert after.joker == 0 and after.t_played is None
    assert after.current == 1 and after.target == 8
    assert legal_sums(after, 1) == []  # 6 + 3 = 9 would only work with the spent Joker


def test_a13_t_card_then_discard() -> None:
    p = Picker()
    state = build(hands=[p.values(6, 6), p.values(1, 1)], deck=_filler(p, 4), holdings=[["thief"], []])
    stolen, _ = apply(state, 0, PlayThief(1))
    assert Discard(1) in legal_actions(stolen, 0)
    after, _events = apply(stolen, 0, Discard(1))
    assert after.current == 1 and after.used_t[0] == ["thief"]
    assert after.table == [stolen.table[0], state.hands[0][1]]


def test_a14_t_card_only_before_main_action_in_own_turn() -> None:
    p = Picker()
    state = build(
        hands=[p.values(1, 2), p.values(3, 4)], deck=_filler(p, 4), holdings=[["joker", "bomb"], ["joker"]]
    )
    assert t_actions(state, 1) == [] and legal_actions(state, 1) == []
    with pytest.raises(NotYourTurnError):
        check(state, 1, PlayJoker(1))
    after, _ = apply(state, 0, Discard(0))
    with pytest.raises(NotYourTurnError):
        check(after, 0, PlayJoker(1))  # the main action ended the turn
    assert t_actions(after, 0) == []


def test_a15_shifter_needs_a_deck_card() -> None:
    p = Picker()
    state = build(hands=[p.values(1, 2), p.values(3)], deck=[], holdings=[["shifter"], []])
    assert t_actions(state, 0) == []
    with pytest.raises(IllegalActionError) as err:
        check(state, 0, "F")
    assert err.value.reason == "deck_empty"


def test_a15_shifter_on_last_card_makes_target_7() -> None:
    p = Picker()
    last = p.take(value=3, back=9)
    state = build(hands=[p.values(4, 6), p.values(1)], table=[], deck=[last], holdings=[["shifter"], []])
    assert state.target == 9 and t_actions(state, 0) == [PlayShifter()]
    after, events = apply(state, 0, PlayShifter())
    assert after.deck == [] and after.table == [last]
    assert after.target == 7 and events_of(events, TPlayed)[0].new_target == 7


def test_a38_shifter_taking_last_card_sets_target_7_for_this_sum() -> None:
    p = Picker()
    last = p.take(value=3, back=9)
    hand = p.values(4, 6)
    state = build(hands=[hand, p.values(1)], table=[], deck=[last], holdings=[["shifter"], []])
    shifted, _ = apply(state, 0, PlayShifter())
    assert legal_sums(shifted, 0) == [Sum(0, (0,))]  # 4 + 3 = 7
    after, events = apply(shifted, 0, Sum(0, (0,)))
    assert events_of(events, Summed)[0].target == 7
    assert after.piles[0] == [hand[0], last] and after.hands[0] == [hand[1]]  # no refill: deck out


def test_a22_t_card_won_is_usable_from_next_own_turn() -> None:
    p = Picker()
    deck = _filler(p, 6)
    state, _, _ = _tweak_state([*deck, p.take(back=9)], tdeck=["joker"])
    after, _ = apply(state, 0, Sum(0, (0, 1)))
    assert after.holdings[0] == ["joker"] and after.current == 1
    with pytest.raises(NotYourTurnError):
        check(after, 0, PlayJoker(1))
    back, _ = apply(after, 1, Discard(0))
    assert back.current == 0
    assert t_actions(back, 0) == [PlayJoker(1), PlayJoker(-1)]


def test_a29_target_read_after_shifter() -> None:
    p = Picker()
    top = p.take(value=4, back=8)
    deck = [p.take(back=10), top]
    hand = p.values(6, 4)
    state = build(hands=[hand, p.values(1)], table=p.values(2), deck=deck, holdings=[["shifter"], []])
    assert state.target == 8 and legal_sums(state, 0) == [Sum(0, (0,))]  # 6 + 2
    shifted, _ = apply(state, 0, PlayShifter())
    assert shifted.target == 10 and shifted.table == [state.table[0], top]
    assert sorted(legal_sums(shifted, 0), key=lambda s: (s.hand, s.table)) == [Sum(0, (1,)), Sum(1, (0, 1))]
    with pytest.raises(IllegalActionError) as err:
        check(shifted, 0, Sum(0, (0,)))
    assert (err.value.reason, err.value.details) == ("wrong_total", {"total": 8, "target": 10})


@pytest.mark.parametrize(("delta", "target"), [(1, 8), (-1, 6)])
def test_a37_joker_with_empty_deck(delta: int, target: int) -> None:
    p = Picker()
    state = build(hands=[p.values(6, 4), p.values(1)], table=p.values(2), deck=[], holdings=[["joker"], []])
    assert state.target == 7
    assert PlayJoker(delta) in t_actions(state, 0)
    after, _ = apply(state, 0, PlayJoker(delta))
    assert after.target == target
    assert legal_sums(after, 0) == ([Sum(0, (0,))] if target == 8 else [Sum(1, (0,))])


def test_a40_joker_must_change_target() -> None:
    p = Picker()
    state = build(hands=[p.values(1), p.values(1)], deck=[p.take()], holdings=[["joker"], []])
    assert t_actions(state, 0) == [PlayJoker(1), PlayJoker(-1)]
    for delta in (0, 2, -2):
        with pytest.raises(IllegalActionError) as err:
            check(state, 0, PlayJoker(delta))
        assert err.value.reason == "joker_delta"
    with pytest.raises(MalformedActionError):
        check(state, 0, "J0")


# --- A17, A18, A43 game end ---------------------------------------------------------------------


def _end_round(pile_points: tuple[int, int], totals: list[int]) -> tuple[GameState, list[Event]]:
    """Seat 0 discards the round's last card; piles are non-red 1s (1 point each)."""
    p = Picker()
    ones = [c for c in ALL_CARDS if VALUE[c] == 1 and c[0] != "R"]
    p.used.update(ones)
    piles = [ones[: pile_points[0]], ones[pile_points[0] : pile_points[0] + pile_points[1]]]
    state = build(hands=[[p.take()], []], deck=[], piles=piles, totals=totals, round_points=[totals])
    return apply(state, 0, Discard(0))


def test_a17_tie_is_shared_win() -> None:
    after, _ = _end_round((4, 1), [136, 139])
    assert after.totals == [140, 140]
    assert after.is_over and after.winners == [0, 1]


def test_a17_highest_total_wins_not_first_to_threshold() -> None:
    after, _ = _end_round((5, 1), [138, 141])
    assert after.totals == [143, 142] and after.winners == [0]
    after, _ = _end_round((5, 3), [138, 141])
    assert after.totals == [143, 144] and after.winners == [1]


def test_a18_threshold_checked_only_at_round_end() -> None:
    p = Picker()
    hand = p.values(4, 1, 1)
    state = build(
        hands=[hand, p.values(2)],
        table=p.values(5),
        deck=_filler(p, 5, back=9),
        totals=[139, 0],
        round_points=[[139, 0]],
    )
    after, events = apply(state, 0, Sum(0, (0,)))
    assert after.scores_total()[0] >= 140
    assert not after.is_over and after.round == state.round and events_of(events, RoundEnded) == []


def test_a43_thresholds_ignore_colour_licence() -> None:
    for players, threshold in THRESHOLDS.items():
        assert GameConfig(players, colours=ALL_COLOURS).threshold == threshold
        assert GameConfig(players, colours=("R", "O", "Y", "G")).threshold == threshold


# --- A20, A21, A45 [T!] holdings -------------------------------------------------------------------


def test_a20_used_t_goes_to_score_pile_and_is_spent() -> None:
    p = Picker()
    state = build(hands=[p.values(1, 1), p.values(2, 2)], deck=_filler(p, 6), holdings=[["joker"], []])
    assert state.round_score(0) == 2
    after, _ = apply(state, 0, PlayJoker(-1))
    assert after.holdings[0] == [] and after.used_t[0] == ["joker"] and after.round_score(0) == 2
    after, _ = apply(after, 0, Discard(0))
    after, _ = apply(after, 1, Discard(0))
    assert after.current == 0 and t_actions(after, 0) == []


def test_a21_won_t_public_by_default() -> None:
    p = Picker()
    state = build(3, hands=[p.values(1), p.values(2), p.values(3)], holdings=[[], ["thief", "joker"], []])
    for view in (public_view(state), seat_view(state, 0), seat_view(state, 2)):
        assert view.holdings == ((), ("thief", "joker"), ())


def test_a21_face_down_variant_hides_others_holdings() -> None:
    p = Picker()
    cfg = GameConfig(3, colours=ALL_COLOURS, won_t_face_down=True)
    state = build(
        3, hands=[p.values(1), p.values(2), p.values(3)], holdings=[[], ["thief", "joker"], []], config=cfg
    )
    assert seat_view(state, 1).holdings == (None, ("thief", "joker"), None)
    assert seat_view(state, 0).holdings == ((), None, None)
    assert public_view(state).holdings == (None, None, None)
    for view in (seat_view(state, 0), public_view(state)):
        assert view.holding_counts == (0, 2, 0)
        assert not {"thief", "joker"} & set(strings_in(view))


def test_a45_no_limit_on_t_holdings() -> None:
    p = Picker()
    many = ["joker", "joker", "joker", "thief", "thief", "shifter"]
    state, _, _ = _tweak_state([p.take(), p.take(), p.take(back=9)], tdeck=["bomb"])
    state.holdings[0] = list(many)
    after, _ = apply(state, 0, Sum(0, (0, 1)))
    assert after.holdings[0] == [*many, "bomb"]
    assert after.round_score(0) == 2 * 7 + POINTS[state.hands[0][0]] + sum(POINTS[c] for c in state.table)


# --- A23-A25 components in play ---------------------------------------------------------------------


def test_a23_extra_colours_in_seed_order() -> None:
    assert default_colours(2) == default_colours(3) == ("R", "O", "Y", "G")
    assert default_colours(4) == ("R", "O", "Y", "G", "B")
    assert GameConfig(2).colours == ("R", "O", "Y", "G")


@pytest.mark.parametrize(
    ("edition", "counts"),
    [
        ("classic", {"thief": 4, "joker": 3, "shifter": 2, "bomb": 1}),
        ("extended", {"thief": 5, "joker": 5, "shifter": 5, "bomb": 2}),
    ],
)
def test_a24_editions(edition: str, counts: dict[str, int]) -> None:
    assert Counter(t_deck(edition)) == counts
    state = new_game(GameConfig(3, edition=edition), 1)
    assert Counter(state.tdeck) == counts and len(state.tdeck) == sum(counts.values())


def test_a24_default_edition_has_10_t_cards() -> None:
    assert GameConfig(2).edition == "classic"
    assert len(new_game(GameConfig(2), 0).tdeck) == 10


@pytest.mark.parametrize(
    ("players", "colours", "cards"),
    [
        (2, "ROYG", 36),
        (3, "ROYG", 36),
        (4, "ROYGB", 45),
        (5, "ROYGBP", 54),
        (6, "ROYGBP", 54),
    ],
)
def test_a25_colours_per_player_count(players: int, colours: str, cards: int) -> None:
    cfg = GameConfig(players)
    assert cfg.colours == tuple(colours)
    state = new_game(cfg, 3)
    in_play = [*state.deck, *state.table, *(c for h in state.hands for c in h)]
    assert len(in_play) == cards and {c[0] for c in in_play} == set(colours)


def test_a25_licence_any_colours_with_red() -> None:
    assert len(new_game(GameConfig(2, colours=ALL_COLOURS), 0).deck) == 54 - 6 - 2
    assert len(new_game(GameConfig(6, colours=("R", "O", "Y")), 0).deck) == 27 - 18 - 2
    assert GameConfig(3, colours=("B", "R", "O")).colours == ("R", "O", "B")


def test_a25_red_is_required() -> None:
    from engine import ConfigError

    with pytest.raises(ConfigError):
        GameConfig(2, colours=("O", "Y", "G", "B"))


# --- A27, A28, A36 empty hands ----------------------------------------------------------------------------


def test_a27_lost_turn_refills_and_passes() -> None:
    p = Picker()
    deck = _filler(p, 5)
    state = build(3, hands=[p.values(1, 1, 2), [], p.values(3)], deck=deck, holdings=[[], ["joker"], []])
    after, events = apply(state, 0, Discard(0))
    assert events_of(events, LostTurn) == [LostTurn(1, (deck[3], deck[2], deck[1]))]
    assert after.hands[1] == [deck[3], deck[2], deck[1]] and after.deck == [deck[0]]
    assert after.holdings[1] == ["joker"] and after.used_t[1] == []
    assert after.current == 2 and after.turn == 3
    assert events_of(events, TurnStarted) == [TurnStarted(2, 1, 3)]


def test_a27_lost_turn_with_short_deck_draws_what_is_left() -> None:
    p = Picker()
    deck = _filler(p, 2)
    state = build(3, hands=[p.values(1, 1, 2), [], p.values(3)], deck=deck)
    after, events = apply(state, 0, Discard(0))
    assert events_of(events, LostTurn) == [LostTurn(1, (deck[0],))]
    assert after.deck == [] and after.current == 2


def test_a28_empty_hand_and_deck_is_skipped() -> None:
    p = Picker()
    state = build(3, hands=[p.values(1, 2), [], p.values(3, 4)], deck=[], holdings=[[], ["thief"], []])
    assert t_actions(state, 1) == []
    skips = []
    while state.round == 1:
        state, events = apply(state, state.current, Discard(0))
        skips.extend(events_of(events, Skipped))
    assert skips == [Skipped(1), Skipped(1)]
    (ended,) = events_of(events, RoundEnded)
    assert ended.points == (0, 2, 0)  # the unusable Thief still scores


def test_a36_victims_refill_only_after_their_own_turn() -> None:
    p = Picker()
    state = build(hands=[p.values(1, 1, 2), p.values(3, 3, 4)], deck=_filler(p, 6), holdings=[["thief"], []])
    after, _ = apply(state, 0, PlayThief(1))
    assert len(after.hands[1]) == 2
    after, _ = apply(after, 0, Discard(0))
    assert after.current == 1 and len(after.hands[1]) == 2  # plays one card short
    after, _ = apply(after, 1, Discard(0))
    assert len(after.hands[1]) == 3


# --- A30 views --------------------------------------------------------------------------------------


def test_a30_views_hide_hands_deck_and_piles() -> None:
    p = Picker()
    hands = [p.values(1, 2, 3), p.values(4, 5, 6)]
    piles = [p.non_red(1, 1), []]
    deck = _filler(p, 5, back=10)
    state = build(hands=hands, table=p.values(2), deck=deck, piles=piles)
    mine = seat_view(state, 0)
    assert mine.hand == tuple(hands[0]) and mine.hand_sizes == (3, 3)
    assert mine.deck_size == 5 and mine.target == 10 and mine.table == tuple(state.table)
    assert mine.scores_round == (2, 0)
    secret = set(hands[1]) | set(deck)
    assert not secret & set(strings_in(mine))
    # Won cards were shown when their sum was announced: pooled, not per seat, in every view.
    assert mine.announced == tuple(sorted(piles[0]))
    assert set(strings_in(mine)) & set(ALL_CARDS) == set(hands[0]) | set(state.table) | set(piles[0])
    public = public_view(state)
    assert public.hand is None and public.seat is None
    assert not (secret | set(hands[0])) & set(strings_in(public))
    assert public.announced == mine.announced


# --- A31 reset between rounds -------------------------------------------------------------------------


def test_a31_reshuffle_each_round() -> None:
    p = Picker()
    cfg = GameConfig(2)
    won = [p.take(value=1, colour="O"), p.take(value=1, colour="Y")]
    tdeck = t_deck("classic")
    tdeck.remove("joker")
    tdeck.remove("thief")
    state = build(
        hands=[[p.take(colour="G")], []],
        deck=[],
        table=[p.take(colour="Y")],
        piles=[won, []],
        holdings=[["joker"], []],
        used_t=[["thief"], []],
        tdeck=tdeck,
        config=cfg,
    )
    after, _ = apply(state, 0, Discard(0))
    assert after.round == 2 and after.totals == [1 + 1 + 4, 0]
    assert Counter(after.tdeck) == Counter(t_deck("classic"))
    assert after.holdings == after.used_t == after.piles == [[], []]
    assert sorted([*after.deck, *after.table, *after.hands[0], *after.hands[1]]) == sorted(
        cards_of_colours(cfg.colours)
    )
    assert check_invariants(after) == []
    other = state.clone()
    other.rng += 1
    assert apply(other, 0, Discard(0))[0].deck != after.deck


# --- A32, A34, A35, A39, A41, A42 --------------------------------------------------------------------------


def test_a32_blue_card_is_not_a_number_card() -> None:
    assert all(1 <= VALUE[c] <= 6 for c in ALL_CARDS)
    assert sorted(VALUE[c] for c in cards_of_colours(("B",))) == [1, 1, 2, 2, 3, 3, 4, 5, 6]
    assert BLUE_CARD_TARGET == 7
    p = Picker()
    state = build(hands=[p.values(1), p.values(2)], deck=[])
    assert state.target == 7 and all(len(z) == 0 for z in (state.deck, state.table))


def test_a34_engine_refuses_wrong_totals() -> None:
    p = Picker()
    state = build(hands=[p.values(1, 6), p.values(2)], table=p.values(1, 2), deck=[p.take(back=10)])
    with pytest.raises(IllegalActionError) as err:
        check(state, 0, "S1.3")  # 6 + 1 + 2 = 9
    assert err.value.reason == "wrong_total" and err.value.details == {"total": 9, "target": 10}


def test_a35_tweak_is_not_compulsory() -> None:
    p = Picker()
    hand = p.values(3, 5)
    state = build(
        hands=[hand, p.values(1)], table=p.values(2, 2, 2), deck=_filler(p, 3, back=9), tdeck=["joker"]
    )
    sums = sorted(legal_sums(state, 0), key=lambda s: (s.hand, s.table))
    assert sums == [Sum(0, (0, 1, 2)), Sum(1, (0, 1)), Sum(1, (0, 2)), Sum(1, (1, 2))]
    after, events = apply(state, 0, Sum(1, (0, 2)))
    assert after.table == [state.table[1]] and after.holdings[0] == [] and after.tdeck == ["joker"]
    assert not events_of(events, Summed)[0].tweak


def test_a39_leftover_table_cards_score_nobody() -> None:
    p = Picker()
    table = [p.take(value=5, colour="R"), p.take(value=5, colour="O")]
    last = p.take(value=1, colour="G")
    state = build(hands=[[last], []], deck=[], table=table, piles=[[p.take(value=2, colour="B")], []])
    after, events = apply(state, 0, Discard(0))
    (ended,) = events_of(events, RoundEnded)
    assert ended.leftover_table == (*table, last)
    assert ended.points == (1, 0) and after.totals == [1, 0]


def test_a41_one_main_action_per_turn() -> None:
    p = Picker()
    state = build(hands=[p.values(4, 1, 1), p.values(2)], table=p.values(5, 3), deck=_filler(p, 3, back=9))
    after, _ = apply(state, 0, Sum(0, (0,)))
    assert after.current == 1
    with pytest.raises(NotYourTurnError):
        check(after, 0, Sum(1, (0,)))
    with pytest.raises(NotYourTurnError):
        check(after, 0, Discard(0))


@pytest.mark.parametrize(
    ("card", "points"),
    [
        ("R5a", 5),
        ("O5a", 4),
        ("P5a", 4),
        ("R1a", 3),
        ("R6a", 3),
        ("R4a", 3),
        ("O1a", 1),
        ("B6a", 1),
        ("G4a", 1),
    ],
)
def test_a42_scoring_categories(card: str, points: int) -> None:
    assert POINTS[card] == points


def test_a42_points_per_suit() -> None:
    assert sum(POINTS[c] for c in cards_of_colours(("R",))) == 29
    for colour in "OYGBP":
        assert sum(POINTS[c] for c in cards_of_colours((colour,))) == 12
    assert sum(POINTS[c] for c in cards_of_colours(("R", "O", "Y", "G"))) == 65
    assert sum(POINTS[c] for c in cards_of_colours(("R", "O", "Y", "G", "B"))) == 77
    assert sum(POINTS[c] for c in ALL_CARDS) == 89
