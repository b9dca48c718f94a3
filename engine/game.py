"""The rules of TWEAK! as pure functions over `GameState`.

Public entry points: `new_game`, `legal_actions`, `check`, `apply`,
`default_action`. A turn is an optional [T!] action followed by exactly one main
action (SUM or DISCARD); lost turns, skips, round ends and new deals happen by
themselves inside `apply` and are reported as events.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache

from . import rng
from .actions import (
    T_ACTION_KIND,
    Action,
    Discard,
    MainAction,
    PlayBomb,
    PlayJoker,
    PlayShifter,
    PlayThief,
    Sum,
    TAction,
    decode,
)
from .cards import POINTS, T_KINDS, VALUE, TKind, cards_of_colours, t_deck
from .config import HAND_SIZE, INITIAL_TABLE, TWEAK_REFILL, GameConfig
from .errors import GameOverError, IllegalActionError, MalformedActionError, NotYourTurnError
from .events import (
    Discarded,
    Event,
    GameEnded,
    LostTurn,
    Refilled,
    RoundEnded,
    RoundStarted,
    Skipped,
    Summed,
    TPlayed,
    TurnStarted,
)
from .state import OVER, GameState
from .sums import Counts, concrete_sums, count_vectors, value_counts
from .views import View, draws_after_main, seat_view, target_weights


def new_game(config: GameConfig, seed: int) -> GameState:
    """Deal round 1 with a random first dealer (RULES §2.3)."""
    state = GameState(config=config, rng=rng.seed_state(seed))
    n = config.players
    state.totals = [0] * n
    if config.back_numbers == "random":
        backs: dict[str, int] = {}
        for card in cards_of_colours(config.colours):
            state.rng, b = rng.below(state.rng, 4)
            backs[card] = 7 + b
        state.backs = backs
    state.rng, dealer = rng.below(state.rng, n)
    _deal(state, round_no=1, dealer=dealer, events=[])
    return state


def _deal(state: GameState, round_no: int, dealer: int, events: list[Event]) -> None:
    """Set up a round from scratch (RULES §2.4, A31)."""
    n = state.players
    cards = cards_of_colours(state.config.colours)
    state.rng = rng.shuffle(state.rng, cards)
    tcards = t_deck(state.config.edition)
    state.rng = rng.shuffle(state.rng, tcards)
    state.hands = [[cards.pop() for _ in range(HAND_SIZE)] for _ in range(n)]
    state.table = [cards.pop() for _ in range(INITIAL_TABLE)]
    state.deck = cards
    state.tdeck = tcards
    state.piles = [[] for _ in range(n)]
    state.used_t = [[] for _ in range(n)]
    state.holdings = [[] for _ in range(n)]
    state.round = round_no
    state.dealer = dealer
    state.current = (dealer + 1) % n  # A10, A11
    state.turn = 1
    state.t_played = None
    state.joker = 0
    events.append(RoundStarted(round_no, dealer, state.current))
    events.append(TurnStarted(state.current, round_no, 1))


# --- legality -----------------------------------------------------------


def _opponents_with_cards(state: GameState, seat: int) -> list[int]:
    return [s for s in range(state.players) if s != seat and state.hands[s]]


def _opponents_in_turn_order(state: GameState, seat: int) -> list[int]:
    """The Thief's victims from the next player on, the order the table goes round in, so every
    surface offers them as the players sit; the Bomb keeps seat order, which its draws follow."""
    seats = ((seat + k) % state.players for k in range(1, state.players))
    return [s for s in seats if state.hands[s]]


def t_actions(state: GameState, seat: int) -> list[TAction]:
    """[T!] actions the seat may play now (C1-C3, A15, A16)."""
    if state.is_over or seat != state.current or state.t_played is not None or not state.hands[seat]:
        return []
    held = set(state.holdings[seat])
    result: list[TAction] = []
    if TKind.THIEF in held:
        result.extend(PlayThief(v) for v in _opponents_in_turn_order(state, seat))
    if TKind.JOKER in held:
        result.extend((PlayJoker(1), PlayJoker(-1)))
    if TKind.SHIFTER in held and state.deck:
        result.append(PlayShifter())
    if TKind.BOMB in held and _opponents_with_cards(state, seat):
        result.append(PlayBomb())
    return result


def legal_actions(state: GameState, seat: int, include_sums: bool = True) -> list[Action]:
    """All legal actions of a seat: [T!] plays, every concrete sum, every discard.

    On a big table the concrete sums can number in the thousands; use
    `sums.sum_options` for a value-level enumeration instead.
    """
    if state.is_over or seat != state.current:
        return []
    actions: list[Action] = list(t_actions(state, seat))
    hand = state.hands[seat]
    if include_sums:
        actions.extend(Sum(h, t) for h, t in concrete_sums(hand, state.table, state.target))
    actions.extend(Discard(i) for i in range(len(hand)))
    return actions


def check(state: GameState, seat: int, action: Action | str) -> Action:
    """Validate one proposed action without enumerating anything.

    Returns the decoded action; raises the specific error otherwise.
    """
    if isinstance(action, str):
        action = decode(action)
    elif not _well_formed(action):
        raise MalformedActionError(f"not an action: {action!r}")
    if state.is_over:
        raise GameOverError("the game is over")
    if type(seat) is not int or not 0 <= seat < state.players:
        raise MalformedActionError("no such seat")
    if seat != state.current:
        raise NotYourTurnError(f"it is seat {state.current}'s turn")
    hand = state.hands[seat]
    if isinstance(action, (PlayThief, PlayJoker, PlayShifter, PlayBomb)):
        kind = T_ACTION_KIND[type(action)]
        if not hand:  # C3: a [T!] card helps a sum, and a sum needs a hand card
            raise IllegalActionError("empty_hand", "a [T!] card needs a card in your hand")
        if state.t_played is not None:
            raise IllegalActionError("one_t_per_turn", "only one [T!] card per turn")
        if kind not in state.holdings[seat]:
            raise IllegalActionError("t_not_held", f"you hold no {kind.value}")
        if isinstance(action, PlayThief):
            if not 0 <= action.victim < state.players or action.victim == seat:
                raise IllegalActionError("bad_victim", "pick another player")
            if not state.hands[action.victim]:
                raise IllegalActionError("victim_empty", "that player has no cards")
        elif isinstance(action, PlayJoker):
            if action.delta not in (1, -1):
                raise IllegalActionError("joker_delta", "the Joker is +1 or -1")
        elif isinstance(action, PlayShifter):
            if not state.deck:
                raise IllegalActionError("deck_empty", "the deck is empty")
        elif not _opponents_with_cards(state, seat):
            raise IllegalActionError("no_victims", "no other player has cards")
        return action
    if isinstance(action, Discard):
        if not 0 <= action.hand < len(hand):
            raise IllegalActionError("bad_hand_index", "no such hand card")
        return action
    if isinstance(action, Sum):
        if not 0 <= action.hand < len(hand):
            raise IllegalActionError("bad_hand_index", "no such hand card")
        positions = action.table
        if not positions:
            raise IllegalActionError("no_table_cards", "a sum needs at least one table card")
        if len(set(positions)) != len(positions) or not all(0 <= p < len(state.table) for p in positions):
            raise IllegalActionError("bad_table_index", "no such table card")
        total = VALUE[hand[action.hand]] + sum(VALUE[state.table[p]] for p in positions)
        if total != state.target:
            raise IllegalActionError(
                "wrong_total", f"{total} is not the target {state.target}", total=total, target=state.target
            )
        return action
    raise MalformedActionError(f"not an action: {action!r}")


def _well_formed(action: object) -> bool:
    """Field types of an action object; forged objects must not reach list indexing."""
    if isinstance(action, PlayThief):
        return type(action.victim) is int
    if isinstance(action, PlayJoker):
        return type(action.delta) is int
    if isinstance(action, Discard):
        return type(action.hand) is int
    if isinstance(action, Sum):
        return (
            type(action.hand) is int
            and isinstance(action.table, tuple)
            and all(type(p) is int for p in action.table)
        )
    return isinstance(action, (PlayShifter, PlayBomb))


def is_legal(state: GameState, seat: int, action: Action | str) -> bool:
    try:
        check(state, seat, action)
    except (IllegalActionError, NotYourTurnError, GameOverError, MalformedActionError):
        return False
    return True


# --- applying -----------------------------------------------------------


#: Sees the live state as each automatic turn (lost turn or skip) begins: `state.current` is
#: the seat and its hand is empty; the LostTurn or Skipped event that follows says which. It
#: exists because those turns happen inside one `apply`, so a caller that needs the table as
#: it was then (the replay records) has no other way to see it without re-implementing the
#: rules. It must not change the state.
AutoTurnObserver = Callable[[GameState], None]


def apply(
    state: GameState, seat: int, action: Action | str, on_auto_turn: AutoTurnObserver | None = None
) -> tuple[GameState, list[Event]]:
    """Apply a checked action to a copy of the state; the input is untouched."""
    action = check(state, seat, action)
    new = state.clone()
    events: list[Event] = []
    apply_checked(new, seat, action, events, on_auto_turn)
    return new, events


def apply_in_place(
    state: GameState,
    seat: int,
    action: Action | str,
    events: list[Event],
    on_auto_turn: AutoTurnObserver | None = None,
) -> None:
    """Like `apply` but mutates `state`; for simulations that own their state."""
    apply_checked(state, seat, check(state, seat, action), events, on_auto_turn)


def apply_checked(
    state: GameState,
    seat: int,
    action: Action,
    events: list[Event],
    on_auto_turn: AutoTurnObserver | None = None,
) -> None:
    if isinstance(action, (Sum, Discard)):
        _main(state, seat, action, events)
        _advance(state, events, on_auto_turn)  # a main action ends the turn
    else:
        _play_t(state, seat, action, events)


def _play_t(state: GameState, seat: int, action: TAction, events: list[Event]) -> None:
    kind = T_ACTION_KIND[type(action)]
    state.holdings[seat].remove(kind)
    state.used_t[seat].append(kind.value)  # A20: scores 2, cannot be reused
    state.t_played = kind.value
    if isinstance(action, PlayThief):
        victim_hand = state.hands[action.victim]
        state.rng, i = rng.below(state.rng, len(victim_hand))
        card = victim_hand.pop(i)
        state.table.append(card)
        events.append(TPlayed(seat, kind.value, victim=action.victim, card=card))
    elif isinstance(action, PlayJoker):
        state.joker = action.delta
        events.append(TPlayed(seat, kind.value, delta=action.delta))
    elif isinstance(action, PlayShifter):
        card = state.deck.pop()
        state.table.append(card)
        events.append(TPlayed(seat, kind.value, card=card, new_target=state.base_target))
    else:
        dropped: dict[int, str] = {}
        for victim in _opponents_with_cards(state, seat):
            victim_hand = state.hands[victim]
            state.rng, i = rng.below(state.rng, len(victim_hand))
            card = victim_hand.pop(i)
            state.table.append(card)
            dropped[victim] = card
        events.append(TPlayed(seat, kind.value, dropped=dropped))


def _draw_hand(state: GameState, seat: int) -> tuple[str, ...]:
    hand = state.hands[seat]
    drawn: list[str] = []
    while len(hand) < HAND_SIZE and state.deck:
        card = state.deck.pop()
        hand.append(card)
        drawn.append(card)
    return tuple(drawn)


def _main(state: GameState, seat: int, action: MainAction, events: list[Event]) -> None:
    hand = state.hands[seat]
    tweak = False
    if isinstance(action, Sum):
        target = state.target
        hand_card = hand.pop(action.hand)
        used = set(action.table)
        taken = tuple(state.table[p] for p in action.table)
        state.table = [c for i, c in enumerate(state.table) if i not in used]
        state.piles[seat].append(hand_card)
        state.piles[seat].extend(taken)
        tweak = not state.table
        won: str | None = None
        if tweak and state.tdeck:  # A9, A19
            won = state.tdeck.pop()
            state.holdings[seat].append(won)
        events.append(Summed(seat, hand_card, taken, target, tweak, won))
    else:
        card = hand.pop(action.hand)
        state.table.append(card)
        events.append(Discarded(seat, card))
    drawn = _draw_hand(state, seat)  # hand first ...
    table_drawn: list[str] = []
    if tweak:  # ... then the table, only after a TWEAK (A26)
        for _ in range(TWEAK_REFILL):
            if state.deck:
                card = state.deck.pop()
                state.table.append(card)
                table_drawn.append(card)
    events.append(Refilled(seat, drawn, tuple(table_drawn)))
    state.t_played = None
    state.joker = 0


def _advance(state: GameState, events: list[Event], on_auto_turn: AutoTurnObserver | None) -> None:
    """Pass the turn on, resolving lost turns, skips and the round end."""
    n = state.players
    while True:
        if not state.deck and not any(state.hands):
            _end_round(state, events)
            return
        state.current = (state.current + 1) % n
        state.turn += 1
        seat = state.current
        if state.hands[seat]:
            events.append(TurnStarted(seat, state.round, state.turn))
            return
        if on_auto_turn is not None:
            on_auto_turn(state)
        if state.deck:
            events.append(LostTurn(seat, _draw_hand(state, seat)))  # A27
        else:
            events.append(Skipped(seat))  # A28


def _end_round(state: GameState, events: list[Event]) -> None:
    points = state.scores_round()
    leftover = tuple(state.table)
    state.table = []  # A39: nobody scores leftovers
    state.round_points.append(points)
    state.totals = [t + p for t, p in zip(state.totals, points, strict=True)]
    events.append(RoundEnded(state.round, tuple(points), tuple(state.totals), leftover))
    best = max(state.totals)
    if best >= state.config.threshold:  # A17, A18
        state.status = OVER
        state.winners = [s for s, t in enumerate(state.totals) if t == best]
        # Clear the round's zones so the final state holds no stale cards.
        state.piles = [[] for _ in range(state.players)]
        state.used_t = [[] for _ in range(state.players)]
        state.holdings = [[] for _ in range(state.players)]
        state.tdeck = []
        events.append(GameEnded(tuple(state.winners), tuple(state.totals)))
        return
    _deal(state, state.round + 1, (state.dealer + 1) % state.players, events)


# --- the idle default ---------------------------------------------------


def require_turn(state: GameState, seat: int) -> None:
    """What every "what does this seat play now" asks first: a game going on, and this seat's turn."""
    if state.is_over:
        raise GameOverError("the game is over")
    if seat != state.current:
        raise NotYourTurnError(f"it is seat {state.current}'s turn")


@lru_cache(maxsize=2048)  # as `sums.COUNT_VECTORS_MEMO`: as many hits as 16,384, a bounded memory
def _chances(available: Counts, target: int) -> tuple[int, int]:
    """How good a table is for an unknown next hand: (TWEAK-able values, summable values)."""
    tweaks = 0
    sums = 0
    for hv in range(1, 7):
        vectors = count_vectors(available, target - hv)
        if vectors:
            sums += 1
            if available in vectors:
                tweaks += 1
    return tweaks, sums


def default_action(state: GameState, seat: int) -> Discard:
    """The discard played for an idle seat.

    Never a sum or a [T!] (the player did not choose to spend anything). It
    picks the hand card that leaves the next player the fewest hand values that
    could TWEAK, then the fewest that could sum at all, then gives away the
    fewest points; ties go to the lowest hand index, so it is deterministic.

    The next target is not known when the seat moves: it is the back of the
    card that will be on top after the refill, still hidden. So the chances are
    weighed over every back that card can have, from the seat's own view
    (`views.target_weights`); the real deck is never read, and two positions
    that look the same to the player get the same default (E4).
    """
    require_turn(state, seat)
    return view_default(seat_view(state, seat))


def view_default(v: View) -> Discard:
    """The idle default from the seat's view alone (the computer players' quiet discard too)."""
    if not v.hand:
        raise IllegalActionError("empty_hand", "no card to discard")
    return Discard(safest_discard(v.hand, v.table, target_weights(v, draws_after_main(v))))


def safest_discard(hand: Sequence[str], table: Sequence[str], weights: Mapping[int, int]) -> int:
    """Hand index of the discard that leaves the next player least, for targets weighted by `weights`.

    Shared with the computer players, so that "leave the next player as little
    as possible" means one thing everywhere.
    """
    best: tuple[tuple[int, int, int, int], int] | None = None
    for i, card in enumerate(hand):
        tweaks = sums = 0
        available = value_counts([*table, card])
        for target, weight in weights.items():
            t, s = _chances(available, target)
            tweaks += weight * t
            sums += weight * s
        key = (tweaks, sums, POINTS[card], i)
        if best is None or key < best[0]:
            best = (key, i)
    if best is None:
        raise IllegalActionError("empty_hand", "no card to discard")
    return best[1]


__all__ = [
    "T_KINDS",
    "apply",
    "apply_in_place",
    "check",
    "default_action",
    "is_legal",
    "legal_actions",
    "new_game",
    "require_turn",
    "safest_discard",
    "t_actions",
]
