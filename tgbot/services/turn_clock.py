"""The turn clock: every deadline, reminder, quiet-hours and pause rule of a game, in one place.

A game's clock is a few columns of its row (`current_seat`, `turn_started_at`, `next_nudge_at`,
`deadline_at`, `nudges_sent`, `paused_until`) and `wake_at`, the earliest of them: the moment the
sweep must look at the game. `TurnClock` computes those columns from the game's pace and the
group's quiet hours (the time arithmetic is in `pacing`); `set_clock` writes them and tells the
process when to wake (`store.db.after_commit`), so a live reminder is sent on time to the second
rather than at the next sweep.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlmodel import Session

from .. import pacing
from ..pacing import Pace, QuietHours
from ..store.db import after_commit, is_postgres
from ..store.models import PLAYING, Chat, Game
from . import surfaces
from .context import parse_settings, quiet_hours
from .env import Env

Columns = dict[str, object]

_NO_CLOCK: Columns = {
    "current_seat": None,
    "turn_started_at": None,
    "next_nudge_at": None,
    "deadline_at": None,
    "nudges_sent": 0,
    "wake_at": None,
}


@dataclass(frozen=True)
class Reminder:
    """The reminder the sweep sends now."""

    last_call: bool  # the group's last call before the deadline


@dataclass(frozen=True)
class TurnClock:
    pace: Pace
    quiet: QuietHours | None

    @classmethod
    def of(cls, pace_key: str, custom: Pace | None, quiet: QuietHours | None) -> TurnClock:
        return cls(pacing.resolve(pace_key, custom), quiet)

    def start(self, seat: int, now: datetime) -> Columns:
        """A turn starts now: its first reminder and its deadline."""
        first = pacing.first_schedule(self.pace, now, self.quiet)
        return {
            "current_seat": seat,
            "turn_started_at": now,
            "nudges_sent": 0,
            "next_nudge_at": first.next_nudge_at,
            "deadline_at": first.deadline_at,
            "wake_at": pacing.earliest(first.next_nudge_at, first.deadline_at),
        }

    @staticmethod
    def waiting(seat: int) -> Columns:
        """A turn whose board (or panel) has not reached its player yet: no clock runs until one
        has (`start_when_shown`), so nobody is reminded of, or played for, a turn they cannot
        see (a busy group's next board may wait a minute for Telegram's budget)."""
        return {**_NO_CLOCK, "current_seat": seat}

    @staticmethod
    def stop() -> Columns:
        """No turn is running (the game ended, or is not started)."""
        return dict(_NO_CLOCK)

    def acted(self, game: Game) -> Columns | None:
        """The player played a [T!] card, which does not end the turn: they are here, so no more
        reminders; the deadline still finishes the turn. Relaxed games (no deadline) keep their
        daily reminder."""
        if self.pace.deadline is None or game.deadline_at is None:
            return None
        return {
            "next_nudge_at": None,
            "nudges_sent": max(game.nudges_sent, pacing.MAX_REMINDERS),
            "wake_at": game.deadline_at,
        }

    def remind(self, game: Game, now: datetime) -> tuple[Reminder, Columns]:
        """The reminder due now and the clock after it (one message even when several are late)."""
        step = pacing.reminder_step(
            self.pace, game.turn_started_at or now, game.nudges_sent, game.deadline_at, self.quiet, now
        )
        return Reminder(step.last_call), {
            "nudges_sent": step.sent_after,
            "next_nudge_at": step.next_at,
            "wake_at": pacing.earliest(step.next_at, game.deadline_at),
        }

    def restart(self, game: Game, seat: int, now: datetime) -> Columns:
        """The clock of the running turn starts again (a new pace); a turn still waiting to be
        seen keeps waiting."""
        return self.waiting(seat) if is_waiting(game) else self.start(seat, now)

    def rederive(self, game: Game) -> Columns:
        """The running turn's reminder and deadline, as if these quiet hours had applied from its
        start (they were just changed)."""
        started = game.turn_started_at
        if started is None:
            return {}
        deadline = (
            pacing.shift(started + self.pace.deadline, self.quiet) if self.pace.deadline is not None else None
        )
        if self.pace.repeat is None and game.nudges_sent >= pacing.MAX_REMINDERS:
            nudge = None
        else:
            nudge = pacing.next_nudge(self.pace, started, game.nudges_sent, deadline, self.quiet)
        return {"deadline_at": deadline, "next_nudge_at": nudge, "wake_at": pacing.earliest(nudge, deadline)}

    @staticmethod
    def pause(now: datetime, longest: timedelta | None) -> Columns:
        """Every clock stops; a pause with an end lifts itself then (None: held until /board)."""
        until = now + longest if longest is not None else None
        return {"paused_until": until, "next_nudge_at": None, "deadline_at": None, "wake_at": until}


def is_waiting(game: Game) -> bool:
    """A turn is on, but its clock waits until its player can see it."""
    return game.status == PLAYING and game.current_seat is not None and game.turn_started_at is None


def start_when_shown(session: Session, env: Env, chat_id: int, surface: str) -> None:
    """A board or a panel reached its chat: the turn it shows starts its clock, if it waits.

    Only the live board of the game counts (an older one shows an older turn), or the panel of
    the player to move.
    """
    named = surfaces.parse(surface)
    if named is None or named.kind not in ("board", "panel"):
        return
    game = session.get(Game, named.game_id, with_for_update=is_postgres(session))
    if game is None or not is_waiting(game):
        return
    if named.kind == "board" and (named.number != game.board_no or game.chat_id != chat_id):
        return
    if named.kind == "panel" and named.number != game.current_seat:
        return
    assert game.current_seat is not None
    chat = session.get(Chat, game.chat_id)
    clock = TurnClock.of(parse_settings(game.settings).pace, env.custom_pace, quiet_hours(chat))
    set_clock(session, game, clock.start(game.current_seat, env.now))


def set_clock(session: Session, game: Game, columns: Columns) -> None:
    """Write clock columns on the game row and wake this process when the next one is due."""
    for key, value in columns.items():
        setattr(game, key, value)
    session.add(game)
    note_wake(session, game)


def note_wake(session: Session, game: Game) -> None:
    """After the commit, this process wakes for the game's `wake_at` (if it comes first)."""
    if isinstance(game.wake_at, datetime):
        notes = after_commit(session)
        if notes.wake_at is None or game.wake_at < notes.wake_at:
            notes.wake_at = game.wake_at
