"""The complete state of one game, including its random generator.

The state is a plain mutable record; `engine.game` functions never mutate a
state handed to them by a caller (they clone first), so callers may keep old
states around. JSON serialisation carries a schema version.

The invariants live here too (`check_invariants`): the simulator checks them after every action,
and `GameState.from_json` refuses a saved state that breaks any of them, so a corrupted or
hand-edited row fails loudly at load time instead of as an odd error (or a silent wrong result)
somewhere in the rules later. They are the state's own definition of sound, so the state needs
them and they need nothing but the state.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sized
from dataclasses import dataclass, field
from typing import Any

from .cards import BALANCED_BACK, BLUE_CARD_TARGET, POINTS, T_POINTS, TKind, cards_of_colours, is_card, t_deck
from .config import HAND_SIZE, GameConfig
from .errors import ConfigError, SchemaError

SCHEMA_VERSION = 1

PLAYING = "playing"
OVER = "over"


@dataclass(slots=True)
class GameState:
    config: GameConfig
    rng: int
    round: int = 0
    turn: int = 0
    dealer: int = 0
    current: int = 0
    deck: list[str] = field(default_factory=list)  # top of the deck is the last element
    table: list[str] = field(default_factory=list)
    hands: list[list[str]] = field(default_factory=list)
    piles: list[list[str]] = field(default_factory=list)  # won number cards, face down
    used_t: list[list[str]] = field(default_factory=list)  # played [T!] cards (A20)
    holdings: list[list[str]] = field(default_factory=list)  # unused [T!] cards
    tdeck: list[str] = field(default_factory=list)  # top is the last element
    totals: list[int] = field(default_factory=list)  # finished rounds only
    round_points: list[list[int]] = field(default_factory=list)  # per finished round, per seat
    t_played: str | None = None  # [T!] kind played this turn
    joker: int = 0  # Joker delta for this turn (A12)
    status: str = PLAYING
    winners: list[int] = field(default_factory=list)
    backs: dict[str, int] | None = None  # only for back_numbers="random" (A1)

    @property
    def players(self) -> int:
        return self.config.players

    def back_of(self, card: str) -> int:
        return self.backs[card] if self.backs is not None else BALANCED_BACK[card]

    @property
    def base_target(self) -> int:
        """Back of the top deck card, or 7 once the deck is out (RULES §3.2)."""
        return self.back_of(self.deck[-1]) if self.deck else BLUE_CARD_TARGET

    @property
    def target(self) -> int:
        """Effective target of the active player's sum (A29)."""
        return self.base_target + self.joker

    @property
    def is_over(self) -> bool:
        return self.status == OVER

    def round_score(self, seat: int) -> int:
        """Points won this round so far, [T!] cards included (RULES §5.3)."""
        return sum(POINTS[c] for c in self.piles[seat]) + T_POINTS * (
            len(self.used_t[seat]) + len(self.holdings[seat])
        )

    def scores_round(self) -> list[int]:
        return [self.round_score(s) for s in range(self.players)]

    def scores_total(self) -> list[int]:
        return [t + self.round_score(s) for s, t in enumerate(self.totals)]

    def clone(self) -> GameState:
        return GameState(
            config=self.config,
            rng=self.rng,
            round=self.round,
            turn=self.turn,
            dealer=self.dealer,
            current=self.current,
            deck=list(self.deck),
            table=list(self.table),
            hands=[list(h) for h in self.hands],
            piles=[list(p) for p in self.piles],
            used_t=[list(u) for u in self.used_t],
            holdings=[list(h) for h in self.holdings],
            tdeck=list(self.tdeck),
            totals=list(self.totals),
            round_points=[list(r) for r in self.round_points],
            t_played=self.t_played,
            joker=self.joker,
            status=self.status,
            winners=list(self.winners),
            backs=self.backs,
        )

    # --- serialisation -------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA_VERSION,
            "config": self.config.to_json(),
            "rng": str(self.rng),
            "round": self.round,
            "turn": self.turn,
            "dealer": self.dealer,
            "current": self.current,
            "deck": list(self.deck),
            "table": list(self.table),
            "hands": [list(h) for h in self.hands],
            "piles": [list(p) for p in self.piles],
            "used_t": [list(u) for u in self.used_t],
            "holdings": [list(h) for h in self.holdings],
            "tdeck": list(self.tdeck),
            "totals": list(self.totals),
            "round_points": [list(r) for r in self.round_points],
            "t_played": self.t_played,
            "joker": self.joker,
            "status": self.status,
            "winners": list(self.winners),
            "backs": dict(self.backs) if self.backs is not None else None,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> GameState:
        """Load a saved state, or raise `SchemaError` naming what is wrong with it.

        Strict on purpose: a state that breaks an invariant (a card in two
        zones, a 4-card hand, a seat to move with no cards, a [T!] too many)
        would otherwise fail later as an odd error deep in the rules, or not at
        all and play on wrongly. Every state the engine itself produces loads.
        """
        if not isinstance(data, dict) or data.get("schema") != SCHEMA_VERSION:
            schema = data.get("schema") if isinstance(data, dict) else None
            raise SchemaError(f"unsupported game schema {schema!r}")
        try:
            state = cls(
                config=GameConfig.from_json(data["config"]),
                rng=int(data["rng"]),
                round=int(data["round"]),
                turn=int(data["turn"]),
                dealer=int(data["dealer"]),
                current=int(data["current"]),
                deck=list(data["deck"]),
                table=list(data["table"]),
                hands=[list(h) for h in data["hands"]],
                piles=[list(p) for p in data["piles"]],
                used_t=[list(u) for u in data["used_t"]],
                holdings=[list(h) for h in data["holdings"]],
                tdeck=list(data["tdeck"]),
                totals=[int(t) for t in data["totals"]],
                round_points=[[int(p) for p in r] for r in data["round_points"]],
                t_played=data["t_played"],
                joker=int(data["joker"]),
                status=data["status"],
                winners=[int(w) for w in data["winners"]],
                backs=dict(data["backs"]) if data.get("backs") is not None else None,
            )
        except (KeyError, TypeError, ValueError, AttributeError, ConfigError) as exc:
            raise SchemaError(f"broken game data: {exc}") from exc
        state._validate()
        problems = check_invariants(state)
        if problems:
            raise SchemaError("inconsistent saved game: " + "; ".join(problems))
        return state

    def _validate(self) -> None:
        """Reject wrong shapes and unknown ids, so that the invariant checks can index safely."""
        n = self.players
        per_seat: tuple[Sized, ...] = (
            self.hands,
            self.piles,
            self.used_t,
            self.holdings,
            self.totals,
            *self.round_points,
        )
        if any(len(zone) != n for zone in per_seat):
            raise SchemaError("per-seat data does not match the player count")
        if not (0 <= self.current < n and 0 <= self.dealer < n) or any(not 0 <= w < n for w in self.winners):
            raise SchemaError("seat number out of range")
        if self.status not in (PLAYING, OVER) or self.joker not in (-1, 0, 1):
            raise SchemaError("bad status or Joker delta")
        for zone in (self.deck, self.table, *self.hands, *self.piles):
            if not all(is_card(c) for c in zone):
                raise SchemaError("unknown card id in saved game")
        t_names = {k.value for k in TKind}
        played = [] if self.t_played is None else [self.t_played]
        for zone in (self.tdeck, *self.holdings, *self.used_t, played):
            if not all(isinstance(t, str) and t in t_names for t in zone):
                raise SchemaError("unknown [T!] card in saved game")
        if self.backs is not None and not all(
            is_card(c) and type(b) is int and 7 <= b <= 10 for c, b in self.backs.items()
        ):
            raise SchemaError("bad back numbers in saved game")


# --- invariants -------------------------------------------------------------------------------


def check_invariants(state: GameState) -> list[str]:
    """Return the violations, each naming its problem (empty when the state is sound).

    Assumes the shapes are right (one entry per seat everywhere, known card
    ids), which `GameState.from_json` checks first.
    """
    problems: list[str] = []
    n = state.players
    sums = [sum(r[s] for r in state.round_points) for s in range(n)]
    if sums != state.totals:
        problems.append("totals differ from the recorded round points")
    if state.round < 1 or state.turn < 1:
        problems.append("round and turn numbers start at 1")
    best = max(state.totals)
    if state.status == OVER:
        problems.extend(_finished(state, best))
    else:
        problems.extend(_cards(state))
        problems.extend(_turn(state))
        if len(state.round_points) != state.round - 1:
            problems.append("round points recorded for a round that has not ended")
        if best >= state.config.threshold:
            problems.append("a total reached the threshold but the game goes on")
        if state.winners:
            problems.append("winners named while the game goes on")
    return problems


def _finished(state: GameState, best: int) -> list[str]:
    """A finished game keeps only its totals (E6) and names every seat on the top total (A17)."""
    problems: list[str] = []
    zones = [state.deck, state.table, state.tdeck, *state.hands, *state.piles, *state.holdings, *state.used_t]
    if any(zones):
        problems.append("cards left in play after the game ended")
    if len(state.round_points) != state.round:
        problems.append("a finished game must record every round it played")
    if best < state.config.threshold:
        problems.append("the game ended before anyone reached the threshold")
    if state.winners != [s for s, t in enumerate(state.totals) if t == best]:
        problems.append("the winners are not the seats with the highest total")
    return problems


def _cards(state: GameState) -> list[str]:
    """Every card in exactly one zone, hands no bigger than three, backs known for the random variant."""
    problems: list[str] = []
    number_cards = [*state.deck, *state.table]
    for seat in range(state.players):
        number_cards.extend(state.hands[seat])
        number_cards.extend(state.piles[seat])
    in_play = cards_of_colours(state.config.colours)
    found = Counter(number_cards)
    if found != Counter(in_play):
        twice = sorted(c for c, k in found.items() if k > 1)
        missing = sorted(set(in_play) - set(found))
        foreign = sorted(set(found) - set(in_play))
        detail = "; ".join(
            f"{label} {', '.join(cards)}"
            for label, cards in (("twice:", twice), ("missing:", missing), ("not in play:", foreign))
            if cards
        )
        problems.append(f"number cards not conserved ({detail})")
    t_cards = [*state.tdeck]
    for seat in range(state.players):
        t_cards.extend(state.holdings[seat])
        t_cards.extend(state.used_t[seat])
    if Counter(t_cards) != Counter(t_deck(state.config.edition)):
        problems.append("[T!] cards not conserved: the deck, holdings and used piles must make one edition")
    if any(len(h) > HAND_SIZE for h in state.hands):
        problems.append("a hand holds more than 3 cards")
    if state.config.back_numbers == "random":
        if state.backs is None or not set(in_play) <= set(state.backs):
            problems.append("random back numbers missing for some cards")
    elif state.backs is not None:
        problems.append("back numbers saved for the balanced variant")
    return problems


def _turn(state: GameState) -> list[str]:
    """The seat to move can act, and the turn's [T!] record matches its used pile."""
    problems: list[str] = []
    seat = state.current
    if not state.hands[seat]:
        problems.append("the seat to move has no cards")
    if seat != (state.dealer + state.turn) % state.players:
        problems.append("the seat to move is not the one the turn count gives")  # A10, A11
    if state.t_played is None:
        if state.joker != 0:
            problems.append("Joker delta without a Joker played")
    else:
        if state.t_played not in state.used_t[seat]:
            problems.append("the [T!] card played this turn is not in the mover's used pile")
        if (state.joker != 0) != (state.t_played == "joker"):
            problems.append("a Joker played this turn needs a delta of +1 or -1, and nothing else one")
    return problems
