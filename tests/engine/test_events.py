"""Events as stored data: an exact JSON round trip, a pinned encoding, and stats read from them."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from engine import GameConfig, SchemaError, apply, dump_events, load_events, tally_events
from engine.actions import Discard, PlayBomb, PlayJoker, PlayShifter, PlayThief, Sum
from engine.events import (
    EVENT_TYPES,
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
    event_from_json,
    events_from_json,
    events_to_json,
)

from .helpers import Picker, Step, build, playthrough

GAMES = [
    (GameConfig(players=p, edition=edition, back_numbers=backs), seed)
    for p in (2, 3, 4, 5, 6)
    for edition, backs, seed in (("classic", "balanced", p), ("extended", "random", 40 + p))
]

# One of each event, with the exact JSON it is stored as. Changing a line here changes a
# persisted format: stored games must still load (docs/replay-format.md, "Stored events").
PINNED: list[tuple[Event, dict[str, Any]]] = [
    (TPlayed(1, "thief", victim=2, card="O3a"),
     {"event": "TPlayed", "seat": 1, "kind": "thief", "victim": 2, "card": "O3a"}),
    (TPlayed(0, "joker", delta=-1), {"event": "TPlayed", "seat": 0, "kind": "joker", "delta": -1}),
    (TPlayed(3, "shifter", card="R6a", new_target=8),
     {"event": "TPlayed", "seat": 3, "kind": "shifter", "card": "R6a", "new_target": 8}),
    (TPlayed(2, "bomb", dropped={3: "B1a", 0: "G2b"}),
     {"event": "TPlayed", "seat": 2, "kind": "bomb", "dropped": {"0": "G2b", "3": "B1a"}}),
    (TPlayed(2, "bomb"), {"event": "TPlayed", "seat": 2, "kind": "bomb"}),
    (Summed(2, "R5a", ("Y2a", "P2a"), 9, True, "thief"),
     {"event": "Summed", "seat": 2, "hand_card": "R5a", "table_cards": ["Y2a", "P2a"], "target": 9,
      "tweak": True, "won_t": "thief"}),
    (Summed(0, "B1a", ("G5a",), 6, False, None),
     {"event": "Summed", "seat": 0, "hand_card": "B1a", "table_cards": ["G5a"], "target": 6,
      "tweak": False, "won_t": None}),
    (Discarded(1, "B3b"), {"event": "Discarded", "seat": 1, "card": "B3b"}),
    (Refilled(2, ("G2b",), ("O1b", "G5a")),
     {"event": "Refilled", "seat": 2, "hand_cards": ["G2b"], "table_cards": ["O1b", "G5a"]}),
    (Refilled(0, (), ()), {"event": "Refilled", "seat": 0, "hand_cards": [], "table_cards": []}),
    (LostTurn(3, ("Y1a", "G3b", "R2b")),
     {"event": "LostTurn", "seat": 3, "hand_cards": ["Y1a", "G3b", "R2b"]}),
    (Skipped(1), {"event": "Skipped", "seat": 1}),
    (TurnStarted(2, 1, 7), {"event": "TurnStarted", "seat": 2, "round": 1, "turn": 7}),
    (RoundEnded(1, (21, 18), (21, 18), ("G2a",)),
     {"event": "RoundEnded", "round": 1, "points": [21, 18], "totals": [21, 18], "leftover_table": ["G2a"]}),
    (RoundStarted(2, 1, 0), {"event": "RoundStarted", "round": 2, "dealer": 1, "first": 0}),
    (GameEnded((0, 2), (104, 88, 104)), {"event": "GameEnded", "winners": [0, 2], "totals": [104, 88, 104]}),
]  # fmt: skip


def _steps() -> Iterator[Step]:
    for config, seed in GAMES:
        yield from playthrough(config, seed, seed * 31)


def _lost_turn_events() -> list[Event]:
    """A lost turn is rare in random play, so it is set up: seat 1's hand was emptied by others."""
    p = Picker()
    deck = p.values(1, 2, 3, 4)
    state = build(3, hands=[p.values(5), [], p.values(6, 6)], table=p.values(1), deck=deck)
    _, events = apply(state, 0, "D0")
    assert any(isinstance(e, LostTurn) for e in events)
    return events


def test_the_encoding_is_pinned() -> None:
    assert {type(e) for e, _ in PINNED} == set(EVENT_TYPES)
    for event, data in PINNED:
        assert event.to_json() == data
        assert list(event.to_json()) == list(data), "key order is part of the stored text"
        assert event_from_json(data) == event
        assert event_from_json(json.loads(json.dumps(data))) == event


def test_every_event_of_real_games_survives_json() -> None:
    seen: set[type[Event]] = set()
    kinds: set[str] = set()
    for step in _steps():
        for event in step.events:
            data = event.to_json()
            assert event_from_json(data) == event
            text = json.dumps(data)
            again = event_from_json(json.loads(text))
            assert again == event and type(again) is type(event)
            assert json.dumps(again.to_json()) == text  # stable: the same event is the same text
            seen.add(type(event))
            if isinstance(event, TPlayed):
                kinds.add(event.kind)
                assert isinstance(again, TPlayed) and all(type(k) is int for k in again.dropped)
        # what the bot stores per move
        assert load_events(dump_events(step.events)) == step.events
        assert events_from_json(json.loads(json.dumps(events_to_json(step.events)))) == step.events
    for event in _lost_turn_events():
        assert load_events(dump_events([event])) == [event]
        seen.add(type(event))
    assert seen == set(EVENT_TYPES)
    assert kinds == {"thief", "joker", "shifter", "bomb"}


def test_stored_text_is_compact() -> None:
    text = dump_events([Discarded(1, "B3b"), TurnStarted(2, 1, 7)])
    assert text == (
        '[{"event":"Discarded","seat":1,"card":"B3b"},{"event":"TurnStarted","seat":2,"round":1,"turn":7}]'
    )


@pytest.mark.parametrize(
    "data",
    [
        {"event": "Exploded", "seat": 1},
        {"seat": 1},
        {"event": "Skipped"},
        {"event": "Skipped", "seat": 1, "extra": 2},
        {"event": "Skipped", "seat": True},
        {"event": "Skipped", "seat": "1"},
        {"event": "Discarded", "seat": 1, "card": 7},
        {"event": "Refilled", "seat": 1, "hand_cards": "R1a", "table_cards": []},
        {"event": "Summed", "seat": 0, "hand_card": "B1a", "table_cards": ["G5a"], "target": 6,
         "tweak": 1, "won_t": None},
        {"event": "TPlayed", "seat": 2, "kind": "bomb", "dropped": {"01": "G2b"}},
        {"event": "TPlayed", "seat": 2, "kind": "bomb", "dropped": ["G2b"]},
        ["Skipped", 1],
    ],
)  # fmt: skip
def test_malformed_stored_events_are_refused(data: Any) -> None:
    with pytest.raises(SchemaError):
        event_from_json(data)


def test_malformed_stored_text_is_refused() -> None:
    for text in ("not json", '{"event": "Skipped", "seat": 1}', "[1]"):
        with pytest.raises(SchemaError):
            load_events(text)


# --- tallies --------------------------------------------------------------------------------------


def _counted_from_actions(steps: list[Step], players: int) -> dict[str, list[int]]:
    """The same facts from the actions and the states around them, without looking at events."""
    counts = {k: [0] * players for k in ("tweaks", "t_played", "sums", "discards", "cards_won")}
    for step in steps:
        seat, action = step.seat, step.action
        if isinstance(action, (PlayThief, PlayJoker, PlayShifter, PlayBomb)):
            counts["t_played"][seat] += 1
        elif isinstance(action, Sum):
            counts["sums"][seat] += 1
            counts["cards_won"][seat] += 1 + len(action.table)
            counts["tweaks"][seat] += len(action.table) == len(step.before.table)
        else:
            assert isinstance(action, Discard)
            counts["discards"][seat] += 1
    return counts


def test_tally_matches_the_states() -> None:
    seen = {"tweaks": 0, "t_played": 0, "discards": 0}
    for config, seed in GAMES:
        steps = list(playthrough(config, seed, seed * 31))
        final = steps[-1].after
        tally = tally_events(config.players, (e for s in steps for e in load_events(dump_events(s.events))))
        expected = _counted_from_actions(steps, config.players)
        for name, values in expected.items():
            assert list(getattr(tally, name)) == values, name
            if name in seen:
                seen[name] += sum(values)
        assert final.is_over and tally.over
        assert tally.rounds == len(final.round_points)
        assert list(tally.totals) == final.totals
        assert list(tally.winners) == final.winners
    assert all(seen.values()), seen


def test_tally_of_an_unfinished_game() -> None:
    config = GameConfig(players=4)
    steps = list(playthrough(config, 8, 3))
    for cut in (0, 1, len(steps) // 2, len(steps) - 1):
        state = steps[cut].before
        tally = tally_events(4, (e for s in steps[:cut] for e in s.events))
        assert not tally.over and tally.winners == ()
        assert tally.rounds == len(state.round_points)
        assert list(tally.totals) == state.totals
