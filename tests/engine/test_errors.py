"""Error handling: every way in from outside fails with its own error class.

The bot decodes callback data that any client can forge and loads saved games
from a database that can be edited, so garbage must never surface as a bare
KeyError or TypeError.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from engine import (
    ConfigError,
    Discard,
    EngineError,
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
    SchemaError,
    Sum,
    apply,
    check,
    decode,
    default_action,
    is_legal,
    legal_actions,
    new_game,
)

from .helpers import Picker, build, playthrough

# --- decode ---------------------------------------------------------------------------

GARBAGE_CODES = [
    "",
    " ",
    "X",
    "S",
    "S0",
    "S0.",
    "S0.0",
    "S0.0005",  # leading zeros: every action has exactly one code
    "S0.000",
    "S0.g",
    "S0.F",
    "SA.1",
    "S-1.1",
    "S0..1",
    "S0.1 ",
    " F",
    "S10.1",
    "S0.11111111111111111",
    "S0." + "1" * 30,
    "D",
    "D10",
    "D-1",
    "Da",
    "D0x",
    "T",
    "T-1",
    "T10",
    "Tx",
    "J",
    "J0",
    "J1",
    "J+1",
    "j+",
    "f",
    "b",
    "FB",
    "BB",
    "\x00",
    "D\u0660",
    "S\u0663.1",
    "T\u00b2",
    "Ｆ",
]


@pytest.mark.parametrize("code", GARBAGE_CODES)
def test_decode_garbage_is_malformed(code: str) -> None:
    with pytest.raises(MalformedActionError):
        decode(code)


@pytest.mark.parametrize("code", [None, 5, b"F", ["F"], 1.5])
def test_decode_non_string_is_malformed(code: Any) -> None:
    with pytest.raises(MalformedActionError):
        decode(code)


@pytest.mark.parametrize(
    ("code", "action"),
    [
        ("T0", PlayThief(0)),
        ("T5", PlayThief(5)),
        ("J+", PlayJoker(1)),
        ("J-", PlayJoker(-1)),
        ("F", PlayShifter()),
        ("B", PlayBomb()),
        ("D2", Discard(2)),
        ("S1.5", Sum(1, (0, 2))),
        ("S0.1", Sum(0, (0,))),
        ("S2.ff", Sum(2, tuple(range(8)))),
        ("S0.8000000000000000", Sum(0, (63,))),
    ],
)
def test_decode_known_codes(code: str, action: object) -> None:
    assert decode(code) == action


def test_error_classes_share_a_base() -> None:
    for cls in (
        ConfigError,
        GameOverError,
        IllegalActionError,
        MalformedActionError,
        NotYourTurnError,
        SchemaError,
    ):
        assert issubclass(cls, EngineError)


# --- check of forged actions --------------------------------------------------------------


def _state() -> GameState:
    p = Picker()
    return build(
        3,
        hands=[p.values(1, 6, 2), [], p.values(3, 4)],
        table=p.values(2, 5),
        deck=[p.take(back=8), p.take(back=9)],
        holdings=[["thief", "joker"], [], []],
    )


@pytest.mark.parametrize(
    ("action", "reason"),
    [
        (PlayThief(0), "bad_victim"),
        (PlayThief(3), "bad_victim"),
        (PlayThief(9), "bad_victim"),
        (PlayThief(-1), "bad_victim"),
        (PlayThief(1), "victim_empty"),
        ("T1", "victim_empty"),
        (PlayJoker(0), "joker_delta"),
        (PlayJoker(5), "joker_delta"),
        (PlayShifter(), "t_not_held"),
        (PlayBomb(), "t_not_held"),
        ("F", "t_not_held"),
        (Discard(3), "bad_hand_index"),
        (Discard(-1), "bad_hand_index"),
        ("D9", "bad_hand_index"),
        (Sum(3, (0,)), "bad_hand_index"),
        (Sum(-1, (0,)), "bad_hand_index"),
        (Sum(0, ()), "no_table_cards"),
        (Sum(1, (0, 0)), "bad_table_index"),
        (Sum(1, (2,)), "bad_table_index"),
        (Sum(1, (-1,)), "bad_table_index"),
        ("S1.4", "bad_table_index"),
        ("S0.3", "wrong_total"),
        (Sum(2, (1,)), "wrong_total"),
    ],
)
def test_check_forged_actions_are_illegal(action: Any, reason: str) -> None:
    state = _state()
    before = state.to_json()
    with pytest.raises(IllegalActionError) as err:
        check(state, 0, action)
    assert err.value.reason == reason
    assert not is_legal(state, 0, action)
    with pytest.raises(IllegalActionError):
        apply(state, 0, action)
    assert state.to_json() == before


def test_check_second_t_card_in_a_turn() -> None:
    after, _ = apply(_state(), 0, PlayJoker(1))
    with pytest.raises(IllegalActionError) as err:
        check(after, 0, "T2")
    assert err.value.reason == "one_t_per_turn"


# Untyped aliases: these objects are deliberately built with the wrong field types.
_Discard: Any = Discard
_Sum: Any = Sum
_Thief: Any = PlayThief
_Joker: Any = PlayJoker


@pytest.mark.parametrize(
    "action",
    [
        _Discard(1.0),
        _Discard("0"),
        _Discard(None),
        _Sum("0", (0,)),
        _Sum(0, ("1",)),
        _Sum(1, (0.0,)),
        _Sum(True, (0,)),
        _Thief("2"),
        _Thief(2.0),
        _Joker("1"),
        _Joker(1.0),
        "nonsense",
        object(),
        None,
        17,
    ],
)
def test_check_forged_objects_are_malformed(action: Any) -> None:
    state = _state()
    with pytest.raises(MalformedActionError):
        check(state, 0, action)
    assert not is_legal(state, 0, action)


@pytest.mark.parametrize("seat", [-1, 3, 9, "0", None, 0.0])
def test_check_unknown_seat_is_malformed(seat: Any) -> None:
    with pytest.raises(MalformedActionError):
        check(_state(), seat, Discard(0))


@pytest.mark.parametrize("seat", [1, 2])
def test_check_other_seat_is_not_your_turn(seat: int) -> None:
    state = _state()
    for action in (Discard(0), "J+", Sum(0, (0,)), PlayThief(0)):
        with pytest.raises(NotYourTurnError):
            check(state, seat, action)
    with pytest.raises(NotYourTurnError):
        default_action(state, seat)


def test_finished_game_raises_game_over() -> None:
    p = Picker()
    state = build(
        hands=[[p.take()], []],
        deck=[],
        totals=[139, 0],
        round_points=[[139, 0]],
        piles=[[p.take(value=1, colour="O")], []],
    )
    over, _ = apply(state, 0, Discard(0))
    assert over.is_over
    for seat in (0, 1):
        assert legal_actions(over, seat) == []
        with pytest.raises(GameOverError):
            check(over, seat, Discard(0))
        with pytest.raises(GameOverError):
            apply(over, seat, "J+")
        with pytest.raises(GameOverError):
            default_action(over, seat)


# --- GameState.from_json --------------------------------------------------------------------


def _saved() -> dict[str, Any]:
    return new_game(GameConfig(3), 42).to_json()


def _broken(edit: Any) -> dict[str, Any]:
    data = copy.deepcopy(_saved())
    edit(data)
    return data


BROKEN: list[tuple[str, Any]] = [
    ("schema 2", lambda d: d.update(schema=2)),
    ("schema string", lambda d: d.update(schema="1")),
    ("no schema", lambda d: d.pop("schema")),
    ("no deck", lambda d: d.pop("deck")),
    ("no config", lambda d: d.pop("config")),
    ("rng not a number", lambda d: d.update(rng="xyz")),
    ("rng missing", lambda d: d.pop("rng")),
    ("hands not a list", lambda d: d.update(hands=5)),
    ("unknown card", lambda d: d["deck"].append("Z9z")),
    ("unknown card in hand", lambda d: d["hands"][0].__setitem__(0, "R7a")),
    ("card not a string", lambda d: d["table"].append(3)),
    ("totals not ints", lambda d: d.update(totals=["a", "b", "c"])),
    ("config players 7", lambda d: d["config"].update(players=7)),
    ("config missing players", lambda d: d["config"].pop("players")),
    ("config not a dict", lambda d: d.update(config=[3])),
    ("config edition", lambda d: d["config"].update(edition="deluxe")),
    ("config colours without red", lambda d: d["config"].update(colours=["O", "Y", "G", "B"])),
    ("too few hands", lambda d: d["hands"].pop()),
    ("too many piles", lambda d: d["piles"].append([])),
    ("holdings wrong length", lambda d: d.update(holdings=[[]])),
    ("totals wrong length", lambda d: d.update(totals=[0])),
    ("current out of range", lambda d: d.update(current=3)),
    ("dealer out of range", lambda d: d.update(dealer=-1)),
    ("unknown status", lambda d: d.update(status="paused")),
    ("unknown t card in holding", lambda d: d["holdings"][0].append("wizard")),
    ("unknown t card in tdeck", lambda d: d["tdeck"].append("R1a")),
    ("unknown t played", lambda d: d.update(t_played="wizard")),
    ("joker out of range", lambda d: d.update(joker=4)),
    ("backs with bad card", lambda d: d.update(backs={"Z9z": 7})),
]


@pytest.mark.parametrize("edit", [e for _, e in BROKEN], ids=[name for name, _ in BROKEN])
def test_from_json_broken_data_raises_schema_error(edit: Any) -> None:
    with pytest.raises(SchemaError):
        GameState.from_json(_broken(edit))


@pytest.mark.parametrize("data", [None, [], "state", 3, {}])
def test_from_json_not_a_saved_game(data: Any) -> None:
    with pytest.raises(SchemaError):
        GameState.from_json(data)


def test_from_json_accepts_its_own_output() -> None:
    data = _saved()
    assert GameState.from_json(data).to_json() == data


def _move_to_table(d: dict[str, Any], seat: int) -> None:
    d["table"].extend(d["hands"][seat])
    d["hands"][seat] = []


def _over(d: dict[str, Any]) -> None:
    d.update(status="over", winners=[0], totals=[120, 0, 0], round_points=[[120, 0, 0]])


# Each edit breaks one invariant of a sound state; the error must say which.
INCONSISTENT: list[tuple[str, Any, str]] = [
    ("card in two hands", lambda d: d["hands"][1].__setitem__(0, d["hands"][0][0]), "twice: "),
    ("card on the table and in the deck", lambda d: d["table"].append(d["deck"][0]), "twice: "),
    ("card lost", lambda d: d["deck"].pop(0), "missing: "),
    ("card of a colour not in play", lambda d: d["deck"].__setitem__(0, "P1a"), "not in play: P1a"),
    ("four-card hand", lambda d: d["hands"][0].append(d["deck"].pop()), "more than 3 cards"),
    (
        "seat to move with no cards",
        lambda d: _move_to_table(d, d["current"]),
        "the seat to move has no cards",
    ),
    ("seat to move out of turn", lambda d: d.update(current=(d["current"] + 1) % 3), "turn count"),
    ("one Joker too many", lambda d: d["holdings"][0].append("joker"), "[T!] cards not conserved"),
    ("a [T!] card lost", lambda d: d["tdeck"].pop(), "[T!] cards not conserved"),
    ("[T!] played but not used", lambda d: d.update(t_played="thief"), "not in the mover's used pile"),
    ("Joker delta without a Joker", lambda d: d.update(joker=1), "Joker delta"),
    ("totals without rounds", lambda d: d.update(totals=[5, 0, 0]), "totals differ"),
    ("rounds ahead of the game", lambda d: d.update(round_points=[[0, 0, 0]]), "has not ended"),
    ("winners mid-game", lambda d: d.update(winners=[1]), "winners named"),
    (
        "threshold passed mid-game",
        lambda d: d.update(totals=[130, 0, 0], round_points=[[130, 0, 0]]),
        "threshold",
    ),
    ("finished with cards in play", _over, "cards left in play"),
    ("random backs missing", lambda d: d["config"].update(back_numbers="random"), "random back numbers"),
    ("backs for the balanced deck", lambda d: d.update(backs={"R1a": 7}), "balanced"),
    ("turn zero", lambda d: d.update(turn=0), "start at 1"),
]


@pytest.mark.parametrize(
    ("edit", "problem"), [(e, p) for _, e, p in INCONSISTENT], ids=[name for name, _, _ in INCONSISTENT]
)
def test_from_json_refuses_a_state_that_breaks_an_invariant(edit: Any, problem: str) -> None:
    with pytest.raises(SchemaError, match="inconsistent saved game") as err:
        GameState.from_json(_broken(edit))
    assert problem in str(err.value)


def test_from_json_names_the_cards_at_fault() -> None:
    def twice(d: dict[str, Any]) -> None:
        d["hands"][1][0] = d["hands"][0][0]

    data = _broken(twice)
    with pytest.raises(SchemaError) as err:
        GameState.from_json(data)
    assert f"twice: {data['hands'][0][0]}" in str(err.value)


def test_a_finished_game_loads_and_a_tampered_one_does_not() -> None:
    p = Picker()
    won = [p.take(value=1, colour="O")]
    state = build(hands=[[p.take()], []], deck=[], piles=[won, []], totals=[139, 0], round_points=[[139, 0]])
    over, _ = apply(state, 0, Discard(0))
    assert over.is_over and GameState.from_json(over.to_json()) == over
    for edit in (
        lambda d: d.update(winners=[1]),
        lambda d: d.update(round_points=[[139, 0]]),
        lambda d: d["hands"][1].append("R1a"),
    ):
        data = copy.deepcopy(over.to_json())
        edit(data)
        with pytest.raises(SchemaError):
            GameState.from_json(data)


def test_every_state_the_engine_produces_loads() -> None:
    """Deals, mid-turn states after a [T!] play, round ends, finished games: all reload as they were."""
    mid_turn = finished = 0
    for seed, players in enumerate((2, 3, 4, 5, 6, 3)):
        config = GameConfig(
            players,
            edition="extended" if seed % 2 else "classic",
            target_score=30,
            won_t_face_down=seed == 3,
            back_numbers="random" if seed == 4 else "balanced",
        )
        for step in playthrough(config, seed, seed):
            for state in (step.before, step.after):
                assert GameState.from_json(json.loads(json.dumps(state.to_json()))) == state
            mid_turn += step.after.t_played is not None
            finished += step.after.is_over
    assert mid_turn > 20 and finished == 6


# --- C3 and the idle default on hand-built positions ----------------------------------------


def test_check_refuses_a_t_card_from_an_empty_hand() -> None:
    p = Picker()
    state = build(
        hands=[[], p.values(2, 3)],
        table=p.values(4),
        deck=p.values(1, 1, 2),
        holdings=[["joker", "thief", "shifter", "bomb"], []],
    )
    for action in (PlayJoker(1), PlayThief(1), PlayShifter(), PlayBomb()):
        with pytest.raises(IllegalActionError) as err:
            check(state, 0, action)
        assert err.value.reason == "empty_hand"
    with pytest.raises(EngineError):
        default_action(state, 0)


# --- GameConfig validation ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs",
    [
        {"players": 1},
        {"players": 7},
        {"players": 0},
        {"players": "2"},
        {"players": 2.0},
        {"players": 2, "edition": "deluxe"},
        {"players": 2, "edition": ""},
        {"players": 2, "colours": ("O", "Y", "G", "B")},
        {"players": 2, "colours": ("R", "R", "O")},
        {"players": 2, "colours": ("R", "X")},
        {"players": 2, "colours": ("red",)},
        {"players": 6, "colours": ("R",)},
        {"players": 6, "colours": ("R", "O")},
        {"players": 3, "colours": ("R",)},
        {"players": 2, "back_numbers": "weird"},
        {"players": 2, "target_score": 0},
        {"players": 2, "target_score": -5},
        {"players": 2, "target_score": 10_001},
        {"players": 2, "target_score": "100"},
    ],
)
def test_config_validation(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ConfigError):
        GameConfig(**kwargs)


def test_config_smallest_legal_colour_sets() -> None:
    assert GameConfig(2, colours=("R",)).colours == ("R",)  # 9 cards: 6 dealt, 2 on the table, 1 left
    assert GameConfig(6, colours=("R", "O", "Y")).colours == ("R", "O", "Y")


@pytest.mark.parametrize(
    "data", [{}, {"players": 9}, {"players": 2, "colours": 5}, {"players": 2, "edition": None}]
)
def test_config_from_json_errors(data: dict[str, Any]) -> None:
    with pytest.raises(ConfigError):
        GameConfig.from_json(data)


def test_config_json_round_trip() -> None:
    cfg = GameConfig(
        4,
        edition="extended",
        colours=("P", "R"),
        target_score=50,
        won_t_face_down=True,
        back_numbers="random",
    )
    assert GameConfig.from_json(cfg.to_json()) == cfg
