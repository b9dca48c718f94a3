"""The computer players: always legal, deterministic, and ordered in strength."""

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
    Sum,
    apply,
    is_legal,
    new_game,
)
from engine.ai import AI_LEVEL_FOR_DIFFICULTY, LEVELS, choose_action, greedy_action
from engine.ai_smart import unseen_cards
from engine.cards import ALL_CARDS, BALANCED_BACK
from engine.simulate import decision_seed, simulate

from .helpers import build


def _positions(config: GameConfig, seed: int, levels: list[str]) -> Iterator[GameState]:
    """Every state reached in one AI game, including those between a [T!] and its main action."""
    state = new_game(config, seed)
    while not state.is_over:
        yield state
        seat = state.current
        action = choose_action(state, seat, levels[seat % len(levels)], decision_seed(seed, state))
        state, _ = apply(state, seat, action)


def _sample_states() -> list[GameState]:
    states: list[GameState] = []
    mixes = (["random", "smart", "greedy"], ["random"], ["smart"], ["greedy", "random"])
    for seed, players in enumerate((2, 3, 4, 5, 6, 4, 3, 2)):
        config = GameConfig(players=players, edition="extended" if seed % 2 else "classic")
        states.extend(_positions(config, seed, mixes[seed % len(mixes)]))
    return states


STATES = _sample_states()


def _state(hand: list[str], table: list[str], target: int, holdings: list[str] | None = None) -> GameState:
    """A 2-player position for seat 0 with a chosen base target and plenty of deck left.

    Cards not listed are out of play, except a deck of unused cards whose top
    card has the wanted back number.
    """
    other = ["P1a", "P1b", "P2a"]
    used = {*hand, *table, *other}
    spare = [c for c in ALL_CARDS if c not in used]
    top = next(c for c in spare if BALANCED_BACK[c] == target)
    deck = [*[c for c in spare if c != top][:10], top]
    return build(2, hands=[hand, other], table=table, deck=deck, holdings=[holdings or [], []], rng=99)


def test_levels_and_difficulty_names() -> None:
    assert LEVELS == ("random", "greedy", "smart")
    assert AI_LEVEL_FOR_DIFFICULTY == {"easy": "random", "normal": "greedy", "hard": "smart"}


def test_sample_covers_t_plays_and_mid_turn_states() -> None:
    assert len(STATES) > 1000
    assert any(s.t_played is not None for s in STATES)
    assert any(len(s.table) >= 8 for s in STATES)
    assert any(not s.deck for s in STATES)


@pytest.mark.parametrize("level", LEVELS)
def test_every_level_returns_a_legal_action(level: str) -> None:
    for i, state in enumerate(STATES):
        action = choose_action(state, state.current, level, seed=i)
        assert is_legal(state, state.current, action), (level, i, action)


@pytest.mark.parametrize("level", LEVELS)
def test_same_seed_same_action_and_state_untouched(level: str) -> None:
    for i, state in enumerate(STATES[::7]):
        saved = state.to_json()
        first = choose_action(state, state.current, level, seed=1000 + i)
        assert choose_action(state, state.current, level, seed=1000 + i) == first
        assert choose_action(state.clone(), state.current, level, seed=1000 + i) == first
        assert state.to_json() == saved


def test_random_level_depends_on_the_seed() -> None:
    differs = sum(
        len({choose_action(s, s.current, "random", seed) for seed in range(8)}) > 1 for s in STATES[:100]
    )
    assert differs > 50


def test_wrong_seat_game_over_and_unknown_level() -> None:
    state = STATES[0]
    other = (state.current + 1) % state.players
    with pytest.raises(NotYourTurnError):
        choose_action(state, other, "greedy", 0)
    with pytest.raises(ValueError):
        choose_action(state, state.current, "genius", 0)
    over = state.clone()
    over.status = "over"
    with pytest.raises(GameOverError):
        choose_action(over, over.current, "smart", 0)


def test_random_level_stays_fast_and_legal_on_a_huge_table() -> None:
    cards = [c for c in ALL_CARDS if not c.startswith("P")]
    state = _state(hand=cards[:3], table=cards[3:33], target=9)
    for seed in range(50):
        for level in LEVELS:
            assert is_legal(state, 0, choose_action(state, 0, level, seed))


def test_greedy_takes_a_tweak_over_a_richer_partial_sum() -> None:
    # R5a + Y2a + G2a = 9 is worth 7 points; O4a + the whole table = 9 only 4, but is a TWEAK.
    state = _state(hand=["R5a", "O4a"], table=["Y2a", "G2a", "B1a"], target=9)
    assert greedy_action(state, 0) == Sum(1, (0, 1, 2))


def test_greedy_takes_the_most_points_without_a_tweak() -> None:
    # Y1a + a 6 + a 2 = 9: the red 6 (3 points) rather than O6a, and no TWEAK is possible.
    state = _state(hand=["Y1a"], table=["O6a", "B2a", "R6a", "G2a", "G1a"], target=9)
    assert greedy_action(state, 0) == Sum(0, (1, 2))


def test_greedy_discards_the_cheapest_card_when_nothing_sums() -> None:
    state = _state(hand=["R5a", "O5a", "Y1a"], table=["B1a"], target=9)
    assert greedy_action(state, 0) == Discard(2)


def test_greedy_never_plays_a_t_card() -> None:
    for state in STATES:
        if state.t_played is None and state.holdings[state.current]:
            assert isinstance(greedy_action(state, state.current), (Sum, Discard))
    state = _state(hand=["O4a", "Y1a", "G1a"], table=["B4a"], target=9, holdings=["joker"])
    assert isinstance(greedy_action(state, 0), Discard)


def test_smart_plays_the_joker_when_it_opens_a_tweak() -> None:
    # Nothing reaches 9, but O4a + B4a = 8: Joker -1, then TWEAK.
    state = _state(hand=["O4a", "Y1a", "G1a"], table=["B4a"], target=9, holdings=["joker"])
    action = choose_action(state, 0, "smart", 0)
    assert action == PlayJoker(-1)
    after, _ = apply(state, 0, action)
    assert choose_action(after, 0, "smart", 0) == Sum(0, (0,))


def test_smart_keeps_the_joker_when_it_adds_nothing() -> None:
    # A TWEAK is already there; the Joker would only spoil it.
    state = _state(hand=["O5a", "Y1a", "G1a"], table=["B4a"], target=9, holdings=["joker"])
    assert choose_action(state, 0, "smart", 0) == Sum(0, (0,))


def test_no_level_peeks_at_hidden_cards() -> None:
    """Reordering hidden cards (deck below the top, other hands) never changes a decision."""
    for i, state in enumerate(STATES[::5]):
        seat = state.current
        assert sorted(unseen_cards(state, seat)) == sorted(
            [*state.deck, *(c for s, h in enumerate(state.hands) if s != seat for c in h)]
        )
        hidden = [*state.deck[:-1], *(c for s, h in enumerate(state.hands) if s != seat for c in h)]
        permuted = sorted(hidden, reverse=True)
        moved = state.clone()
        moved.deck = [*permuted[: len(state.deck[:-1])], *state.deck[-1:]]
        rest = permuted[len(state.deck[:-1]) :]
        for s, h in enumerate(state.hands):
            if s != seat:
                moved.hands[s], rest = rest[: len(h)], rest[len(h) :]
        for level in LEVELS:
            assert choose_action(moved, seat, level, i) == choose_action(state, seat, level, i), (level, i)


def test_win_rate_smart_beats_greedy_beats_random() -> None:
    mixed = simulate(games=150, players=4, seed=2026, levels=("smart", "greedy", "random"))
    assert mixed["invariant_violations"] == 0
    rate = mixed["win_rate"]
    assert rate["smart"] > rate["greedy"] > rate["random"]
    head_to_head = simulate(games=60, players=4, seed=7, levels=("greedy", "random"))
    assert head_to_head["win_rate"]["greedy"] > head_to_head["win_rate"]["random"]
    pair = simulate(games=60, players=4, seed=11, levels=("smart", "greedy"))
    assert pair["win_rate"]["smart"] > pair["win_rate"]["greedy"]
