"""What one seat, or a spectator, may know (A30).

Hidden: every hand but your own, the order of both decks, the contents of score
piles (only their points, which every announced sum made public), and, with the
face-down variant, which [T!] cards the others hold.
"""

from __future__ import annotations

from dataclasses import dataclass

from .state import GameState


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


def view(state: GameState, seat: int | None) -> View:
    face_down = state.config.won_t_face_down
    holdings = tuple(
        tuple(h) if (not face_down or s == seat) else None for s, h in enumerate(state.holdings)
    )
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
    )


def seat_view(state: GameState, seat: int) -> View:
    return view(state, seat)


def public_view(state: GameState) -> View:
    return view(state, None)
