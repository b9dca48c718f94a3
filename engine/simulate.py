"""Play many seeded games between computer players and report statistics.

``python -m engine.simulate --games N --players P --seed S [--edition E]
[--ai LEVEL[,LEVEL...]] [--json] [--trace FILE]``

This is how the engine is tested at scale: every state reached is checked
with `check_invariants`, and the scores are cross-checked against the round
records. Game g is dealt with engine seed S + g, so any single game can be
replayed on its own from its trace header. With several distinct levels the
seat assignment rotates one place per game, so every level sits in every seat
equally often and position bias cancels.

`win_rate[level]` is wins per seat-game: the number of times a seat of that
level won (a shared win counts for each winner) divided by the number of
seats that level filled over all games. It is comparable between levels even
when one level fills more seats than another.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import IO, Any

from . import rng
from .ai import LEVELS, choose_action
from .cards import EDITIONS, T_KINDS
from .config import GameConfig
from .events import Event, LostTurn, Refilled, RoundEnded, Skipped, Summed, TPlayed
from .game import apply_in_place, new_game
from .invariants import check_invariants
from .replay import GameRecorder, header_record
from .state import GameState

MAX_REPORTED_VIOLATIONS = 20


def decision_seed(game_seed: int, state: GameState) -> int:
    """A per-decision seed, so an AI's choice depends only on the position."""
    mixed = game_seed * 1_000_003 + state.round * 10_007 + state.turn * 2 + (state.t_played is not None)
    return rng.next_u64(rng.seed_state(mixed))[1]


def seat_levels(levels: Sequence[str], players: int, game: int) -> list[str]:
    """Levels per seat for one game: `levels` cycled to fill the seats, rotated per game when mixed."""
    base = [levels[i % len(levels)] for i in range(players)]
    if len(set(base)) <= 1:
        return base
    shift = game % players
    return base[shift:] + base[:shift]


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
        return {
            "games": self.games,
            "players": self.players,
            "rounds": self.rounds,
            "turns": self.turns,
            "tweaks": self.tweaks,
            "t_played": {k.value: self.t_played[k.value] for k in T_KINDS},
            "points_per_round": [round(p / rounds, 3) for p in self.points],
            "win_rate": {lv: round(self.wins[lv] / n, 4) for lv, n in sorted(self.seat_games.items())},
            "wins": {lv: self.wins[lv] for lv in sorted(self.seat_games)},
            "seat_games": dict(sorted(self.seat_games.items())),
            "points_per_round_by_level": {
                lv: round(self.level_points[lv] / self.level_rounds[lv], 3)
                for lv in sorted(self.level_rounds)
            },
            "games_per_second": round(self.games / self.seconds, 2) if self.seconds else None,
            "invariant_violations": self.violation_count,
            "violations": self.violations,
        }


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
) -> GameState:
    """Play one game to the end, feeding `stats` and, if given, the trace."""
    state = new_game(config, seed)
    recorder = GameRecorder(game) if trace is not None else None
    if trace is not None:
        trace.write(json.dumps(header_record(game, config, seed, levels)) + "\n")
    totals = list(state.totals)
    while not state.is_over:
        seat = state.current
        action = choose_action(state, seat, levels[seat], decision_seed(seed, state))
        before = state.clone() if recorder is not None else None
        events: list[Event] = []
        apply_in_place(state, seat, action, events)
        tag = f"game {game} round {state.round} turn {state.turn}"
        for problem in check_invariants(state):
            stats.violate(f"{tag}: {problem}")
        if recorder is not None and before is not None and trace is not None:
            for record in recorder.feed(before, seat, action, events):
                trace.write(json.dumps(record) + "\n")
        for event in events:
            if isinstance(event, TPlayed):
                stats.t_played[event.kind] += 1
            elif isinstance(event, Summed):
                stats.tweaks += event.tweak
            elif isinstance(event, (Refilled, LostTurn, Skipped)):
                stats.turns += 1  # one per turn: a main action, a lost turn or a skip
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
    levels: Sequence[str] = ("greedy",),
    edition: str = "classic",
    trace: IO[str] | None = None,
) -> dict[str, Any]:
    """Play `games` games (game g with engine seed `seed` + g) and return the report dict."""
    config = GameConfig(players=players, edition=edition)
    stats = Stats(players)
    started = time.perf_counter()
    for game in range(games):
        play_game(config, seed + game, seat_levels(levels, players, game), stats, game, trace)
    stats.seconds = time.perf_counter() - started
    return stats.report()


def _summary(report: dict[str, Any]) -> str:
    lines = [
        f"{report['games']} games, {report['players']} players: {report['rounds']} rounds, "
        f"{report['turns']} turns, {report['tweaks']} TWEAKs",
        "[T!] played: " + ", ".join(f"{k} {v}" for k, v in report["t_played"].items()),
        "points per round by seat: " + ", ".join(f"{p:.2f}" for p in report["points_per_round"]),
        "win rate per seat-game: " + ", ".join(f"{lv} {rate:.1%}" for lv, rate in report["win_rate"].items()),
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
    parser = argparse.ArgumentParser(prog="python -m engine.simulate", description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--edition", choices=sorted(EDITIONS), default="classic")
    parser.add_argument("--ai", type=_levels, default=["greedy"], help="levels per seat, cycled")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--trace", metavar="FILE", help="write the replay records (JSON Lines)")
    args = parser.parse_args(argv)
    if args.trace:
        with open(args.trace, "w", encoding="utf-8") as trace:
            report = simulate(args.games, args.players, args.seed, args.ai, args.edition, trace)
    else:
        report = simulate(args.games, args.players, args.seed, args.ai, args.edition)
    print(json.dumps(report) if args.json else _summary(report))
    return 0 if report["invariant_violations"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
