"""A game's seats (`game_players`): read with their people and drafts for a tap, changed one
column at a time as players act, come and go.

The tap's read (`with_people_and_drafts`) is built once, on the tables' columns, not the models'
attributes: a statement of attributes goes through the ORM's execution (its compile state, its
result wrapping) even when it loads no object, and that cost a tap more CPU than the query. A tap
only needs the seats' values, and changes a seat with an UPDATE (`clear_idle`, `use_panel`), so
the identity map had nothing to gain from them. Each seat's draft comes with it: a compose tap
edits its player's, a move reads the next player's for their panel, and neither then needs a
query of its own.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from sqlalchemy import bindparam, update
from sqlalchemy import select as sa_select
from sqlmodel import Session, col, select

from .models import Draft, GamePlayer, User

_PLAYERS: Any = GamePlayer.__table__  # type: ignore[attr-defined]
_USERS: Any = User.__table__  # type: ignore[attr-defined]
_DRAFTS: Any = Draft.__table__  # type: ignore[attr-defined]
_SEATS = (
    sa_select(
        _PLAYERS.c.seat,
        _PLAYERS.c.user_id,
        _PLAYERS.c.name,
        _PLAYERS.c.ai_level,
        _PLAYERS.c.away,
        _PLAYERS.c.left,
        _PLAYERS.c.timeouts,
        _PLAYERS.c.panel,
        _USERS.c.id,
        _USERS.c.can_dm,
        _USERS.c.language,
        _USERS.c.tg_language,
        _DRAFTS.c.version,
        _DRAFTS.c.hand,
        _DRAFTS.c.mask,
        _DRAFTS.c.t_code,
        _DRAFTS.c.typed,
    )
    .join(_USERS, _USERS.c.id == _PLAYERS.c.user_id, isouter=True)
    .join(
        _DRAFTS,
        (_DRAFTS.c.game_id == _PLAYERS.c.game_id) & (_DRAFTS.c.seat == _PLAYERS.c.seat),
        isouter=True,
    )
    .where(_PLAYERS.c.game_id == bindparam("game_id"))
    .order_by(_PLAYERS.c.seat)
)


def with_people_and_drafts(session: Session, game_id: int) -> Iterable[Any]:
    """A game's seats in seat order, each as (seat, user_id, name, ai_level, away, left, timeouts,
    panel, the person's id, can_dm, language, tg_language, the draft's version, hand, mask,
    t_code, typed): the person's and the draft's None when there is none."""
    return session.execute(_SEATS, {"game_id": game_id})


def of_game(session: Session, game_id: int | None) -> list[GamePlayer]:
    """A game's seats as stored, in seat order (the lobby changes them; history reads names)."""
    query = select(GamePlayer).where(GamePlayer.game_id == game_id).order_by(col(GamePlayer.seat))
    return list(session.exec(query).all())


def of_games(session: Session, game_ids: list[int]) -> Sequence[tuple[GamePlayer, User | None]]:
    """Several games' seats with their people, by game then seat (the sweep's batches)."""
    return session.exec(
        select(GamePlayer, User)
        .join(User, col(User.id) == col(GamePlayer.user_id), isouter=True)
        .where(col(GamePlayer.game_id).in_(game_ids))
        .order_by(col(GamePlayer.game_id), col(GamePlayer.seat))
    ).all()


def of_person(session: Session, game_id: int | None, user_id: int) -> GamePlayer | None:
    """The seat `user_id` holds in a game, if any."""
    return session.exec(
        select(GamePlayer).where(GamePlayer.game_id == game_id, GamePlayer.user_id == user_id)
    ).first()


def the_one_of(session: Session, game_id: int, user_id: int) -> GamePlayer:
    """The seat `user_id` holds in a game (known to be there)."""
    return session.exec(
        select(GamePlayer).where(GamePlayer.game_id == game_id, GamePlayer.user_id == user_id)
    ).one()


def set_idle(session: Session, game_id: int, seat: int, timeouts: int, away: bool) -> None:
    """The seat's consecutive turns played for it, and whether that made its player away."""
    session.execute(
        update(GamePlayer)
        .where(col(GamePlayer.game_id) == game_id, col(GamePlayer.seat) == seat)
        .values(timeouts=timeouts, away=away)
    )


def clear_idle(session: Session, game_id: int, seat: int) -> None:
    """The seat's player acted: not idle, not away."""
    set_idle(session, game_id, seat, 0, False)


def use_panel(session: Session, game_id: int, seat: int, panel: bool) -> None:
    """The seat's player composes in the private panel (or on the group board)."""
    session.execute(
        update(GamePlayer)
        .where(col(GamePlayer.game_id) == game_id, col(GamePlayer.seat) == seat)
        .values(panel=panel)
    )


def save(session: Session, *players: GamePlayer) -> None:
    """New or changed seats, written with the transaction's other writes."""
    for player in players:
        session.add(player)


def leave(session: Session, gone: GamePlayer, rest: list[GamePlayer]) -> None:
    """A lobby's seat is given up: the seats after it move up, in two passes so seats stay
    unique at every step."""
    session.delete(gone)
    session.flush()
    for offset, p in enumerate(rest):
        p.seat = 100 + offset
        session.add(p)
    session.flush()
    for seat, p in enumerate(rest):
        p.seat = seat
        session.add(p)
