"""Paces, reminders and deadlines as pure time arithmetic (DESIGN §4).

Everything here takes `now` as an argument: the store keeps the results as
columns and the sweep compares them with the clock, so nothing about time
lives only in memory.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from ..i18n import M_, _


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


def pace_label(lang: str, key: str) -> str:
    pace = PACES.get(key)
    return _(lang, pace.label) if pace else _(lang, "custom")


def custom_pace(nudge: timedelta | None, deadline: timedelta | None) -> Pace | None:
    """The operator's pace from TWEAKBOT_NUDGE_AFTER / TWEAKBOT_DEADLINE_AFTER."""
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
    deadline = now + pace.deadline if pace.deadline is not None else None
    return TurnClock(shift(now + pace.nudge, quiet), shift(deadline, quiet))


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
        return shift(turn_started + pace.nudge, quiet)
    if nudges_sent == 1 and pace.deadline is not None:
        last_call = turn_started + pace.deadline * LAST_CALL_FRACTION
        last_call = max(last_call, turn_started + pace.nudge)
        shifted = shift(last_call, quiet)
        if deadline is not None and shifted is not None and shifted >= deadline:
            return None
        return shifted
    return None


def earliest(*moments: datetime | None) -> datetime | None:
    present = [m for m in moments if m is not None]
    return min(present) if present else None
