"""Engine benchmarks: sum finding, whole games, the bot's per-move path.

``python benchmarks/engine_bench.py [--runs 5] [--games 300] [--moves-games 60] [--quick] [--json FILE]``

Median (min–max) of cold runs, each a fresh process (the caches start empty) on one core:
`sum_options` against every subset of the table (30 cards: a sample, extrapolated); greedy
4-player games with `apply_in_place`; the moves of Normal-computer games applied in place and the
bot's way (parse the stored state, `engine.apply`, serialise state and events).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterable, Sequence
from itertools import combinations, islice
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import cold_runs, column, emit, fig, machine, parser, spread, write_json

from engine import apply, rng
from engine.actions import Action
from engine.ai import choose_action, greedy_action
from engine.cards import ALL_CARDS, VALUE
from engine.config import GameConfig
from engine.events import dump_events
from engine.game import apply_in_place, new_game
from engine.state import GameState
from engine.sums import count_vectors, sum_options

TARGET = 9
TABLE_SIZES = (6, 12, 20, 30)
FULL_SUBSET_LIMIT = 20  # above this the plain pass is sampled and extrapolated
SAMPLE_SUBSETS = 1_000_000


def value_count(hand: Sequence[str], table: Sequence[str], target: int) -> int:
    """Number of concrete sums, found by value (the engine's way)."""
    per_value = {v: sum(1 for c in hand if VALUE[c] == v) for v in range(1, 7)}
    return sum(o.ways * per_value[o.hand_value] for o in sum_options(hand, table, target))


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


def bench_sums(quick: bool) -> list[dict[str, Any]]:
    cards = list(ALL_CARDS)
    rng.shuffle(rng.seed_state(2026), cards)
    hand = cards[:3]
    rows = []
    for size in TABLE_SIZES:
        table = cards[3 : 3 + size]

        def cold(table: list[str] = table) -> int:
            count_vectors.cache_clear()  # time the real search, not the cache
            return value_count(hand, table, TARGET)

        calls, started = 50 if quick else 200, time.perf_counter()
        for _ in range(calls):
            cold()
        by_value = (time.perf_counter() - started) / calls
        found = value_count(hand, table, TARGET)
        subsets = 2**size - 1
        if size <= FULL_SUBSET_LIMIT and not (quick and size == FULL_SUBSET_LIMIT):
            started = time.perf_counter()
            plain = plain_count(hand, table, TARGET)
            plain_time = time.perf_counter() - started
            if plain != found:
                raise SystemExit(f"count mismatch at {size} cards: every subset {plain}, by value {found}")
            extrapolated = False
        else:
            limit = 200_000 if quick else SAMPLE_SUBSETS
            started = time.perf_counter()
            plain_count(hand, table, TARGET, limit=limit)
            plain_time = (time.perf_counter() - started) / limit * subsets
            extrapolated = True
        rows.append({"size": size, "sums": found, "value_ms": by_value * 1e3, "plain_ms": plain_time * 1e3})
        rows[-1]["extrapolated"] = extrapolated
    return rows


def bench_games(games: int) -> dict[str, float]:
    """Whole 4-player games with every seat greedy, applied in place."""
    started, actions = time.perf_counter(), 0
    for seed in range(games):
        state = new_game(GameConfig(players=4), seed)
        while not state.is_over:
            apply_in_place(state, state.current, greedy_action(state, state.current), [])
            actions += 1
    elapsed = time.perf_counter() - started
    return {"games_per_s": games / elapsed, "actions_per_s": actions / elapsed, "actions": actions}


def record_games(games: int) -> list[tuple[int, list[tuple[int, Action]]]]:
    """4-player games with every seat the Normal computer (which plays [T!] cards): (seed, moves)."""
    recorded = []
    for seed in range(50_000, 50_000 + games):
        state, moves = new_game(GameConfig(players=4), seed), list[tuple[int, Action]]()
        while not state.is_over:
            action = choose_action(state, state.current, "normal", seed=state.rng ^ len(moves))
            moves.append((state.current, action))
            apply_in_place(state, state.current, action, [])
        recorded.append((seed, moves))
    return recorded


def bench_moves(recorded: list[tuple[int, list[tuple[int, Action]]]]) -> dict[str, float]:
    """The same moves through `apply_in_place` and through the bot's path (parse, apply, dump)."""
    moves = sum(len(m) for _s, m in recorded)
    in_place = parse = applying = serialise = dump = 0.0
    texts = 0
    for seed, game in recorded:
        state, started = new_game(GameConfig(players=4), seed), time.perf_counter()
        for seat, action in game:
            apply_in_place(state, seat, action, [])
        in_place += time.perf_counter() - started
        text = json.dumps(new_game(GameConfig(players=4), seed).to_json(), separators=(",", ":"))
        for seat, action in game:
            t0 = time.perf_counter()
            state = GameState.from_json(json.loads(text))
            t1 = time.perf_counter()
            after, found = apply(state, seat, action)
            t2 = time.perf_counter()
            text = json.dumps(after.to_json(), separators=(",", ":"))
            t3 = time.perf_counter()
            logged = dump_events(found)
            parse, applying, serialise = parse + t1 - t0, applying + t2 - t1, serialise + t3 - t2
            dump += time.perf_counter() - t3
            texts += len(text) + len(logged)
    parts = {"parse_us": parse, "apply_us": applying, "serialise_us": serialise, "events_us": dump}
    bot = parse + applying + serialise + dump
    return {k: v / moves * 1e6 for k, v in parts.items()} | {
        "moves": moves,
        "in_place_per_s": moves / in_place,
        "in_place_us": in_place / moves * 1e6,
        "bot_per_s": moves / bot,
        "bot_us": bot / moves * 1e6,
        "bytes_per_move": texts / moves,
    }


def child(args: argparse.Namespace) -> None:
    figures: dict[str, Any] = {"sums": bench_sums(args.quick)}
    figures["games"] = bench_games(20 if args.quick else args.games)
    figures["moves"] = bench_moves(record_games(6 if args.quick else args.moves_games))
    emit(figures)


def _ratio(r: float) -> str:
    return f"{r:,.0f}x" if r >= 10 else f"{r:.2f}x"


def report(results: list[dict[str, Any]], args: argparse.Namespace) -> None:
    n = len(results)
    print(f"\nEngine, {n} cold runs; {machine(results)}\n")
    print("| Measure | Median of the cold runs (min–max) |")
    print("|---|---|")
    for i, size in enumerate(TABLE_SIZES):
        value = column(results, "sums", i, "value_ms")
        plain = column(results, "sums", i, "plain_ms")
        ratio = [p / v for p, v in zip(plain, value, strict=True)]
        found = int(results[0]["sums"][i]["sums"])
        extrapolated = bool(results[0]["sums"][i]["extrapolated"])
        mark = " **extrapolated**" if extrapolated else ""
        plain_text = spread(plain, lambda v: f"{v / 1000:,.1f} s" if v >= 10_000 else f"{v:,.2f} ms")
        print(
            f"| Sums on a {size}-card table, target {TARGET}, 3-card hand ({found:,} concrete sums) "
            f"| by value {spread(value, lambda v: f'{v:.3f}')} ms; every subset {plain_text}{mark}; "
            f"ratio {spread(ratio, _ratio)} |"
        )
    games = args.games if not args.quick else 20
    print(
        f"| {games} 4-player games, every seat greedy (`apply_in_place`) | "
        f"{fig(results, 'games', 'games_per_s', f=lambda v: f'{v:,.0f}')} games/s "
        f"({fig(results, 'games', 'actions_per_s', f=lambda v: f'{v:,.0f}')} actions/s) |"
    )
    moves = int(results[0]["moves"]["moves"])
    print(
        f"| A move with `apply_in_place` ({moves:,} moves of Normal-computer games) | "
        f"{fig(results, 'moves', 'in_place_per_s', f=lambda v: f'{v:,.0f}')} moves/s "
        f"({fig(results, 'moves', 'in_place_us')} µs each) |"
    )
    print(
        f"| The same moves the bot's way: parse the stored JSON, `engine.apply`, `to_json` + `json.dumps`, "
        f"`dump_events` | {fig(results, 'moves', 'bot_per_s', f=lambda v: f'{v:,.0f}')} moves/s "
        f"({fig(results, 'moves', 'bot_us')} µs each: parse "
        f"{fig(results, 'moves', 'parse_us')}, apply {fig(results, 'moves', 'apply_us')}, "
        f"serialise {fig(results, 'moves', 'serialise_us')}, events "
        f"{fig(results, 'moves', 'events_us')}) |"
    )
    print(f"\n(state + events text per move: {results[0]['moves']['bytes_per_move']:,.0f} bytes)")


def main(argv: Sequence[str] | None = None) -> int:
    options = parser(__doc__, runs=5, db=False)
    options.add_argument("--games", type=int, default=300, help="greedy games to time per run")
    options.add_argument(
        "--moves-games", type=int, default=60, help="Normal-computer games whose moves are timed"
    )
    options.add_argument("--quick", action="store_true", help="smaller samples, for a smoke test")
    args = options.parse_args(argv)
    if args.child:
        child(args)
        return 0
    passed = [f"--games={args.games}", f"--moves-games={args.moves_games}"] + (
        ["--quick"] if args.quick else []
    )
    results = cold_runs(__file__, passed, 2 if args.quick else args.runs, "engine")
    report(results, args)
    write_json(args.json, {"machine": machine(results), "runs": results})
    return 0


if __name__ == "__main__":
    sys.exit(main())
