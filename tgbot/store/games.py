"""The games table, by what the services ask of it: a game with its chat (locked when it is to
change), the games open in a chat or a topic, a person's games, the games the sweep is due to
wake; and a game's changes kept for the transaction's one UPDATE (`save`) or written now, when a
read of the same transaction must see them (`write`).

Every tap reads its game with `with_chat`'s statement, built once here with the game as a bound
parameter: building a SELECT (and its cache key) anew on every tap cost more CPU than running it.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, func
from sqlalchemy import select as sa_select
from sqlmodel import Session, col, select

from ..tables import TableKind
from .db import is_postgres
from .models import ACTIVE_STATUSES, FINISHED, PAUSED, PLAYING, Chat, Game, GamePlayer

_CHATS: Any = Chat.__table__  # type: ignore[attr-defined]
# The game as an object (a move changes it, and the ORM writes the change with its version
# guard), its chat as the few values a game needs of it: an object of the chat would be built
# on every tap for nothing.
_GAME = (
    sa_select(
        Game,
        _CHATS.c.id,
        _CHATS.c.title,
        _CHATS.c.quiet_start,
        _CHATS.c.quiet_end,
        _CHATS.c.utc_offset_minutes,
    )
    .join(_CHATS, _CHATS.c.id == col(Game.chat_id), isouter=True)
    .where(col(Game.id) == bindparam("game_id"))
)
_GAME_LOCKED = _GAME.with_for_update(of=Game)  # type: ignore[arg-type]


def with_chat(session: Session, game_id: int, *, lock: bool = False) -> Any:
    """(game, chat id, title, quiet start, quiet end, UTC offset) in one statement, the chat's
    None when it has no row; locked on PostgreSQL when asked. None when there is no such game."""
    query = _GAME_LOCKED if lock and is_postgres(session) else _GAME
    return session.execute(query, {"game_id": game_id}).first()


def get(session: Session, game_id: int) -> Game | None:
    return session.get(Game, game_id)


def the_one(session: Session, game_id: int) -> Game:
    """A game known to be there."""
    return session.get_one(Game, game_id)


def save(session: Session, *games: Game) -> None:
    """The games' changes go out with the transaction's other writes (one UPDATE each, with
    its version guard)."""
    for game in games:
        session.add(game)


def write(session: Session, *games: Game) -> None:
    """The games' changes written now: a read after this one sees them."""
    save(session, *games)
    session.flush()


def create(session: Session, game: Game) -> int:
    """A new game row, written now; its id."""
    write(session, game)
    assert game.id is not None
    return game.id


def open_in_topic(session: Session, chat_id: int, thread_id: int | None) -> Game | None:
    """The newest lobby or running game of a chat's topic (`thread_id` None: its main one)."""
    query = select(Game).where(Game.chat_id == chat_id, col(Game.status).in_(ACTIVE_STATUSES))
    query = (
        query.where(Game.thread_id == thread_id)
        if thread_id is not None
        else query.where(col(Game.thread_id).is_(None))
    )
    return session.exec(query.order_by(col(Game.id).desc())).first()


def open_in_chat(session: Session, chat_id: int) -> list[Game]:
    """Every lobby and running game of a chat (all its topics), oldest first."""
    query = select(Game).where(Game.chat_id == chat_id, col(Game.status).in_(ACTIVE_STATUSES))
    return list(session.exec(query.order_by(col(Game.id))).all())


def in_chat(session: Session, chat_id: int) -> list[Game]:
    """Every game a chat ever had."""
    return list(session.exec(select(Game).where(Game.chat_id == chat_id)).all())


def running_in(session: Session, chat_id: int) -> Sequence[Game]:
    """A chat's games being played or paused."""
    query = select(Game).where(Game.chat_id == chat_id, col(Game.status).in_((PLAYING, PAUSED)))
    return session.exec(query).all()


def ended_in(session: Session, chat_id: int, statuses: Sequence[str], limit: int) -> Sequence[Game]:
    """A chat's last `limit` games that ended as one of `statuses`, newest first."""
    query = (
        select(Game)
        .where(Game.chat_id == chat_id, col(Game.status).in_(statuses))
        .order_by(col(Game.finished_at).desc(), col(Game.id).desc())
        .limit(limit)
    )
    return session.exec(query).all()


def played_since(session: Session, game: Game) -> bool:
    """A newer game was started in the same chat and topic (an expired or cancelled lobby was not)."""
    query = select(Game.id).where(
        Game.chat_id == game.chat_id, col(Game.id) > game.id, col(Game.state).is_not(None)
    )
    if game.thread_id is None:
        query = query.where(col(Game.thread_id).is_(None))
    else:
        query = query.where(Game.thread_id == game.thread_id)
    return session.exec(query.limit(1)).first() is not None


def finished_before(session: Session, game: Game) -> Game | None:
    """The game that ended last, played to the end, before `game` at its table: the same chat
    and topic, or for a game posted via inline mode (each with a chat id of its own) the same
    chat as its taps told (`chat_instance`)."""
    query = select(Game).where(Game.status == FINISHED, col(Game.id) < (game.id or 0))
    if game.chat_instance is not None:
        query = query.where(Game.chat_instance == game.chat_instance)
    elif game.thread_id is None:
        query = query.where(Game.chat_id == game.chat_id, col(Game.thread_id).is_(None))
    else:
        query = query.where(Game.chat_id == game.chat_id, Game.thread_id == game.thread_id)
    return session.exec(query.order_by(col(Game.id).desc()).limit(1)).first()


def by_message(session: Session, inline_id: str) -> Game | None:
    """The game whose live board is the inline message `inline_id`."""
    return session.exec(select(Game).where(Game.inline_id == inline_id)).first()


def other_open_status(session: Session, chat_instance: str, game_id: int) -> str | None:
    """The status of a game open in the chat `chat_instance` besides `game_id` (None: none is)."""
    query = select(Game.status).where(
        Game.chat_instance == chat_instance, col(Game.status).in_(ACTIVE_STATUSES), Game.id != game_id
    )
    return session.exec(query.limit(1)).first()


def newest_playing_for(session: Session, user_id: int) -> Game | None:
    """The newest game being played that `user_id` sits in."""
    return session.exec(
        select(Game)
        .join(GamePlayer, GamePlayer.game_id == Game.id)  # type: ignore[arg-type]
        .where(GamePlayer.user_id == user_id, Game.status == PLAYING)
        .order_by(Game.id.desc())  # type: ignore[union-attr]
    ).first()


def running_for(session: Session, user_id: int) -> list[Game]:
    """The games being played or paused that `user_id` sits in, newest first."""
    query = (
        select(Game)
        .join(GamePlayer, col(GamePlayer.game_id) == col(Game.id))
        .where(GamePlayer.user_id == user_id, col(Game.status).in_((PLAYING, PAUSED)))
        .order_by(col(Game.id).desc())
    )
    return list(session.exec(query).all())


def running_inline_for(session: Session, user_id: int, limit: int) -> list[int]:
    """The ids of the newest `limit` games played or paused that `user_id` sits in, at tables
    reached through inline mode (`games.table_kind`)."""
    query = (
        select(Game.id)
        .join(GamePlayer, col(GamePlayer.game_id) == col(Game.id))
        .where(
            GamePlayer.user_id == user_id,
            col(Game.status).in_((PLAYING, PAUSED)),
            Game.table_kind == TableKind.INLINE,
        )
        .order_by(col(Game.id).desc())
        .limit(limit)
    )
    return [game_id for game_id in session.exec(query).all() if game_id is not None]


def waiting_as(session: Session, user_id: int, status: str) -> Sequence[int]:
    """The ids of the games with `status` that `user_id` sits in, in id order."""
    query = (
        select(GamePlayer.game_id)
        .join(Game, col(Game.id) == col(GamePlayer.game_id))
        .where(GamePlayer.user_id == user_id, Game.status == status)
        .order_by(col(GamePlayer.game_id))
    )
    return session.exec(query).all()


# --- the sweep ----------------------------------------------------------------------------------


def due(session: Session, now: datetime, limit: int) -> list[int]:
    """Games due at `now`, most overdue first (a range scan of ix_games_wake_at)."""
    query = select(Game.id).where(col(Game.wake_at) <= now).order_by(col(Game.wake_at)).limit(limit)
    return [i for i in session.exec(query).all() if i is not None]


def next_wake(session: Session) -> datetime | None:
    """When the next game falls due."""
    return session.exec(select(func.min(Game.wake_at))).one()


def still_due(session: Session, game_ids: list[int], now: datetime) -> list[Game]:
    """The games among `game_ids` still due at `now`, most overdue first, locked; on PostgreSQL
    those another instance holds are left out."""
    query = select(Game).where(col(Game.id).in_(game_ids), col(Game.wake_at) <= now)
    if is_postgres(session):
        query = query.with_for_update(skip_locked=True)
    return list(session.exec(query.order_by(col(Game.wake_at))).all())
