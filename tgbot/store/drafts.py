"""The moves players are composing (`drafts`), per game and seat: read, saved and cleared with
plain statements built once, not as ORM objects: a compose tap does little else, and the unit of
work (tracking the object, flushing it at commit) cost more CPU than the statements themselves.
A save is one upsert.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Row, bindparam, delete, select
from sqlmodel import Session

from .models import Draft
from .upsert import built_once

_TABLE: Any = Draft.__table__  # type: ignore[attr-defined]
_DRAFT = select(_TABLE.c.version, _TABLE.c.hand, _TABLE.c.mask, _TABLE.c.t_code, _TABLE.c.typed).where(
    _TABLE.c.game_id == bindparam("game_id"), _TABLE.c.seat == bindparam("seat")
)
_CLEAR = delete(_TABLE).where(_TABLE.c.game_id == bindparam("game_id"))
_CHANGED = ("version", "hand", "mask", "t_code", "typed", "updated_at")


def _upsert(insert: Any) -> Any:
    statement = insert(_TABLE)
    return statement.on_conflict_do_update(
        index_elements=["game_id", "seat"], set_={name: statement.excluded[name] for name in _CHANGED}
    )


_SAVE = built_once(_upsert)


def read(session: Session, game_id: int, seat: int) -> Row[Any] | None:
    """(version, hand, mask, t_code, typed) of the seat's draft, or None."""
    return session.execute(_DRAFT, {"game_id": game_id, "seat": seat}).first()


def save(session: Session, values: dict[str, Any]) -> None:
    """The seat's draft (game_id, seat, version, hand, mask, t_code, typed, updated_at), replacing any."""
    session.execute(_SAVE(session), values)


def clear(session: Session, game_id: int) -> None:
    """Every draft of the game."""
    session.execute(_CLEAR, {"game_id": game_id})
