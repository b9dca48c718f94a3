"""A person's own view of a running game (issue 61, `tgbot.render.hand_view`), drawn from states the
engine deals and plays: it shows that seat's cards and no other's, the live target, on their turn
only the legal moves it offers (every offered sum is played through the engine), and its keys
parse back to the seat and version they were drawn for.

Expectations come from the engine (its hands, table, target, `sum_options`, `apply`), never from
the render's own output."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import replace

import pytest

from engine import GameConfig, GameState, apply, legal_actions, new_game, seat_view, sum_options
from engine.actions import Discard, PlayJoker, PlayThief, Sum, encode
from engine.cards import COLOUR_OF, VALUE
from engine.game import t_actions
from engine.sums import SumOption, concrete_sums
from tgbot import callbacks as cb
from tgbot.i18n import LANGUAGES, _
from tgbot.render import board
from tgbot.render import hand_view as hv
from tgbot.render.cards import COLOUR_EMOJI
from tgbot.render.keys import Keyboard

NAMES = ("Ana", "Benedetta", "Carlos")
GAME_ID, VERSION = 41, 17
#: A card as any text shows it: its colour's emoji and its value.
FACE = re.compile("(" + "|".join(COLOUR_EMOJI.values()) + ")([1-6])")
KINDS: tuple[type[cb.Callback], ...] = (cb.MyCards, *cb.CARDS_KEYS)


def face(card_id: str) -> str:
    return COLOUR_EMOJI[COLOUR_OF[card_id]] + str(VALUE[card_id])


def faces_in(text: str) -> Counter[str]:
    return Counter(m.group(0) for m in FACE.finditer(text))


def table_for(
    state: GameState, seat: int, *, hints: bool = False, names: tuple[str, ...] = NAMES
) -> board.Table:
    """What the caller passes: the players, and the seat's legal [T!] plays found by the engine."""
    players = tuple(board.Player(n, 100 + s, None) for s, n in enumerate(names[: state.players]))
    codes = tuple(encode(a) for a in t_actions(state, seat))
    return board.Table(GAME_ID, VERSION, players, face_down=False, t_choices=codes, hints=hints)


def played(seed: int, moves: int, players: int = 3) -> GameState:
    """A game the engine deals, `moves` moves on: a sum when there is one, else a discard (the
    choice turns with the move number so the hands and tables differ)."""
    state = new_game(GameConfig(players=players), seed=seed)
    for n in range(moves):
        if state.is_over:
            break
        options = [a for a in legal_actions(state, state.current) if isinstance(a, (Sum, Discard))]
        sums = [a for a in options if isinstance(a, Sum)]
        pick = sums or options
        state, _events = apply(state, state.current, pick[n % len(pick)])
    return state


def states() -> Iterator[GameState]:
    for seed in range(1, 13):
        for moves in (0, 1, 4, 9):
            yield played(seed, moves)


def labels(keys: Keyboard) -> str:
    return " ".join(k["text"] for row in keys for k in row)


def datas(keys: Keyboard) -> list[str]:
    return [k["callback_data"] for row in keys for k in row]


def plays(keys: Keyboard) -> list[cb.CardsPlay]:
    return [p for d in datas(keys) if (p := cb.CardsPlay.read(d)) is not None]


def line_with(text: str, start: str) -> str:
    found = [line for line in text.splitlines() if line.startswith(start)]
    assert len(found) == 1, (start, text)
    return found[0]


def values_of(option: SumOption) -> tuple[int, ...]:
    """The values a person would type for a sum the engine found: the hand card's, then the table's."""
    table = (value for value, n in zip(range(1, 7), option.counts, strict=True) for _ in range(n))
    return (option.hand_value, *table)


def play_all(state: GameState, seat: int, moves: tuple[object, ...]) -> GameState:
    for move in moves:
        state, _events = apply(state, seat, move)  # type: ignore[arg-type]
    return state


# --- whose cards ------------------------------------------------------------------------------


def test_the_view_shows_the_seats_own_cards_and_never_anothers() -> None:
    seen_other_faces = 0
    for state in states():
        if state.is_over:
            continue
        for seat in range(state.players):
            shown = hv.hand_view("en", seat_view(state, seat), table_for(state, seat, hints=True))
            everything = shown.text + " " + labels(shown.keys)
            own = Counter(face(c) for c in state.hands[seat])
            assert faces_in(line_with(shown.text, "Your hand:")) == own
            # every card anywhere in the view is one of the seat's own or the table's
            allowed = {face(c) for c in (*state.hands[seat], *state.table)}
            assert set(faces_in(everything)) <= allowed, (seat, everything)
            others = {face(c) for s, h in enumerate(state.hands) if s != seat for c in h} - allowed
            seen_other_faces += len(others)
            assert not others & set(faces_in(everything))
    assert seen_other_faces > 0  # the check had cards of other hands to miss


def test_the_toast_always_carries_the_persons_cards() -> None:
    state = played(3, 2)
    seat = (state.current + 1) % state.players
    state.holdings[seat] = ["thief", "joker", "joker"]
    v = seat_view(state, seat)
    own = Counter(face(c) for c in state.hands[seat])
    for note in ("", "🟥2 selected.", "x" * 400):
        for lang in LANGUAGES:
            text = hv.toast(lang, v, note)
            assert 0 < len(text.encode("utf-16-le")) // 2 <= 200
            assert faces_in(text.replace(note, "")) == own, (lang, text)
    assert "🥷" in hv.toast("en", v, "x" * 400) and "🃏×2" in hv.toast("en", v, "x" * 400)


# --- the target --------------------------------------------------------------------------------


def test_the_target_says_the_jokers_change_of_this_turn() -> None:
    state = played(5, 3)
    seat = state.current
    state.holdings[seat] = ["joker"]
    before = state.target
    after, _events = apply(state, seat, PlayJoker(1))
    v = seat_view(after, seat)
    assert after.target == before + 1 and v.joker == 1
    text = hv.hand_view("en", v, table_for(after, seat)).text
    target = line_with(text, "🎯")
    assert str(after.target) in target and "+1" in target and str(before) not in target.split("(")[0]


def test_a_chosen_joker_moves_the_running_target_and_claim_follows_it() -> None:
    """Claim appears exactly when the draft is a legal move: checked against the engine."""
    checked = 0
    for state in states():
        if state.is_over:
            continue
        seat = state.current
        state.holdings[seat] = ["joker"]
        table = table_for(state, seat)
        assert "J+" in table.t_choices
        v = seat_view(state, seat)
        for delta, code in ((0, None), (1, "J+"), (-1, "J-")):
            target = state.target + delta
            for h, positions in list(concrete_sums(state.hands[seat], state.table, target))[:3]:
                mask = sum(1 << p for p in positions)
                draft = board.Draft(h, mask, t_code=code)
                keys = hv.hand_view("en", v, table, hv.Composing(draft)).keys
                assert cb.CardsClaim(GAME_ID, VERSION, seat).data in datas(keys)
                first = [PlayJoker(delta)] if delta else []
                play_all(state, seat, (*first, Sum(h, positions)))  # the engine takes it
                checked += 1
                # one table card fewer is no sum: no Claim
                fewer = board.Draft(h, mask & (mask - 1), t_code=code)
                keys = hv.hand_view("en", v, table, hv.Composing(fewer)).keys
                assert cb.CardsClaim(GAME_ID, VERSION, seat).data not in datas(keys)
    assert checked >= 10


def test_a_thief_chosen_can_be_claimed_and_names_its_victim() -> None:
    state = played(2, 1)
    seat = state.current
    state.holdings[seat] = ["thief"]
    table = table_for(state, seat)
    victim = next(a.victim for a in t_actions(state, seat) if isinstance(a, PlayThief))
    draft = board.Draft(t_code=f"T{victim}")
    shown = hv.hand_view("en", seat_view(state, seat), table, hv.Composing(draft))
    assert cb.CardsClaim(GAME_ID, VERSION, seat).data in datas(shown.keys)
    thief_keys = [k["text"] for row in shown.keys for k in row if k["text"].startswith("👉🥷")]
    assert len(thief_keys) == 1 and NAMES[victim] in thief_keys[0]


# --- hints on and off --------------------------------------------------------------------------


def test_with_hints_every_offered_sum_is_legal_and_none_is_missing() -> None:
    with_sums = without = 0
    for state in states():
        if state.is_over:
            continue
        seat = state.current
        shown = hv.hand_view("en", seat_view(state, seat), table_for(state, seat, hints=True))
        offered = plays(shown.keys)
        deltas = (0, *(a.delta for a in t_actions(state, seat) if isinstance(a, PlayJoker)))
        combos = {
            (d, o.hand_value, o.counts)
            for d in deltas
            for o in sum_options(state.hands[seat], state.table, state.target + d)
        }
        assert len(offered) == min(len(combos), 8)
        for key in offered:
            assert (key.game_id, key.version, key.seat) == (GAME_ID, VERSION, seat)
            play_all(state, seat, key.moves)  # legal, or the engine raises
        if combos:
            with_sums += 1
        else:
            without += 1
            assert "No sum" in shown.text
    assert with_sums and without


def test_without_hints_the_view_asks_for_values_and_offers_no_sum() -> None:
    for state in states():
        if state.is_over:
            continue
        seat = state.current
        shown = hv.hand_view("en", seat_view(state, seat), table_for(state, seat))
        assert plays(shown.keys) == []
        assert "5 3 1" in shown.text


def test_typed_values_offer_only_the_legal_sums_made_of_them() -> None:
    checked = 0
    for state in states():
        if state.is_over:
            continue
        seat = state.current
        v = seat_view(state, seat)
        for option in sum_options(state.hands[seat], state.table, state.target)[:2]:
            typed = values_of(option)
            shown = hv.hand_view("en", v, table_for(state, seat), hv.Composing(typed=typed))
            offered = plays(shown.keys)
            assert offered, (typed, shown.text)
            for key in offered:
                (move,) = key.moves
                assert isinstance(move, Sum)
                used = [state.hands[seat][move.hand], *(state.table[p] for p in move.table)]
                assert sorted(VALUE[c] for c in used) == sorted(typed)
                play_all(state, seat, key.moves)
                checked += 1
    assert checked >= 10


def test_typed_values_that_make_no_sum_say_why_and_offer_nothing() -> None:
    state = played(4, 2)
    seat = state.current
    v = seat_view(state, seat)
    table = table_for(state, seat)
    wrong_total = (state.target - 4, 5)  # one more than the target (7 to 10)
    cases: dict[tuple[int, ...], str] = {
        wrong_total: f"= {state.target + 1}",
        (6,): "a sum takes a hand card",  # one value is no sum
        (9, 1): "1 to 6",
    }
    for typed, reason in cases.items():
        shown = hv.hand_view("en", v, table, hv.Composing(typed=typed))
        assert plays(shown.keys) == [], typed
        assert reason in shown.text, (typed, shown.text)
        assert cb.CardsClear(GAME_ID, VERSION, seat).data in datas(shown.keys)  # to start again


def test_typed_values_with_the_joker_are_played_with_it() -> None:
    checked = 0
    for state in states():
        if state.is_over:
            continue
        seat = state.current
        state.holdings[seat] = ["joker"]
        for delta in (1, -1):
            for option in sum_options(state.hands[seat], state.table, state.target + delta)[:1]:
                typed = values_of(option)
                if sum_options(state.hands[seat], state.table, state.target):
                    continue  # keep to values that only the Joker's target makes a sum
                table = table_for(state, seat)
                shown = hv.hand_view("en", seat_view(state, seat), table, hv.Composing(typed=typed))
                offered = plays(shown.keys)
                assert offered and all(key.moves[0] == PlayJoker(delta) for key in offered)
                for key in offered:
                    play_all(state, seat, key.moves)
                    checked += 1
    assert checked


def test_typed_values_the_cards_cannot_make_say_so() -> None:
    """Values that reach the target but are not in the hand and on the table."""
    checked = 0
    for state in states():
        if state.is_over:
            continue
        seat = state.current
        present = {VALUE[c] for c in (*state.hands[seat], *state.table)}
        absent = [n for n in range(1, 7) if n not in present and 1 <= state.target - n <= 6]
        for n in absent[:1]:
            typed = (n, state.target - n)
            shown = hv.hand_view(
                "en", seat_view(state, seat), table_for(state, seat), hv.Composing(typed=typed)
            )
            assert plays(shown.keys) == []
            assert "in your hand" in shown.text
            checked += 1
    assert checked


# --- off turn, game over -----------------------------------------------------------------------


def test_off_turn_the_view_has_no_compose_keys_and_names_the_mover() -> None:
    state = played(8, 5)
    mover = state.current
    for seat in range(state.players):
        if seat == mover:
            continue
        shown = hv.hand_view("en", seat_view(state, seat), table_for(state, seat))
        assert datas(shown.keys) == [cb.MyCards(GAME_ID).data]
        assert NAMES[mover] in shown.text and "Your move" not in shown.text
        assert faces_in(line_with(shown.text, "Your hand:")) == Counter(face(c) for c in state.hands[seat])


def test_a_finished_game_says_so_without_keys() -> None:
    state = new_game(GameConfig(players=2), seed=11)
    for _n in range(5000):
        if state.is_over:
            break
        actions = legal_actions(state, state.current)
        move = next((a for a in actions if isinstance(a, Sum)), actions[-1])
        state, _events = apply(state, state.current, move)
    assert state.is_over
    for lang in LANGUAGES:
        shown = hv.hand_view(lang, seat_view(state, 0), table_for(state, 0))
        assert shown.keys == [] and _(lang, "This game is over.") in shown.text


# --- keys --------------------------------------------------------------------------------------


def every_view(state: GameState, names: tuple[str, ...] = NAMES) -> Iterator[tuple[int, hv.Shown]]:
    """Every seat's view, and the mover's with drafts, typed values and hints."""
    seat = state.current
    whole = (1 << len(state.table)) - 1
    for s in range(state.players):
        yield s, hv.hand_view("en", seat_view(state, s), table_for(state, s, names=names))
    v = seat_view(state, seat)
    for hints in (False, True):
        table = table_for(state, seat, hints=hints, names=names)
        for code in (None, *table.t_choices):
            for draft in (board.Draft(t_code=code), board.Draft(0, whole, code), board.Draft(None, 1, code)):
                yield seat, hv.hand_view("en", v, table, hv.Composing(draft, typed=(1, 2)))


def test_every_key_parses_back_to_its_game_version_and_seat() -> None:
    state = played(9, 3)
    state.holdings = [["thief", "joker", "shifter", "bomb"] for _s in range(state.players)]
    kinds_seen: set[type[cb.Callback]] = set()
    for seat, shown in every_view(state):
        for data in datas(shown.keys):
            assert len(data.encode()) <= 64
            parsed = [key for kind in KINDS if (key := kind.read(data)) is not None]
            assert len(parsed) == 1, data
            key = parsed[0]
            kinds_seen.add(type(key))
            assert key.game_id == GAME_ID  # type: ignore[attr-defined]
            if isinstance(key, cb.CardsKey):
                assert (key.version, key.seat) == (VERSION, seat)
    assert kinds_seen >= {cb.MyCards, cb.CardsPickHand, cb.CardsPickTable, cb.CardsChooseT, cb.CardsClaim}
    assert kinds_seen >= {cb.CardsDiscard, cb.CardsClear}


def test_the_boards_key_opens_the_view_and_names_no_version() -> None:
    key = hv.my_cards_key("en", GAME_ID)
    assert cb.MyCards.parse(key["callback_data"]) == cb.MyCards(GAME_ID)
    for lang in LANGUAGES:
        label = hv.my_cards_key(lang, GAME_ID)["text"]
        assert label.startswith("🃏 ") and (lang == "en" or label != "🃏 My cards")


# --- every language ----------------------------------------------------------------------------


@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_each_language_renders_the_view(lang: str) -> None:
    from tests.test_i18n import NAMES as LONG_NAMES
    from tests.test_i18n import visible, worst_state

    state = worst_state()
    seat = state.current
    names = tuple(LONG_NAMES)
    v = seat_view(state, seat)
    whole = (1 << len(state.table)) - 1
    table = table_for(state, seat, names=names)
    texts = [
        hv.hand_view(lang, v, replace(table, hints=True), hv.Composing(board.Draft(0, whole, "J-"))).text,
        hv.hand_view(lang, v, table, hv.Composing(board.Draft(0, whole), typed=(1, 2, 3))).text,
        hv.hand_view(lang, seat_view(state, 1), table_for(state, 1, names=names)).text,
    ]
    for text in texts:
        assert visible(text) <= 4096
        assert faces_in(line_with(text, _(lang, "Your hand: {cards}", cards="").strip())) == Counter(
            face(c) for c in state.hands[seat if text is not texts[2] else 1]
        )
    if lang != "en":
        english = hv.hand_view("en", v, table).text
        assert hv.hand_view(lang, v, table).text.splitlines()[0] != english.splitlines()[0]
