"""Pausing, resuming, coming back, quiet hours and the pace of a running game."""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import datetime, timedelta

from sqlmodel import Session, select

from ..store.models import PAUSED, PLAYING, Chat, Game, GamePlayer
from . import games, pacing
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


def set_quiet(session: Session, chat_id: int, hours: tuple[int, int, int] | None, now: datetime) -> Chat:
    chat = games.upsert_chat(session, chat_id, None, now)
    if hours is None:
        chat.quiet_start = chat.quiet_end = None
        chat.utc_offset_minutes = 0
    else:
        chat.quiet_start, chat.quiet_end, chat.utc_offset_minutes = hours
    session.add(chat)
    return chat


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
    if pace not in pacing.PACES and not (pace == pacing.CUSTOM and custom_pace is not None):
        raise ServiceError("bad_setting")
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
