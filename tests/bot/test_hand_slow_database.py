"""🃏 My cards while the database is slow (issue 61, item 5: never a dead end).

Telegram takes a person's view only within 15 seconds of their tap, and the tap's answer too.
A database slow enough to use those seconds up leaves no time for the view: the tap is answered
with the popup of the person's cards, and no view is sent late (the bot does not even try: the
call would only push the answer past the window). A database that does not answer at all gets
the apology, and no view either.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import pytest

from tests.bot.conftest import BotRig
from tests.bot.helpers import current_game, state_of
from tests.bot.test_hand_in_group import MY_CARDS, two_player_game
from tests.fakes.telegram import CallbackAnswer, FakeChat, FakeUser, StoredMessage
from tgbot.errors import DatabaseTrouble
from tgbot.render.cards import card

TROUBLE = "The bot is having trouble right now. Please try again in a minute."


def slow_database(rig: BotRig, monkeypatch: pytest.MonkeyPatch, seconds: float, answers: bool = True) -> None:
    """From now on each transaction a person waits for takes `seconds` (on the bot's timer, which
    Telegram's fake reads too); with `answers` False it then fails as a database gone quiet."""
    db = rig.deps.db
    run: Callable[..., Any] = db.run

    async def slow(work: Any, **kwargs: Any) -> Any:
        if not kwargs.get("background"):
            rig.timer.advance(seconds)
            if not answers:
                raise DatabaseTrouble("TimeoutError")
        return await run(work, **kwargs)

    monkeypatch.setattr(db, "run", slow)


def view_calls(rig: BotRig) -> list[str]:
    """The bot's calls that would show a view (a send with ephemeral parameters)."""
    return [c.method for c in rig.fake.calls if "ephemeral_message_parameters" in c.params]


async def tap_cards(rig: BotRig, person: FakeUser, board: StoredMessage) -> CallbackAnswer:
    return await rig.tg.tap(person, board, MY_CARDS, expect_answer=False)


def no_view(rig: BotRig, group: FakeChat, person: FakeUser, board: StoredMessage) -> None:
    fake = rig.fake
    assert fake.ephemeral_messages(group, person) == []
    assert fake.transcript(group, person)[-1] is board, "the person still sees the board"


@pytest.mark.parametrize("seconds", [13.0, 16.0])
async def test_a_database_slower_than_the_window_sends_no_view_late(
    rig: BotRig, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, seconds: float
) -> None:
    caplog.set_level(logging.INFO)
    group, mover, _other, board, _gid = await two_player_game(rig)
    state = state_of(current_game(rig, group.id))
    hand = state.hands[state.current]
    before = len(view_calls(rig))
    slow_database(rig, monkeypatch, seconds)
    answer = await tap_cards(rig, mover, board)
    assert view_calls(rig)[before:] == [], "no view is even tried"
    no_view(rig, group, mover, board)
    if seconds < 15:  # the answer still makes it: the popup of the cards, at once
        assert answer.answered and answer.show_alert
        assert all(card(c) in (answer.text or "") for c in hand)
    else:  # nothing makes it any more (the person's key spun out); nothing is sent after
        assert answer.expired
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []
    assert rig.tg.errors == []
    # the database quick again: the next tap opens the view
    monkeypatch.undo()
    await rig.tg.tap(mover, board, MY_CARDS)
    view = rig.fake.last_ephemeral(group, mover)
    assert view.replaces is board


async def test_a_database_that_does_not_answer_gets_the_apology_and_no_view(
    rig: BotRig, monkeypatch: pytest.MonkeyPatch
) -> None:
    group, mover, _other, board, _gid = await two_player_game(rig)
    before = len(view_calls(rig))
    slow_database(rig, monkeypatch, 8.0, answers=False)  # its transactions' time limit
    answer = await tap_cards(rig, mover, board)
    assert answer.answered and answer.show_alert and answer.text == TROUBLE
    assert view_calls(rig)[before:] == []
    no_view(rig, group, mover, board)
