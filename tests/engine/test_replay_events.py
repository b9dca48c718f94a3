"""Replay records built by watching the engine (no copy of the rules), and from a stored move log."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from engine import EngineError, GameConfig, GameState, SchemaError, apply, dump_events, new_game
from engine.cards import BALANCED_BACK
from engine.events import Event, LostTurn, Skipped
from engine.replay import (
    GameRecorder,
    ReplayMismatchError,
    check_records,
    record_game,
    records_from_log,
    turn_records,
)

from .helpers import Picker, build

Record = dict[str, Any]

# Written by the replay module as it was before it stopped mirroring the rules: a 6-player
# extended game with random backs, all four [T!] kinds, a lost turn followed at once by a skip,
# more skips and three rounds. The records must stay byte for byte the same (format version 1).
GOLDEN = Path(__file__).parent / "data" / "lost_turn_then_skip.jsonl.gz"


@pytest.fixture(scope="module")
def golden_text() -> str:
    return gzip.decompress(GOLDEN.read_bytes()).decode()


@pytest.fixture(scope="module")
def golden(golden_text: str) -> list[Record]:
    return [json.loads(line) for line in golden_text.splitlines()]


def _moves(records: list[Record]) -> list[tuple[int, str]]:
    return [
        (r["seat"], code)
        for r in records
        if "action" in r and r["action"] not in ("L", "K")
        for code in r["action"].split(" ")
    ]


def _log(config: GameConfig, seed: int, moves: list[tuple[int, str]]) -> list[tuple[int, str, str | None]]:
    """What the bot keeps per move: seat, code and `dump_events` of what `apply` reported."""
    state = new_game(config, seed)
    log: list[tuple[int, str, str | None]] = []
    for seat, code in moves:
        state, events = apply(state, seat, code)
        log.append((seat, code, dump_events(events)))
    return log


def _text(records: list[Record]) -> str:
    return "".join(json.dumps(r) + "\n" for r in records)


def test_golden_trace_is_reproduced_byte_for_byte(golden_text: str, golden: list[Record]) -> None:
    header = golden[0]
    config = GameConfig.from_json(header["config"])
    moves = _moves(golden)
    assert {"L", "K"} <= {r.get("action") for r in golden}
    assert _text(record_game(config, header["seed"], [c for _, c in moves], ai=header["ai"])) == golden_text
    log = _log(config, header["seed"], moves)
    assert _text(records_from_log(config, header["seed"], log, ai=header["ai"])) == golden_text
    assert check_records(golden) is None


def test_observer_sees_each_automatic_turn_and_changes_nothing(golden: list[Record]) -> None:
    header = golden[0]
    config = GameConfig.from_json(header["config"])
    state = new_game(config, header["seed"])
    automatic = 0
    seen: list[tuple[int, list[list[str]], int]] = []

    def observe(live: GameState) -> None:
        seen.append((live.current, [list(h) for h in live.hands], live.turn))

    for seat, code in _moves(golden):
        seen.clear()
        new, events = apply(state, seat, code, on_auto_turn=observe)
        plain, plain_events = apply(state, seat, code)
        assert new.to_json() == plain.to_json() and events == plain_events
        autos = [e for e in events if isinstance(e, (LostTurn, Skipped))]
        assert [s for s, _, _ in seen] == [e.seat for e in autos]
        assert all(not hands[s] for s, hands, _ in seen)
        assert [t for _, _, t in seen] == sorted({t for _, _, t in seen})
        automatic += len(seen)
        state = new
    assert state.is_over
    assert automatic == sum(1 for r in golden if r.get("action") in ("L", "K"))


def test_stored_events_are_checked_against_the_engine(golden: list[Record]) -> None:
    header = golden[0]
    config = GameConfig.from_json(header["config"])
    log = _log(config, header["seed"], _moves(golden))
    expected = records_from_log(config, header["seed"], log)
    # Moves logged before events were kept carry None and are simply re-run.
    old = [(s, c, None) for s, c, _ in log]
    assert records_from_log(config, header["seed"], old) == expected
    # A move whose stored events are not what the engine reports now is refused, by number.
    n = next(i for i, (_, _, text) in enumerate(log) if text and "LostTurn" in text)
    seat, code, text = log[n]
    assert text is not None
    events = json.loads(text)
    lost = next(e for e in events if e["event"] == "LostTurn")
    lost["hand_cards"] = []
    tampered = [*log[:n], (seat, code, json.dumps(events)), *log[n + 1 :]]
    with pytest.raises(ReplayMismatchError, match=f"move {n + 1} "):
        records_from_log(config, header["seed"], tampered)
    with pytest.raises(SchemaError):
        records_from_log(config, header["seed"], [*log[:n], (seat, code, "{"), *log[n + 1 :]])
    wrong_seat = (seat + 1) % config.players
    with pytest.raises(EngineError):
        records_from_log(config, header["seed"], [*log[:n], (wrong_seat, code, text), *log[n + 1 :]])


def _both_ways(state: GameState, moves: list[tuple[int, str]]) -> list[Record]:
    """Records by `play`, and again by `feed` after applying separately, as the simulator does."""
    played = GameRecorder()
    fed = GameRecorder()
    out: list[Record] = []
    again: list[Record] = []
    for seat, code in moves:
        new, events, records = played.play(state, seat, code)
        out.extend(records)
        again.extend(fed.feed(state, seat, code, events))
        state = new
    assert again == out
    return out


def test_lost_turn_record_shows_the_table_as_it_was() -> None:
    p = Picker()
    a, b, c, t, x = p.non_red(5, 6, 6, 1, 2)
    d4, d3, d2, d1 = p.values(1, 2, 3, 4)
    state = build(
        3,
        hands=[[a], [], [b, c]],
        table=[t],
        deck=[d4, d3, d2, d1],
        piles=[[x], [], []],
        holdings=[[], [], ["joker"]],
        totals=[5, 0, 0],
    )
    scores = {"scores_round": [1, 0, 2], "scores_total": [6, 0, 2]}
    common = {"game": 0, "round": 1, "dealer": 2}
    assert _both_ways(state, [(0, "D0")]) == [
        {**common, "turn": 1, "seat": 0, "target": BALANCED_BACK[d1], "top": d1, "deck": 4,
         "hands": [[a], [], [b, c]], "table": [t], "holdings": [[], [], ["joker"]], "tdeck": 10,
         "action": "D0", "tcard": None, "main": {"kind": "discard", "card": a},
         "drawn_hand": [d1, d2, d3], "drawn_table": [], **scores},
        {**common, "turn": 2, "seat": 1, "target": BALANCED_BACK[d4], "top": d4, "deck": 1,
         "hands": [[d1, d2, d3], [], [b, c]], "table": [t, a], "holdings": [[], [], ["joker"]], "tdeck": 10,
         "action": "L", "tcard": None, "main": {"kind": "lost_turn"},
         "drawn_hand": [d4], "drawn_table": [], **scores},
    ]  # fmt: skip


def test_skip_round_end_and_game_end_records() -> None:
    p = Picker()
    h, t, y = p.non_red(3, 4, 2)
    state = build(3, hands=[[h], [], [y]], table=[t], tdeck=["bomb"], totals=[119, 0, 0])
    scores = {"scores_round": [4, 0, 0], "scores_total": [123, 0, 0]}  # two 1-point cards and a [T!]
    empty = {"game": 0, "round": 1, "dealer": 2, "target": 7, "top": None, "deck": 0}
    assert _both_ways(state, [(0, "S0.1"), (2, "D0")]) == [
        {**empty, "turn": 1, "seat": 0, "hands": [[h], [], [y]], "table": [t], "holdings": [[], [], []],
         "tdeck": 1, "action": "S0.1", "tcard": None,
         "main": {"kind": "sum", "hand": h, "table": [t], "tweak": True, "won_t": "bomb"},
         "drawn_hand": [], "drawn_table": [], **scores},
        {**empty, "turn": 2, "seat": 1, "hands": [[], [], [y]], "table": [], "holdings": [["bomb"], [], []],
         "tdeck": 0, "action": "K", "tcard": None, "main": {"kind": "skip"},
         "drawn_hand": [], "drawn_table": [], **scores},
        {**empty, "turn": 3, "seat": 2, "hands": [[], [], [y]], "table": [], "holdings": [["bomb"], [], []],
         "tdeck": 0, "action": "D0", "tcard": None, "main": {"kind": "discard", "card": y},
         "drawn_hand": [], "drawn_table": [], **scores},
        {"game": 0, "round": 1, "end": True, "round_points": [4, 0, 0], "totals": [123, 0, 0],
         "leftover_table": [y]},
        {"game": 0, "end_game": True, "winners": [0], "totals": [123, 0, 0]},
    ]  # fmt: skip


def test_a_t_play_waits_for_its_main_action() -> None:
    p = Picker()
    h, t = p.non_red(3, 4)
    top = p.take(back=8)
    state = build(
        2, hands=[[h], p.values(1)], table=[t], deck=[*p.values(1, 2), top], holdings=[["joker"], []]
    )
    recorder = GameRecorder()
    after_t, t_events, held = recorder.play(state, 0, "J-")  # 8 - 1 = 7 = 3 + 4
    assert held == []
    _, main_events, records = recorder.play(after_t, 0, "S0.1")
    turn = records[0]
    assert turn["action"] == "J- S0.1" and turn["tcard"] == {"kind": "joker", "delta": -1}
    assert turn["target"] == 8 and turn["hands"] == state.hands and turn["holdings"] == [["joker"], []]
    assert turn["main"]["tweak"] is True
    assert list(turn_records(0, state, 0, ["J-", "S0.1"], t_events + main_events)) == records


def test_feeding_events_from_elsewhere_is_refused() -> None:
    state = new_game(GameConfig(players=3), 4)
    seat = state.current
    _, events = apply(state, seat, "D0")
    _, other = apply(state, seat, "D1")
    recorder = GameRecorder()
    with pytest.raises(ValueError):
        recorder.feed(state, seat, "D0", other)
    assert recorder.feed(state, seat, "D0", events) == GameRecorder().play(state, seat, "D0")[2]
    wrong: list[Event] = list(reversed(events))
    with pytest.raises(ValueError):
        list(turn_records(0, state, seat, ["D0"], wrong))
