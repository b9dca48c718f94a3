"""RULES §1-§5: components, set-up, the turn, [T!] effects, round and game end.

The decisions of §6.2 have their own file (test_decisions.py); these tests pin
the rules that the seeds state outright.
"""

from __future__ import annotations

from collections import Counter

import pytest

from engine import (
    THRESHOLDS,
    Discard,
    GameConfig,
    GameState,
    IllegalActionError,
    PlayBomb,
    PlayJoker,
    PlayShifter,
    PlayThief,
    Sum,
    apply,
    check,
    check_invariants,
    default_action,
    legal_actions,
    new_game,
    t_actions,
)
from engine.cards import ALL_CARDS, BLUE_CARD_TARGET, COLOUR_OF, VALUE, cards_of_colours
from engine.events import (
    Discarded,
    Event,
    GameEnded,
    Refilled,
    RoundEnded,
    RoundStarted,
    Summed,
    TPlayed,
    TurnStarted,
)

from .helpers import ALL_COLOURS, Picker, build, events_of, legal_sums

# --- §1 components ------------------------------------------------------------


def test_s1_2_each_colour_has_the_same_nine_fronts() -> None:
    for colour in ALL_COLOURS:
        fronts = sorted(VALUE[c] for c in cards_of_colours((colour,)))
        assert fronts == [1, 1, 2, 2, 3, 3, 4, 5, 6]
    assert len(ALL_CARDS) == len(set(ALL_CARDS)) == 54
    assert sum(VALUE[c] for c in ALL_CARDS) == 162
    assert Counter(VALUE[c] for c in ALL_CARDS) == {1: 12, 2: 12, 3: 12, 4: 6, 5: 6, 6: 6}


def test_s1_2_card_ids_are_colour_value_copy() -> None:
    assert {COLOUR_OF[c] for c in ALL_CARDS} == set(ALL_COLOURS)
    for c in ALL_CARDS:
        assert c[0] == COLOUR_OF[c] and int(c[1]) == VALUE[c] and c[2] in "ab"


# --- §2 set-up ------------------------------------------------------------------


@pytest.mark.parametrize(("players", "deck_size"), [(2, 28), (3, 25), (4, 31), (5, 37), (6, 34)])
def test_s2_4_set_up_sizes(players: int, deck_size: int) -> None:
    state = new_game(GameConfig(players), seed=players)
    assert [len(h) for h in state.hands] == [3] * players
    assert len(state.table) == 2
    assert len(state.deck) == deck_size
    assert len(state.tdeck) == 10
    assert state.holdings == state.piles == state.used_t == [[] for _ in range(players)]
    assert state.round == 1 and state.turn == 1 and state.totals == [0] * players
    assert check_invariants(state) == []


def test_s2_3_first_dealer_is_random() -> None:
    dealers = {new_game(GameConfig(4), seed).dealer for seed in range(40)}
    assert dealers == {0, 1, 2, 3}


def test_s2_4_deal_depends_on_seed_only() -> None:
    a = new_game(GameConfig(3), 99)
    assert a.to_json() == new_game(GameConfig(3), 99).to_json()
    assert a.to_json() != new_game(GameConfig(3), 100).to_json()


# --- §3 the turn ------------------------------------------------------------------


def test_s3_2_target_is_back_of_top_deck_card() -> None:
    p = Picker()
    for back in (7, 8, 9, 10):
        state = build(hands=[[p.take()], [p.take()]], deck=[p.take(back=7), p.take(back=back)])
        assert state.base_target == state.target == back


def test_s3_2_target_is_7_once_deck_is_out() -> None:
    p = Picker()
    state = build(hands=[[p.take()], [p.take()]], deck=[])
    assert state.target == BLUE_CARD_TARGET == 7


def test_s3_5_1_sum_wins_hand_card_and_chosen_table_cards() -> None:
    p = Picker()
    hand = [p.take(value=4), p.take(value=6), p.take(value=6)]
    table = [p.take(value=3), p.take(value=1), p.take(value=2)]
    deck = [p.take(back=8), p.take(back=9)]
    state = build(hands=[hand, [p.take()]], table=table, deck=deck)
    after, events = apply(state, 0, "S0.5")  # 4 + 3 + 2 = 9, table positions 0 and 2
    assert after.piles[0] == [hand[0], table[0], table[2]]
    assert after.table == [table[1]]
    (summed,) = events_of(events, Summed)
    assert summed == Summed(0, hand[0], (table[0], table[2]), 9, False, None)
    assert after.hands[0] == [hand[1], hand[2], deck[1]]


def test_s3_5_2_tweak_takes_whole_table_and_wins_a_t_card() -> None:
    p = Picker()
    hand = [p.take(value=5), p.take(value=6), p.take(value=6)]
    table = [p.take(value=1), p.take(value=3)]
    deck = [p.take(), p.take(), p.take(), p.take(back=9)]
    state = build(hands=[hand, [p.take()]], table=table, deck=deck, tdeck=["bomb", "thief"])
    after, events = apply(state, 0, Sum(0, (0, 1)))
    (summed,) = events_of(events, Summed)
    assert summed.tweak and summed.won_t == "thief"
    assert after.holdings[0] == ["thief"] and after.tdeck == ["bomb"]
    assert len(after.table) == 2  # refilled for the next player


def test_s3_5_3_discard_goes_face_up_to_table() -> None:
    p = Picker()
    hand = p.values(1, 2, 3)
    deck = [p.take(), p.take(back=8)]
    state = build(hands=[hand, [p.take()]], table=[p.take()], deck=deck)
    after, events = apply(state, 0, Discard(1))
    assert after.table == [*state.table, hand[1]]
    assert events_of(events, Discarded) == [Discarded(0, hand[1])]
    assert after.hands[0] == [hand[0], hand[2], deck[1]]


def test_s3_6_hand_is_refilled_to_three_at_end_of_turn() -> None:
    p = Picker()
    deck = [p.take() for _ in range(5)]
    state = build(hands=[[p.take(value=1)], [p.take()]], deck=deck)
    after, events = apply(state, 0, Discard(0))
    assert after.hands[0] == [deck[4], deck[3], deck[2]]
    assert after.deck == deck[:2]
    assert events_of(events, Refilled) == [Refilled(0, (deck[4], deck[3], deck[2]), ())]


def test_s3_4_only_one_t_card_per_turn() -> None:
    p = Picker()
    state = build(
        hands=[p.values(1, 2, 3), p.values(4, 5)],
        deck=[p.take(back=8), p.take(back=8)],
        holdings=[["joker", "thief"], []],
    )
    after, _ = apply(state, 0, PlayJoker(1))
    assert t_actions(after, 0) == []
    assert not any(isinstance(a, (PlayThief, PlayJoker)) for a in legal_actions(after, 0))
    with pytest.raises(IllegalActionError) as err:
        check(after, 0, PlayThief(1))
    assert err.value.reason == "one_t_per_turn"


def test_s3_7_deck_out_target_7_and_no_refills() -> None:
    p = Picker()
    hand = [p.take(value=4), p.take(value=6), p.take(value=1)]
    table = [p.take(value=3)]
    state = build(hands=[hand, [p.take(value=2), p.take(value=5)]], table=table, deck=[])
    assert state.target == 7
    after, events = apply(state, 0, Sum(0, (0,)))  # 4 + 3 = 7, a TWEAK
    assert after.hands[0] == [hand[1], hand[2]]
    assert after.table == []  # no 2-card refill either
    assert events_of(events, Refilled) == [Refilled(0, (), ())]
    # Seat 1 faces an empty table: only discards remain (A3).
    assert after.target == 7
    assert legal_actions(after, 1) == [Discard(0), Discard(1)]


# --- §4 [T!] effects ------------------------------------------------------------------


def test_s4_1_thief_moves_a_victim_card_to_table() -> None:
    p = Picker()
    victim = p.values(1, 2, 3)
    state = build(
        3, hands=[[p.take()], victim, p.values(4)], deck=[p.take(back=9)], holdings=[["thief"], [], []]
    )
    after, events = apply(state, 0, PlayThief(1))
    (played,) = events_of(events, TPlayed)
    assert played.kind == "thief" and played.victim == 1 and played.card in victim
    assert after.table == [played.card]
    assert sorted(after.hands[1]) == sorted(c for c in victim if c != played.card)
    assert after.hands[2] == state.hands[2] and after.hands[0] == state.hands[0]
    assert after.current == 0  # the main action is still to come


def test_s4_2_joker_shifts_target_by_one() -> None:
    p = Picker()
    state = build(
        hands=[[p.take(value=6)], [p.take()]],
        table=[p.take(value=4)],
        deck=[p.take(back=9)],
        holdings=[["joker"], []],
    )
    assert legal_sums(state, 0) == []  # 6 + 4 = 10, target 9
    after, _ = apply(state, 0, PlayJoker(1))
    assert after.target == 10 and after.base_target == 9 and after.joker == 1
    assert legal_sums(after, 0) == [Sum(0, (0,))]
    down, _ = apply(state, 0, PlayJoker(-1))
    assert down.target == 8 and legal_sums(down, 0) == []


def test_s4_3_bomb_leaves_the_active_player_alone() -> None:
    p = Picker()
    state = build(2, hands=[p.values(1, 2), p.values(3)], deck=[p.take(back=9)], holdings=[["bomb"], []])
    after, _ = apply(state, 0, PlayBomb())
    assert after.hands[0] == state.hands[0]
    assert after.hands[1] == [] and after.table == state.hands[1]


def test_s4_4_shifter_puts_top_card_on_table_and_next_card_sets_target() -> None:
    p = Picker()
    deck = [p.take(back=10), p.take(back=8)]
    state = build(hands=[p.values(1), [p.take()]], table=[p.take()], deck=deck, holdings=[["shifter"], []])
    assert state.target == 8
    after, events = apply(state, 0, PlayShifter())
    assert after.table == [*state.table, deck[1]]
    assert after.deck == [deck[0]] and after.target == 10
    (played,) = events_of(events, TPlayed)
    assert played.card == deck[1] and played.new_target == 10


# --- §5 round end, scoring, game end ---------------------------------------------------


def test_s5_1_round_needs_deck_empty_and_all_hands_empty() -> None:
    p = Picker()
    state = build(hands=[[p.take()], [p.take()]], deck=[], table=[p.take()])
    mid, events = apply(state, 0, Discard(0))
    assert events_of(events, RoundEnded) == [] and mid.round == 1 and mid.current == 1
    assert events_of(events, TurnStarted) == [TurnStarted(1, 1, 2)]
    end, events = apply(mid, 1, Discard(0))
    assert len(events_of(events, RoundEnded)) == 1 and end.round == 2


def test_s5_1_deck_empty_alone_does_not_end_round() -> None:
    p = Picker()
    state = build(hands=[p.values(1, 2), p.values(3)], deck=[p.take(back=8)], table=[p.take()])
    after, events = apply(state, 0, Discard(0))  # draws the last deck card
    assert after.deck == [] and after.round == 1 and events_of(events, RoundEnded) == []


def test_s5_3_round_score_is_pile_points_plus_two_per_t() -> None:
    p = Picker()
    pile = [
        p.take(value=5, colour="R"),
        p.take(value=5, colour="O"),
        p.take(value=1, colour="R"),
        p.take(value=2, colour="G"),
    ]
    state = build(
        hands=[[p.take()], []],
        deck=[],
        piles=[pile, []],
        holdings=[["joker"], []],
        used_t=[["thief", "bomb"], []],
    )
    assert state.round_score(0) == 5 + 4 + 3 + 1 + 3 * 2
    _, events = apply(state, 0, Discard(0))
    (ended,) = events_of(events, RoundEnded)
    assert ended.points == (19, 0) and ended.totals == (19, 0)


@pytest.mark.parametrize(("players", "threshold"), [(2, 140), (3, 120), (4, 100), (5, 80), (6, 60)])
def test_s5_4_thresholds(players: int, threshold: int) -> None:
    assert THRESHOLDS[players] == threshold
    assert GameConfig(players).threshold == threshold
    assert GameConfig(players, target_score=25).threshold == 25


def _last_play(
    points_needed: int, totals: list[int], config: GameConfig | None = None
) -> tuple[GameState, list[Event]]:
    """Seat 0 discards the round's last card holding a pile worth `points_needed` (non-red 1s)."""
    p = Picker()
    pile = [p.take(value=1, colour=c) for c in "OYGBP" for _ in range(2)][:points_needed]
    assert len(pile) == points_needed
    state = build(
        hands=[[p.take()], []], deck=[], piles=[pile, []], totals=totals, round_points=[totals], config=config
    )
    return apply(state, 0, Discard(0))


def test_s5_4_reaching_threshold_exactly_ends_game() -> None:
    after, events = _last_play(1, [139, 20])
    assert after.is_over and after.winners == [0] and after.totals == [140, 20]
    assert events_of(events, GameEnded) == [GameEnded((0,), (140, 20))]
    assert check_invariants(after) == []


def test_s5_4_below_threshold_deals_next_round() -> None:
    after, events = _last_play(1, [138, 20])  # round 2: round 1 is on record
    assert not after.is_over and after.round == 3 and after.totals == [139, 20]
    assert len(events_of(events, RoundStarted)) == 1


def test_s5_4_target_score_overrides_threshold() -> None:
    cfg = GameConfig(2, colours=ALL_COLOURS, target_score=10)
    after, _ = _last_play(10, [0, 0], config=cfg)
    assert after.is_over and after.winners == [0] and after.totals == [10, 0]
    cfg = GameConfig(2, colours=ALL_COLOURS, target_score=11)
    after, _ = _last_play(10, [0, 0], config=cfg)
    assert not after.is_over


# --- the idle default (DESIGN §1) ----------------------------------------------------------------


def test_default_action_leaves_next_player_fewest_chances() -> None:
    p = Picker()
    # Deck out, so the next target is 7. Dropping the 4 next to the 3 leaves no TWEAK for any
    # hand value (3 + 4 = 7 already); dropping the 1 or the 2 would let a 3 or a 2 sweep the table.
    hand = p.non_red(1, 4, 2)
    state = build(hands=[hand, p.values(5)], table=p.non_red(3), deck=[])
    assert default_action(state, 0) == Discard(1)


def test_default_action_ties_go_to_lowest_index_then_fewest_points() -> None:
    p = Picker()
    same = [p.take(value=1, colour=c) for c in "OYG"]
    state = build(hands=[same, p.values(5)], table=p.non_red(6), deck=[])
    assert default_action(state, 0) == Discard(0)
    mixed = [p.take(value=2, colour="R"), p.take(value=2, colour="B")]
    state = build(hands=[mixed, p.values(5)], table=p.non_red(6), deck=[])
    assert default_action(state, 0) == Discard(1)  # same chances for the next player, keep the red card
