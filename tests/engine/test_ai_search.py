"""Hard's search: fast playouts that keep the rules, a work budget that holds, halving that keeps the best."""

from __future__ import annotations

import math
import random
from dataclasses import replace

import pytest

from engine import GameConfig, GameState, new_game, seat_view
from engine.ai import hard
from engine.ai.hard import successive_halving
from engine.ai.normal import normal_main
from engine.ai.playout import best_sum_fast, play_on, round_over
from engine.ai.sampling import sample_world, world_config
from engine.ai.tactics import sum_value, sums_by_value
from engine.cards import POINTS, T_POINTS
from engine.views import View, unseen_cards

from .test_ai import STATES


def _sample(state: GameState, seed: int) -> GameState:
    mine = seat_view(state, state.current)
    world = sample_world(mine, world_config(mine), unseen_cards(mine), seed)
    assert world is not None
    return world


def _cards(state: GameState) -> list[str]:
    return sorted([*state.deck, *state.table, *(c for h in state.hands for c in h)])


def _t_cards(state: GameState) -> int:
    return len(state.tdeck) + sum(len(h) for h in state.holdings) + sum(len(u) for u in state.used_t)


def test_a_playout_keeps_every_card_and_ends_the_round_in_a_legal_final_state() -> None:
    checked = 0
    for i, state in enumerate(STATES[::15]):
        world = _sample(state, i)
        seat = world.current
        start_cards = _cards(world)
        start_t = _t_cards(world)
        start_tdeck = len(world.tdeck)
        gains = [0] * world.players
        played = play_on(world, seat, own_turns=10_000, gains=gains)
        assert round_over(world) and not world.deck and not any(world.hands)
        assert played >= 1
        # Every number card is still on the table or was won, and the points won are exactly theirs.
        won = [c for c in start_cards if c not in world.table]
        assert sorted([*won, *world.table]) == start_cards
        won_t = start_tdeck - len(world.tdeck)
        assert sum(gains) == sum(POINTS[c] for c in won) + T_POINTS * won_t
        assert _t_cards(world) == start_t
        checked += 1
    assert checked >= 5


def test_the_fast_sum_is_the_one_normal_takes() -> None:
    compared = 0
    for state in STATES[::5]:
        if state.t_played is not None:
            continue
        mine = seat_view(state, state.current)
        hand, table = mine.hand or (), mine.table
        fast = best_sum_fast(hand, table, mine.target, mine.tdeck_size > 0)
        options = sums_by_value(hand, table, mine.target)
        if not options:
            assert fast is None
            continue
        assert fast is not None
        best = max((sum_value(p, t, mine.tdeck_size > 0), used) for _, p, t, used in options)
        assert (fast[0], fast[1]) == best
        assert normal_main(mine) != fast  # a Sum action on one side, a tuple on the other
        compared += 1
    assert compared >= 10


def test_successive_halving_keeps_the_best_arm_when_it_is_close() -> None:
    """Eight arms with noisy values; arm 5 is best by a little, and the halving still finds it."""
    means = [0.0, 0.2, 0.4, 0.1, 0.3, 0.6, 0.5, 0.45]

    def pull(arm: int, d: int) -> tuple[float, int]:
        noise = random.Random(d).gauss(0, 1.0)  # the same noise for every arm on sample d (common numbers)
        return means[arm] + noise + random.Random(d * 100 + arm).gauss(0, 0.1), 10

    assert successive_halving(len(means), pull, budget=4000, min_samples=2) == 5


def test_successive_halving_spends_its_budget_and_overshoots_by_its_minimum_passes_at_most() -> None:
    """The first round's minimum samples, then one pass per round (the rounds halve: < 2 x arms)."""
    spent: list[int] = []

    def pull(arm: int, d: int) -> tuple[float, int]:
        spent.append(7)
        return float(-arm), 7

    for arms, budget in ((2, 100), (5, 700), (12, 2400), (12, 10)):
        spent.clear()
        assert successive_halving(arms, pull, budget, min_samples=2) == 0
        assert sum(spent) <= budget + (2 + 2) * arms * 7
        assert sum(spent) >= min(budget, arms * 7 * 2) - 7 * arms


def test_hard_keeps_to_its_work_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    """The turns played per decision stay within the budget (plus one pass of the first round)."""
    played: list[int] = []
    rollout = hard._rollout

    def counting(*args: object) -> tuple[float, int]:
        value, work = rollout(*args)  # type: ignore[arg-type]
        played[-1] += work
        return value, work

    monkeypatch.setattr(hard, "_rollout", counting)
    for i, state in enumerate(STATES[::30]):
        mine = seat_view(state, state.current)
        played.append(0)
        hard.hard_action(mine, (), seed=i)
        assert played[-1] <= hard.BUDGET[state.players] * 1.5, (i, played[-1])
    assert max(played) > 0


def test_hard_decides_the_same_from_the_same_seed_in_a_fresh_game() -> None:
    state = new_game(GameConfig(players=6), 11)
    mine = seat_view(state, state.current)
    first = hard.hard_action(mine, (), 3)
    assert all(hard.hard_action(mine, (), 3) == first for _ in range(2))


def test_a_round_that_ends_the_game_is_judged_by_who_ends_on_top() -> None:
    """Finishing first beats a few more points that leave another seat first, once the game ends."""
    state = new_game(GameConfig(players=3), 5)
    judge = hard.Judge(weights=[0.0, 0.5, 0.5], standing=[100, 110, 90], threshold=120, own_turns=1)
    first = hard._score(state, 0, [22, 9, 0], judge, over=True)  # 122 to 119: the game is won
    richer = hard._score(state, 0, [30, 21, 0], judge, over=True)  # more points, but 130 to 131
    assert first > richer
    shared = hard._score(state, 0, [22, 12, 0], judge, over=True)  # 122 and 122: the top shared
    assert first > shared > richer
    not_yet = hard.Judge(weights=[0.0, 0.5, 0.5], standing=[10, 20, 0], threshold=120, own_turns=1)
    assert hard._score(state, 0, [22, 9, 0], not_yet, over=True) == 22 - 4.5  # the game goes on


def test_before_the_rounds_end_a_lead_over_the_best_of_the_others_counts_in_a_closing_round() -> None:
    """The same points against the others' mean score more when they leave the seat ahead of the
    best of them, in a round that may end the game; in another round they score the same."""
    state = new_game(GameConfig(players=3), 5)
    state.hands = [[], [], []]  # no hand points to tip the lead either way
    closing = hard.Judge(
        weights=[0.0, 0.5, 0.5], standing=[100, 100, 100], threshold=120, own_turns=1, lead_scale=8.0
    )
    level = hard._score(state, 0, [10, 10, 0], closing, over=False)  # level with seat 1
    ahead = hard._score(state, 0, [10, 5, 5], closing, over=False)  # 5 ahead of both
    behind = hard._score(state, 0, [10, 20, -10], closing, over=False)  # 10 behind seat 1
    assert behind < level < ahead
    assert ahead - level == pytest.approx(hard.WIN * (1 / (1 + math.exp(-5 / 8)) - 0.5))
    other = replace(closing, lead_scale=0.0)
    assert hard._score(state, 0, [10, 10, 0], other, over=False) == hard._score(
        state, 0, [10, 5, 5], other, over=False
    )


def test_the_look_ahead_goes_to_the_rounds_end_only_when_the_round_may_end_the_game() -> None:
    state = new_game(GameConfig(players=3), 5)
    mine = seat_view(state, state.current)
    unseen = unseen_cards(mine)
    near_end = replace(mine, deck_size=3, totals=(60, 110, 40))
    in_play = hard._in_play(mine, unseen)  # the points still to win: not the counts, not the standing
    # Leaves the unseen cards as dealt: only the counts and the standing matter to the choice.
    assert hard._own_turns(near_end, in_play) == hard.ROUND_END
    assert hard._own_turns(replace(near_end, totals=(20, 30, 40)), in_play) == hard.OWN_TURNS
    assert hard._own_turns(replace(near_end, deck_size=20), in_play) == hard.OWN_TURNS


def test_a_lead_counts_before_the_rounds_end_in_every_round_that_may_end_the_game_and_no_other() -> None:
    state = new_game(GameConfig(players=3), 5)
    mine = seat_view(state, state.current)
    in_play = hard._in_play(mine, unseen_cards(mine))
    closing = replace(mine, totals=(60, 110, 40))  # a long deck still: the look-ahead stops early
    assert hard._own_turns(closing, in_play) == hard.OWN_TURNS
    assert hard._lead_scale(closing, in_play) > 0
    assert hard._lead_scale(replace(closing, totals=(20, 30, 40)), in_play) == 0


def _standing_view(players: int, totals: tuple[int, ...]) -> View:
    state = new_game(GameConfig(players=players), 7)
    return replace(seat_view(state, 0), totals=totals, scores_round=(0,) * players)


def test_at_four_players_the_others_count_alike_whatever_their_standing() -> None:
    """With three opponents, guarding only the leader lets the other two through (measured)."""
    weights = hard._weights(_standing_view(4, (10, 80, 20, 0)), seat=0)
    assert weights[0] == 0.0
    assert weights[1:] == pytest.approx([1 / 3] * 3)


@pytest.mark.parametrize("players", [5, 6])
def test_from_five_players_the_leader_counts_most(players: int) -> None:
    """At 5 players, as at 6, weighing by standing beat equal weights (measured)."""
    weights = hard._weights(_standing_view(players, (10, 80, 20, 0, 40, 40)[:players]), seat=0)
    assert weights[0] == 0.0
    assert sum(weights) == pytest.approx(1.0)
    assert weights[1] > weights[4] > weights[2] > weights[3]
    assert weights[1] > 0.5


def test_at_six_players_players_level_on_points_count_alike() -> None:
    weights = hard._weights(_standing_view(6, (10, 80, 20, 0, 40, 40)), seat=0)
    assert weights[4] == pytest.approx(weights[5])
    assert weights[1] > 0.5  # 40 points ahead of the next: the leader counts more than the rest together
