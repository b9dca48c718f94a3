"""The engine's memos hold a bounded amount of memory: a bot process lives for weeks, and each table
its games and computer players ever met would otherwise stay in memory for good (issue 20's peak
RSS; decisions.md B29)."""

from __future__ import annotations

import itertools
import tracemalloc
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from engine import game, sums

#: What the engine's memos may hold, together, however long the process lives.
MEMO_BUDGET_BYTES = 4 * 2**20


@pytest.fixture(autouse=True)
def fresh_memos() -> Iterator[None]:
    sums.count_vectors.cache_clear()
    game._chances.cache_clear()
    yield
    sums.count_vectors.cache_clear()
    game._chances.cache_clear()


def _held_after(ask: Callable[[Any, int], Any], amounts: tuple[int, ...]) -> int:
    """Memory still held after asking about 4,096 tables (up to three cards of each value) and
    each of ``amounts``: many more questions than a few games ask, as a long life would."""
    tables = itertools.product(range(4), repeat=6)
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for available in tables:
            for amount in amounts:
                ask(available, amount)
        return tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()


def test_the_sums_memo_stays_within_its_budget() -> None:
    # What a hand card leaves to find on the table: a target (7-10) less a value (1-6).
    assert _held_after(sums.count_vectors, (3, 6, 9)) < MEMO_BUDGET_BYTES


def test_the_idle_discards_memo_stays_within_its_budget() -> None:
    assert _held_after(game._chances, (7, 8, 9, 10)) < MEMO_BUDGET_BYTES  # the targets
