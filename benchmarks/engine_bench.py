"""Engine benchmarks: sum finding, whole games, the bot's per-move path, save and load.

``python benchmarks/engine_bench.py [--runs 5] [--games 300] [--moves-games 60] [--quick]``

Every figure is the median and the spread (min–max) of ``--runs`` cold runs: each run is a fresh
Python process (``benchmarks/coldrun.py``), so no cache (the sum search's ``count_vectors``, the
bot's parse cache, the interpreter's) is warm from an earlier pass. One process, so one core.

What each run measures:

* **Sums**: the engine's way (`engine.sums.sum_options` on the table's value counts, the search
  cache cleared before every call) against the obvious alternative, every subset of the table
  once. For 30 cards a full subset pass (about 1e9 subsets) is far too slow, so that figure is
  extrapolated from a timed sample and marked as such. The counts must agree (else the run stops).
* **Greedy games**: complete 4-player games, every seat `engine.ai.greedy_action`, applied with
  `apply_in_place` (no invariant checks), from a cold sum cache.
* **A move, two ways**: the same recorded moves (4-player games, every seat the Normal computer,
  so [T!] cards are played too) applied (a) with `apply_in_place` on a state the caller owns, as
  the simulator does, and (b) the bot's real path per move (`services.moves`): parse the stored
  state text (`json.loads` + `GameState.from_json`, as `services.context.parse_state` does on a
  cache miss), `engine.apply` (checks, copies the state, applies), serialise the new state
  (`to_json` + `json.dumps`, as `context.dump_state`) and the move's events
  (`engine.events.dump_events`, stored in the move log). Each step is timed on its own.
* **Save + load** of a mid-game state (`to_json`, `dumps`, `loads`, `from_json`).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations, islice
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from coldrun import add_child_arguments, cold_runs, column, emit, fig, machine, spread

from engine import apply, rng
from engine.actions import Action
from engine.ai import choose_action, greedy_action
from engine.cards import ALL_CARDS, VALUE
from engine.config import GameConfig
from engine.events import Event, dump_events
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


def _per_call(fn: Callable[[], object], calls: int) -> float:
    started = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - started) / calls


def bench_sums(quick: bool) -> list[dict[str, Any]]:
    cards = _cards(2026)
    hand = cards[:3]
    rows = []
    for size in TABLE_SIZES:
        table = cards[3 : 3 + size]

        def cold(table: list[str] = table) -> int:
            count_vectors.cache_clear()  # time the real search, not the cache
            return value_count(hand, table, TARGET)

        by_value = _per_call(cold, 50 if quick else 200)
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
        rows.append(
            {
                "size": size,
                "sums": found,
                "value_ms": by_value * 1e3,
                "plain_ms": plain_time * 1e3,
                "extrapolated": extrapolated,
            }
        )
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


def bench_games(games: int) -> dict[str, float]:
    started = time.perf_counter()
    actions = sum(play_greedy_game(seed) for seed in range(games))
    elapsed = time.perf_counter() - started
    return {"games_per_s": games / elapsed, "actions_per_s": actions / elapsed, "actions": actions}


@dataclass
class Recorded:
    config: GameConfig
    seed: int
    moves: list[tuple[int, Action]]


def record_games(games: int, players: int = 4) -> list[Recorded]:
    """Games with every seat the Normal computer (which plays [T!] cards), their moves kept."""
    recorded = []
    for seed in range(games):
        config = GameConfig(players=players)
        state = new_game(config, 50_000 + seed)
        moves: list[tuple[int, Action]] = []
        events: list[Event] = []
        while not state.is_over:
            seat = state.current
            action = choose_action(state, seat, "normal", seed=state.rng ^ len(moves))
            apply_in_place(state, seat, action, events)
            events.clear()
            moves.append((seat, action))
        recorded.append(Recorded(config, 50_000 + seed, moves))
    return recorded


def bench_moves(recorded: list[Recorded]) -> dict[str, float]:
    """The same moves through `apply_in_place` and through the bot's path (parse, apply, dump)."""
    moves = sum(len(r.moves) for r in recorded)
    in_place = 0.0
    for game in recorded:
        state = new_game(game.config, game.seed)
        events: list[Event] = []
        started = time.perf_counter()
        for seat, action in game.moves:
            apply_in_place(state, seat, action, events)
            events.clear()
        in_place += time.perf_counter() - started
    parse = applying = serialise = dump = 0.0
    texts = 0
    for game in recorded:
        text = json.dumps(new_game(game.config, game.seed).to_json(), separators=(",", ":"))
        for seat, action in game.moves:
            t0 = time.perf_counter()
            state = GameState.from_json(json.loads(text))
            t1 = time.perf_counter()
            after, found = apply(state, seat, action)
            t2 = time.perf_counter()
            text = json.dumps(after.to_json(), separators=(",", ":"))
            t3 = time.perf_counter()
            logged = dump_events(found)
            t4 = time.perf_counter()
            parse += t1 - t0
            applying += t2 - t1
            serialise += t3 - t2
            dump += t4 - t3
            texts += len(text) + len(logged)
    bot = parse + applying + serialise + dump
    return {
        "moves": moves,
        "in_place_per_s": moves / in_place,
        "in_place_us": in_place / moves * 1e6,
        "bot_per_s": moves / bot,
        "bot_us": bot / moves * 1e6,
        "parse_us": parse / moves * 1e6,
        "apply_us": applying / moves * 1e6,
        "serialise_us": serialise / moves * 1e6,
        "events_us": dump / moves * 1e6,
        "bytes_per_move": texts / moves,
    }


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
        GameState.from_json(json.loads(json.dumps(state.to_json())))
    return rounds / (time.perf_counter() - started)


def child(args: argparse.Namespace) -> None:
    figures: dict[str, Any] = {"sums": bench_sums(args.quick)}
    figures["games"] = bench_games(20 if args.quick else args.games)
    figures["moves"] = bench_moves(record_games(6 if args.quick else args.moves_games))
    figures["save_load_per_s"] = bench_save_load(300 if args.quick else 5000)
    emit(figures)


def _ratio(r: float) -> str:
    return f"{r:,.0f}x" if r >= 10 else f"{r:.2f}x"


def report(results: list[dict[str, Any]], args: argparse.Namespace) -> None:
    n = len(results)
    print(f"\nEngine, {n} cold runs; machine: {machine(results)}\n")
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
    print(
        f"| Save + load a mid-game state (`to_json`, `dumps`, `loads`, `from_json`) | "
        f"{fig(results, 'save_load_per_s', f=lambda v: f'{v:,.0f}')}/s |"
    )
    print(f"\n(state + events text per move: {results[0]['moves']['bytes_per_move']:,.0f} bytes)")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="cold runs (fresh processes)")
    parser.add_argument("--games", type=int, default=300, help="greedy games to time per run")
    parser.add_argument(
        "--moves-games", type=int, default=60, help="Normal-computer games whose moves are timed"
    )
    parser.add_argument("--quick", action="store_true", help="smaller samples, for a smoke test")
    add_child_arguments(parser)
    args = parser.parse_args(argv)
    if args.child:
        child(args)
        return 0
    passed = [f"--games={args.games}", f"--moves-games={args.moves_games}"] + (
        ["--quick"] if args.quick else []
    )
    results = cold_runs(__file__, passed, 2 if args.quick else args.runs, "engine")
    report(results, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
