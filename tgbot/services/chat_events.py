"""What happens to games when their group changes under them (DESIGN §5).

Pure database work, like every service; `tgbot.handlers.chat_events` and
`tgbot.delivery` do the talking.

* **Migration** (a group upgraded to a supergroup gets a new chat id): every
  game of the old id moves to the new one, and so do the chat's settings
  (language, quiet hours). Idempotent: Telegram sends the news twice
  (`migrate_to_chat_id` in the old chat, `migrate_from_chat_id` in the new
  one), and a send that fails with `ChatMigrated` may get there first.
* **Bot removed** (kicked, or left): the chat is marked `bot_removed` and its
  running games are paused with their state kept. The pause has **no end**
  (`paused_until` is None, so the sweep never lifts it): nobody could see the
  game while the bot is out. Lobbies are left alone; they expire as usual.
* **Bot added back**: `bot_removed` is cleared and the group is told to send
  /board, which resumes a game paused without an end (`resume_if_held`).
  /resume (creator or admin) works too.
* **A player left the group** (or was removed): their seat is left, exactly like
  /leave: the idle default plays it from now on, points kept. In a lobby they
  simply leave the lobby.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import delete, insert, update
from sqlalchemy import select as core_select
from sqlmodel import Session, SQLModel, col, select

from ..store.models import ACTIVE_STATUSES, LOBBY, PAUSED, PLAYING, Chat, Game, GamePlayer
from . import games, pacing, stats
from .errors import ServiceError
from .games import PlayResult


def migrate_chat(session: Session, old_id: int, new_id: int, now: datetime) -> list[int]:
    """Move the chat's settings and games to `new_id`; the ids of the active games that moved.

    Every game moves (finished ones too, so the group's history stays in one
    place). The message ids of active games pointed into the old chat, so they
    are cleared: the caller posts fresh lobbies and boards in the new chat.
    """
    if old_id == new_id:
        return []
    old = session.get(Chat, old_id)
    if old is not None:
        new = games.upsert_chat(session, new_id, old.title, now)
        if not new.language:
            new.language = old.language
        if new.quiet_start is None and old.quiet_start is not None:
            new.quiet_start, new.quiet_end = old.quiet_start, old.quiet_end
            new.utc_offset_minutes = old.utc_offset_minutes
        new.bot_removed = False
        session.add(new)
    _move_chat_rows(session, old_id, new_id)
    moved: list[int] = []
    for game in session.exec(select(Game).where(Game.chat_id == old_id)).all():
        game.chat_id = new_id
        if game.status in ACTIVE_STATUSES:
            game.board_message_id = None
            game.lobby_message_id = None
            assert game.id is not None
            moved.append(game.id)
        session.add(game)
    stats.migrate_chat_stats(session, old_id, new_id, now)  # the group's stats move with it
    session.flush()
    return sorted(moved)


def _move_chat_rows(session: Session, old_id: int, new_id: int) -> None:
    """Rows keyed by the chat (per-group stats…) follow it; counters meeting an existing row add up.

    Generic over every table with a `chat_id` primary-key column, so a new per-chat table
    follows migrations without changes here.
    """
    for table in SQLModel.metadata.sorted_tables:
        chat_col = table.c.get("chat_id")
        if table.name == "chats" or chat_col is None or not chat_col.primary_key:
            continue
        keys = [c for c in table.primary_key.columns if c.name != "chat_id"]
        for old_row in session.execute(core_select(table).where(chat_col == old_id)).mappings().all():
            same = [c == old_row[c.name] for c in keys]
            existing = session.execute(core_select(table).where(chat_col == new_id, *same)).mappings().first()
            if existing is None:
                session.execute(insert(table).values({**old_row, "chat_id": new_id}))
            else:
                merged: dict[str, object] = {}
                for column in table.columns:
                    if column.primary_key:
                        continue
                    mine, theirs = existing[column.name], old_row[column.name]
                    if isinstance(mine, int) and isinstance(theirs, int) and not isinstance(mine, bool):
                        merged[column.name] = mine + theirs
                    elif isinstance(mine, datetime) and isinstance(theirs, datetime):
                        merged[column.name] = max(mine, theirs)
                if merged:
                    session.execute(update(table).where(chat_col == new_id, *same).values(merged))
            session.execute(delete(table).where(chat_col == old_id, *same))


def bot_removed(session: Session, chat_id: int, now: datetime) -> list[int]:
    """Pause the chat's running games with no end; the ids of the games now held."""
    chat = games.upsert_chat(session, chat_id, None, now)
    chat.bot_removed = True
    session.add(chat)
    held: list[int] = []
    query = select(Game).where(Game.chat_id == chat_id, col(Game.status).in_((PLAYING, PAUSED)))
    for game in session.exec(query).all():
        game.status = PAUSED
        game.paused_until = None
        game.next_nudge_at = game.deadline_at = game.wake_at = None
        game.updated_at = now
        session.add(game)
        assert game.id is not None
        held.append(game.id)
    return sorted(held)


def bot_added(session: Session, chat_id: int, title: str | None, now: datetime) -> list[Game]:
    """The bot is (back) in the group: the games waiting for /board, if any."""
    chat = session.get(Chat, chat_id)
    if chat is not None:
        chat.bot_removed = False
        if title:
            chat.title = title[:128]
        session.add(chat)
    return [g for g in games.active_games_in_chat(session, chat_id) if is_held(g)]


def is_held(game: Game) -> bool:
    """Paused with no end: held since the bot was removed (only /board or /resume lift it)."""
    return game.status == PAUSED and game.paused_until is None


def resume_if_held(session: Session, game_id: int, now: datetime, custom_pace: pacing.Pace | None) -> bool:
    """/board on a game held since the bot was removed: play on, with a fresh turn clock."""
    game = session.get(Game, game_id)
    if game is None or not is_held(game) or game.state is None:
        return False
    chat = session.get(Chat, game.chat_id)
    if chat is not None and chat.bot_removed:
        chat.bot_removed = False  # a command from the chat proves the bot is there
        session.add(chat)
    game.status = PLAYING
    ctx = games.load_context(session, game_id, game)
    assert ctx.state is not None
    games.schedule_turn(session, game, ctx.state, now, custom_pace)
    game.updated_at = now
    session.add(game)
    return True


@dataclass
class Departure:
    """A player who left the group, for one game they were in."""

    game_id: int
    name: str
    lobby: bool
    result: PlayResult | None  # the moves played for them right away (a running game)
    previous_board: int | None


def games_of_member(session: Session, chat_id: int, user_id: int) -> list[int]:
    """The active games of the chat (every topic) where the user has a seat."""
    query = (
        select(Game.id)
        .join(GamePlayer, col(GamePlayer.game_id) == col(Game.id))
        .where(
            Game.chat_id == chat_id,
            GamePlayer.user_id == user_id,
            col(Game.status).in_(ACTIVE_STATUSES),
        )
        .order_by(col(Game.id))
    )
    return [game_id for game_id in session.exec(query).all() if game_id is not None]


def member_left(
    session: Session, game_id: int, user_id: int, now: datetime, custom_pace: pacing.Pace | None
) -> Departure | None:
    """A user left (or was removed from) the group: leave this game; None when nothing changed."""
    game = session.get(Game, game_id)
    if game is None or game.status not in ACTIVE_STATUSES:
        return None
    player = session.exec(
        select(GamePlayer).where(GamePlayer.game_id == game_id, GamePlayer.user_id == user_id)
    ).first()
    if player is None or player.left:
        return None  # not in it, or already gone: leaving twice changes nothing
    name = player.name
    try:
        if game.status == LOBBY:
            games.lobby_leave(session, game_id, user_id, now)
            return Departure(game_id, name, True, None, None)
        previous = game.board_message_id
        result = games.leave_game(session, game_id, user_id, now, custom_pace)
    except ServiceError:
        return None
    return Departure(game_id, name, False, result, previous)
