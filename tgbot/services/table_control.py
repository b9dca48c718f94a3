"""Keeping an asynchronous table moving: /pause, /resume, /back, /quiet, /settings (the pace;
its keys are `lobby_keys.change_setting`'s), /leave, /board and /cancel.

Pausing, resuming, quiet hours, the pace and cancelling belong to the game's creator or a group
admin; the rest to each player. Every clock change goes through the `TurnClock`.
"""

from __future__ import annotations

import re
from dataclasses import replace

from sqlmodel import Session

from ..errors import Outcome, Refusal, ServiceError
from ..render import table_notices
from ..render.lobby import pace_rows, settings_text
from ..store import games as game_rows
from ..store import once_keys
from ..store import people as people_rows
from ..store import seats as seat_rows
from ..store.models import LOBBY, PAUSED, PLAYING, Game
from ..turn_clock import TurnClock
from . import lobby, moves, output, people, record
from .call import CommandCall, Replied, command_service
from .context import GameContext, context_of, require_game
from .env import Env
from .game_clock import clock_of, is_held, rules_of, set_clock, turn_clock
from .tables import presenter_of

_QUIET_RE = re.compile(r"(\d{1,2})-(\d{1,2})(?:\s+(?:UTC)?([+-]\d{1,2})(?::(\d{2}))?)?", re.IGNORECASE)
SECONDS_PER_DAY = 86400


def _here(call: CommandCall) -> GameContext:
    command = call.command
    game = lobby.active_game(call.session, command.chat_id, command.thread_id)
    if game is None or game.id is None:
        raise ServiceError(Refusal.NO_GAME_HERE)
    return require_game(call.session, game.id, lock=True)


def _manager(ctx: GameContext, call: CommandCall) -> None:
    command = call.command
    if not lobby.can_manage(ctx.game, command.person.id, bool(command.admin)):
        raise ServiceError(Refusal.NOT_CREATOR)


# --- pause and resume -------------------------------------------------------------------------


@command_service
def pause(call: CommandCall) -> Replied:
    session, env = call.session, call.env
    ctx = _here(call)
    game = ctx.game
    if game.status == PAUSED:
        raise ServiceError(Refusal.ALREADY_PAUSED)
    if game.status == LOBBY:
        raise ServiceError(Refusal.NOT_STARTED)
    _manager(ctx, call)
    game.status = PAUSED
    game.updated_at = env.now
    set_clock(session, game, TurnClock.pause(clock_of(game), env.now, env.pause_max))
    days = max(1, round(env.pause_max.total_seconds() / SECONDS_PER_DAY))
    text = table_notices.paused(ctx.language, days)
    record.pause_board(session, env, ctx)
    output.drop_reminder(session, ctx)
    call.reply(text, notify=False)
    return Replied(game_id=ctx.game_id)


def go_on(session: Session, env: Env, ctx: GameContext, header: str) -> None:
    """A paused game plays on: a fresh clock for the player to move, the board at the bottom. When
    the bot is to move (the pause came between a person's move and the computers' after it), it
    plays after the commit and the board comes after its moves; the group is told now."""
    game = ctx.game
    game.status = PLAYING
    game.updated_at = env.now
    seat = ctx.playing_state().current
    set_clock(session, game, TurnClock.resume(clock_of(game), seat))
    if ctx.seats[seat].autoplayed:
        turn_clock(session, env, ctx, seat)
        presenter_of(ctx).say(session, env, ctx, header)
    else:
        presenter_of(ctx).post_board(session, env, ctx, note=[header])


@command_service
def resume(call: CommandCall) -> Replied:
    ctx = _here(call)
    if ctx.game.status != PAUSED:
        raise ServiceError(Refusal.NOT_PAUSED)
    _manager(ctx, call)
    people.bot_is_here(call.session, ctx.game.chat_id)
    go_on(call.session, call.env, ctx, table_notices.goes_on(ctx.language))
    return Replied(game_id=ctx.game_id)


# --- the board, leaving, cancelling ------------------------------------------------------------


@command_service
def board(call: CommandCall) -> Replied:
    """/board: the board (or lobby) again at the bottom, once a minute at most (a burst of /board
    would post a board for each). A game held since the bot was removed from the group goes on:
    the command proves the bot is back."""
    session, env = call.session, call.env
    ctx = _here(call)
    if is_held(ctx.game):
        people.bot_is_here(session, ctx.game.chat_id)
        go_on(session, env, ctx, table_notices.goes_on(ctx.language))
    elif not output.claim(session, env, ctx.game.chat_id, once_keys.reposted(ctx.game_id)):
        return Replied(Outcome.RECENT, ctx.game_id)  # posted again within the minute: near the bottom still
    elif ctx.game.status == LOBBY:
        presenter_of(ctx).repost_lobby(session, env, ctx)
    else:
        presenter_of(ctx).post_board(session, env, ctx)
    return Replied(game_id=ctx.game_id)


@command_service
def cancel(call: CommandCall) -> Replied:
    ctx = _here(call)
    _manager(ctx, call)
    lobby.cancel(call.session, call.env, ctx)  # its lobby, or the game's record, says so once
    return Replied(game_id=ctx.game_id)


@command_service
def leave(call: CommandCall) -> Replied:
    """/leave: out of a lobby, or, in a running game, the bot plays the seat from now on."""
    ctx = _here(call)
    person = call.command.person
    if ctx.game.status == LOBBY:
        lobby.leave_lobby(call.session, call.env, ctx, person.id)
        return Replied(game_id=ctx.game_id)
    leave_game(call.session, call.env, ctx, person.id)
    return Replied(game_id=ctx.game_id, outcome=Outcome.LEFT)


def leave_game(session: Session, env: Env, ctx: GameContext, user_id: int, notice: str | None = None) -> str:
    """A player leaves a running game (/leave, or they left the group): their seat is played by
    the idle default from now on; with no person left, the game ends. Their name."""
    if ctx.game.status not in (PLAYING, PAUSED):
        raise ServiceError(Refusal.NOT_PLAYING)
    seat = ctx.seat_of(user_id)
    if seat is None:
        raise ServiceError(Refusal.NOT_IN_GAME)
    if seat.left:
        raise ServiceError(Refusal.ALREADY_LEFT)
    player = seat_rows.the_one_of(session, ctx.game_id, user_id)
    player.left = True
    seat_rows.save(session, player)
    seats = [replace(s, left=True) if s.seat == seat.seat else s for s in ctx.seats]
    ctx = replace(ctx, seats=seats)
    text = notice or table_notices.left_game(ctx.language, seat.name)
    presenter_of(ctx).say(session, env, ctx, text)
    playing = ctx.game.status == PLAYING
    if not any(s.is_human and not s.left for s in ctx.seats) or (playing and moves.nobody_plays(ctx)):
        moves.abandon(session, env, ctx)
        presenter_of(ctx).report(session, env, moves.PlayResult(ctx, abandoned=True))
    elif playing and ctx.playing_state().current == seat.seat:
        # their turn: the bot plays it, after this commit (`services.autoplay`)
        turn_clock(session, env, ctx, seat.seat)
    return seat.name


# --- coming back ------------------------------------------------------------------------------


@command_service
def back(call: CommandCall) -> Replied:
    """/back: in a group, back in its game; in private, back in every game (each group is told)."""
    session, env, command = call.session, call.env, call.command
    if command.private:
        back_in = [
            g for g in _games_of(session, command.person.id) if _come_back(session, g, command.person.id)
        ]
        if not back_in:
            raise ServiceError(Refusal.NOT_AWAY)
        call.reply(table_notices.welcome_back(call.reply_language))
        for game in back_in:
            name = command.person.first_name
            ctx = context_of(session, game)
            presenter_of(ctx).say(session, env, ctx, table_notices.is_back(ctx.language, name))
        return Replied()
    ctx = _here(call)
    if ctx.seat_of(command.person.id) is None:
        raise ServiceError(Refusal.NOT_IN_GAME)
    if not _come_back(session, ctx.game, command.person.id):
        raise ServiceError(Refusal.NOT_AWAY)
    call.reply(table_notices.welcome_back(ctx.language))
    return Replied(game_id=ctx.game_id)


def _come_back(session: Session, game: Game, user_id: int) -> bool:
    """Clear the away flag; True when the player was away."""
    player = seat_rows.of_person(session, game.id, user_id)
    if player is None:
        return False
    was_away = player.away
    if player.away or player.timeouts:
        player.away = False
        player.timeouts = 0
        seat_rows.save(session, player)
    return was_away


def _games_of(session: Session, user_id: int) -> list[Game]:
    return game_rows.running_for(session, user_id)


# --- quiet hours ------------------------------------------------------------------------------


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


def utc_label(offset_minutes: int) -> str:
    """'UTC+7', 'UTC-3:30': how people write an offset (whole hours without minutes)."""
    sign = "+" if offset_minutes >= 0 else "-"
    hours, minutes = divmod(abs(offset_minutes), 60)
    return f"UTC{sign}{hours}" + (f":{minutes:02d}" if minutes else "")


@command_service
def quiet(call: CommandCall) -> Replied:
    """/quiet 23-08 +7 or /quiet off: the group's quiet hours. Like /pause, they move running
    turns' deadlines, so only a game's creator or a group admin may set them."""
    session, env, command = call.session, call.env, call.command
    arg = command.args
    if command.private:
        raise ServiceError(Refusal.QUIET_IN_GROUP)
    if not arg:
        raise ServiceError(Refusal.QUIET_USAGE)
    hours = None if arg.lower() == "off" else parse_quiet(arg)
    if hours is None and arg.lower() != "off":
        raise ServiceError(Refusal.QUIET_UNREADABLE)
    running = lobby.active_games(session, command.chat_id)
    if not command.admin and not any(g.creator_id == command.person.id for g in running):
        raise ServiceError(Refusal.NOT_CREATOR)
    chat = people.upsert_chat(session, command.chat_id, command.chat_title, env)
    chat.quiet_start, chat.quiet_end, chat.utc_offset_minutes = (
        hours if hours is not None else (None, None, 0)
    )
    people_rows.write(session, chat)
    for game in running:
        if game.status == PLAYING and game.turn_started_at is not None:
            ctx = context_of(session, game)
            set_clock(session, game, rules_of(ctx, env).rederive(clock_of(game)))
    lang = call.reply_language
    if hours is None:
        call.reply(table_notices.quiet_off(lang), once="quiet")
    else:
        start, end, offset = hours
        text = table_notices.quiet_hours(lang, start, end, utc_label(offset))
        call.reply(text, once="quiet")  # a second /quiet in the minute: that answer shows the newest
    return Replied()


# --- the pace of a running game --------------------------------------------------------------


@command_service
def settings(call: CommandCall) -> Replied:
    """/settings in a running game: its pace, with keys to change it."""
    session, env, command = call.session, call.env, call.command
    game = lobby.active_game(session, command.chat_id, command.thread_id)
    if game is None or game.id is None:
        raise ServiceError(Refusal.SETTINGS_NO_GAME)
    if game.status == LOBBY:
        raise ServiceError(Refusal.SETTINGS_IN_LOBBY)
    ctx = context_of(session, game)
    glang = ctx.language
    custom = env.custom_pace
    text = settings_text(glang, ctx.settings.pace, custom, ctx.settings.hints)
    call.reply(text, pace_rows(glang, game.id, ctx.settings.pace, custom), once="settings")
    return Replied(game_id=game.id)
