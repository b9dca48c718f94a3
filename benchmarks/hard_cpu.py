"""Hard's decision time as CPU time on one core: p50 / p90 / p99 / max per player count.

``nice .venv/bin/python benchmarks/hard_cpu.py [--players 2,3,4,6] [--games 3] [--seed 100]
[--json FILE]``

One process plays whole games, Hard in the even seats and Normal in the odd
ones, and times every Hard decision with `time.process_time()` around
`choose_action`. CPU time rather than wall clock, because on a shared machine
the wall clock measures the neighbours; caches shared between cores still
make it rise a little with the load, so the load average is printed with it.
Run it cold (a fresh process), more than once, and report the spread.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import GameConfig, new_game
from engine.ai import choose_action
from engine.game import apply_in_place
from engine.simulate import decision_seed


def seat_levels(players: int) -> list[str]:
    """Hard in the even seats, Normal in the odd ones: Hard meets Normal at every count."""
    return ["hard" if s % 2 == 0 else "normal" for s in range(players)]


def hard_times(players: int, games: int, seed: int) -> list[float]:
    """CPU seconds of every Hard decision in `games` whole games from deals seed, seed + 1, ..."""
    config = GameConfig(players=players)
    levels = seat_levels(players)
    times: list[float] = []
    for game in range(games):
        state = new_game(config, seed + game)
        while not state.is_over:
            seat = state.current
            started = time.process_time()
            action = choose_action(state, seat, levels[seat], decision_seed(seed + game, state))
            if levels[seat] == "hard":
                times.append(time.process_time() - started)
            apply_in_place(state, seat, action, [])
    return times


def percentiles(seconds: Sequence[float]) -> dict[str, float]:
    """Nearest-rank p50, p90, p99 and the max, in milliseconds."""
    ordered = sorted(seconds)

    def rank(q: float) -> float:
        return round(ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))] * 1000, 1)

    return {"p50": rank(0.5), "p90": rank(0.9), "p99": rank(0.99), "max": rank(1.0)}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("--players", default="2,3,4,6", help="player counts, comma-separated")
    parser.add_argument("--games", type=int, default=3, help="whole games per player count")
    parser.add_argument("--seed", type=int, default=100, help="first deal")
    parser.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    args = parser.parse_args(argv)
    report = {}
    print("| Players | Hard decisions | p50 / p90 / p99 / max (ms of CPU) | Load average (1 min) |")
    print("|---|---|---|---|")
    for players in (int(p) for p in args.players.split(",")):
        times = hard_times(players, args.games, args.seed)
        ms = percentiles(times)
        load = os.getloadavg()[0]
        report[players] = {"decisions": len(times), **ms, "load": round(load, 2)}
        spread = f"{ms['p50']} / {ms['p90']} / {ms['p99']} / {ms['max']}"
        print(f"| {players} | {len(times)} | {spread} | {load:.1f} |")
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
