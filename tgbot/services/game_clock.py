"""The game row's clock columns: read them, write them back (the one place), start a seen turn.

The rules are in `tgbot.turn_clock` (pure); this module is where their result meets the store.
`set_clock` writes the whole `ClockState` and tells the process when to wake
(`store.db.after_commit`), so a live reminder is sent on time to the second rather than at the
next sweep.
"""

from __future__ import annotations

from dataclasses import asdict
from datetime import datetime

from sqlmodel import Session

from ..store import games as game_rows
from ..store.db import after_commit
from ..store.models import ENDED_STATUSES, PAUSED, PLAYING, Game, GameStatus
from ..store.surfaces import Board, Panel, Surface
from ..tables import played_in
from ..turn_clock import ClockState, TurnClock
from .context import GameContext, game_and_chat, parse_settings
from .env import Env


def end_game(session: Session, game: Game, status: GameStatus, now: datetime) -> None:
    """The one way a game ends (`status`, one of `ENDED_STATUSES`): when, and its clock stopped,
    so the sweep never wakes for it again. What the chats read of it, and a played game's stats,
    are the caller's."""
    assert status in ENDED_STATUSES, status
    game.status = status
    game.finished_at = game.updated_at = now
    set_clock(session, game, TurnClock.stop())


def rules_of(ctx: GameContext, env: Env) -> TurnClock:
    """The clock rules of this game: its pace (or the operator's custom one), its group's quiet
    hours."""
    return TurnClock.of(ctx.settings.pace, env.custom_pace, ctx.quiet)


def clock_of(game: Game) -> ClockState:
    """The clock as the game row keeps it."""
    return ClockState(
        current_seat=game.current_seat,
        turn_started_at=game.turn_started_at,
        nudges_sent=game.nudges_sent,
        next_nudge_at=game.next_nudge_at,
        deadline_at=game.deadline_at,
        paused_until=game.paused_until,
        wake_at=game.wake_at,
    )


def set_clock(session: Session, game: Game, state: ClockState) -> None:
    """Write the clock on the game row and wake this process when it is next due: a turn the bot
    plays at once is played right after the commit (`AfterCommit.autoplay`, at the version the
    game has then); its `wake_at` is only the safety net of a process that stopped first."""
    for column, value in asdict(state).items():
        setattr(game, column, value)
    game_rows.save(session, game)
    notes = after_commit(session)
    if game.id is not None and state.autoplay and game.status == PLAYING:
        notes.autoplay[game.id] = game.version
        return
    if game.id is not None:
        notes.autoplay.pop(game.id, None)
    if isinstance(state.wake_at, datetime) and (notes.wake_at is None or state.wake_at < notes.wake_at):
        notes.wake_at = state.wake_at


def turn_clock(session: Session, env: Env, ctx: GameContext, seat: int) -> None:
    """The clock of a turn that begins: played by the bot at once when its seat does not wait for
    a person (a computer, a person who left or is away), else waiting until its player can see it."""
    game = ctx.game
    if ctx.seats[seat].autoplayed:
        set_clock(session, game, TurnClock.autoplayed(clock_of(game), seat, env.now))
    else:
        set_clock(session, game, TurnClock.waiting(clock_of(game), seat))


def is_waiting(game: Game) -> bool:
    """A turn is on, but its clock waits until its player can see it."""
    return game.status == PLAYING and clock_of(game).waiting


def is_held(game: Game) -> bool:
    """Paused with no end: held since the bot was removed (only /board or /resume lift it)."""
    return game.status == PAUSED and game.paused_until is None


def start_when_shown(session: Session, env: Env, chat_id: int, surface: Surface) -> None:
    """A board or a panel reached its chat: the turn it shows starts its clock, if it waits.

    Only the live board of the game counts (an older one shows an older turn), or the panel of
    the player to move.
    """
    if not isinstance(surface, Board | Panel):
        return
    # The game comes with its chat's row (the quiet hours) in one statement: a board reaching the
    # group is the most frequent write a sender records, and most of them start a clock.
    found = game_and_chat(session, surface.game_id, lock=True)
    if found is None:
        return
    game, chat = found
    if not is_waiting(game):
        return
    where = played_in(game.chat_id, game.chat_instance)  # an inline game's chat, not its lobby
    if isinstance(surface, Board) and (surface.number != game.board_no or where != chat_id):
        return
    if isinstance(surface, Panel) and surface.seat != game.current_seat:
        return
    assert game.current_seat is not None
    clock = TurnClock.of(parse_settings(game.settings).pace, env.custom_pace, chat.quiet)
    set_clock(session, game, clock.start(clock_of(game), game.current_seat, env.now))
