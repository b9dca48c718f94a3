"""No render can show a hidden card: the boards are drawn from the engine's views through the same
functions the services use (`services.record.group_board`, `panel_view`), for many random states,
drafts and both [T!] variants."""

from __future__ import annotations

import re
from datetime import datetime

from hypothesis import given, settings
from hypothesis import strategies as st

from engine import GameConfig
from tests.engine.helpers import playthrough
from tgbot.game_settings import GameSettings
from tgbot.render.board import Draft
from tgbot.render.cards import card
from tgbot.services import panels, record
from tgbot.services.context import GameContext, SeatInfo
from tgbot.services.env import Env
from tgbot.store.models import Game

LABEL = re.compile(r"(🟥|🟧|🟨|🟩|🟦|🟪)([1-6])")
NOW = datetime(2026, 1, 1, 12, 0)


def labels(text: str) -> set[str]:
    return {m.group(0) for m in LABEL.finditer(text)}


def shown(text: str, keys: list[list[dict[str, str]]] | None) -> set[str]:
    found = labels(text)
    for row in keys or []:
        for key in row:
            found |= labels(key["text"])
    return found


def context_of(state: object, players: int, face_down: bool) -> GameContext:
    game = Game(
        id=7,
        chat_id=-100,
        status="playing",
        creator_id=1,
        version=3,
        board_no=1,
        created_at=NOW,
        updated_at=NOW,
    )
    seats = [
        SeatInfo(
            seat=s,
            user_id=s + 1,
            name=f"P{s}",
            ai_level=None,
            away=False,
            left=False,
            can_dm=True,
            language="en",
        )
        for s in range(players)
    ]
    return GameContext(game, seats, state, GameSettings(face_down=face_down), "Friends")  # type: ignore[arg-type]


@settings(max_examples=25, deadline=None)
@given(
    players=st.integers(2, 6),
    seed=st.integers(0, 10**6),
    choices=st.integers(0, 10**6),
    face_down=st.booleans(),
    every=st.integers(3, 9),
)
def test_no_board_or_panel_shows_a_card_its_reader_may_not_see(
    players: int, seed: int, choices: int, face_down: bool, every: int
) -> None:
    env = Env(now=NOW, inline=True)
    config = GameConfig(players=players, won_t_face_down=face_down)
    for k, step in enumerate(playthrough(config, seed, choices)):
        if k % every:
            continue
        state = step.after
        if state.is_over:
            break
        ctx = context_of(state, players, face_down)
        table = {card(c) for c in state.table}
        mover = state.current
        hand = state.hands[mover]
        drafts = (
            [None, Draft(0, 0b1), Draft(None, 0b11), Draft(0, 0b1, t_code="J+"), Draft(t_code="T1")]
            if hand
            else [None]
        )
        text, keys = record.group_board(ctx, env, ["a report above it"])
        # The group sees the table, nothing else: not any hand (the draft is never on the board).
        assert shown(text, keys) <= table, (text, state.table)
        for draft in drafts:
            for seat in ctx.seats:
                own = {card(c) for c in state.hands[seat.seat]}
                text, keys = panels.view(ctx, env, seat, draft if seat.seat == mover else None)
                assert shown(text, keys) <= table | own, (seat.seat, text)
