"""How much the others' hidden hands are worth to Hard: the ladder with samples that know them.

``nice .venv/bin/python benchmarks/hard_oracle.py --players 4 --deals 4:60 --seed 1120 --jobs 2
--json FILE`` takes `ai_ladder.py`'s arguments and plays its ladder (use ``--pairs normal:hard``)
with one change: every sample Hard draws deals the other seats the hands they really hold. The
deck and the [T!] deck stay shuffled per sample (their top card kept, as a sample always does),
so the only hidden information Hard is given is what the others hold. Compare with
``ai_ladder.py --paired`` against a plain run of the same deals.

A diagnostic, not a player: it measures the ceiling of everything Hard could learn about the
others' hands (from their moves, from anything) for issue 22's report. It reads the real game,
which no level ever does, and lives here so that it cannot reach the bot.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import ai_ladder

import engine.ai.hard as hard
import engine.simulate as simulate
from engine import rng
from engine.actions import Action
from engine.ai import choose_action
from engine.ai.sampling import sample_world
from engine.config import GameConfig
from engine.state import GameState
from engine.views import View

#: The game being decided in this process (a worker plays one game at a time).
_REAL: list[GameState] = []
_plain_choose = choose_action
_plain_sample = sample_world


def _choose(state: GameState, seat: int, level: str, seed: int) -> Action:
    _REAL[:] = [state]
    return _plain_choose(state, seat, level, seed)


def known_hands(world: GameState, real: GameState, seat: int, seed: int) -> GameState:
    """`world` with the other seats' real hands, the rest of its unseen cards reshuffled into the
    deck under the same top card."""
    others = [s for s in range(world.players) if s != seat]
    pool = Counter(world.deck)
    for s in others:
        pool.update(world.hands[s])
    for s in others:
        pool.subtract(real.hands[s])
        world.hands[s] = list(real.hands[s])
    top = world.deck[-1:] if world.deck else []
    if top and pool[top[0]] <= 0:  # the sample's top card is in a real hand: take the real one
        top = real.deck[-1:]
    pool.subtract(top)
    rest = sorted(pool.elements())
    rng.shuffle(rng.seed_state(seed), rest)
    world.deck = rest + top
    assert len(world.deck) == len(real.deck)
    return world


def _sample(v: View, config: GameConfig, unseen: Sequence[str], seed: int) -> GameState | None:
    world = _plain_sample(v, config, unseen, seed)
    if world is None or v.seat is None or not _REAL:
        return world
    return known_hands(world, _REAL[0], v.seat, seed)


def main(argv: Sequence[str] | None = None) -> int:
    # The two names as the simulator and Hard look them up, in this process and the workers it forks.
    vars(simulate)["choose_action"] = _choose
    vars(hard)["sample_world"] = _sample
    return ai_ladder.main(argv)


if __name__ == "__main__":
    sys.exit(main())
