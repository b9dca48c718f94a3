"""The move a player is composing, per game and seat, valid for one game version.

Kept on the server so that a tap changes the draft as it is now: two quick taps never act on
the same old keyboard and lose a selection (DESIGN §3). A tap reads the draft once and writes it
once: what was read is kept for the transaction (`session.info`), so saving it again needs no
second read, even when there was none. The game's read brings every seat's draft with its seats
(`known`), so a tap reads none of its own; and once a move has cleared the game's drafts, none
is read again (there is none left).

Drafts are read and written with plain statements, built once (`store.drafts`): a save is one
upsert. Beside the draft are the card values its player typed in reply to their own view (issue
61): a compose tap keeps them, ↩️ *Clear* and the next move drop them.
"""

from __future__ import annotations

from sqlmodel import Session

from ..render.board import Draft
from ..store import drafts as draft_rows
from ..store.models import TYPED_DIGITS
from .env import Env

_READ = "tweakbot.drafts"
_CLEARED = "tweakbot.drafts.cleared"  # games whose drafts this transaction deleted

#: Card values a person typed in reply to their own view (issue 61), None: nothing typed.
Typed = tuple[int, ...] | None
#: What this transaction knows of a seat's draft: (version, draft, typed values), or None when
#: there is none.
Known = tuple[int, Draft, Typed] | None


class _Keep:
    """`save`'s default: the typed values stay as they are (the draft of the same version's)."""


KEEP = _Keep()


def _known(session: Session) -> dict[tuple[int, int], Known]:
    read: dict[tuple[int, int], Known] = session.info.setdefault(_READ, {})
    return read


def _typed_of(stored: str | None) -> Typed:
    return None if stored is None else tuple(int(d) for d in stored)


def known(
    session: Session,
    game_id: int,
    seat: int,
    version: int | None,
    hand: int | None,
    mask: int | None,
    t_code: str | None,
    typed: str | None = None,
) -> None:
    """A seat's draft as the game's read found it (`version` None: it has none)."""
    draft = None if version is None else (version, Draft(hand, mask or 0, t_code), _typed_of(typed))
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
        found[key] = (
            None
            if row is None
            else (row.version, Draft(row.hand, row.mask, row.t_code), _typed_of(row.typed))
        )
    return found[key]


def load(session: Session, game_id: int, seat: int, version: int) -> Draft:
    found = _read(session, game_id, seat)
    if found is None or found[0] != version:
        return Draft()
    return found[1]


def load_typed(session: Session, game_id: int, seat: int, version: int) -> Typed:
    """The values the seat typed in this version's draft (None: none)."""
    found = _read(session, game_id, seat)
    if found is None or found[0] != version:
        return None
    return found[2]


def save(
    session: Session,
    env: Env,
    game_id: int,
    seat: int,
    version: int,
    draft: Draft,
    typed: Typed | _Keep = KEEP,
) -> None:
    """The seat's draft, with `typed` values (by default the ones it has: a compose tap keeps
    what was typed, so its sums stay offered)."""
    if isinstance(typed, _Keep):
        typed = load_typed(session, game_id, seat, version)
    values = {"game_id": game_id, "seat": seat, "version": version, "updated_at": env.now}
    digits = None if typed is None else "".join(str(d) for d in typed)[:TYPED_DIGITS]
    values.update(hand=draft.hand, mask=draft.mask, t_code=draft.t_code, typed=digits)
    draft_rows.save(session, values)
    kept = Draft(draft.hand, draft.mask, draft.t_code)
    _known(session)[(game_id, seat)] = (version, kept, _typed_of(digits))


def forget_typed(session: Session, game_id: int, seat: int) -> None:
    """The seat's typed values go with its draft's next save in this transaction (↩️ Clear)."""
    found = _read(session, game_id, seat)
    if found is not None:
        _known(session)[(game_id, seat)] = (found[0], found[1], None)


def clear(session: Session, game_id: int) -> None:
    """A move was played: every draft of the game is void (they name the old version anyway)."""
    found = _known(session)
    for key in list(found):
        if key[0] == game_id:
            del found[key]
    session.info.setdefault(_CLEARED, set()).add(game_id)
    draft_rows.clear(session, game_id)
