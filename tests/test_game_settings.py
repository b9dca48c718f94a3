"""A game's settings are typed values (enums) in the bot and the JSON every version stored in the
game row; the JSON texts below are written out by hand."""

from __future__ import annotations

from tgbot import callbacks as cb
from tgbot.game_settings import Colours, Edition, GameSettings, GoalStep
from tgbot.pacing import PaceName

STORED = (
    '{"colours": 4, "edition": "extended", "face_down": true, "goal_offset": -20, "hints": true, '
    '"pace": "live", "target": null}'
)


def test_settings_are_stored_as_they_always_were() -> None:
    settings = GameSettings(
        Edition.EXTENDED, Colours.FOUR, None, True, PaceName.LIVE, goal_offset=-20, hints=True
    )
    assert settings.to_json() == STORED
    read = GameSettings.from_json(STORED)
    assert read == settings
    assert read.edition is Edition.EXTENDED and read.colours is Colours.FOUR and read.pace is PaceName.LIVE


def test_older_rows_read_as_typed_values() -> None:
    """A row set up before the hints (no such field: they played with them), and one naming a
    pace no version offers any more (the default now)."""
    old = GameSettings.from_json('{"edition": "classic", "colours": 0, "target": 120, "pace": "turbo"}')
    assert old == GameSettings(Edition.CLASSIC, Colours.AUTO, 120, pace=PaceName.CASUAL, hints=True)
    assert old.edition is Edition.CLASSIC and old.colours is Colours.AUTO and old.pace is PaceName.CASUAL
    assert GameSettings.from_json(None, PaceName.CUSTOM) == GameSettings(pace=PaceName.CUSTOM)


def test_each_settings_key_changes_its_setting() -> None:
    """Goal +20 from the automatic 2-player goal (140, RULES §5.4), then back; the others set
    their value."""
    start = GameSettings()
    assert cb.SetEdition(1, Edition.EXTENDED).change(start, 2).edition is Edition.EXTENDED
    assert cb.SetColours(1, Colours.SIX).change(start, 2).colours is Colours.SIX
    assert cb.SetFaceDown(1, True).change(start, 2).face_down is True
    assert cb.SetHints(1, True).change(start, 2).hints is True
    assert cb.SetPace(1, PaceName.SLOW).change(start, 2).pace is PaceName.SLOW
    up = cb.SetGoal(1, GoalStep.UP).change(start, 2)
    assert up.threshold(2) == 160 and up.goal_offset == 20
    down = cb.SetGoal(1, GoalStep.DOWN).change(up, 2)
    assert down.threshold(2) == 140
    assert cb.SetGoal(1, GoalStep.AUTO).change(up, 2).goal_is_auto
