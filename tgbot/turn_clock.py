"""The turn clock: every deadline, reminder, quiet-hours, pause and wake-up rule, in one place.

Pure on purpose (no database, no Telegram, `now` always an argument): a rule can be read and
tested on its own, and the store keeps its results as columns of the game row that the sweep
compares with the clock, so nothing about time lives only in memory. Every operation takes the
game's `ClockState` and returns the next one; `services.game_clock.set_clock` is the only place
that writes it back.

A turn's clock (DESIGN §4):

* a new turn's clock waits until its player can see the turn (`waiting`, then `start`);
* the first reminder at `turn start + pace.nudge` (private when the player opened a chat with
  the bot, else a mention in the group);
* a last call in the group at 80% of the time to the deadline;
* at the deadline the engine's idle default is played for the player.

A turn of a seat that does not wait for a person (a computer, a person who left or is away) has
none of these: the bot plays it at once, after the commit that gave it the turn, in a
transaction of its own (`autoplayed`; `services.autoplay`).

Relaxed games have no deadline: one reminder a day, forever. Quiet hours hold reminders to their
end and move a deadline that falls inside them to their end; the last call is 80% of the way to
the (moved) deadline, and is dropped when it could only come at the deadline itself. A pause
stops every clock until it runs out; an unstarted lobby wakes the sweep when it expires.
`wake_at` is always the earliest moment at which one of these rules is due.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from enum import Enum

from .pacing import Pace, PaceName, QuietHours, resolve

LAST_CALL_FRACTION = 0.8
MAX_REMINDERS = 2  # per turn, except relaxed (one a day)
#: The operator's defaults (TWEAKBOT_LOBBY_TTL, TWEAKBOT_PAUSE_MAX_DAYS): an unstarted lobby
#: expires after a day; a /pause lifts itself after a week.
LOBBY_TTL = timedelta(hours=24)
PAUSE_MAX = timedelta(days=7)
#: A turn the bot plays at once is played by the process whose commit gave it the turn; its
#: `wake_at` lies this far ahead, so that only a process that finds it still due then (the first
#: one stopped, or failed) takes it over, and no two play it side by side in the meantime.
AUTOPLAY_TAKEOVER = timedelta(seconds=5)


@dataclass(frozen=True)
class ClockState:
    """A game's clock as its row keeps it (the columns of the same names)."""

    current_seat: int | None = None
    turn_started_at: datetime | None = None  # None while the turn waits to be seen
    nudges_sent: int = 0
    next_nudge_at: datetime | None = None
    deadline_at: datetime | None = None
    paused_until: datetime | None = None
    wake_at: datetime | None = None  # when the sweep must look at the game

    @property
    def waiting(self) -> bool:
        """A turn is on, but its clock waits until its player can see it."""
        return self.current_seat is not None and self.turn_started_at is None

    @property
    def autoplay(self) -> bool:
        """The bot plays this turn at once (`TurnClock.autoplayed`): it started, no reminder and
        no deadline will come, yet the sweep is to look (a turn of a person always has one of the
        two when it has a wake-up, and a pause has its end)."""
        return (
            self.current_seat is not None
            and self.turn_started_at is not None
            and self.next_nudge_at is None
            and self.deadline_at is None
            and self.paused_until is None
            and self.wake_at is not None
        )


NO_CLOCK = ClockState()


class Due(Enum):
    """What the sweep must do for a game whose `wake_at` has come."""

    PAUSE_OVER = "pause_over"  # the pause ran out: the game goes on
    DEADLINE = "deadline"  # the idle default is played for the player to move
    AUTOPLAY = "autoplay"  # the bot's turn (a computer's, an away player's) was not played in time
    REMINDER = "reminder"  # the turn's next reminder


@dataclass(frozen=True)
class Reminder:
    """The reminder the sweep sends now."""

    last_call: bool  # the group's last call before the deadline


def earliest(*moments: datetime | None) -> datetime | None:
    present = [m for m in moments if m is not None]
    return min(present) if present else None


def shift(moment: datetime | None, quiet: QuietHours | None) -> datetime | None:
    """`moment`, held to the end of the quiet hours when it falls inside them."""
    if moment is None or quiet is None:
        return moment
    return quiet.end_after(moment)


@dataclass(frozen=True)
class TurnClock:
    """The clock rules of one game: its pace and its group's quiet hours."""

    pace: Pace
    quiet: QuietHours | None = None

    @classmethod
    def of(cls, pace_key: PaceName, custom: Pace | None, quiet: QuietHours | None) -> TurnClock:
        return cls(resolve(pace_key, custom), quiet)

    # --- a lobby, a turn, the end -----------------------------------------------------------

    @staticmethod
    def lobby(now: datetime, ttl: timedelta) -> ClockState:
        """A lobby nobody starts expires after `ttl`: the sweep closes it then."""
        return replace(NO_CLOCK, wake_at=now + ttl)

    @staticmethod
    def waiting(state: ClockState, seat: int) -> ClockState:
        """A turn whose board (or panel) has not reached its player yet: no clock runs until one
        has (`start`), so nobody is reminded of, or played for, a turn they cannot see (a busy
        group's next board may wait a minute for Telegram's budget)."""
        return replace(NO_CLOCK, current_seat=seat, paused_until=state.paused_until)

    @staticmethod
    def autoplayed(state: ClockState, seat: int, now: datetime) -> ClockState:
        """A turn the bot plays at once (a computer's, or that of a person who left or is away):
        no reminder, no idle default, nothing to wait for. The process that gives it the turn
        plays it straight after its commit; `wake_at` is the safety net, a little later, for a
        process that stopped before it could (`AUTOPLAY_TAKEOVER`)."""
        return replace(NO_CLOCK, current_seat=seat, turn_started_at=now, wake_at=now + AUTOPLAY_TAKEOVER)

    @staticmethod
    def stop() -> ClockState:
        """No clock at all: the game ended, was cancelled or abandoned, or its lobby expired."""
        return NO_CLOCK

    def start(self, state: ClockState, seat: int, now: datetime) -> ClockState:
        """A turn starts now: its first reminder and its deadline."""
        deadline = shift(now + self.pace.deadline, self.quiet) if self.pace.deadline is not None else None
        nudge = shift(now + self.pace.nudge, self.quiet)
        if deadline is not None and nudge is not None and nudge >= deadline:
            nudge = None  # quiet hours pushed the reminder onto the deadline: the auto-play says it all
        return replace(
            state,
            current_seat=seat,
            turn_started_at=now,
            nudges_sent=0,
            next_nudge_at=nudge,
            deadline_at=deadline,
            wake_at=earliest(nudge, deadline),
        )

    def restart(self, state: ClockState, seat: int, now: datetime) -> ClockState:
        """The clock of the running turn starts again (a new pace); a turn still waiting to be
        seen keeps waiting, and one the bot plays at once has no clock to start."""
        if state.autoplay:
            return state
        return self.waiting(state, seat) if state.waiting else self.start(state, seat, now)

    def acted(self, state: ClockState) -> ClockState:
        """The player played a [T!] card, which does not end the turn: they are here, so no more
        reminders; the deadline still finishes the turn. Relaxed games (no deadline) keep their
        daily reminder."""
        if self.pace.deadline is None or state.deadline_at is None:
            return state
        return replace(
            state,
            next_nudge_at=None,
            nudges_sent=max(state.nudges_sent, MAX_REMINDERS),
            wake_at=state.deadline_at,
        )

    # --- reminders ----------------------------------------------------------------------------

    def last_call_at(self, started: datetime, deadline: datetime | None) -> datetime | None:
        """The group's last call: 80% of the way to the deadline (held past quiet hours).

        None when there is no deadline, when the first reminder is already that late (one
        reminder is enough), or when quiet hours would hold it onto the deadline.
        """
        if self.pace.deadline is None or deadline is None:
            return None
        raw = started + (deadline - started) * LAST_CALL_FRACTION
        if raw <= started + self.pace.nudge:
            return None
        shifted = shift(raw, self.quiet)
        if shifted is None or shifted >= deadline:
            return None
        return shifted

    def next_nudge(self, started: datetime, nudges_sent: int, deadline: datetime | None) -> datetime | None:
        """When the next reminder is due after `nudges_sent` were sent; None when no more.

        At most two per turn: the first (private where possible) and a last call in the group
        at 80% of the way to the deadline. Relaxed games have no deadline and get one reminder
        a day instead.
        """
        pace = self.pace
        if pace.repeat is not None:
            return shift(started + pace.nudge + pace.repeat * nudges_sent, self.quiet)
        if nudges_sent == 0:
            first = shift(started + pace.nudge, self.quiet)
            if deadline is not None and first is not None and first >= deadline:
                return None
            return first
        if nudges_sent == 1:
            return self.last_call_at(started, deadline)
        return None

    def remind(self, state: ClockState, now: datetime) -> tuple[Reminder, ClockState]:
        """The reminder due at `now` and the clock after it: one message even when several are
        overdue.

        Reminders missed while the bot was down (or held by quiet hours) are not sent in a
        burst: when the last call is already due, only the last call goes; a relaxed game skips
        the days it missed.
        """
        started = state.turn_started_at or now
        deadline = state.deadline_at
        sent = state.nudges_sent
        upcoming: datetime | None
        if self.pace.repeat is not None:
            sent += 1
            elapsed = now - (started + self.pace.nudge)
            if elapsed > timedelta(0):
                sent = max(sent, int(elapsed / self.pace.repeat) + 1)
            upcoming = self.next_nudge(started, sent, deadline)
            while upcoming is not None and upcoming <= now:
                sent += 1
                upcoming = self.next_nudge(started, sent, deadline)
            last_call = False
        elif sent == 0:
            upcoming = self.next_nudge(started, 1, deadline)
            last_call = upcoming is not None and upcoming <= now
            sent, upcoming = (MAX_REMINDERS, None) if last_call else (1, upcoming)
        else:
            last_call, sent, upcoming = True, max(sent + 1, MAX_REMINDERS), None
        after = replace(state, nudges_sent=sent, next_nudge_at=upcoming, wake_at=earliest(upcoming, deadline))
        return Reminder(last_call), after

    def rederive(self, state: ClockState) -> ClockState:
        """The running turn's reminder and deadline, as if these quiet hours had applied from its
        start (they were just changed). A turn the bot plays at once has neither."""
        started = state.turn_started_at
        if started is None or state.autoplay:
            return state
        deadline = shift(started + self.pace.deadline, self.quiet) if self.pace.deadline is not None else None
        if self.pace.repeat is None and state.nudges_sent >= MAX_REMINDERS:
            nudge = None
        else:
            nudge = self.next_nudge(started, state.nudges_sent, deadline)
        return replace(state, deadline_at=deadline, next_nudge_at=nudge, wake_at=earliest(nudge, deadline))

    # --- pauses and the sweep's wake-up -------------------------------------------------------

    @staticmethod
    def pause(state: ClockState, now: datetime, longest: timedelta | None) -> ClockState:
        """Every clock stops; a pause with an end lifts itself then (None: held until /board)."""
        until = now + longest if longest is not None else None
        return replace(state, paused_until=until, next_nudge_at=None, deadline_at=None, wake_at=until)

    @staticmethod
    def resume(state: ClockState, seat: int) -> ClockState:
        """A paused game plays on: the turn waits to be seen again, like a new one."""
        return replace(TurnClock.waiting(state, seat), paused_until=None)

    @staticmethod
    def due(state: ClockState, now: datetime, *, paused: bool, autoplayed: bool = False) -> Due | None:
        """What is due at `now`: in a paused game only its end; in a running one, a turn the bot
        plays (`autoplayed`: the seat to move does not wait for a person; or the clock says so)
        when its wake-up has come, else the deadline before any reminder (a late sweep plays the
        turn rather than remind of it). None: the sweep woke early, or for a rule that no longer
        applies."""
        if paused:
            return Due.PAUSE_OVER if state.paused_until is not None and state.paused_until <= now else None
        if autoplayed or state.autoplay:
            return Due.AUTOPLAY if state.wake_at is not None and state.wake_at <= now else None
        if state.deadline_at is not None and state.deadline_at <= now:
            return Due.DEADLINE
        if state.next_nudge_at is not None and state.next_nudge_at <= now:
            return Due.REMINDER
        return None

    @staticmethod
    def rearm(state: ClockState, *, paused: bool, running: bool) -> ClockState:
        """The sweep looked and nothing was due: wake at the next rule that will be (the end of a
        pause, the next reminder or the deadline), or never for a game that is not running."""
        if paused:
            return replace(state, wake_at=state.paused_until)
        if running and state.autoplay:
            return state  # its wake-up is the safety net of a turn the bot plays at once
        if not running:
            return replace(state, wake_at=None)
        return replace(state, wake_at=earliest(state.next_nudge_at, state.deadline_at))
