"""Determinization: whole games consistent with what one seat knows.

Hard looks ahead by playing the next moves out in such sampled games. Each
sample deals the seat's unseen cards at random into the other hands and the
deck, with a top card whose back is the public target, and the unseen [T!]
cards into the [T!] deck (and the hidden holdings of the face-down variant).
The real hidden cards are never consulted: the seat's view is the only input,
and the seed fixes the samples, so a decision replays exactly.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from .. import rng
from ..cards import BALANCED_BACK, T_POINTS, cards_of_colours, t_deck
from ..config import GameConfig
from ..state import PLAYING, GameState
from ..views import View


def world_config(v: View) -> GameConfig:
    """The game's settings as far as play goes; built once per decision."""
    return GameConfig(
        players=v.players,
        edition=v.edition,
        colours=v.colours,
        target_score=v.threshold,
        won_t_face_down=any(h is None for h in v.holdings),
        back_numbers="random" if v.random_backs else "balanced",
    )


def sample_world(v: View, config: GameConfig, unseen: Sequence[str], seed: int) -> GameState | None:
    """One game consistent with the view, or None if the view admits none (a hand-built position).

    Score piles are left empty and their points folded into the totals: the
    round's scores stay right for the threshold check, and a look-ahead only
    needs the points gained from here on.
    """
    seat = v.seat
    if seat is None or v.hand is None:
        return None
    n = v.players
    others = [s for s in range(n) if s != seat]
    if len(unseen) != v.deck_size + sum(v.hand_sizes[s] for s in others):
        return None
    r = rng.seed_state(seed)
    cards = list(unseen)
    r = rng.shuffle(r, cards)
    top: list[str] = []
    if v.deck_size:
        at = len(cards) - 1
        if not v.random_backs:
            matching = [i for i, c in enumerate(cards) if BALANCED_BACK[c] == v.base_target]
            if not matching:
                return None
            at = matching[-1]
        top.append(cards.pop(at))
    hands: list[list[str]] = [[] for _ in range(n)]
    hands[seat] = list(v.hand)
    for s in others:
        hands[s] = [cards.pop() for _ in range(v.hand_sizes[s])]
    deck = cards + top
    t_pool = Counter(t_deck(v.edition))
    for used in v.used_t:
        t_pool.subtract(used)
    for held in v.holdings:
        if held is not None:
            t_pool.subtract(held)
    if any(k < 0 for k in t_pool.values()):
        return None
    hidden_t = sorted(t_pool.elements())
    r = rng.shuffle(r, hidden_t)
    holdings = [list(h) if h is not None else [] for h in v.holdings]
    for s, held in enumerate(v.holdings):
        if held is None:
            holdings[s] = [hidden_t.pop() for _ in range(v.holding_counts[s]) if hidden_t]
    if len(hidden_t) != v.tdeck_size:
        return None
    backs: dict[str, int] | None = None
    if v.random_backs:
        backs = {}
        for c in cards_of_colours(v.colours):
            r, b = rng.below(r, 4)
            backs[c] = 7 + b
        if top:
            backs[top[0]] = v.base_target
    used_t = [list(u) for u in v.used_t]
    totals = [
        t + v.scores_round[s] - T_POINTS * (len(used_t[s]) + v.holding_counts[s])
        for s, t in enumerate(v.totals)
    ]
    return GameState(
        config=config,
        rng=r,
        round=v.round,
        turn=v.turn,
        dealer=v.dealer,
        current=v.current,
        deck=deck,
        table=list(v.table),
        hands=hands,
        piles=[[] for _ in range(n)],
        used_t=used_t,
        holdings=holdings,
        tdeck=hidden_t,
        totals=totals,
        round_points=[],
        t_played=v.t_played,
        joker=v.joker,
        status=PLAYING,
        backs=backs,
    )
