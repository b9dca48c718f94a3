"""What one seat, or a spectator, may know (A30).

Hidden: every hand but your own, the order of both decks, which seat won which
card (only the points), and, with the face-down variant, which [T!] cards the
others hold.

Every card in a score pile was shown when its sum was announced (RULES §3.5.1;
the bot's move report names each card), so a player who remembers the reports
knows them: the view lists them as one pooled, sorted multiset (`announced`).
With it, a view holds everything public about a round, and the functions at the
bottom derive what a seat can infer from it: which cards it has not seen and
where the next target may land. Computer players and the idle default use only
these, so they cannot peek.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from .cards import BALANCED_BACK, BLUE_CARD_TARGET, cards_of_colours
from .config import HAND_SIZE
from .state import GameState

#: Back numbers a card can carry (A1).
BACKS: tuple[int, ...] = (7, 8, 9, 10)


@dataclass(frozen=True, slots=True)
class View:
    seat: int | None  # None for the public view
    round: int
    turn: int
    dealer: int
    current: int
    status: str
    winners: tuple[int, ...]
    target: int
    base_target: int
    joker: int
    t_played: str | None
    deck_size: int
    tdeck_size: int
    table: tuple[str, ...]
    hand: tuple[str, ...] | None
    hand_sizes: tuple[int, ...]
    holdings: tuple[tuple[str, ...] | None, ...]  # None where face down and not yours
    holding_counts: tuple[int, ...]
    used_t: tuple[tuple[str, ...], ...]
    pile_sizes: tuple[int, ...]  # won cards per seat: the count is public, the faces are not (A30)
    scores_round: tuple[int, ...]
    totals: tuple[int, ...]  # finished rounds
    threshold: int
    players: int
    colours: tuple[str, ...]  # the colours in play: which cards exist this game
    edition: str  # the [T!] deck's composition
    random_backs: bool  # back numbers drawn at random (A1): an unseen card's back is unknown
    announced: tuple[str, ...]  # every number card won this round, pooled and sorted


def view(state: GameState, seat: int | None) -> View:
    face_down = state.config.won_t_face_down
    holdings = tuple(tuple(h) if (not face_down or s == seat) else None for s, h in enumerate(state.holdings))
    return View(
        seat=seat,
        round=state.round,
        turn=state.turn,
        dealer=state.dealer,
        current=state.current,
        status=state.status,
        winners=tuple(state.winners),
        target=state.target,
        base_target=state.base_target,
        joker=state.joker,
        t_played=state.t_played,
        deck_size=len(state.deck),
        tdeck_size=len(state.tdeck),
        table=tuple(state.table),
        hand=tuple(state.hands[seat]) if seat is not None else None,
        hand_sizes=tuple(len(h) for h in state.hands),
        holdings=holdings,
        holding_counts=tuple(len(h) for h in state.holdings),
        used_t=tuple(tuple(u) for u in state.used_t),
        pile_sizes=tuple(len(p) for p in state.piles),
        scores_round=tuple(state.scores_round()),
        totals=tuple(state.totals),
        threshold=state.config.threshold,
        players=state.players,
        colours=state.config.colours,
        edition=state.config.edition,
        random_backs=state.config.back_numbers == "random",
        announced=tuple(sorted(c for pile in state.piles for c in pile)),
    )


def seat_view(state: GameState, seat: int) -> View:
    return view(state, seat)


def public_view(state: GameState) -> View:
    return view(state, None)


# --- what a seat can infer -------------------------------------------------


def unseen_cards(v: View) -> tuple[str, ...]:
    """Cards this seat has not seen this round: the deck and the other hands, as one sorted multiset.

    Everything else in play is in its hand, on the table or announced; sorting
    makes sure no hidden order can leak into a decision.
    """
    seen = set(v.table) | set(v.announced) | set(v.hand or ())
    return tuple(c for c in sorted(cards_of_colours(v.colours)) if c not in seen)


def target_weights(v: View, draws: int) -> dict[int, int]:
    """Where the base target may land after `draws` more cards leave the top: back -> weight.

    The top card's back is public (it is the target). The cards below it are an
    unknown arrangement of the unseen cards other than the top one, so a lower
    card's back is drawn from the unseen backs, with one card of the top's back
    taken out. With random back numbers (A1) an unseen card's back cannot be
    known, so each of 7-10 is equally likely. Integer weights keep the callers'
    comparisons exact.
    """
    if v.deck_size - draws <= 0:
        return {BLUE_CARD_TARGET: 1}
    if draws <= 0:
        return {v.base_target: 1}
    if v.random_backs:
        return dict.fromkeys(BACKS, 1)
    backs = Counter(BALANCED_BACK[c] for c in unseen_cards(v))
    if backs[v.base_target] > 0:
        backs[v.base_target] -= 1
    weights = {b: n for b, n in sorted(backs.items()) if n > 0}
    return weights or {v.base_target: 1}


def draws_after_main(v: View) -> int:
    """Cards the seat to move draws after its main action (one card leaves its hand, then it refills)."""
    hand = len(v.hand or ())
    return min(v.deck_size, max(0, HAND_SIZE - (hand - 1)))
