"""Properties that must hold in every game, checked on seeded random games.

Hypothesis draws the configuration, the deal seed and the seed of the random
player; the player itself is a plain `random.Random`, which keeps a whole game
per example cheap while still letting Hypothesis shrink to a small failing seed.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from itertools import combinations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import (
    Action,
    Discard,
    GameConfig,
    GameOverError,
    GameState,
    IllegalActionError,
    MalformedActionError,
    NotYourTurnError,
    PlayBomb,
    PlayJoker,
    PlayShifter,
    PlayThief,
    Sum,
    apply,
    apply_in_place,
    check,
    check_invariants,
    decode,
    default_action,
    encode,
    is_legal,
    legal_actions,
    new_game,
    public_view,
    seat_view,
    sum_options,
    t_actions,
)
from engine.cards import ALL_CARDS, POINTS, T_POINTS, VALUE, cards_of_colours
from engine.events import Event, RoundEnded, RoundStarted, Summed
from engine.sums import concrete_sums, has_sum, realise, value_counts

from .helpers import ALL_COLOURS, Step, playthrough, random_action, strings_in

FAST = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
LIGHT = settings(max_examples=100, deadline=None)


@st.composite
def configs(draw: st.DrawFn) -> GameConfig:
    players = draw(st.integers(2, 6))
    return GameConfig(
        players,
        edition=draw(st.sampled_from(["classic", "extended"])),
        colours=ALL_COLOURS if draw(st.booleans()) else (),
        target_score=draw(st.sampled_from([None, None, 15, 40])),
        won_t_face_down=draw(st.booleans()),
        back_numbers=draw(st.sampled_from(["balanced", "random"])),
    )


seeds = st.integers(0, 2**64 - 1)
choice_seeds = st.integers(0, 2**32 - 1)


def games(config: GameConfig, seed: int, choice_seed: int) -> Iterator[Step]:
    return playthrough(config, seed, choice_seed)


def _json_text(state: GameState) -> str:
    return json.dumps(state.to_json(), sort_keys=True)


# --- conservation, purity, serialisation ------------------------------------------------------


@FAST
@given(configs(), seeds, choice_seeds)
def test_every_card_in_exactly_one_zone_after_every_action(config: GameConfig, seed: int, cs: int) -> None:
    first = True
    for step in games(config, seed, cs):
        if first:
            assert check_invariants(step.before) == []
            first = False
        assert check_invariants(step.after) == [], (encode(step.action), check_invariants(step.after))


@FAST
@given(configs(), seeds, choice_seeds)
def test_json_round_trip_is_exact_and_apply_is_pure(config: GameConfig, seed: int, cs: int) -> None:
    state = new_game(config, seed)
    r = random.Random(cs)
    while not state.is_over:
        data = state.to_json()
        text = json.dumps(data)
        assert GameState.from_json(data).to_json() == data
        reloaded = GameState.from_json(json.loads(text))
        assert reloaded == state  # no field is lost on the way
        assert reloaded.to_json() == data
        action = random_action(state, r)
        after, _ = apply(state, state.current, action)
        assert json.dumps(state.to_json()) == text  # the input state was not touched
        state = after
    assert GameState.from_json(json.loads(json.dumps(state.to_json()))).to_json() == state.to_json()


@FAST
@given(configs(), seeds, choice_seeds)
def test_same_seed_and_actions_give_same_game(config: GameConfig, seed: int, cs: int) -> None:
    codes: list[tuple[int, str]] = []
    trace: list[str] = []
    events: list[dict[str, object]] = []
    for step in games(config, seed, cs):
        codes.append((step.seat, encode(step.action)))
        trace.append(_json_text(step.after))
        events.extend(e.to_json() for e in step.events)
    # Replay by codes, through `apply`, reloading from JSON halfway.
    state = new_game(config, seed)
    replayed: list[dict[str, object]] = []
    for i, (seat, code) in enumerate(codes):
        if i == len(codes) // 2:
            state = GameState.from_json(json.loads(_json_text(state)))
        state, evs = apply(state, seat, code)
        replayed.extend(e.to_json() for e in evs)
        assert _json_text(state) == trace[i]
    assert replayed == events
    # And in place, as the simulator does.
    state = new_game(config, seed)
    in_place: list[Event] = []
    for seat, code in codes:
        apply_in_place(state, seat, code, in_place)
    assert _json_text(state) == trace[-1]
    assert [e.to_json() for e in in_place] == events


# --- legality -----------------------------------------------------------------------------------


def _random_codes(r: random.Random, state: GameState) -> list[str]:
    table_bits = max(1, len(state.table) + 1)
    return [
        f"T{r.randrange(10)}",
        r.choice(["J+", "J-", "F", "B"]),
        f"D{r.randrange(5)}",
        f"S{r.randrange(4)}.{r.randrange(1, 1 << table_bits):x}",
        f"S{r.randrange(10)}.{r.randrange(1, 1 << 16):x}",
    ]


GARBAGE = ["", "Z", "S0.0", "J0", "D", "T-1", "S0.", "SS", "F0", "é", "S0.1.2", "D00"]


@FAST
@given(configs(), seeds, choice_seeds)
def test_legal_actions_apply_and_everything_else_raises(config: GameConfig, seed: int, cs: int) -> None:
    r = random.Random(cs ^ 0x5EED)
    n = config.players
    last: GameState | None = None
    for k, step in enumerate(games(config, seed, cs)):
        state, seat = step.before, step.before.current
        legal = legal_actions(state, seat)
        legal_set = set(legal)
        assert len(legal_set) == len(legal)
        if k % 4 == 0 and len(state.table) <= 10:
            for action in legal:
                after, _ = apply(state, seat, action)
                assert check_invariants(after) == []
        for code in _random_codes(r, state):
            action = decode(code)
            if action in legal_set:
                assert check(state, seat, code) == action
            else:
                try:
                    check(state, seat, code)
                except IllegalActionError:
                    pass
                else:
                    raise AssertionError(f"{code} accepted but not in legal_actions")
            for other in range(n):
                if other != seat:
                    try:
                        check(state, other, code)
                    except NotYourTurnError:
                        pass
                    else:
                        raise AssertionError(f"seat {other} played {code} out of turn")
            for bad_seat in (-1, n, 9):
                try:
                    check(state, bad_seat, code)
                except MalformedActionError:
                    pass
                else:
                    raise AssertionError(f"seat {bad_seat} accepted")
        code = r.choice(GARBAGE)
        try:
            check(state, seat, code)
        except MalformedActionError:
            pass
        else:
            raise AssertionError(f"garbage {code!r} accepted")
        # A wrong total with valid positions is refused for exactly that reason.
        hand = state.hands[seat]
        if state.table:
            positions = tuple(sorted(r.sample(range(len(state.table)), r.randint(1, len(state.table)))))
            h = r.randrange(len(hand))
            total = VALUE[hand[h]] + sum(VALUE[state.table[p]] for p in positions)
            if total != state.target:
                try:
                    check(state, seat, Sum(h, positions))
                except IllegalActionError as err:
                    assert err.reason == "wrong_total"
                else:
                    raise AssertionError("wrong total accepted")
        last = step.after
    assert last is not None and last.is_over
    for seat in range(n):
        assert legal_actions(last, seat) == []
        for code in ("D0", "J+", "S0.1", "T1"):
            try:
                check(last, seat, code)
            except GameOverError:
                pass
            else:
                raise AssertionError("move accepted after the game ended")


@FAST
@given(configs(), seeds, choice_seeds)
def test_seats_not_on_turn_have_no_actions(config: GameConfig, seed: int, cs: int) -> None:
    for step in games(config, seed, cs):
        state = step.after
        if state.is_over:
            continue
        assert state.hands[state.current]  # the seat to move can always move
        assert any(isinstance(a, Discard) for a in legal_actions(state, state.current))
        for other in range(config.players):
            if other != state.current:
                assert legal_actions(state, other) == [] and t_actions(state, other) == []


def _all_candidate_actions(state: GameState) -> Iterator[Action]:
    width = len(state.table) + 1  # one position past the end on purpose
    for h in range(4):
        yield Discard(h)
        for size in range(1, width + 1):
            for positions in combinations(range(width), size):
                yield Sum(h, positions)
    for victim in range(-1, state.players + 1):
        yield PlayThief(victim)
    yield from (PlayJoker(1), PlayJoker(-1), PlayJoker(0), PlayShifter(), PlayBomb())


@FAST
@given(configs(), seeds, choice_seeds)
def test_is_legal_agrees_with_legal_actions(config: GameConfig, seed: int, cs: int) -> None:
    for k, step in enumerate(games(config, seed, cs)):
        state = step.before
        if k % 3 or len(state.table) > 6:
            continue
        legal = set(legal_actions(state, state.current))
        for action in _all_candidate_actions(state):
            assert is_legal(state, state.current, action) == (action in legal), encode(action)
        sums = {a for a in legal if isinstance(a, Sum)}
        assert bool(sums) == has_sum(state.hands[state.current], state.table, state.target)


# --- views --------------------------------------------------------------------------------------


@FAST
@given(configs(), seeds, choice_seeds)
def test_views_never_show_hidden_cards(config: GameConfig, seed: int, cs: int) -> None:
    universe = set(ALL_CARDS)
    for step in games(config, seed, cs):
        state = step.after
        announced = {c for pile in state.piles for c in pile}  # shown when their sums were announced
        public = public_view(state)
        assert public.hand is None
        assert public.announced == tuple(sorted(announced))
        assert {s for s in strings_in(public) if s in universe} <= set(state.table) | announced
        if config.won_t_face_down:
            assert all(h is None for h in public.holdings)
        for seat in range(config.players):
            view = seat_view(state, seat)
            assert view.hand == tuple(state.hands[seat])
            seen = set(state.table) | set(state.hands[seat]) | announced
            assert {s for s in strings_in(view) if s in universe} <= seen
            assert view.deck_size == len(state.deck) and view.target == state.target
            assert view.hand_sizes == tuple(len(h) for h in state.hands)
            if config.won_t_face_down:
                assert all(h is None for s, h in enumerate(view.holdings) if s != seat)


# --- round end and scores -----------------------------------------------------------------------


@FAST
@given(configs(), seeds, choice_seeds)
def test_every_round_ends_within_bounded_turns(config: GameConfig, seed: int, cs: int) -> None:
    cards = len(cards_of_colours(config.colours))
    bound = cards * config.players
    rounds = set()
    for step in games(config, seed, cs):  # raises if the game never ends
        assert step.after.turn <= bound
        rounds.add(step.after.round)
        for e in step.events:
            if isinstance(e, RoundStarted):
                assert step.after.turn == 1 and not any(step.after.piles)
    assert rounds == set(range(1, max(rounds) + 1))


@FAST
@given(configs(), seeds, choice_seeds)
def test_scores_are_won_cards_plus_two_per_t(config: GameConfig, seed: int, cs: int) -> None:
    n = config.players
    points = [0] * n
    recorded: list[tuple[int, ...]] = []
    final: GameState | None = None
    for step in games(config, seed, cs):
        for e in step.events:
            if isinstance(e, Summed):
                points[e.seat] += POINTS[e.hand_card] + sum(POINTS[c] for c in e.table_cards)
                points[e.seat] += T_POINTS if e.won_t else 0
            elif isinstance(e, RoundEnded):
                assert e.points == tuple(points)
                recorded.append(tuple(points))
                points = [0] * n
        if not step.after.is_over and not any(isinstance(e, RoundEnded) for e in step.events):
            assert step.after.scores_round() == points
        final = step.after
    assert final is not None and final.is_over
    assert [tuple(r) for r in final.round_points] == recorded
    totals = [sum(r[s] for r in recorded) for s in range(n)]
    assert final.totals == totals
    assert max(totals) >= config.threshold
    assert final.winners == [s for s in range(n) if totals[s] == max(totals)]
    for played in range(1, len(recorded)):  # no earlier round reached the threshold
        assert max(sum(r[s] for r in recorded[:played]) for s in range(n)) < config.threshold


# --- the idle default ---------------------------------------------------------------------------


@FAST
@given(configs(), seeds, choice_seeds)
def test_default_action_is_a_legal_deterministic_discard(config: GameConfig, seed: int, cs: int) -> None:
    for step in games(config, seed, cs):
        state, seat = step.before, step.before.current
        action = default_action(state, seat)
        assert isinstance(action, Discard) and is_legal(state, seat, action)
        assert default_action(state, seat) == action
        assert default_action(GameState.from_json(state.to_json()), seat) == action
        for other in range(config.players):
            if other != seat:
                try:
                    default_action(state, other)
                except NotYourTurnError:
                    pass
                else:
                    raise AssertionError("default action for a seat not on turn")


# --- action codes -------------------------------------------------------------------------------

actions = st.one_of(
    st.builds(PlayThief, st.integers(0, 9)),
    st.builds(PlayJoker, st.sampled_from([1, -1])),
    st.just(PlayShifter()),
    st.just(PlayBomb()),
    st.builds(Discard, st.integers(0, 9)),
    st.builds(Sum, st.integers(0, 9), st.sets(st.integers(0, 63), min_size=1).map(tuple)),
)


@LIGHT
@given(actions)
def test_encode_decode_round_trip(action: Action) -> None:
    code = encode(action)
    assert code.isascii() and code.isprintable() and 1 <= len(code) <= 20
    assert decode(code) == action
    assert encode(decode(code)) == code


@FAST
@given(configs(), seeds, choice_seeds)
def test_codes_of_legal_actions_round_trip(config: GameConfig, seed: int, cs: int) -> None:
    for k, step in enumerate(games(config, seed, cs)):
        if k % 5 or len(step.before.table) > 10:
            continue
        for action in legal_actions(step.before, step.before.current):
            code = encode(action)
            assert code.isascii() and len(code) <= 20 and decode(code) == action


# --- sums by value vs brute force ---------------------------------------------------------------


@st.composite
def hand_and_table(draw: st.DrawFn) -> tuple[list[str], list[str], int]:
    cards = draw(st.lists(st.sampled_from(ALL_CARDS), min_size=1, max_size=13, unique=True))
    n_hand = draw(st.integers(1, min(3, len(cards))))
    return cards[:n_hand], cards[n_hand:], draw(st.integers(5, 12))


@LIGHT
@given(hand_and_table())
def test_sum_options_match_brute_force(case: tuple[list[str], list[str], int]) -> None:
    hand, table, target = case
    expected: dict[tuple[int, tuple[int, ...]], list[int]] = {}
    concrete: set[tuple[int, tuple[int, ...]]] = set()
    for size in range(1, len(table) + 1):
        for positions in combinations(range(len(table)), size):
            subtotal = sum(VALUE[table[p]] for p in positions)
            counts = value_counts([table[p] for p in positions])
            for hv in {VALUE[c] for c in hand}:
                if hv + subtotal == target:
                    expected.setdefault((hv, counts), [0, size == len(table)])[0] += 1
            for h, card in enumerate(hand):
                if VALUE[card] + subtotal == target:
                    concrete.add((h, positions))
    options = sum_options(hand, table, target)
    got = {(o.hand_value, o.counts): [o.ways, o.tweak] for o in options}
    assert len(got) == len(options)
    assert got == expected
    assert set(concrete_sums(hand, table, target)) == concrete
    assert len(list(concrete_sums(hand, table, target))) == len(concrete)
    assert has_sum(hand, table, target) == bool(concrete)
    for option in options:
        h, positions = realise(hand, table, option)
        assert VALUE[hand[h]] == option.hand_value
        assert value_counts([table[p] for p in positions]) == option.counts
