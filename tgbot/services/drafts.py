"""The move a player is composing, per game and seat, valid for one game version.

Kept on the server so that a tap changes the draft as it is now: two quick taps never act on
the same old keyboard and lose a selection (DESIGN §3).
"""

from __future__ import annotations

from sqlalchemy import delete
from sqlmodel import Session, col

from ..render.board import Draft
from ..store.models import Draft as DraftRow
from .env import Env


def load(session: Session, game_id: int, seat: int, version: int) -> Draft:
    row = session.get(DraftRow, (game_id, seat))
    if row is None or row.version != version:
        return Draft()
    return Draft(row.hand, row.mask, row.t_code)


def save(session: Session, env: Env, game_id: int, seat: int, version: int, draft: Draft) -> None:
    row = session.get(DraftRow, (game_id, seat))
    if row is None:
        row = DraftRow(game_id=game_id, seat=seat, version=version, updated_at=env.now)
    row.version, row.hand, row.mask, row.t_code, row.updated_at = (
        version,
        draft.hand,
        draft.mask,
        draft.t_code,
        env.now,
    )
    session.add(row)


def clear(session: Session, game_id: int) -> None:
    """A move was played: every draft of the game is void (they name the old version anyway)."""
    session.execute(delete(DraftRow).where(col(DraftRow.game_id) == game_id))
