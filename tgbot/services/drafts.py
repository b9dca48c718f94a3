"""The move a player is composing, per game and seat, valid for one game version.

Kept on the server so that a tap changes the draft as it is now: two quick taps never act on
the same old keyboard and lose a selection (DESIGN §3). A tap reads the draft once and writes it
once: the row read is kept for the transaction (`session.info`), so saving it again needs no
second read, even when there was none.
"""

from __future__ import annotations

from sqlalchemy import delete
from sqlmodel import Session, col

from ..render.board import Draft
from ..store.models import Draft as DraftRow
from .env import Env

_READ = "tweakbot.drafts"


def _row(session: Session, game_id: int, seat: int) -> DraftRow | None:
    """The stored draft, read at most once per transaction (None: there is none)."""
    read: dict[tuple[int, int], DraftRow | None] = session.info.setdefault(_READ, {})
    key = (game_id, seat)
    if key not in read:
        read[key] = session.get(DraftRow, key)
    return read[key]


def load(session: Session, game_id: int, seat: int, version: int) -> Draft:
    row = _row(session, game_id, seat)
    if row is None or row.version != version:
        return Draft()
    return Draft(row.hand, row.mask, row.t_code)


def save(session: Session, env: Env, game_id: int, seat: int, version: int, draft: Draft) -> None:
    row = _row(session, game_id, seat)
    if row is None:
        row = DraftRow(game_id=game_id, seat=seat, version=version, updated_at=env.now)
        session.info[_READ][(game_id, seat)] = row
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
    read: dict[tuple[int, int], DraftRow | None] = session.info.setdefault(_READ, {})
    for key, row in list(read.items()):
        if key[0] == game_id:
            if row is not None and row in session:
                session.expunge(row)  # deleted below: the session must not write it back
            read[key] = None
    session.execute(delete(DraftRow).where(col(DraftRow.game_id) == game_id))
