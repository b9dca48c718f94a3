"""The turn clock's rules on their own: each operation from a clock state to the next, with the
expected moments worked out by hand from the pace table (DESIGN §4), no database."""

from __future__ import annotations

import ast
from dataclasses import fields, replace
from datetime import datetime, timedelta
from pathlib import Path

from tgbot.pacing import PACES, QuietHours
from tgbot.turn_clock import AUTOPLAY_TAKEOVER, NO_CLOCK, ClockState, Due, TurnClock

T0 = datetime(2026, 3, 1, 12, 0, 0)
MIN = timedelta(minutes=1)
HOUR = timedelta(hours=1)
QUICK = TurnClock(PACES["quick"])  # reminder 10 min, deadline 1 h
RELAXED = TurnClock(PACES["relaxed"])  # a reminder a day, no deadline


def running(seat: int = 1) -> ClockState:
    return QUICK.start(NO_CLOCK, seat, T0)


def test_a_lobby_wakes_the_sweep_when_it_expires_and_runs_no_turn() -> None:
    assert TurnClock.lobby(T0, 24 * HOUR) == ClockState(wake_at=T0 + 24 * HOUR)


def test_a_new_turn_waits_with_no_clock_until_it_is_seen() -> None:
    waiting = TurnClock.waiting(running(1), 2)
    assert waiting == ClockState(current_seat=2)
    assert waiting.waiting and not running().waiting


def test_a_seen_turn_starts_its_reminder_and_deadline_and_wakes_at_the_first() -> None:
    assert running(2) == ClockState(2, T0, 0, T0 + 10 * MIN, T0 + HOUR, None, T0 + 10 * MIN)


def test_reminders_then_the_deadline() -> None:
    first, after_first = QUICK.remind(running(), T0 + 10 * MIN)
    assert not first.last_call
    assert (after_first.nudges_sent, after_first.next_nudge_at) == (1, T0 + 48 * MIN)  # 80% of 1 h
    assert after_first.wake_at == T0 + 48 * MIN
    last, after_last = QUICK.remind(after_first, T0 + 48 * MIN)
    assert last.last_call
    assert (after_last.nudges_sent, after_last.next_nudge_at, after_last.wake_at) == (2, None, T0 + HOUR)


def test_a_player_who_acted_gets_no_more_reminders_but_keeps_the_deadline() -> None:
    acted = QUICK.acted(running())
    assert (acted.next_nudge_at, acted.nudges_sent, acted.wake_at) == (None, 2, T0 + HOUR)
    relaxed = RELAXED.start(NO_CLOCK, 0, T0)
    assert RELAXED.acted(relaxed) == relaxed  # no deadline: the daily reminder stays


def test_a_pause_stops_every_clock_and_wakes_at_its_end() -> None:
    paused = TurnClock.pause(running(), T0 + MIN, timedelta(days=7))
    assert (paused.next_nudge_at, paused.deadline_at) == (None, None)
    assert paused.paused_until == paused.wake_at == T0 + MIN + timedelta(days=7)
    held = TurnClock.pause(running(), T0, None)
    assert (held.paused_until, held.wake_at) == (None, None)  # held until /board: never woken
    resumed = TurnClock.resume(paused, 1)
    assert resumed == ClockState(current_seat=1)  # the turn waits to be seen again


def test_the_end_leaves_no_clock() -> None:
    assert TurnClock.stop() == NO_CLOCK


def test_a_new_pace_restarts_a_seen_turn_and_keeps_a_waiting_one_waiting() -> None:
    live = TurnClock(PACES["live"])
    restarted = live.restart(running(1), 1, T0 + 5 * MIN)
    assert (restarted.next_nudge_at, restarted.deadline_at) == (T0 + 6 * MIN, T0 + 8 * MIN)
    assert live.restart(ClockState(current_seat=1), 1, T0) == ClockState(current_seat=1)


def test_new_quiet_hours_move_the_running_turn_as_if_set_from_its_start() -> None:
    quiet = QuietHours(12, 14)  # 12:00-14:00 UTC: the 10-min reminder and the deadline fall inside
    moved = TurnClock(PACES["quick"], quiet).rederive(running())
    assert moved.deadline_at == T0 + 2 * HOUR
    assert moved.next_nudge_at is None  # held onto the deadline: the auto-play says it all
    assert moved.wake_at == T0 + 2 * HOUR


def test_the_sweep_rearms_for_what_comes_next() -> None:
    turn = replace(running(), wake_at=None)
    assert TurnClock.rearm(turn, paused=False, running=True).wake_at == T0 + 10 * MIN
    paused = TurnClock.pause(running(), T0, HOUR)
    assert TurnClock.rearm(replace(paused, wake_at=None), paused=True, running=False).wake_at == T0 + HOUR
    assert TurnClock.rearm(turn, paused=False, running=False).wake_at is None


def test_what_is_due_when_the_sweep_wakes() -> None:
    turn = running()
    assert TurnClock.due(turn, T0 + 9 * MIN, paused=False) is None  # woke early
    assert TurnClock.due(turn, T0 + 10 * MIN, paused=False) is Due.REMINDER
    # A sweep late past the deadline plays the turn instead of reminding of it.
    assert TurnClock.due(turn, T0 + HOUR, paused=False) is Due.DEADLINE
    paused = TurnClock.pause(turn, T0, HOUR)
    assert TurnClock.due(paused, T0 + 59 * MIN, paused=True) is None
    assert TurnClock.due(paused, T0 + HOUR, paused=True) is Due.PAUSE_OVER
    assert TurnClock.due(TurnClock.pause(turn, T0, None), T0 + 1000 * HOUR, paused=True) is None


def test_a_turn_the_bot_plays_has_no_reminder_nor_deadline_and_a_wake_up_for_a_takeover() -> None:
    bots = TurnClock.autoplayed(running(1), 2, T0)
    assert bots == ClockState(2, T0, 0, None, None, None, T0 + AUTOPLAY_TAKEOVER)
    assert bots.autoplay and not bots.waiting
    # a person's turns are never taken for one: waiting, running, after a reminder or a [T!]
    # card, paused (its end is its wake-up), or held
    assert not TurnClock.waiting(running(), 2).autoplay and not running().autoplay
    assert not QUICK.acted(running()).autoplay and not QUICK.remind(running(), T0 + 10 * MIN)[1].autoplay
    assert not TurnClock.pause(running(), T0, HOUR).autoplay and not TurnClock.pause(bots, T0, HOUR).autoplay
    assert not TurnClock.pause(running(), T0, None).autoplay
    # due at its wake-up, for whoever's sweep finds it still unplayed then
    assert TurnClock.due(bots, T0 + AUTOPLAY_TAKEOVER - MIN / 60, paused=False) is None
    assert TurnClock.due(bots, T0 + AUTOPLAY_TAKEOVER, paused=False) is Due.AUTOPLAY
    # a seat the bot plays is due at its wake-up whatever the clock says (never its deadline)
    assert TurnClock.due(running(), T0 + 2 * HOUR, paused=False, autoplayed=True) is Due.AUTOPLAY
    assert TurnClock.due(running(), T0 + 9 * MIN, paused=False, autoplayed=True) is None
    # a new pace, new quiet hours or a sweep that woke early leave it as it is
    assert TurnClock(PACES["live"]).restart(bots, 2, T0 + MIN) == bots
    assert TurnClock(PACES["quick"], QuietHours(12, 14)).rederive(bots) == bots
    assert TurnClock.rearm(bots, paused=False, running=True) == bots


# --- one place applies the clock ---------------------------------------------------------------

TGBOT = Path(__file__).resolve().parents[2] / "tgbot"
CLOCK_COLUMNS = {f.name for f in fields(ClockState)}
#: The rules, the one writer, and delivery's own `paused_until` (a chat's 429 pause, not a game's).
ALLOWED = {"turn_clock.py", "services/game_clock.py"}


def _clock_writes(tree: ast.AST) -> list[int]:
    """Lines that set a clock column: `x.wake_at = …`, `update(…).values(wake_at=…)`, a dict of
    column values (`{"wake_at": …}`), `setattr` on a game."""
    lines: list[int] = []
    for node in ast.walk(tree):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            for target in node.targets:
                targets.extend(target.elts if isinstance(target, ast.Tuple) else [target])
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets.append(node.target)
        lines += [t.lineno for t in targets if isinstance(t, ast.Attribute) and t.attr in CLOCK_COLUMNS]
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "values":
            lines += [node.lineno for k in node.keywords if k.arg in CLOCK_COLUMNS]
        is_setattr = (
            isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setattr"
        )
        if is_setattr and node.args and "game" in ast.unparse(node.args[0]):
            lines.append(node.lineno)
        if isinstance(node, ast.Dict):
            keys = [k.value for k in node.keys if isinstance(k, ast.Constant)]
            lines += [node.lineno for key in keys if key in CLOCK_COLUMNS]
    return lines


def test_only_game_clock_writes_the_clock_columns() -> None:
    """A rule computed anywhere else would be a second clock: services apply `TurnClock`'s
    result with `game_clock.set_clock`, and nothing else sets these columns."""
    offenders = []
    for path in sorted(TGBOT.rglob("*.py")):
        name = path.relative_to(TGBOT).as_posix()
        if name in ALLOWED or name.startswith(("migrations/", "delivery/")):
            continue
        offenders += [f"{name}:{line}" for line in _clock_writes(ast.parse(path.read_text(encoding="utf-8")))]
    assert offenders == []
