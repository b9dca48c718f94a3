"""Play many seeded games between computer players and report statistics.

``python -m engine.simulate --games N --players P --seed S [--edition E]
[--ai LEVEL[,LEVEL...]] [--json] [--trace FILE]``

`--ai` names one level per seat (``easy,normal,hard`` for three players), or
one level for every seat; a list that does not fit the seats is refused, never
cycled or cut. Each of the N deals (deal g uses engine seed S + g) is played
once per distinct seating of the listed levels, so every level sits in every
seat, and after every other level, equally often: with a weak player at the
table, whoever sits after it inherits its mess, and only a balanced seating
keeps that out of the comparison.

Every state reached is checked with `check_invariants`, and the scores are
cross-checked against the round records, so this is also how the engine is
tested at scale. Any single game can be replayed from its trace header.

`win_rate[level]` is wins per seat-game: the times a seat of that level won
(a shared win counts for each winner) over the seats that level filled, with
a 95 % Wilson interval; comparable between levels even when one fills more
seats than another.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import permutations
from typing import IO, Any

from . import rng
from .ai import LEVELS, choose_action
from .cards import EDITIONS, T_KINDS
from .config import MAX_PLAYERS, MIN_PLAYERS, GameConfig
from .events import Event, LostTurn, Refilled, RoundEnded, Skipped, Summed, TPlayed
from .game import apply_in_place, new_game
from .replay import GameRecorder, header_record
from .state import GameState, check_invariants

MAX_REPORTED_VIOLATIONS = 20
Z95 = 1.959963984540054


def decision_seed(game_seed: int, state: GameState) -> int:
    """A per-decision seed, so an AI's choice depends only on the position."""
    mixed = game_seed * 1_000_003 + state.round * 10_007 + state.turn * 2 + (state.t_played is not None)
    return rng.next_u64(rng.seed_state(mixed))[1]


def seat_levels(levels: Sequence[str], players: int, game: int) -> list[str]:
    """Levels per seat for one game of a series: `levels` cycled over the seats, rotated per game.

    Kept for traces and tests that want a quick mixed table; the simulator
    itself seats levels with `fit_levels` and `seatings`, which never cycle.
    """
    base = [levels[i % len(levels)] for i in range(players)]
    shift = game % players
    return base[shift:] + base[:shift]


def fit_levels(levels: Sequence[str], players: int) -> list[str]:
    """The levels per seat: one per seat, or one for all; ValueError for a list that does not fit."""
    if len(levels) == 1:
        return [levels[0]] * players
    if len(levels) != players:
        raise ValueError(f"{len(levels)} levels for {players} seats: name one level per seat, or one for all")
    return list(levels)


def seatings(levels: Sequence[str]) -> list[tuple[str, ...]]:
    """Every distinct order of the levels over the seats, each once (sorted, so runs are reproducible)."""
    return sorted(set(permutations(levels)))


def wilson(successes: float, trials: int) -> tuple[float, float]:
    """95 % Wilson score interval of a proportion; (0, 1) when there are no trials."""
    if trials <= 0:
        return 0.0, 1.0
    p = successes / trials
    z2 = Z95 * Z95
    centre = (p + z2 / (2 * trials)) / (1 + z2 / trials)
    half = Z95 * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials)) / (1 + z2 / trials)
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass
class Stats:
    """Running counts over many games; `report()` turns them into the JSON object."""

    players: int
    games: int = 0
    rounds: int = 0
    turns: int = 0
    tweaks: int = 0
    t_played: Counter[str] = field(default_factory=Counter)
    points: list[int] = field(default_factory=list)
    wins: Counter[str] = field(default_factory=Counter)
    seat_games: Counter[str] = field(default_factory=Counter)
    level_points: Counter[str] = field(default_factory=Counter)
    level_rounds: Counter[str] = field(default_factory=Counter)
    level_turns: Counter[str] = field(default_factory=Counter)
    level_t_turns: Counter[str] = field(default_factory=Counter)
    decision_seconds: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    violations: list[str] = field(default_factory=list)
    violation_count: int = 0
    seconds: float = 0.0

    def __post_init__(self) -> None:
        self.points = [0] * self.players

    def violate(self, message: str) -> None:
        self.violation_count += 1
        if len(self.violations) < MAX_REPORTED_VIOLATIONS:
            self.violations.append(message)

    def report(self) -> dict[str, Any]:
        rounds = max(self.rounds, 1)
        levels = sorted(self.seat_games)
        return {
            "games": self.games,
            "players": self.players,
            "rounds": self.rounds,
            "turns": self.turns,
            "tweaks": self.tweaks,
            "t_played": {k.value: self.t_played[k.value] for k in T_KINDS},
            "points_per_round": [round(p / rounds, 3) for p in self.points],
            "win_rate": {lv: round(self.wins[lv] / self.seat_games[lv], 4) for lv in levels},
            "win_rate_95": {
                lv: [round(x, 4) for x in wilson(self.wins[lv], self.seat_games[lv])] for lv in levels
            },
            "wins": {lv: self.wins[lv] for lv in levels},
            "seat_games": {lv: self.seat_games[lv] for lv in levels},
            "points_per_round_by_level": {
                lv: round(self.level_points[lv] / self.level_rounds[lv], 3)
                for lv in sorted(self.level_rounds)
            },
            "t_share_by_level": {
                lv: round(self.level_t_turns[lv] / self.level_turns[lv], 4) for lv in sorted(self.level_turns)
            },
            "decision_ms_by_level": {
                lv: percentiles_ms(times) for lv, times in sorted(self.decision_seconds.items())
            },
            "games_per_second": round(self.games / self.seconds, 2) if self.seconds else None,
            "invariant_violations": self.violation_count,
            "violations": self.violations,
        }


def percentiles_ms(seconds: Sequence[float]) -> dict[str, float]:
    """p50 and p99 (nearest rank) of decision times, in milliseconds."""
    if not seconds:
        return {"p50": 0.0, "p99": 0.0}
    ordered = sorted(seconds)

    def rank(q: float) -> float:
        return ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))] * 1000

    return {"p50": round(rank(0.5), 3), "p99": round(rank(0.99), 3)}


def _check_round(stats: Stats, state: GameState, event: RoundEnded, previous: list[int], tag: str) -> None:
    """Scores are what players see; cross-check the event, the history and the totals independently."""
    expected = [t + p for t, p in zip(previous, event.points, strict=True)]
    if list(event.totals) != expected:
        stats.violate(f"{tag}: totals {list(event.totals)} != previous totals + round points {expected}")
    if list(state.round_points[event.round - 1]) != list(event.points):
        stats.violate(f"{tag}: recorded round points differ from the RoundEnded event")
    sums = [sum(r[s] for r in state.round_points) for s in range(state.players)]
    if sums != list(event.totals):
        stats.violate(f"{tag}: round_points do not sum to the totals")


def play_game(
    config: GameConfig,
    seed: int,
    levels: Sequence[str],
    stats: Stats,
    game: int,
    trace: IO[str] | None = None,
    check: bool = True,
) -> GameState:
    """Play one game to the end, feeding `stats` and, if given, the trace."""
    state = new_game(config, seed)
    recorder = GameRecorder(game) if trace is not None else None
    if trace is not None:
        trace.write(json.dumps(header_record(game, config, seed, levels)) + "\n")
    totals = list(state.totals)
    clock = time.perf_counter
    while not state.is_over:
        seat = state.current
        level = levels[seat]
        started = clock()
        action = choose_action(state, seat, level, decision_seed(seed, state))
        stats.decision_seconds[level].append(clock() - started)
        before = state.clone() if recorder is not None else None
        events: list[Event] = []
        apply_in_place(state, seat, action, events)
        tag = f"game {game} round {state.round} turn {state.turn}"
        if check:
            for problem in check_invariants(state):
                stats.violate(f"{tag}: {problem}")
        if recorder is not None and before is not None and trace is not None:
            for record in recorder.feed(before, seat, action, events):
                trace.write(json.dumps(record) + "\n")
        for event in events:
            if isinstance(event, TPlayed):
                stats.t_played[event.kind] += 1
                stats.level_t_turns[levels[event.seat]] += 1
            elif isinstance(event, Summed):
                stats.tweaks += event.tweak
            elif isinstance(event, Refilled):
                stats.turns += 1  # one per turn: a main action, a lost turn or a skip
                stats.level_turns[levels[event.seat]] += 1
            elif isinstance(event, (LostTurn, Skipped)):
                stats.turns += 1
            elif isinstance(event, RoundEnded):
                _check_round(stats, state, event, totals, tag)
                totals = list(event.totals)
                stats.rounds += 1
                for s, p in enumerate(event.points):
                    stats.points[s] += p
                    stats.level_points[levels[s]] += p
                    stats.level_rounds[levels[s]] += 1
    if state.totals != [sum(r[s] for r in state.round_points) for s in range(state.players)]:
        stats.violate(f"game {game}: final totals differ from the sum of round points")
    stats.games += 1
    for s, lv in enumerate(levels):
        stats.seat_games[lv] += 1
        stats.wins[lv] += s in state.winners
    return state


def simulate(
    games: int,
    players: int,
    seed: int,
    levels: Sequence[str] = ("normal",),
    edition: str = "classic",
    trace: IO[str] | None = None,
) -> dict[str, Any]:
    """Play `games` deals (deal g with engine seed `seed` + g), each once per seating; return the report."""
    config = GameConfig(players=players, edition=edition)
    orders = seatings(fit_levels(levels, players))
    stats = Stats(players)
    started = time.perf_counter()
    number = 0
    for deal in range(games):
        for order in orders:
            play_game(config, seed + deal, order, stats, number, trace)
            number += 1
    stats.seconds = time.perf_counter() - started
    report = stats.report()
    report["deals"] = games
    report["seatings"] = len(orders)
    return report


def _summary(report: dict[str, Any]) -> str:
    rates = report["win_rate"]
    lines = [
        f"{report['games']} games ({report['deals']} deals x {report['seatings']} seatings), "
        f"{report['players']} players: {report['rounds']} rounds, {report['turns']} turns, "
        f"{report['tweaks']} TWEAKs",
        "[T!] played: " + ", ".join(f"{k} {v}" for k, v in report["t_played"].items()),
        "points per round by seat: " + ", ".join(f"{p:.2f}" for p in report["points_per_round"]),
        "win rate per seat-game (95 % interval): "
        + ", ".join(
            f"{lv} {rates[lv]:.1%} ({lo:.1%}-{hi:.1%})" for lv, (lo, hi) in report["win_rate_95"].items()
        ),
        "points per round by level: "
        + ", ".join(f"{lv} {p:.2f}" for lv, p in report["points_per_round_by_level"].items()),
        "[T!] share of turns by level: "
        + ", ".join(f"{lv} {p:.1%}" for lv, p in report["t_share_by_level"].items()),
        "decision time p50/p99 by level: "
        + ", ".join(
            f"{lv} {t['p50']:.2f}/{t['p99']:.2f} ms" for lv, t in report["decision_ms_by_level"].items()
        ),
        f"speed: {report['games_per_second']} games/s (invariants checked after every action)",
        f"invariant violations: {report['invariant_violations']}",
    ]
    lines.extend(f"  {v}" for v in report["violations"])
    return "\n".join(lines)


def _levels(text: str) -> list[str]:
    levels = [lv.strip() for lv in text.split(",") if lv.strip()]
    unknown = [lv for lv in levels if lv not in LEVELS]
    if not levels or unknown:
        raise argparse.ArgumentTypeError(f"levels must be from {', '.join(LEVELS)}")
    return levels


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m engine.simulate", description=(__doc__ or "").partition("\n")[0]
    )
    parser.add_argument("--games", type=int, default=100, help="deals; each is played once per seating")
    parser.add_argument("--players", type=int, default=4, choices=range(MIN_PLAYERS, MAX_PLAYERS + 1))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--edition", choices=sorted(EDITIONS), default="classic")
    parser.add_argument(
        "--ai",
        type=_levels,
        default=["normal"],
        help="one level per seat, or one for all: easy, normal, hard",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--trace", metavar="FILE", help="write the replay records (JSON Lines)")
    args = parser.parse_args(argv)
    try:
        fit_levels(args.ai, args.players)
    except ValueError as err:
        parser.error(f"--ai: {err}")
    if args.trace:
        with open(args.trace, "w", encoding="utf-8") as trace:
            report = simulate(args.games, args.players, args.seed, args.ai, args.edition, trace)
    else:
        report = simulate(args.games, args.players, args.seed, args.ai, args.edition)
    print(json.dumps(report) if args.json else _summary(report))
    return 0 if report["invariant_violations"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
