"""Parsed game states are shared by a version's readers and kept for each game's newest version only: a
bot process lives for weeks, and a state kept for every move (an ``lru_cache`` keyed by the state's
text did that) grew its memory with every game played (issue 20's peak RSS; decisions.md
B29)."""

from __future__ import annotations

import gc
import json
import tracemalloc
from datetime import datetime

from engine import GameConfig, GameState, new_game
from engine.game import apply_in_place, default_action
from tgbot.services.context import dump_state, game_state, parse_state
from tgbot.store.models import Game


def _versions(seed: int, moves: int) -> list[str]:
    """A game's state texts, one per move (the idle discard played for every seat)."""
    state = new_game(GameConfig(players=4), seed)
    texts = [dump_state(state)]
    while len(texts) < moves and not state.is_over:
        apply_in_place(state, state.current, default_action(state, state.current), [])
        texts.append(dump_state(state))
    return texts


NOW = datetime(2026, 12, 5)


def _row(game_id: int, text: str | None) -> Game:
    return Game(id=game_id, chat_id=-100, creator_id=1, state=text, created_at=NOW, updated_at=NOW)


def test_a_versions_readers_share_one_parse_and_a_new_version_is_read_anew() -> None:
    first, second = _versions(7, 2)
    one = game_state(_row(901, first))
    assert game_state(_row(901, first)) == one == parse_state(first)  # another transaction, the same version
    moved = game_state(_row(901, second))
    assert moved == parse_state(second) and moved != one
    assert game_state(_row(903, None)) is None  # a lobby has no state


def test_what_one_reader_does_to_its_state_no_other_reader_sees() -> None:
    """Readers in several worker threads share one parse; a `GameState` is mutable, so each gets
    a copy of it: a thread that changed its state in place (a bug, or an engine helper that works
    in place) could otherwise show another thread a hand or a table that was never stored."""
    (text,) = _versions(13, 1)
    first = game_state(_row(905, text))
    assert first is not None
    first.hands[0].append("X9")
    first.table.clear()
    first.current = (first.current + 1) % first.players
    again = game_state(_row(905, text))
    assert again == parse_state(text)
    assert again is not first and again.hands[0] is not first.hands[0]


def test_a_long_game_keeps_one_parsed_state() -> None:
    texts = _versions(11, 300)
    rows = [_row(904, text) for text in texts]  # the texts and rows are the test's own memory
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for row in rows:
            game_state(row)
        gc.collect()  # a state's own reference cycles: only what is kept counts
        held = tracemalloc.get_traced_memory()[0] - before
        single = tracemalloc.get_traced_memory()[0]
        one = GameState.from_json(json.loads(texts[0]))
        single = tracemalloc.get_traced_memory()[0] - single
    finally:
        tracemalloc.stop()
    assert len(texts) == 300 and one.round == 1
    assert held < 3 * single, f"{len(texts)} versions left {held} bytes; one state is {single}"
