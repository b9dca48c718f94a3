"""The turn clock as pure arithmetic: paces, reminders, last calls, quiet hours (no bot, no database)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

import pytest

from tgbot import pacing
from tgbot.config import load_settings
from tgbot.pacing import PACES, Pace, QuietHours
from tgbot.services.table_control import parse_quiet
from tgbot.turn_clock import LAST_CALL_FRACTION, NO_CLOCK, ClockState, TurnClock

T0 = datetime(2026, 1, 1, 12, 0, 0)
MIN = timedelta(minutes=1)
HOUR = timedelta(hours=1)
DAY = timedelta(days=1)


def first_schedule(pace: Pace, start: datetime, quiet: QuietHours | None) -> ClockState:
    return TurnClock(pace, quiet).start(NO_CLOCK, 0, start)


def next_nudge(
    pace: Pace, started: datetime, sent: int, deadline: datetime | None, quiet: QuietHours | None
) -> datetime | None:
    return TurnClock(pace, quiet).next_nudge(started, sent, deadline)


@dataclass(frozen=True)
class Step:
    last_call: bool
    sent_after: int
    next_at: datetime | None


def reminder_step(
    pace: Pace,
    started: datetime,
    sent: int,
    deadline: datetime | None,
    quiet: QuietHours | None,
    now: datetime,
) -> Step:
    """The sweep's reminder at `now` for a turn in this state."""
    state = ClockState(0, started, sent, None, deadline)
    reminder, after = TurnClock(pace, quiet).remind(state, now)
    return Step(reminder.last_call, after.nudges_sent, after.next_nudge_at)


@pytest.mark.parametrize(
    ("key", "nudge", "deadline"),
    [
        ("live", MIN, 3 * MIN),
        ("quick", 10 * MIN, HOUR),
        ("casual", 2 * HOUR, 12 * HOUR),
        ("slow", 12 * HOUR, 48 * HOUR),
        ("relaxed", 24 * HOUR, None),
    ],
)
def test_the_pace_table(key: str, nudge: timedelta, deadline: timedelta | None) -> None:
    clock = first_schedule(PACES[key], T0, None)
    assert clock.next_nudge_at == T0 + nudge
    assert clock.deadline_at == (T0 + deadline if deadline else None)


@pytest.mark.parametrize("key", ["live", "quick", "casual", "slow"])
def test_two_reminders_then_none(key: str) -> None:
    pace = PACES[key]
    assert pace.deadline is not None
    deadline = T0 + pace.deadline
    first = next_nudge(pace, T0, 0, deadline, None)
    last = next_nudge(pace, T0, 1, deadline, None)
    assert first == T0 + pace.nudge
    assert last == T0 + pace.deadline * 0.8
    assert first < last < deadline
    assert next_nudge(pace, T0, 2, deadline, None) is None


def test_relaxed_reminds_once_a_day_forever_and_never_autoplays() -> None:
    pace = PACES["relaxed"]
    assert pace.deadline is None
    moments = [next_nudge(pace, T0, n, None, None) for n in range(30)]
    assert moments == [T0 + DAY * (n + 1) for n in range(30)]


def test_the_sweep_sends_one_reminder_even_when_both_are_overdue() -> None:
    pace = PACES["casual"]
    deadline = T0 + 12 * HOUR
    on_time = reminder_step(pace, T0, 0, deadline, None, T0 + 2 * HOUR)
    assert (on_time.last_call, on_time.sent_after, on_time.next_at) == (False, 1, T0 + 9.6 * HOUR)
    late = reminder_step(pace, T0, 0, deadline, None, T0 + 10 * HOUR)  # the bot was down
    assert (late.last_call, late.sent_after, late.next_at) == (True, 2, None)
    second = reminder_step(pace, T0, 1, deadline, None, T0 + 9.6 * HOUR)
    assert (second.last_call, second.sent_after, second.next_at) == (True, 2, None)


def test_relaxed_skips_the_days_it_missed() -> None:
    pace = PACES["relaxed"]
    step = reminder_step(pace, T0, 0, None, None, T0 + 5 * DAY + HOUR)
    assert not step.last_call
    assert step.next_at == T0 + 6 * DAY
    assert step.sent_after == 5


def test_a_first_reminder_as_late_as_the_last_call_is_the_only_one() -> None:
    pace = pacing.custom_pace(timedelta(minutes=50), HOUR)
    assert pace is not None
    assert next_nudge(pace, T0, 1, T0 + HOUR, None) is None


# --- quiet hours ------------------------------------------------------------

QUIET = QuietHours(23, 8, 7 * 60)  # 23:00-08:00 at UTC+7, i.e. 16:00-01:00 UTC


def test_quiet_hours_contain_and_end() -> None:
    assert not QUIET.contains(datetime(2026, 1, 1, 15, 59))
    assert QUIET.contains(datetime(2026, 1, 1, 16, 0))
    assert QUIET.contains(datetime(2026, 1, 2, 0, 59))
    assert not QUIET.contains(datetime(2026, 1, 2, 1, 0))
    assert QUIET.end_after(datetime(2026, 1, 1, 16, 30)) == datetime(2026, 1, 2, 1, 0)
    assert QUIET.end_after(datetime(2026, 1, 2, 0, 30)) == datetime(2026, 1, 2, 1, 0)
    assert QUIET.end_after(datetime(2026, 1, 1, 12, 0)) == datetime(2026, 1, 1, 12, 0)
    day = QuietHours(1, 6, -300)  # 01:00-06:00 at UTC-5 = 06:00-11:00 UTC
    assert day.end_after(datetime(2026, 1, 1, 7, 15)) == datetime(2026, 1, 1, 11, 0)
    assert not day.contains(datetime(2026, 1, 1, 11, 0))


def test_quiet_hours_hold_reminders_and_move_deadlines() -> None:
    pace = PACES["casual"]
    start = datetime(2026, 1, 1, 15, 30)  # 22:30 local: the reminder falls at 00:30 local
    clock = first_schedule(pace, start, QUIET)
    assert clock.next_nudge_at == datetime(2026, 1, 2, 1, 0)  # held to 08:00 local
    assert clock.deadline_at == start + 12 * HOUR  # 10:30 local: not quiet
    live = PACES["live"]
    start = datetime(2026, 1, 1, 15, 58)  # 22:58 local: the deadline at 23:01 moves to 08:00
    clock = first_schedule(live, start, QUIET)
    assert clock.next_nudge_at == start + MIN
    assert clock.deadline_at == datetime(2026, 1, 2, 1, 0)
    # 80% of the way to the moved deadline is 06:11 local, held to 08:00 = the deadline: no last call
    assert next_nudge(live, start, 1, clock.deadline_at, QUIET) is None


def test_the_last_call_is_80_percent_of_the_way_to_the_moved_deadline() -> None:
    slow = PACES["slow"]
    start = datetime(2026, 1, 1, 1, 0)  # 08:00 local; the deadline at 48 h is 08:00 local: not quiet
    clock = first_schedule(slow, start, QUIET)
    assert clock.deadline_at == start + 48 * HOUR
    # 80% = 38.4 h -> 15:24 UTC on day 2 (22:24 local): outside the quiet hours
    assert next_nudge(slow, start, 1, clock.deadline_at, QUIET) == start + 38.4 * HOUR
    late = datetime(2026, 1, 1, 3, 0)  # the deadline at 10:00 local; 80% = 17:24 UTC, quiet -> 01:00
    clock = first_schedule(slow, late, QUIET)
    assert next_nudge(slow, late, 1, clock.deadline_at, QUIET) == datetime(2026, 1, 3, 1, 0)


def test_reminder_that_quiet_hours_push_onto_the_deadline_is_dropped() -> None:
    live = PACES["live"]
    start = datetime(2026, 1, 1, 15, 59, 30)  # reminder 16:00:30 and deadline 16:02:30 both quiet
    clock = first_schedule(live, start, QUIET)
    assert clock.deadline_at == datetime(2026, 1, 2, 1, 0)
    assert clock.next_nudge_at is None


@pytest.mark.parametrize(
    ("text", "parsed"),
    [
        ("23-08 +7", (23, 8, 420)),
        ("23-08 UTC+7", (23, 8, 420)),
        ("22-6", (22, 6, 0)),
        ("0-7 -5", (0, 7, -300)),
        ("23-08 +5:30", (23, 8, 330)),
        ("22-07 -3:30", (22, 7, -210)),
        ("23-23", None),
        ("25-08", None),
        ("23-08 +15", None),
        ("night", None),
    ],
)
def test_parse_quiet(text: str, parsed: tuple[int, int, int] | None) -> None:
    assert parse_quiet(text) == parsed


# --- the operator's pace ------------------------------------------------------------


def test_custom_pace_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TELEGRAM_BOT_TOKEN", "123456:" + "A" * 35)
    monkeypatch.setenv("TWEAKBOT_NUDGE_AFTER", "30s")
    monkeypatch.setenv("TWEAKBOT_DEADLINE_AFTER", "10m")
    settings = load_settings(env_file=None)
    pace = pacing.custom_pace(settings.nudge_after, settings.deadline_after)
    assert pace is not None
    assert (pace.key, pace.nudge, pace.deadline) == ("custom", timedelta(seconds=30), 10 * MIN)
    assert pacing.resolve("custom", pace) is pace
    assert pacing.resolve("custom", None) is PACES["casual"]
    assert pacing.pace_keys(pace)[-1] == "custom"
    assert pacing.pace_label("en", "custom", pace) == "custom (30 sec / 10 min)"


def test_custom_pace_with_one_value() -> None:
    only_deadline = pacing.custom_pace(None, 2 * HOUR)
    assert only_deadline is not None and only_deadline.nudge == HOUR
    only_nudge = pacing.custom_pace(timedelta(days=1), None)
    assert only_nudge is not None and only_nudge.deadline is None
    assert pacing.custom_pace(None, None) is None


def test_format_duration() -> None:
    """Babel's format_timedelta (CLDR units and plurals), one unit, rounded down in that unit."""
    assert pacing.format_duration(3 * MIN) == "3 minutes"
    assert pacing.format_duration(MIN) == "1 minute"
    assert pacing.format_duration(HOUR) == "1 hour"
    assert pacing.format_duration(DAY) == "1 day"
    assert pacing.format_duration(timedelta(seconds=20)) == "20 seconds"
    assert pacing.format_duration(timedelta(0)) == "0 seconds"
    assert pacing.format_duration(-MIN) == "0 seconds"
    # a larger unit once there are two of it (or exactly one): 1 h 30 min is not "2 hours"
    assert pacing.format_duration(90 * MIN) == "90 minutes"
    assert pacing.format_duration(2 * HOUR + 24 * MIN) == "2 hours"
    assert pacing.format_duration(2 * HOUR + 59 * MIN) == "2 hours"  # never more than is left
    assert pacing.format_duration(DAY + 12 * HOUR + 5 * MIN) == "36 hours"
    assert pacing.format_duration(3 * DAY) == "3 days"
    assert pacing.format_duration(3 * MIN, "en", "short") == "3 min"
    assert pacing.format_duration(2 * HOUR, "en", "short") == "2 hr"


@pytest.mark.parametrize(
    ("key", "left"),
    [("live", "36 seconds"), ("quick", "12 minutes"), ("casual", "2 hours"), ("slow", "9 hours")],
)
def test_last_call_says_the_time_left(key: str, left: str) -> None:
    deadline = PACES[key].deadline
    assert deadline is not None
    assert pacing.format_duration(deadline * (1 - LAST_CALL_FRACTION)) == left


@pytest.mark.parametrize(
    ("lang", "delta", "text"),
    [
        ("es", MIN, "1 minuto"),
        ("es", 36 * MIN, "36 minutos"),
        ("es", 3 * HOUR, "3 horas"),
        ("ja", 36 * MIN, "36 分"),
        ("hi", 36 * MIN, "36 मिनट"),
        ("vi", 36 * MIN, "36 phút"),
        ("id", 3 * DAY, "3 hari"),
        ("pt-BR", 3 * HOUR, "3 hours"),  # an unsupported language: English
    ],
)
def test_format_duration_in_each_language(lang: str, delta: timedelta, text: str) -> None:
    assert pacing.format_duration(delta, lang) == text
