"""Pausing, resuming, coming back, quiet hours and the pace of a running game."""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import datetime, timedelta

from sqlalchemy.engine import Connection
from sqlmodel import Session, select

from ..store.models import LOBBY, PAUSED, PLAYING, Chat, Game, GamePlayer
from . import games, pacing
from .context import GameContext
from .errors import ServiceError
from .settings import GameSettings

_QUIET_RE = re.compile(r"(\d{1,2})-(\d{1,2})(?:\s+(?:UTC)?([+-]\d{1,2})(?::(\d{2}))?)?", re.IGNORECASE)


def _game(session: Session, game_id: int) -> Game:
    game = session.get(Game, game_id)
    if game is None:
        raise ServiceError("no_game")
    return game


def pause(
    session: Session, game_id: int, user_id: int, is_admin: bool, now: datetime, max_pause: timedelta
) -> Game:
    """Stop every clock; the pause lifts by itself after `max_pause`."""
    game = _game(session, game_id)
    if game.status == PAUSED:
        raise ServiceError("already_paused")
    if game.status == LOBBY:
        raise ServiceError("not_started")
    if game.status != PLAYING:
        raise ServiceError("not_playing")
    if not games.can_manage(game, user_id, is_admin):
        raise ServiceError("not_creator")
    game.status = PAUSED
    game.paused_until = now + max_pause
    game.next_nudge_at = game.deadline_at = None
    game.wake_at = game.paused_until
    game.updated_at = now
    session.add(game)
    return game


def resume(
    session: Session,
    game_id: int,
    user_id: int,
    is_admin: bool,
    now: datetime,
    custom_pace: pacing.Pace | None,
) -> Game:
    game = _game(session, game_id)
    if game.status != PAUSED:
        raise ServiceError("not_paused")
    if not games.can_manage(game, user_id, is_admin):
        raise ServiceError("not_creator")
    game.status = PLAYING
    game.paused_until = None
    ctx = games.load_context(session, game_id, game)
    assert ctx.state is not None
    games.schedule_turn(session, game, ctx.state, now, custom_pace)  # a fresh clock for the player to move
    game.updated_at = now
    session.add(game)
    return game


def come_back(session: Session, game_id: int, user_id: int) -> bool:
    """Clear the away flag; True when the player was away."""
    player = session.exec(
        select(GamePlayer).where(GamePlayer.game_id == game_id, GamePlayer.user_id == user_id)
    ).first()
    if player is None:
        raise ServiceError("not_in_game")
    was_away = player.away
    if player.away or player.timeouts:
        player.away = False
        player.timeouts = 0
        session.add(player)
    return was_away


def come_back_loaded(db: Session | Connection, ctx: GameContext, user_id: int) -> bool:
    """`come_back` for a game read in this transaction (`games.load_snapshot`); its seats are
    updated too. True when the player was away or had missed turns (a row was written)."""
    me = ctx.seat_of(user_id)
    if me is None or not (me.away or me.timeouts):
        return False
    ctx.seats = games.clear_idle(db, ctx, me)
    return True


def parse_quiet(text: str) -> tuple[int, int, int] | None:
    """'23-08 +7' -> (23, 8, 420); None when it does not parse."""
    match = _QUIET_RE.fullmatch(text.strip())
    if not match:
        return None
    start, end = int(match.group(1)), int(match.group(2))
    hours = int(match.group(3) or 0)
    minutes = int(match.group(4) or 0)
    if not (0 <= start <= 23 and 0 <= end <= 23 and start != end and -12 <= hours <= 14 and minutes < 60):
        return None
    offset = hours * 60 + (minutes if hours >= 0 else -minutes)
    return start, end, offset


def set_quiet(
    session: Session,
    chat_id: int,
    hours: tuple[int, int, int] | None,
    now: datetime,
    custom_pace: pacing.Pace | None = None,
) -> Chat:
    """Set (or clear, with None) a group's quiet hours; running turns get their clock re-derived."""
    chat = games.upsert_chat(session, chat_id, None, now)
    if hours is None:
        chat.quiet_start = chat.quiet_end = None
        chat.utc_offset_minutes = 0
    else:
        chat.quiet_start, chat.quiet_end, chat.utc_offset_minutes = hours
    session.add(chat)
    quiet = games.quiet_hours(chat)
    for game in games.active_games_in_chat(session, chat_id):
        if game.status == PLAYING and game.turn_started_at is not None:
            _rederive_clock(game, quiet, custom_pace)
            session.add(game)
    return chat


def _rederive_clock(game: Game, quiet: pacing.QuietHours | None, custom_pace: pacing.Pace | None) -> None:
    """The current turn's reminder and deadline, as if these quiet hours had applied from its start."""
    assert game.turn_started_at is not None
    pace = pacing.resolve(GameSettings.from_json(game.settings).pace, custom_pace)
    started = game.turn_started_at
    deadline = pacing.shift(started + pace.deadline, quiet) if pace.deadline is not None else None
    if pace.repeat is None and game.nudges_sent >= pacing.MAX_REMINDERS:
        nudge = None
    else:
        nudge = pacing.next_nudge(pace, started, game.nudges_sent, deadline, quiet)
    game.deadline_at = deadline
    game.next_nudge_at = nudge
    game.wake_at = pacing.earliest(nudge, deadline)


def come_back_everywhere(session: Session, user_id: int) -> list[Game]:
    """/back in a private chat: the user is back in every running game they were away from."""
    back: list[Game] = []
    for game in games.games_of_user(session, user_id):
        assert game.id is not None
        if come_back(session, game.id, user_id):
            back.append(game)
    return back


def change_pace(
    session: Session,
    game_id: int,
    user_id: int,
    is_admin: bool,
    pace: str,
    now: datetime,
    custom_pace: pacing.Pace | None,
) -> GameSettings:
    """The creator (or an admin) changes the pace of a running game; the turn clock restarts."""
    game = _game(session, game_id)
    if not pacing.is_known(pace, custom_pace):
        raise ServiceError("bad_setting")
    if game.status not in (PLAYING, PAUSED):
        raise ServiceError("not_playing")
    if not games.can_manage(game, user_id, is_admin):
        raise ServiceError("not_creator")
    settings = replace(GameSettings.from_json(game.settings), pace=pace)
    game.settings = settings.to_json()
    if game.status == PLAYING:
        ctx = games.load_context(session, game_id, game)
        assert ctx.state is not None
        games.schedule_turn(session, game, ctx.state, now, custom_pace)
    session.add(game)
    return settings
