"""The simulator's command line, its JSON report and its seat rotation."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from engine.replay import check_trace
from engine.simulate import main, seat_levels, simulate

REPORT_KEYS = {
    "games",
    "rounds",
    "turns",
    "tweaks",
    "t_played",
    "points_per_round",
    "win_rate",
    "games_per_second",
    "invariant_violations",
}


def _run_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    assert main([*args, "--json"]) == 0
    out = capsys.readouterr().out.strip()
    assert "\n" not in out  # exactly one JSON object
    report: dict[str, Any] = json.loads(out)
    return report


def test_json_report_has_every_key_and_no_violations(capsys: pytest.CaptureFixture[str]) -> None:
    report = _run_json(capsys, "--games", "6", "--players", "4", "--seed", "3", "--ai", "smart,greedy,random")
    assert report.keys() >= REPORT_KEYS
    assert report["games"] == 6
    assert report["invariant_violations"] == 0
    assert report["rounds"] >= 6 and report["turns"] > report["rounds"] * 10
    assert set(report["t_played"]) == {"thief", "joker", "shifter", "bomb"}
    assert sum(report["t_played"].values()) > 0
    assert len(report["points_per_round"]) == 4
    assert set(report["win_rate"]) == {"smart", "greedy", "random"}
    assert all(0 <= rate <= 1 for rate in report["win_rate"].values())
    assert report["games_per_second"] > 0


def test_default_level_and_extended_edition(capsys: pytest.CaptureFixture[str]) -> None:
    report = _run_json(capsys, "--games", "3", "--players", "2", "--seed", "1", "--edition", "extended")
    assert set(report["win_rate"]) == {"greedy"}
    # Every game has at least one winner; both seats are greedy.
    assert report["win_rate"]["greedy"] >= 0.5
    assert report["invariant_violations"] == 0


def test_readable_summary(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--games", "2", "--players", "3", "--seed", "9", "--ai", "random"]) == 0
    out = capsys.readouterr().out
    assert "2 games, 3 players" in out
    assert "invariant violations: 0" in out
    assert "win rate" in out


def test_same_seed_same_report() -> None:
    first = simulate(4, 3, 42, ("smart", "random"))
    second = simulate(4, 3, 42, ("smart", "random"))
    first.pop("games_per_second")
    second.pop("games_per_second")
    assert first == second
    third = simulate(4, 3, 43, ("smart", "random"))
    third.pop("games_per_second")
    assert third != first


def test_rotation_puts_every_level_in_every_seat() -> None:
    players = 4
    seen = {
        (game % players, seat): seat_levels(["smart", "greedy", "random"], players, game)[seat]
        for game in range(players)
        for seat in range(players)
    }
    for level in ("smart", "greedy", "random"):
        seats = {seat for (_, seat), lv in seen.items() if lv == level}
        assert seats == set(range(players))
    # The level mix itself never changes between games.
    mixes = {tuple(sorted(seat_levels(["smart", "greedy", "random"], players, g))) for g in range(8)}
    assert mixes == {("greedy", "random", "smart", "smart")}
    assert seat_levels(["greedy"], 3, 5) == ["greedy"] * 3


def test_win_rate_is_per_seat_game() -> None:
    report = simulate(5, 4, 0, ("smart", "greedy", "random"))
    assert report["seat_games"] == {"greedy": 5, "random": 5, "smart": 10}
    for level, rate in report["win_rate"].items():
        assert rate == round(report["wins"][level] / report["seat_games"][level], 4)


def test_trace_option_writes_a_checkable_trace(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    trace = tmp_path / "trace.jsonl"
    report = _run_json(capsys, "--games", "2", "--players", "3", "--seed", "5", "--trace", str(trace))
    lines = trace.read_text().splitlines()
    assert sum('"header": true' in line for line in lines) == 2
    assert sum('"end_game": true' in line for line in lines) == 2
    assert sum('"end": true' in line for line in lines) == report["rounds"]
    assert sum('"action"' in line for line in lines) == report["turns"]
    assert check_trace(str(trace)) is None


def test_bad_level_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--games", "1", "--ai", "smart,genius"])
    assert "levels must be from" in capsys.readouterr().err
