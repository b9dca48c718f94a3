"""Engine benchmarks: sum finding, whole games, save and load.

``python benchmarks/engine_bench.py [--games N] [--quick]``

Prints a Markdown table (pasted into BENCHMARKS.md). Everything runs in one
process, so the figures are for one core. Sum finding is compared with the
obvious alternative, enumerating every subset of the table, to show why the
engine works on card values: at 30 cards a full subset pass (about 1e9
subsets) is far too slow to run, so that one figure is extrapolated from a
timed sample of subsets and marked as such.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from functools import partial
from itertools import combinations, islice
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import rng
from engine.ai import greedy_action
from engine.cards import ALL_CARDS, VALUE
from engine.config import GameConfig
from engine.events import Event
from engine.game import apply_in_place, new_game
from engine.state import GameState
from engine.sums import count_vectors, sum_options

TARGET = 9
TABLE_SIZES = (6, 12, 20, 30)
FULL_SUBSET_LIMIT = 20  # above this the plain pass is sampled and extrapolated
SAMPLE_SUBSETS = 1_000_000


def _cards(seed: int) -> list[str]:
    cards = list(ALL_CARDS)
    rng.shuffle(rng.seed_state(seed), cards)
    return cards


def _best_time(fn: Callable[[], object], repeat: int, number: int = 1) -> float:
    """Seconds per call: the best of `repeat` batches of `number` calls (least disturbed by load)."""
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter() - started) / number)
    return best


def value_count(hand: Sequence[str], table: Sequence[str], target: int) -> int:
    """Number of concrete sums, found by value (the engine's way)."""
    per_value = {v: sum(1 for c in hand if VALUE[c] == v) for v in range(1, 7)}
    return sum(o.ways * per_value[o.hand_value] for o in sum_options(hand, table, target))


def _value_cold(hand: Sequence[str], table: Sequence[str]) -> int:
    count_vectors.cache_clear()  # time the real search, not the cache
    return value_count(hand, table, TARGET)


def plain_count(hand: Sequence[str], table: Sequence[str], target: int, limit: int | None = None) -> int:
    """Number of concrete sums by visiting every non-empty subset of the table once."""
    need: dict[int, int] = {}
    for c in hand:
        need[target - VALUE[c]] = need.get(target - VALUE[c], 0) + 1
    values = [VALUE[c] for c in table]
    subsets: Iterable[tuple[int, ...]] = (
        s for r in range(1, len(values) + 1) for s in combinations(values, r)
    )
    if limit is not None:
        subsets = islice(subsets, limit)
    return sum(need.get(sum(s), 0) for s in subsets)


def bench_sums(quick: bool) -> list[tuple[int, float, float, float, bool, int]]:
    """(table size, value ms cold, value us warm, plain ms, plain extrapolated?, sums)."""
    cards = _cards(2026)
    hand = cards[:3]
    rows = []
    for size in TABLE_SIZES:
        table = cards[3 : 3 + size]
        cold = _best_time(partial(_value_cold, hand, table), 5, 200)
        value_count(hand, table, TARGET)
        warm = _best_time(partial(value_count, hand, table, TARGET), 5, 400)
        found = value_count(hand, table, TARGET)
        subsets = 2**size - 1
        limit = 200_000 if quick else SAMPLE_SUBSETS
        if size <= FULL_SUBSET_LIMIT and not (quick and size == FULL_SUBSET_LIMIT):
            plain_time = _best_time(partial(plain_count, hand, table, TARGET), 3 if size < 20 else 2)
            plain = plain_count(hand, table, TARGET)
            if plain != found:
                raise SystemExit(f"count mismatch at {size} cards: plain {plain}, by value {found}")
            extrapolated = False
        else:
            started = time.perf_counter()
            plain_count(hand, table, TARGET, limit=limit)
            plain_time = (time.perf_counter() - started) / limit * subsets
            extrapolated = True
        rows.append((size, cold * 1e3, warm * 1e6, plain_time * 1e3, extrapolated, found))
    return rows


def play_greedy_game(seed: int, players: int = 4) -> int:
    """One full game with every seat greedy; returns the number of actions."""
    state = new_game(GameConfig(players=players), seed)
    actions = 0
    events: list[Event] = []
    while not state.is_over:
        seat = state.current
        apply_in_place(state, seat, greedy_action(state, seat), events)
        events.clear()
        actions += 1
    return actions


def bench_games(games: int) -> tuple[float, float]:
    """(games per second, actions per second) for 4-player all-greedy games."""
    play_greedy_game(10_000)  # warm the sum cache like a long-running process
    started = time.perf_counter()
    actions = sum(play_greedy_game(seed) for seed in range(games))
    elapsed = time.perf_counter() - started
    return games / elapsed, actions / elapsed


def _mid_game_state() -> GameState:
    state = new_game(GameConfig(players=4), 7)
    events: list[Event] = []
    for _ in range(30):
        apply_in_place(state, state.current, greedy_action(state, state.current), events)
    return state


def bench_save_load(rounds: int) -> float:
    """Save and load cycles per second: to_json, dumps, loads, from_json."""
    state = _mid_game_state()
    started = time.perf_counter()
    for _ in range(rounds):
        loaded = GameState.from_json(json.loads(json.dumps(state.to_json())))
    elapsed = time.perf_counter() - started
    assert loaded.to_json() == state.to_json()
    return rounds / elapsed


def _ratio(r: float) -> str:
    return f"{r:,.0f}x" if r >= 10 else f"{r:.2f}x"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300, help="greedy games to time")
    parser.add_argument("--quick", action="store_true", help="smaller samples, for a smoke test")
    args = parser.parse_args(argv)
    games = 20 if args.quick else args.games

    print("| Measure | Figure |")
    print("|---|---|")
    for size, cold, warm, plain, extrapolated, found in bench_sums(args.quick):
        mark = " (extrapolated)" if extrapolated else ""
        print(
            f"| Sums on a {size}-card table, target {TARGET}, 3-card hand ({found:,} concrete sums) "
            f"| by value {cold:.3f} ms cold / {warm:.1f} µs cached; "
            f"every subset {plain:,.3f} ms{mark}; ratio {_ratio(plain / cold)} cold, "
            f"{_ratio(plain / (warm / 1e3))} cached |"
        )
    per_game, per_action = bench_games(games)
    print(f"| 4-player games, all greedy, one core | {per_game:,.0f} games/s ({per_action:,.0f} actions/s) |")
    cycles = 300 if args.quick else 5000
    per_cycle = bench_save_load(cycles)
    print(f"| Save + load a mid-game state (to_json, dumps, loads, from_json) | {per_cycle:,.0f}/s |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
