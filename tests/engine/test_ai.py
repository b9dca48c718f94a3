"""The computer players: legal, deterministic, blind to hidden cards, and each level as promised."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from engine import (
    Discard,
    GameConfig,
    GameOverError,
    GameState,
    NotYourTurnError,
    PlayJoker,
    PlayThief,
    Sum,
    apply,
    check_invariants,
    is_legal,
    new_game,
    seat_view,
    t_actions,
)
from engine.ai import ALIASES, LEVELS, POLICIES, choose_action, greedy_action, level_name
from engine.ai.sampling import sample_world, world_config
from engine.cards import ALL_CARDS, BALANCED_BACK
from engine.simulate import decision_seed
from engine.views import unseen_cards

from .helpers import Picker, build
from .hidden import reshuffled

MIXES = (["easy", "hard", "normal"], ["easy"], ["hard"], ["normal", "easy"])


def _positions(config: GameConfig, seed: int, levels: list[str]) -> Iterator[GameState]:
    """Every state reached in one AI game, including those between a [T!] and its main action."""
    state = new_game(config, seed)
    while not state.is_over:
        yield state
        seat = state.current
        action = choose_action(state, seat, levels[seat % len(levels)], decision_seed(seed, state))
        state, _ = apply(state, seat, action)
    yield state


def _sample_states() -> list[GameState]:
    states: list[GameState] = []
    for seed, players in enumerate((2, 3, 4, 6, 5, 3, 2, 4, 6)):
        config = GameConfig(
            players=players,
            edition="extended" if seed % 2 else "classic",
            target_score=40,
            won_t_face_down=seed % 4 == 3,
            back_numbers="random" if seed % 3 == 2 else "balanced",
        )
        states.extend(_positions(config, seed, MIXES[seed % len(MIXES)]))
    return states


ALL_STATES = _sample_states()
STATES = [s for s in ALL_STATES if not s.is_over]


def _state(hand: list[str], table: list[str], target: int, holdings: list[str] | None = None) -> GameState:
    """A 2-player position for seat 0 with a chosen base target and plenty of deck left."""
    other = ["P1a", "P1b", "P2a"]
    used = {*hand, *table, *other}
    spare = [c for c in ALL_CARDS if c not in used]
    top = next(c for c in spare if BALANCED_BACK[c] == target)
    deck = [*[c for c in spare if c != top][:10], top]
    return build(2, hands=[hand, other], table=table, deck=deck, holdings=[holdings or [], []], rng=99)


# --- the contract with the bot -----------------------------------------------------------------


def test_every_level_plays_and_every_old_name_stands_for_a_level() -> None:
    assert LEVELS and len(set(LEVELS)) == len(LEVELS)
    assert set(POLICIES) == set(LEVELS)
    for level in LEVELS:
        assert level_name(level) == level
    for old, new in ALIASES.items():
        assert old not in LEVELS
        assert new in LEVELS
        assert level_name(old) == new
        for i, state in enumerate(STATES[::97]):
            mine = choose_action(state, state.current, old, 7 + i)
            assert mine == choose_action(state, state.current, new, 7 + i)
    with pytest.raises(ValueError, match="unknown AI level"):
        level_name("impossible")


def test_sample_covers_every_kind_of_position() -> None:
    assert len(STATES) > 300
    assert any(s.t_played is not None for s in STATES)
    assert any(len(s.table) >= 8 for s in STATES)
    assert any(not s.deck for s in STATES)
    assert any(s.config.won_t_face_down and any(s.holdings) for s in STATES)
    assert any(s.config.back_numbers == "random" for s in STATES)
    assert {s.players for s in STATES} == {2, 3, 4, 5, 6}


@pytest.mark.parametrize("level", LEVELS)
def test_every_level_returns_a_legal_action(level: str) -> None:
    states = STATES if level != "hard" else STATES[::6]
    for i, state in enumerate(states):
        action = choose_action(state, state.current, level, seed=i)
        assert is_legal(state, state.current, action), (level, i, action)


@pytest.mark.parametrize("level", LEVELS)
def test_same_seed_same_action_and_state_untouched(level: str) -> None:
    for i, state in enumerate(STATES[::23]):
        saved = state.to_json()
        first = choose_action(state, state.current, level, seed=1000 + i)
        assert choose_action(state, state.current, level, seed=1000 + i) == first
        assert choose_action(GameState.from_json(saved), state.current, level, seed=1000 + i) == first
        assert state.to_json() == saved


def test_wrong_seat_game_over_and_unknown_level() -> None:
    state = STATES[0]
    other = (state.current + 1) % state.players
    with pytest.raises(NotYourTurnError):
        choose_action(state, other, "normal", 0)
    with pytest.raises(ValueError, match="easy, normal, hard"):
        choose_action(state, state.current, "genius", 0)
    over = next(s for s in ALL_STATES if s.is_over)
    for level in (*LEVELS, "smart"):
        with pytest.raises(GameOverError):
            choose_action(over, over.current, level, 0)


# --- never a hidden card -----------------------------------------------------------------------


@pytest.mark.parametrize("level", LEVELS)
def test_reshuffling_what_the_seat_cannot_see_never_changes_a_decision(level: str) -> None:
    """Other hands, the deck below the top's back, the [T!] deck, hidden holdings, the engine's RNG."""
    states = STATES[::4] if level != "hard" else STATES[::20]
    changed = 0
    for i, state in enumerate(states):
        seat = state.current
        mine = choose_action(state, seat, level, seed=i)
        for k in range(2):
            other = reshuffled(state, seat, salt=i * 2 + k)
            assert seat_view(other, seat) == seat_view(state, seat)
            changed += other.hands != state.hands or other.deck != state.deck
            assert choose_action(other, seat, level, seed=i) == mine, (level, i, k)
    assert changed > len(states)  # the reshuffles really moved hidden cards


def test_a_level_is_handed_only_the_view() -> None:
    """The policies take a view and the legal [T!] plays; a view holds no hidden card to read."""
    state = next(s for s in STATES if s.players == 4 and s.deck)
    seat = state.current
    mine = seat_view(state, seat)
    hidden = {c for s, h in enumerate(state.hands) if s != seat for c in h} | set(state.deck)
    assert hidden.isdisjoint(mine.table + (mine.hand or ()) + mine.announced)
    assert set(unseen_cards(mine)) == hidden
    options = tuple(t_actions(state, seat))
    for level, policy in POLICIES.items():
        assert policy(mine, options, 5) == choose_action(state, seat, level, 5)


# --- Normal ---------------------------------------------------------------------------------------


def test_normal_takes_a_tweak_over_a_richer_partial_sum() -> None:
    # R5a + Y2a + G2a = 9 is worth 7 points; O4a + the whole table = 9 only 4, but it is a TWEAK (+ a [T!]).
    state = _state(hand=["R5a", "O4a"], table=["Y2a", "G2a", "B1a"], target=9)
    assert choose_action(state, 0, "normal", 0) == Sum(1, (0, 1, 2))


def test_normal_takes_the_most_points_without_a_tweak() -> None:
    # Y1a + a 6 + a 2 = 9: the red 6 (3 points) rather than O6a; no TWEAK is possible.
    state = _state(hand=["Y1a"], table=["O6a", "B2a", "R6a", "G2a", "G1a"], target=9)
    assert choose_action(state, 0, "normal", 0) == Sum(0, (1, 2))
    assert greedy_action(state, 0) == Sum(0, (1, 2))


def test_greedy_action_gives_away_the_cheapest_card_and_never_a_t_card() -> None:
    state = _state(hand=["R5a", "O5a", "Y1a"], table=["B1a"], target=9, holdings=["joker"])
    assert greedy_action(state, 0) == Discard(2)
    with pytest.raises(NotYourTurnError):
        greedy_action(state, 1)


def test_normal_discards_the_card_that_leaves_the_next_player_least() -> None:
    # Deck out: the next target is 7 for sure, and 1, 2 or 5 with the table's 3 make no 7.
    # Dropping the 1 lets a 3 sweep 3 + 1; dropping the 2 lets a 2 sweep 3 + 2; after the 5
    # (3 + 5 = 8) no hand value sweeps, so Normal gives away the 5 although it is worth most.
    p = Picker()
    state = build(hands=[p.non_red(1, 5, 2), p.non_red(6)], table=p.non_red(3), deck=[])
    assert choose_action(state, 0, "normal", 0) == Discard(1)


def test_normal_plays_the_joker_when_it_opens_a_tweak_and_keeps_it_otherwise() -> None:
    # Nothing reaches 9, but O4a + B4a = 8: Joker -1, then the TWEAK.
    state = _state(hand=["O4a", "Y1a", "G1a"], table=["B4a"], target=9, holdings=["joker"])
    assert choose_action(state, 0, "normal", 0) == PlayJoker(-1)
    after, _ = apply(state, 0, PlayJoker(-1))
    assert choose_action(after, 0, "normal", 0) == Sum(0, (0,))
    # A TWEAK is already there; the Joker would only spoil it.
    state = _state(hand=["O5a", "Y1a", "G1a"], table=["B4a"], target=9, holdings=["joker"])
    assert choose_action(state, 0, "normal", 0) == Sum(0, (0,))


def test_normal_robs_the_next_player_once_the_deck_is_out() -> None:
    # No sum at 7 on an empty-deck table of a 6; a stolen card is a turn the victim never plays.
    p = Picker()
    hands = [p.non_red(6), p.non_red(2, 3), p.non_red(4, 4), []]
    state = build(4, hands=hands, table=p.non_red(6), deck=[], holdings=[["thief"], [], [], []])
    assert choose_action(state, 0, "normal", 3) == PlayThief(1)


# --- Easy -----------------------------------------------------------------------------------------


def test_easy_always_sees_a_two_card_sum_but_sometimes_misses_a_long_one() -> None:
    short = _state(hand=["O4a", "Y1a"], table=["B5a", "G1b"], target=9)
    assert {choose_action(short, 0, "easy", seed) for seed in range(40)} == {Sum(0, (0,))}
    # 1 + 2 + 2 + 1 + 3 = 9 needs four table cards: a beginner finds it only now and then.
    long = _state(hand=["Y1a"], table=["O2a", "G2b", "B1a", "O3a"], target=9)
    found = [choose_action(long, 0, "easy", seed) == Sum(0, (0, 1, 2, 3)) for seed in range(200)]
    assert 0 < sum(found) < 100
    assert all(choose_action(long, 0, "normal", seed) == Sum(0, (0, 1, 2, 3)) for seed in range(5))


def test_easy_usually_plays_a_joker_that_plainly_opens_a_sum() -> None:
    state = _state(hand=["O4a", "Y1a", "G1a"], table=["B4a"], target=9, holdings=["joker"])
    plays = [choose_action(state, 0, "easy", seed) == PlayJoker(-1) for seed in range(100)]
    assert sum(plays) > 70


def test_easy_gives_away_its_cheapest_card_more_often_than_not() -> None:
    state = _state(hand=["R5a", "O5a", "Y1a"], table=["B1a"], target=9)
    picks = [choose_action(state, 0, "easy", seed) for seed in range(100)]
    assert all(isinstance(a, Discard) for a in picks)
    assert sum(a == Discard(2) for a in picks) > 70
    assert len(set(picks)) > 1  # careless now and then


# --- Hard -----------------------------------------------------------------------------------------


def test_hard_takes_the_tweak_and_plays_the_joker_that_opens_one() -> None:
    state = _state(hand=["R5a", "O4a"], table=["Y2a", "G2a", "B1a"], target=9)
    assert choose_action(state, 0, "hard", 0) == Sum(1, (0, 1, 2))
    state = _state(hand=["O4a", "Y1a", "G1a"], table=["B4a"], target=9, holdings=["joker"])
    assert choose_action(state, 0, "hard", 0) == PlayJoker(-1)


def test_hard_keeps_its_valuable_cards_when_it_must_discard() -> None:
    # An empty table: whatever is dropped is the next player's only table card. A 5 completes a
    # sum for every target from 7 to 10; the 1 only for a 7 (with a 6), and it is worth 1 point.
    state = _state(hand=["R5a", "O5a", "Y1a"], table=[], target=10)
    assert all(choose_action(state, 0, "hard", seed) == Discard(2) for seed in range(3))


def test_sampled_games_agree_with_what_the_seat_sees() -> None:
    """Each sample is a whole game the seat could be in: same view, every card once, the top's back kept."""
    for i, state in enumerate(STATES[::40]):
        seat = state.current
        mine = seat_view(state, seat)
        world = sample_world(mine, world_config(mine), unseen_cards(mine), seed=i)
        assert world is not None
        theirs = seat_view(world, seat)
        for name in ("hand", "table", "base_target", "target", "deck_size", "tdeck_size", "hand_sizes"):
            assert getattr(theirs, name) == getattr(mine, name), name
        assert theirs.holdings == mine.holdings and theirs.used_t == mine.used_t
        assert theirs.holding_counts == mine.holding_counts
        assert [a + b for a, b in zip(world.totals, theirs.scores_round, strict=True)] == [
            a + b for a, b in zip(mine.totals, mine.scores_round, strict=True)
        ]
        placed = sorted([*world.deck, *(c for s, h in enumerate(world.hands) if s != seat for c in h)])
        assert placed == sorted(unseen_cards(mine))
        assert sorted(world.tdeck + [t for h in world.holdings for t in h]) == sorted(
            state.tdeck + [t for h in state.holdings for t in h]
        )


def test_ai_games_reload_strictly_at_every_step() -> None:
    for state in ALL_STATES[::3]:
        assert check_invariants(state) == []
        assert GameState.from_json(state.to_json()) == state
