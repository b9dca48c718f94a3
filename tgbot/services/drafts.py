"""The move a player is composing, per game and seat, valid for one game version.

Kept on the server so that a tap changes the draft as it is now: two quick taps never act on
the same old keyboard and lose a selection (DESIGN §3). A tap reads the draft once and writes it
once: what was read is kept for the transaction (`session.info`), so saving it again needs no
second read, even when there was none. The game's read brings every seat's draft with its seats
(`known`), so a tap reads none of its own; and once a move has cleared the game's drafts, none
is read again (there is none left).

Drafts are read and written with plain statements, built once (`store.drafts`): a save is one
upsert.
"""

from __future__ import annotations

from sqlmodel import Session

from ..render.board import Draft
from ..store import drafts as draft_rows
from .env import Env

_READ = "tweakbot.drafts"
_CLEARED = "tweakbot.drafts.cleared"  # games whose drafts this transaction deleted

#: What this transaction knows of a seat's draft: (version, draft), or None when there is none.
Known = tuple[int, Draft] | None


def _known(session: Session) -> dict[tuple[int, int], Known]:
    read: dict[tuple[int, int], Known] = session.info.setdefault(_READ, {})
    return read


def known(
    session: Session,
    game_id: int,
    seat: int,
    version: int | None,
    hand: int | None,
    mask: int | None,
    t_code: str | None,
) -> None:
    """A seat's draft as the game's read found it (`version` None: it has none)."""
    draft = None if version is None else (version, Draft(hand, mask or 0, t_code))
    _known(session)[(game_id, seat)] = draft


def _read(session: Session, game_id: int, seat: int) -> Known:
    """The stored draft, read at most once per transaction (not at all when the game's read
    brought it, or the game's drafts were cleared)."""
    found = _known(session)
    key = (game_id, seat)
    if key not in found:
        if game_id in session.info.get(_CLEARED, ()):
            return None
        row = draft_rows.read(session, game_id, seat)
        found[key] = None if row is None else (row.version, Draft(row.hand, row.mask, row.t_code))
    return found[key]


def load(session: Session, game_id: int, seat: int, version: int) -> Draft:
    found = _read(session, game_id, seat)
    if found is None or found[0] != version:
        return Draft()
    return found[1]


def save(session: Session, env: Env, game_id: int, seat: int, version: int, draft: Draft) -> None:
    values = {"game_id": game_id, "seat": seat, "version": version, "updated_at": env.now}
    values.update(hand=draft.hand, mask=draft.mask, t_code=draft.t_code)
    draft_rows.save(session, values)
    _known(session)[(game_id, seat)] = (version, Draft(draft.hand, draft.mask, draft.t_code))


def clear(session: Session, game_id: int) -> None:
    """A move was played: every draft of the game is void (they name the old version anyway)."""
    found = _known(session)
    for key in list(found):
        if key[0] == game_id:
            del found[key]
    session.info.setdefault(_CLEARED, set()).add(game_id)
    draft_rows.clear(session, game_id)
