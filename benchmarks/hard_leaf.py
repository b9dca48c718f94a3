"""What Hard's horizon is worth: the round's points still to come, fitted on what its score counts.

``.venv/bin/python benchmarks/hard_leaf.py [--players 2,3,4,6] [--rounds 3000] [--seed 1000]``

Hard stops most samples at its next turn and scores what it cannot play out:
a share of the points in each hand (`HAND_WORTH`), a worth per unplayed [T!]
card (`HOLD`) and a share of its next take (`NEXT_TAKE`), each against the
others. Whether those weights are right is a question of fact, so this asks
the game: it deals rounds, plays them to the end with the very model the
samples use (`engine.ai.playout`), and at every turn a seat is to move it
records those quantities and the seat's edge in the points won from there to
the round's end (its own minus the others' mean). A least-squares fit per deck
size says what each quantity is worth on average; the printed standard errors
say how far to trust it. A hand's card count is fitted too: once the deck is
out, a card in hand is a turn still to play.

Only the first round of each deal is played (the next deal would be a fresh
shuffle, which adds nothing to the fit).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import GameConfig, new_game
from engine.ai.playout import best_sum_fast, model_turn, round_over
from engine.cards import POINTS

#: Deck sizes fitted apart (inclusive): the last laps, the end of the deck, its middle, its start.
DECK_BINS: tuple[tuple[int, int], ...] = ((0, 2), (3, 9), (10, 19), (20, 99))
FEATURES = ("hand points", "[T!] held", "next take", "hand cards")


def edge(per_seat: Sequence[float], seat: int) -> float:
    """The seat's figure minus the others' mean."""
    others = [x for s, x in enumerate(per_seat) if s != seat]
    return per_seat[seat] - sum(others) / len(others)


def observations(players: int, rounds: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(deck sizes, features, future edge) over every turn of `rounds` first rounds."""
    decks: list[int] = []
    rows: list[tuple[float, ...]] = []
    future: list[float] = []
    for deal in range(rounds):
        state = new_game(GameConfig(players=players), seed + deal)
        gains = [0] * players
        seen: list[tuple[int, list[int]]] = []
        while not round_over(state):
            seat = state.current
            if state.hands[seat] and state.t_played is None:
                take = best_sum_fast(state.hands[seat], state.table, state.target, bool(state.tdeck))
                decks.append(len(state.deck))
                rows.append(
                    (
                        edge([sum(POINTS[c] for c in h) for h in state.hands], seat),
                        edge([len(h) for h in state.holdings], seat),
                        take[0] if take is not None else 0.0,
                        edge([len(h) for h in state.hands], seat),
                    )
                )
                seen.append((seat, list(gains)))
            model_turn(state, seat, gains)
        future.extend(edge([g - b for g, b in zip(gains, before, strict=True)], s) for s, before in seen)
    return np.array(decks), np.array(rows), np.array(future)


def fit(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Least squares with a constant: (coefficients, standard errors), the constant first."""
    design = np.column_stack([np.ones(len(y)), x])
    beta, *_ = np.linalg.lstsq(design, y, rcond=None)
    residual = y - design @ beta
    covariance = np.linalg.pinv(design.T @ design) * residual.var(ddof=design.shape[1])
    return beta, np.sqrt(np.abs(np.diag(covariance)))


def report(players: int, rounds: int, seed: int) -> str:
    decks, x, y = observations(players, rounds, seed)
    lines = [
        f"\n{players} players, {rounds} rounds, {len(y):,} turns (coefficient ± standard error)\n",
        "| Deck cards | Turns | " + " | ".join(FEATURES) + " | constant |",
        "|---" * (len(FEATURES) + 3) + "|",
    ]
    for low, high in DECK_BINS:
        mask = (decks >= low) & (decks <= high)
        beta, se = fit(x[mask], y[mask])
        cells = " | ".join(f"{b:.2f} ± {e:.2f}" for b, e in zip(beta[1:], se[1:], strict=True))
        lines.append(f"| {low}-{high} | {int(mask.sum()):,} | {cells} | {beta[0]:.2f} |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("--players", default="2,3,4,6", help="player counts, comma-separated")
    parser.add_argument("--rounds", type=int, default=3000, help="rounds dealt per player count")
    parser.add_argument("--seed", type=int, default=1000)
    args = parser.parse_args(argv)
    for players in (int(p) for p in args.players.split(",")):
        print(report(players, args.rounds, args.seed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
