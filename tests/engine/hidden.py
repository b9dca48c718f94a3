"""Rearranging everything one seat cannot see, for "the decision never peeks" tests."""

from __future__ import annotations

import random

from engine import GameState
from engine.cards import BALANCED_BACK


def reshuffled(state: GameState, seat: int, salt: int) -> GameState:
    """The same position for `seat`, with every hidden thing dealt anew.

    Moves the other hands and the deck (the top card may become any unseen card
    with the same back, so the public target stays), the [T!] deck and, in the
    face-down variant, the others' holdings; with random back numbers it also
    re-draws the backs of unseen cards; and it changes the engine's random
    state, which decides the Thief's and the Bomb's cards.
    """
    r = random.Random(salt)
    new = state.clone()
    n = state.players
    others = [s for s in range(n) if s != seat]
    pool = [c for s in others for c in state.hands[s]] + state.deck[:-1]
    top: list[str] = []
    if state.deck:
        old_top = state.deck[-1]
        pool.append(old_top)
        if state.backs is None:
            choices = [c for c in pool if BALANCED_BACK[c] == BALANCED_BACK[old_top]]
        else:
            choices = list(pool)
        top = [r.choice(choices)]
        pool.remove(top[0])
    r.shuffle(pool)
    for s in others:
        size = len(state.hands[s])
        new.hands[s], pool = pool[:size], pool[size:]
    new.deck = pool + top
    if state.backs is not None:
        backs = dict(state.backs)
        for c in [*new.deck, *(c for s in others for c in new.hands[s])]:
            backs[c] = r.randint(7, 10)
        if top:
            backs[top[0]] = state.back_of(state.deck[-1])
        new.backs = backs
    hidden = [s for s in others if state.config.won_t_face_down]
    t_pool = list(state.tdeck) + [t for s in hidden for t in state.holdings[s]]
    r.shuffle(t_pool)
    for s in hidden:
        size = len(state.holdings[s])
        new.holdings[s], t_pool = t_pool[:size], t_pool[size:]
    new.tdeck = t_pool
    new.rng = r.getrandbits(64)
    return new
