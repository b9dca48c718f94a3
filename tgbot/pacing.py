"""Paces, reminders and deadlines as pure time arithmetic (DESIGN §4).

Everything here takes `now` as an argument: the store keeps the results as
columns and the sweep compares them with the clock, so nothing about time
lives only in memory.

A turn's clock:

* the first reminder at `turn start + pace.nudge` (private when the player
  opened a chat with the bot, else a mention in the group);
* a last call in the group at 80% of the time to the deadline;
* at the deadline the engine's idle default is played for the player.

Relaxed games have no deadline: one reminder a day, forever. Quiet hours hold
reminders to their end and move a deadline that falls inside them to their end;
the last call is 80% of the way to the (moved) deadline, and is dropped when it
could only come at the deadline itself.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal, cast

from babel.dates import TIMEDELTA_UNITS, format_timedelta

from .i18n import M_, _, normalize


@dataclass(frozen=True)
class Pace:
    key: str
    label: str
    nudge: timedelta
    deadline: timedelta | None  # None: never auto-play
    repeat: timedelta | None = None  # relaxed: one reminder a day, forever


PACES: dict[str, Pace] = {
    "live": Pace("live", M_("live"), timedelta(minutes=1), timedelta(minutes=3)),
    "quick": Pace("quick", M_("quick"), timedelta(minutes=10), timedelta(hours=1)),
    "casual": Pace("casual", M_("casual"), timedelta(hours=2), timedelta(hours=12)),
    "slow": Pace("slow", M_("slow"), timedelta(hours=12), timedelta(hours=48)),
    "relaxed": Pace("relaxed", M_("relaxed"), timedelta(hours=24), None, repeat=timedelta(hours=24)),
}
CUSTOM = "custom"
DEFAULT_PACE = "casual"
LAST_CALL_FRACTION = 0.8
MAX_REMINDERS = 2  # per turn, except relaxed (one a day)


def pace_keys(custom: Pace | None) -> list[str]:
    """The paces a game can choose, in display order (the operator's custom one last)."""
    return [*PACES, CUSTOM] if custom is not None else list(PACES)


def is_known(key: str, custom: Pace | None) -> bool:
    return key in PACES or (key == CUSTOM and custom is not None)


#: A duration is said in the largest unit it holds two of, or exactly one: "90 minutes" (not
#: "2 hours"), "1 hour", "36 hours", "1 day".
DURATION_THRESHOLD = 2
TimeUnit = Literal["year", "month", "week", "day", "hour", "minute", "second"]  # babel.dates.TIMEDELTA_UNITS


def format_duration(delta: timedelta, lang: str = "en", style: Literal["long", "short"] = "long") -> str:
    """'36 minutes', '1 hour', '9 hours' with Babel, in the language (`style="short"`: '36 min').

    One unit, rounded down in it (Babel would round to the nearest), so a last call never
    promises more time than is left: 9 h 36 min left is '9 hours'.
    """
    seconds = max(0, int(delta.total_seconds()))
    unit, size = next(
        (
            (name, size)
            for name, size in TIMEDELTA_UNITS
            if seconds == size or seconds >= DURATION_THRESHOLD * size
        ),
        ("second", 1),
    )
    # `granularity` with no threshold to reach: Babel says it in exactly that unit.
    return format_timedelta(
        timedelta(seconds=seconds - seconds % size),
        granularity=cast(TimeUnit, unit),
        threshold=math.inf,
        format=style,
        locale=normalize(lang),
    )


def pace_label(lang: str, key: str, custom: Pace | None = None) -> str:
    pace = PACES.get(key)
    if pace is not None:
        return _(lang, pace.label)
    if key == CUSTOM and custom is not None:
        # Short units in the parenthesis: "custom (30 sec / 10 min)".
        after = format_duration(custom.deadline, lang, "short") if custom.deadline is not None else "—"
        return _(lang, "custom") + f" ({format_duration(custom.nudge, lang, 'short')} / {after})"
    return _(lang, "custom")


def custom_pace(nudge: timedelta | None, deadline: timedelta | None) -> Pace | None:
    """The operator's pace from TWEAKBOT_NUDGE_AFTER / TWEAKBOT_DEADLINE_AFTER.

    Only a deadline: the reminder comes half-way. Only a reminder: never auto-play.
    A reminder at or after the deadline is moved half-way too.
    """
    if nudge is None and deadline is None:
        return None
    if deadline is not None and (nudge is None or nudge >= deadline):
        nudge = deadline / 2
    assert nudge is not None
    return Pace(CUSTOM, M_("custom"), nudge, deadline)


def resolve(key: str, custom: Pace | None) -> Pace:
    if key == CUSTOM and custom is not None:
        return custom
    return PACES.get(key, PACES[DEFAULT_PACE])


@dataclass(frozen=True)
class QuietHours:
    start: int  # local hour, inclusive
    end: int  # local hour, exclusive
    utc_offset_minutes: int = 0

    def contains(self, moment: datetime) -> bool:
        hour = (moment + timedelta(minutes=self.utc_offset_minutes)).hour
        if self.start == self.end:
            return False
        if self.start < self.end:
            return self.start <= hour < self.end
        return hour >= self.start or hour < self.end

    def end_after(self, moment: datetime) -> datetime:
        """The first moment at or after `moment` that is outside the quiet hours."""
        if not self.contains(moment):
            return moment
        local = moment + timedelta(minutes=self.utc_offset_minutes)
        end_local = local.replace(hour=self.end, minute=0, second=0, microsecond=0)
        if end_local <= local:
            end_local += timedelta(days=1)
        return end_local - timedelta(minutes=self.utc_offset_minutes)


def shift(moment: datetime | None, quiet: QuietHours | None) -> datetime | None:
    if moment is None or quiet is None:
        return moment
    return quiet.end_after(moment)


@dataclass(frozen=True)
class TurnClock:
    next_nudge_at: datetime | None
    deadline_at: datetime | None


def first_schedule(pace: Pace, now: datetime, quiet: QuietHours | None) -> TurnClock:
    """Reminder and deadline for a turn that starts now."""
    deadline = shift(now + pace.deadline, quiet) if pace.deadline is not None else None
    nudge = shift(now + pace.nudge, quiet)
    if deadline is not None and nudge is not None and nudge >= deadline:
        nudge = None  # quiet hours pushed the reminder onto the deadline: the auto-play says it all
    return TurnClock(nudge, deadline)


def last_call_at(
    pace: Pace, turn_started: datetime, deadline: datetime | None, quiet: QuietHours | None
) -> datetime | None:
    """The group's last call: 80% of the way to the deadline (held past quiet hours).

    None when there is no deadline, when the first reminder is already that late
    (one reminder is enough), or when quiet hours would hold it onto the deadline.
    """
    if pace.deadline is None or deadline is None:
        return None
    raw = turn_started + (deadline - turn_started) * LAST_CALL_FRACTION
    if raw <= turn_started + pace.nudge:
        return None
    shifted = shift(raw, quiet)
    if shifted is None or shifted >= deadline:
        return None
    return shifted


def next_nudge(
    pace: Pace, turn_started: datetime, nudges_sent: int, deadline: datetime | None, quiet: QuietHours | None
) -> datetime | None:
    """When the next reminder is due after `nudges_sent` were sent; None when no more.

    At most two per turn: the first (private where possible) and a last call in
    the group at 80% of the way to the deadline. Relaxed games have no deadline
    and get one reminder a day instead.
    """
    if pace.repeat is not None:
        return shift(turn_started + pace.nudge + pace.repeat * nudges_sent, quiet)
    if nudges_sent == 0:
        first = shift(turn_started + pace.nudge, quiet)
        if deadline is not None and first is not None and first >= deadline:
            return None
        return first
    if nudges_sent == 1:
        return last_call_at(pace, turn_started, deadline, quiet)
    return None


@dataclass(frozen=True)
class ReminderStep:
    """What the sweep sends now and when it looks again."""

    last_call: bool  # the group's last call (else: the first reminder, or relaxed's daily one)
    sent_after: int  # the turn's reminder count once this one is sent
    next_at: datetime | None


def reminder_step(
    pace: Pace,
    turn_started: datetime,
    nudges_sent: int,
    deadline: datetime | None,
    quiet: QuietHours | None,
    now: datetime,
) -> ReminderStep:
    """The reminder due at `now`, sending one message even when several are overdue.

    Reminders missed while the bot was down (or held by quiet hours) are not
    sent in a burst: when the last call is already due, only the last call goes;
    a relaxed game skips the days it missed.
    """
    if pace.repeat is not None:
        sent = nudges_sent + 1
        elapsed = now - (turn_started + pace.nudge)
        if elapsed > timedelta(0):
            sent = max(sent, int(elapsed / pace.repeat) + 1)
        upcoming = next_nudge(pace, turn_started, sent, deadline, quiet)
        while upcoming is not None and upcoming <= now:
            sent += 1
            upcoming = next_nudge(pace, turn_started, sent, deadline, quiet)
        return ReminderStep(False, sent, upcoming)
    if nudges_sent == 0:
        last = next_nudge(pace, turn_started, 1, deadline, quiet)
        if last is not None and last <= now:
            return ReminderStep(True, MAX_REMINDERS, None)
        return ReminderStep(False, 1, last)
    return ReminderStep(True, max(nudges_sent + 1, MAX_REMINDERS), None)


def earliest(*moments: datetime | None) -> datetime | None:
    present = [m for m in moments if m is not None]
    return min(present) if present else None
