"""The computer players' ladder: every pairing of levels, head to head, in every seat order.

``nice .venv/bin/python benchmarks/ai_ladder.py [--players 2,3,4,6] [--deals 2:150,3:50,4:50,6:15]
[--seed 0] [--jobs 2] [--pairs normal:hard] [--json FILE] [--paired BASE.json NEW.json]``

Each deal is played once in every distinct seating of an even split of the seats between the two
levels. A game scores 1 for the level whose seats alone share the top total, 1/2 on a mixed tie;
the 95 % interval takes each deal as one sample; games replay exactly from their seeds. Also per
level: points per round, the share of turns with a [T!] card; a Bradley-Terry rating on the Elo
scale (Easy = 0). ``--paired`` compares two runs of the same deals deal by deal.

``--timing [--runs 3] [--games 3]``: Hard's decision time as CPU time on one core (Hard in the
even seats, Normal in the odd, deals 100, 101, ...), p50 / p99 / max per player count, median
(min–max) of cold processes.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from itertools import combinations, permutations
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import cold_runs, emit, machine, parser, pct, spread, write_json

from engine.ai import LEVELS, choose_action
from engine.config import GameConfig
from engine.game import apply_in_place, new_game
from engine.simulate import Stats, decision_seed, play_game

Z95 = 1.959963984540054
DEFAULT_DEALS = {2: 150, 3: 50, 4: 50, 6: 15}


def splits(players: int) -> list[tuple[int, int]]:
    """Seats for (A, B): an even split, or both near-even splits for an odd count."""
    half = players // 2
    return [(half, half)] if players % 2 == 0 else [(half, players - half), (players - half, half)]


def seatings(a: str, b: str, players: int) -> list[tuple[str, ...]]:
    """Every distinct seating of every split, each once."""
    found: list[tuple[str, ...]] = []
    for na, nb in splits(players):
        found.extend(sorted(set(permutations([a] * na + [b] * nb))))
    return found


@dataclass
class Cell:
    """One pairing at one player count."""

    players: int
    a: str
    b: str
    deal_scores: list[float] = field(default_factory=list)  # A's mean score per deal
    games: int = 0
    points: Counter[str] = field(default_factory=Counter)
    rounds: Counter[str] = field(default_factory=Counter)


def play_deals(players: int, a: str, b: str, seeds: Sequence[int]) -> dict[str, Any]:
    """Worker: every seating of (a, b) for each seed; returns the deal scores and the level counts."""
    config = GameConfig(players=players)
    orders = seatings(a, b, players)
    stats = Stats(players)
    deal_scores: list[float] = []
    for seed in seeds:
        score = 0.0
        for number, order in enumerate(orders):
            state = play_game(config, seed, order, stats, number, check=False)
            top = {order[s] for s in state.winners}
            score += 1.0 if top == {a} else 0.0 if top == {b} else 0.5
        deal_scores.append(score / len(orders))
    counts = {"points": stats.level_points, "rounds": stats.level_rounds, "turns": stats.level_turns}
    counts["t_turns"] = stats.level_t_turns
    return {"deal_scores": deal_scores, "games": stats.games, **{k: dict(v) for k, v in counts.items()}}


def interval(scores: Sequence[float]) -> tuple[float, float, float]:
    """Mean and 95 % normal interval over independent deals."""
    n = len(scores)
    mean = sum(scores) / n
    if n < 2:
        return mean, 0.0, 1.0
    sd = math.sqrt(sum((x - mean) ** 2 for x in scores) / (n - 1))
    half = Z95 * sd / math.sqrt(n)
    return mean, max(0.0, mean - half), min(1.0, mean + half)


def bradley_terry(results: Sequence[tuple[str, str, float, int]], levels: Sequence[str]) -> dict[str, float]:
    """Elo-scale ratings (first level = 0) from (a, b, a's score, games) by the MM algorithm."""
    wins: dict[str, float] = defaultdict(float)
    games: dict[tuple[str, str], int] = defaultdict(int)
    for a, b, score, n in results:
        wins[a] += score
        wins[b] += n - score
        games[a, b] += n
        games[b, a] += n
    strength = dict.fromkeys(levels, 1.0)
    for _ in range(2000):
        new = {}
        for i in levels:
            denom = sum(games[i, j] / (strength[i] + strength[j]) for j in levels if j != i and games[i, j])
            new[i] = max(wins[i], 0.5) / denom if denom else strength[i]
        norm = new[levels[0]]
        strength = {k: x / norm for k, x in new.items()}
    return {k: round(400 * math.log10(x), 1) for k, x in strength.items()}


def run(
    players_list: Sequence[int],
    deals: dict[int, int],
    seed: int,
    jobs: int,
    pairs: Sequence[tuple[str, str]] | None = None,
) -> dict[str, Any]:
    cells: dict[tuple[int, str, str], Cell] = {}
    totals: dict[str, Counter[str]] = defaultdict(Counter)
    tasks = []
    started = time.perf_counter()
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        for players in players_list:
            for a, b in pairs or list(combinations(LEVELS, 2)):
                cells[players, a, b] = Cell(players, a, b)
                seeds = [seed + d for d in range(deals[players])]
                chunk = max(1, math.ceil(len(seeds) / (jobs * 2)))
                for i in range(0, len(seeds), chunk):
                    tasks.append(
                        ((players, a, b), pool.submit(play_deals, players, a, b, seeds[i : i + chunk]))
                    )
        for key, future in tasks:
            out = future.result()
            cell = cells[key]
            cell.deal_scores.extend(out["deal_scores"])
            cell.games += out["games"]
            for name in ("points", "rounds", "turns", "t_turns"):
                for lv, x in out[name].items():
                    totals[name][lv] += x
                    if name in ("points", "rounds"):
                        getattr(cell, name)[lv] += x
    report: dict[str, Any] = {"seconds": round(time.perf_counter() - started, 1), "cells": [], "ratings": {}}
    by_count: dict[int, list[tuple[str, str, float, int]]] = defaultdict(list)
    for (players, a, b), cell in cells.items():
        mean, lo, hi = interval(cell.deal_scores)
        found = {"players": players, "a": a, "b": b, "deals": len(cell.deal_scores), "games": cell.games}
        found |= {"b_win": round(1 - mean, 4), "b_win_95": [round(1 - hi, 4), round(1 - lo, 4)], "seed": seed}
        found["points_per_round"] = {lv: round(cell.points[lv] / cell.rounds[lv], 2) for lv in (a, b)}
        report["cells"].append(found | {"deal_scores": [round(x, 6) for x in cell.deal_scores]})
        by_count[players].append((a, b, mean * cell.games, cell.games))
    for players, results in sorted(by_count.items()):
        report["ratings"][str(players)] = bradley_terry(results, LEVELS)
    report["ratings"]["all"] = bradley_terry([r for rs in by_count.values() for r in rs], LEVELS)
    report["totals"] = {name: dict(counts) for name, counts in totals.items()}
    report["levels"] = _levels(totals)
    return report


def _levels(totals: dict[str, Counter[str]]) -> dict[str, Any]:
    return {
        lv: {
            "points_per_round": round(totals["points"][lv] / totals["rounds"][lv], 2),
            "t_share": round(totals["t_turns"][lv] / totals["turns"][lv], 4),
        }
        for lv in LEVELS
        if totals["rounds"][lv]
    }


def table(report: dict[str, Any]) -> str:
    lines = [
        "| Players | Pairing | Deals x seatings = games | Stronger wins (95 % interval) | Points per round |",
        "|---|---|---|---|---|",
    ]
    for c in report["cells"]:
        lo, hi = c["b_win_95"]
        ppr = " / ".join(f"{c['points_per_round'][lv]:.1f}" for lv in (c["b"], c["a"]))
        lines.append(
            f"| {c['players']} | {c['b']} vs {c['a']} "
            f"| {c['deals']} x {c['games'] // c['deals']} = {c['games']} "
            f"| {c['b_win']:.1%} ({lo:.1%}-{hi:.1%}) | {ppr} |"
        )
    lines.append("")
    lines.append("| Rating (Elo scale, easy = 0) | " + " | ".join(LEVELS) + " |")
    lines.append("|---|" + "---|" * len(LEVELS))
    for key, ratings in report["ratings"].items():
        lines.append(f"| {key} players | " + " | ".join(f"{ratings[lv]:.0f}" for lv in LEVELS) + " |")
    lines.append("")
    lines.append("| Level | Points per round | [T!] share of turns |\n|---|---|---|")
    for lv, d in report["levels"].items():
        lines.append(f"| {lv} | {d['points_per_round']:.1f} | {d['t_share']:.1%} |")
    lines.append(f"\nwall clock {report['seconds']:.0f} s")
    return "\n".join(lines)


def paired(base: dict[str, Any], new: dict[str, Any]) -> str:
    """Per cell found in both runs on the same deals: the stronger level's gain, deal by deal."""
    lines = [
        "| Players | Pairing | Deals | Base | New | Paired difference (95 % interval) |",
        "|---|---|---|---|---|---|",
    ]
    before = {(c["players"], c["a"], c["b"], c.get("seed")): c for c in base["cells"] if "deal_scores" in c}
    for c in new["cells"]:
        old = before.get((c["players"], c["a"], c["b"], c.get("seed")))
        if old is None or "deal_scores" not in c or len(old["deal_scores"]) != len(c["deal_scores"]):
            continue
        diffs = [o - n for o, n in zip(old["deal_scores"], c["deal_scores"], strict=True)]  # B's gain
        mean, lo, hi = _interval_signed(diffs)
        lines.append(
            f"| {c['players']} | {c['b']} vs {c['a']} | {len(diffs)} | {old['b_win']:.1%} | {c['b_win']:.1%} "
            f"| {mean:+.1%} ({lo:+.1%} to {hi:+.1%}) |"
        )
    return "\n".join(lines)


def _interval_signed(xs: Sequence[float]) -> tuple[float, float, float]:
    """Mean and 95 % normal interval of differences (not clipped to 0-1)."""
    n = len(xs)
    mean = sum(xs) / n
    if n < 2:
        return mean, -1.0, 1.0
    half = Z95 * math.sqrt(sum((x - mean) ** 2 for x in xs) / (n - 1)) / math.sqrt(n)
    return mean, mean - half, mean + half


def hard_times(players: int, games: int, seed: int) -> list[float]:
    """CPU seconds of every Hard decision in `games` whole games, Hard in the even seats."""
    levels = ["hard" if s % 2 == 0 else "normal" for s in range(players)]
    times: list[float] = []
    for game in range(games):
        state = new_game(GameConfig(players=players), seed + game)
        while not state.is_over:
            seat = state.current
            started = time.process_time()
            action = choose_action(state, seat, levels[seat], decision_seed(seed + game, state))
            if levels[seat] == "hard":
                times.append(time.process_time() - started)
            apply_in_place(state, seat, action, [])
    return times


def timing(args: argparse.Namespace) -> int:
    """``--timing``: Hard's decision time in cold processes (see the module docstring)."""
    counts = [int(p) for p in args.players.split(",")]
    if args.child:
        figures = {}
        for players in counts:
            times = hard_times(players, args.games, 100)
            figures[str(players)] = {q: 1000 * (pct(times, v) or 0) for q, v in (("p50", 0.5), ("p99", 0.99))}
            figures[str(players)].update(max=1000 * max(times), decisions=len(times))
        emit(figures)
        return 0
    passed = ["--timing", f"--players={args.players}", f"--games={args.games}"]
    runs = cold_runs(__file__, passed, args.runs, "hard timing")
    print(f"\nHard's decisions, ms of CPU, {args.runs} cold runs; {machine(runs)}\n")
    print("| Players | Hard decisions | p50 | p99 | max |\n|---|---|---|---|---|")
    for count in map(str, counts):
        cells = [spread([r[count][q] for r in runs]) for q in ("p50", "p99", "max")]
        print(f"| {count} | {runs[0][count]['decisions']} | " + " | ".join(cells) + " |")
    write_json(args.json, {"machine": machine(runs), "runs": runs})
    return 0


def _pairs(text: str) -> list[tuple[str, str]]:
    """'normal:hard,easy:normal' -> the pairings to play, each (weaker, stronger) as the ladder has them."""
    found = []
    for part in text.split(","):
        x, y = part.split(":")
        found.append((x, y) if LEVELS.index(x) < LEVELS.index(y) else (y, x))
    return found


def _deals(text: str) -> dict[int, int]:
    deals = dict(DEFAULT_DEALS)
    for part in text.split(","):
        players, count = part.split(":")
        deals[int(players)] = int(count)
    return deals


def main(argv: Sequence[str] | None = None) -> int:
    options = parser(__doc__, db=False)  # --runs (with --timing: cold processes), --json
    options.add_argument("--players", default="2,3,4,6", help="player counts, comma-separated")
    options.add_argument("--deals", type=_deals, default=dict(DEFAULT_DEALS), help="per count: 2:150,6:15")
    options.add_argument("--seed", type=int, default=0)
    options.add_argument("--jobs", type=int, default=1, help="worker processes (one core each)")
    options.add_argument("--pairs", type=_pairs, help="only these pairings, e.g. normal:hard")
    options.add_argument("--paired", nargs=2, metavar=("BASE", "NEW"), help="compare two --json runs")
    options.add_argument("--timing", action="store_true", help="Hard's decision time in cold runs")
    options.add_argument("--games", type=int, default=3, help="with --timing: games per player count")
    args = options.parse_args(argv)
    if args.timing:
        return timing(args)
    if args.paired:
        base, new = (json.loads(Path(f).read_text()) for f in args.paired)
        print(paired(base, new))
        return 0
    report = run([int(p) for p in args.players.split(",")], args.deals, args.seed, args.jobs, args.pairs)
    print(table(report) + f"\n{machine()}")
    write_json(args.json, report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
