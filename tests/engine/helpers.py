"""Builders for exact game situations and a seeded random player.

Rule tests need states the deal would almost never produce (a chosen top card,
an empty hand, a bare deck), so they write the zones directly. Decks list the
top card last, exactly as the engine stores them.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, fields, is_dataclass
from typing import Any

from engine import (
    Action,
    Discard,
    GameConfig,
    GameState,
    Sum,
    apply,
    legal_actions,
    new_game,
    sum_options,
    t_actions,
)
from engine.cards import ALL_CARDS, BALANCED_BACK, COLOUR_OF, VALUE, t_deck
from engine.events import Event

ALL_COLOURS = ("R", "O", "Y", "G", "B", "P")


class Picker:
    """Hands out distinct card ids by front value, back number and colour."""

    def __init__(self) -> None:
        self.used: set[str] = set()

    def take(self, value: int | None = None, back: int | None = None, colour: str | None = None) -> str:
        for card in ALL_CARDS:
            if card in self.used:
                continue
            if value is not None and VALUE[card] != value:
                continue
            if back is not None and BALANCED_BACK[card] != back:
                continue
            if colour is not None and COLOUR_OF[card] != colour:
                continue
            self.used.add(card)
            return card
        raise LookupError(f"no card left with value={value} back={back} colour={colour}")

    def values(self, *values: int, colour: str | None = None) -> list[str]:
        return [self.take(value=v, colour=colour) for v in values]

    def non_red(self, *values: int) -> list[str]:
        """Non-red cards, so that point totals stay easy to predict."""
        out = []
        for v in values:
            for colour in ALL_COLOURS[1:]:
                try:
                    out.append(self.take(value=v, colour=colour))
                    break
                except LookupError:
                    continue
            else:
                raise LookupError(f"no non-red {v} left")
        return out


def build(
    players: int = 2,
    *,
    hands: Sequence[Sequence[str]],
    table: Sequence[str] = (),
    deck: Sequence[str] = (),
    holdings: Sequence[Sequence[str]] | None = None,
    tdeck: Sequence[str] | None = None,
    piles: Sequence[Sequence[str]] | None = None,
    used_t: Sequence[Sequence[str]] | None = None,
    totals: Sequence[int] | None = None,
    round_points: Sequence[Sequence[int]] | None = None,
    current: int = 0,
    dealer: int | None = None,
    rng: int = 12345,
    config: GameConfig | None = None,
) -> GameState:
    """A state with exactly the given zones; unlisted cards are simply out of play."""
    cfg = config or GameConfig(players, colours=ALL_COLOURS)
    assert len(hands) == players
    return GameState(
        config=cfg,
        rng=rng,
        round=len(round_points) + 1 if round_points is not None else 1,
        turn=1,
        dealer=(current - 1) % players if dealer is None else dealer,
        current=current,
        deck=list(deck),
        table=list(table),
        hands=[list(h) for h in hands],
        piles=[list(p) for p in piles] if piles is not None else [[] for _ in range(players)],
        used_t=[list(u) for u in used_t] if used_t is not None else [[] for _ in range(players)],
        holdings=[list(h) for h in holdings] if holdings is not None else [[] for _ in range(players)],
        tdeck=list(tdeck) if tdeck is not None else t_deck(cfg.edition),
        totals=list(totals) if totals is not None else [0] * players,
        round_points=[list(r) for r in round_points] if round_points is not None else [],
    )


def legal_sums(state: GameState, seat: int) -> list[Sum]:
    return [a for a in legal_actions(state, seat) if isinstance(a, Sum)]


def events_of(events: list[Event], kind: type) -> list[Any]:
    return [e for e in events if isinstance(e, kind)]


# --- a seeded random player ------------------------------------------------


def random_action(state: GameState, r: random.Random) -> Action:
    """A random legal action that still finishes games: sums are preferred."""
    seat = state.current
    hand = state.hands[seat]
    ts = t_actions(state, seat)
    if ts and r.random() < 0.4:
        return r.choice(ts)
    options = sum_options(hand, state.table, state.target)
    if options and r.random() < 0.85:
        option = r.choice(options)
        hand_index = r.choice([i for i, c in enumerate(hand) if VALUE[c] == option.hand_value])
        positions: list[int] = []
        for value, n in zip(range(1, 7), option.counts, strict=True):
            if n:
                positions.extend(r.sample([i for i, c in enumerate(state.table) if VALUE[c] == value], n))
        return Sum(hand_index, tuple(positions))
    return Discard(r.randrange(len(hand)))


@dataclass
class Step:
    before: GameState
    seat: int
    action: Action
    after: GameState
    events: list[Event]


def playthrough(config: GameConfig, seed: int, choice_seed: int, max_actions: int = 4000) -> Iterator[Step]:
    """Play one whole game with seeded random choices, yielding every step."""
    state = new_game(config, seed)
    r = random.Random(choice_seed)
    for _ in range(max_actions):
        if state.is_over:
            return
        seat = state.current
        action = random_action(state, r)
        after, events = apply(state, seat, action)
        yield Step(state, seat, action, after, events)
        state = after
    raise AssertionError(f"game did not end within {max_actions} actions")


def strings_in(obj: object) -> Iterator[str]:
    """Every string anywhere inside a view (dataclass fields, tuples, dicts)."""
    if isinstance(obj, str):
        yield obj
    elif is_dataclass(obj) and not isinstance(obj, type):
        for f in fields(obj):
            yield from strings_in(getattr(obj, f.name))
    elif isinstance(obj, dict):
        for k, v in obj.items():
            yield from strings_in(k)
            yield from strings_in(v)
    elif isinstance(obj, (list, tuple, set, frozenset)):
        for item in obj:
            yield from strings_in(item)
