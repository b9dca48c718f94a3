"""Paces and quiet hours: what a game and a group choose, and how a duration is said (DESIGN §4).

The vocabulary of the turn clock, kept apart from its rules (`tgbot.turn_clock`) because the
lobby, the settings and the operator's configuration name paces without running a clock.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from functools import cache
from typing import Literal

from babel.plural import PluralRule

from .duration_units import PATTERNS, PLURAL_RULES, UNITS
from .i18n import M_, _, normalize


class PaceName(StrEnum):
    """The paces a game can choose (`CUSTOM`: the operator's, when one is set)."""

    LIVE = "live"
    QUICK = "quick"
    CASUAL = "casual"
    SLOW = "slow"
    RELAXED = "relaxed"
    CUSTOM = "custom"

    @classmethod
    def known(cls, text: str) -> PaceName | None:
        """The pace so named, if the bot has one (None: another version's, or a forged name)."""
        try:
            return cls(text)
        except ValueError:
            return None


@dataclass(frozen=True)
class Pace:
    key: PaceName
    label: str
    nudge: timedelta
    deadline: timedelta | None  # None: never auto-play
    repeat: timedelta | None = None  # relaxed: one reminder a day, forever


PACES: dict[PaceName, Pace] = {
    PaceName.LIVE: Pace(PaceName.LIVE, M_("live"), timedelta(minutes=1), timedelta(minutes=3)),
    PaceName.QUICK: Pace(PaceName.QUICK, M_("quick"), timedelta(minutes=10), timedelta(hours=1)),
    PaceName.CASUAL: Pace(PaceName.CASUAL, M_("casual"), timedelta(hours=2), timedelta(hours=12)),
    PaceName.SLOW: Pace(PaceName.SLOW, M_("slow"), timedelta(hours=12), timedelta(hours=48)),
    PaceName.RELAXED: Pace(
        PaceName.RELAXED, M_("relaxed"), timedelta(hours=24), None, repeat=timedelta(hours=24)
    ),
}
CUSTOM = PaceName.CUSTOM
DEFAULT_PACE = PaceName.CASUAL


def pace_keys(custom: Pace | None) -> list[PaceName]:
    """The paces a game can choose, in display order (the operator's custom one last)."""
    return [*PACES, CUSTOM] if custom is not None else list(PACES)


def is_known(key: PaceName | None, custom: Pace | None) -> bool:
    """The pace is one a game can choose now (the custom one only while the operator sets it)."""
    return key in PACES or (key == CUSTOM and custom is not None)


#: A duration is said in the largest unit it holds two of, or exactly one: "90 minutes" (not
#: "2 hours"), "1 hour", "36 hours", "1 day".
DURATION_THRESHOLD = 2


def format_duration(delta: timedelta, lang: str = "en", style: Literal["long", "short"] = "long") -> str:
    """'36 minutes', '1 hour', '9 hours' in the language (`style="short"`: '36 min'), as Babel's
    ``format_timedelta`` says them, from CLDR's patterns kept in `duration_units` (Babel would
    load the language's whole locale data for them).

    One unit, rounded down in it (Babel would round to the nearest), so a last call never
    promises more time than is left: 9 h 36 min left is '9 hours'.
    """
    seconds = max(0, int(delta.total_seconds()))
    unit, size = next(
        ((name, size) for name, size in UNITS if seconds == size or seconds >= DURATION_THRESHOLD * size),
        ("second", 1),
    )
    lang = normalize(lang)
    count = seconds // size
    forms = PATTERNS[lang][unit][style]
    pattern = forms.get(_plural_rule(lang)(count)) or forms["other"]
    return pattern.replace("{0}", str(count))


@cache
def _plural_rule(lang: str) -> PluralRule:
    return PluralRule(PLURAL_RULES[lang])


def pace_label(lang: str, key: PaceName, custom: Pace | None = None) -> str:
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


def resolve(key: PaceName, custom: Pace | None) -> Pace:
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
