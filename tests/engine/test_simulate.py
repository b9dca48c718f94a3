"""The simulator's command line, its JSON report and its seating."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from engine.replay import check_trace
from engine.simulate import fit_levels, main, percentiles_ms, seatings, simulate, wilson

REPORT_KEYS = {
    "games",
    "deals",
    "seatings",
    "rounds",
    "turns",
    "tweaks",
    "t_played",
    "points_per_round",
    "win_rate",
    "win_rate_95",
    "points_per_round_by_level",
    "t_share_by_level",
    "decision_ms_by_level",
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
    report = _run_json(capsys, "--games", "1", "--players", "3", "--seed", "3", "--ai", "easy,normal,hard")
    assert report.keys() >= REPORT_KEYS
    assert report["deals"] == 1 and report["seatings"] == 6 and report["games"] == 6
    assert report["invariant_violations"] == 0
    assert report["rounds"] >= 6 and report["turns"] > report["rounds"] * 10
    assert set(report["t_played"]) == {"thief", "joker", "shifter", "bomb"}
    assert sum(report["t_played"].values()) > 0
    assert len(report["points_per_round"]) == 3
    assert set(report["win_rate"]) == {"easy", "normal", "hard"}
    for level, (lo, hi) in report["win_rate_95"].items():
        assert 0 <= lo <= report["win_rate"][level] <= hi <= 1
    assert all(0 < share < 1 for share in report["t_share_by_level"].values())
    assert all(0 < t["p50"] <= t["p99"] for t in report["decision_ms_by_level"].values())
    assert report["games_per_second"] > 0


def test_default_level_and_extended_edition(capsys: pytest.CaptureFixture[str]) -> None:
    report = _run_json(capsys, "--games", "3", "--players", "2", "--seed", "1", "--edition", "extended")
    assert set(report["win_rate"]) == {"normal"} and report["seatings"] == 1 and report["games"] == 3
    # Every game has at least one winner; both seats are Normal.
    assert report["win_rate"]["normal"] >= 0.5
    assert report["invariant_violations"] == 0


def test_readable_summary(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--games", "1", "--players", "2", "--seed", "9", "--ai", "easy,normal"]) == 0
    out = capsys.readouterr().out
    assert "2 games (1 deals x 2 seatings), 2 players" in out
    assert "invariant violations: 0" in out
    assert "win rate" in out and "decision time" in out and "[T!] share" in out


def test_same_seed_same_report() -> None:
    def without_clock(report: dict[str, Any]) -> dict[str, Any]:
        report.pop("games_per_second")
        report.pop("decision_ms_by_level")
        return report

    first = without_clock(simulate(2, 2, 42, ("normal", "easy")))
    assert first == without_clock(simulate(2, 2, 42, ("normal", "easy")))
    assert without_clock(simulate(2, 2, 43, ("normal", "easy"))) != first


def test_every_seating_is_played_once_per_deal() -> None:
    orders = seatings(["easy", "normal", "hard"])
    assert len(orders) == 6 and len(set(orders)) == 6
    for level in ("easy", "normal", "hard"):  # every level in every seat, after every other level
        assert {order.index(level) for order in orders} == {0, 1, 2}
    follows = Counter((order[s], order[(s + 1) % 3]) for order in orders for s in range(3))
    assert len(set(follows.values())) == 1 and len(follows) == 6
    two_two = seatings(["easy", "easy", "hard", "hard"])
    assert len(two_two) == 6 and all(sorted(o) == ["easy", "easy", "hard", "hard"] for o in two_two)
    assert seatings(["normal"] * 4) == [("normal",) * 4]


def test_win_rate_is_per_seat_game() -> None:
    report = simulate(2, 4, 0, ("easy", "easy", "easy", "normal"))
    assert report["seatings"] == 4 and report["games"] == 8
    assert report["seat_games"] == {"easy": 24, "normal": 8}
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


@pytest.mark.parametrize(
    "args",
    [
        ["--ai", "hard,genius"],
        ["--ai", "smart,greedy"],  # the old names are for the bot's stored seats only
        ["--players", "2", "--ai", "hard,normal,easy"],  # three levels cannot sit at two seats
        ["--players", "4", "--ai", "hard,normal,easy"],  # nor fill four without picking a favourite
        ["--players", "7"],
    ],
)
def test_a_list_it_cannot_seat_is_refused(args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["--games", "1", *args])
    assert exit_.value.code == 2
    assert "--ai" in capsys.readouterr().err or "players" in " ".join(args)


def test_fit_levels() -> None:
    assert fit_levels(["hard"], 3) == ["hard", "hard", "hard"]
    assert fit_levels(["easy", "hard"], 2) == ["easy", "hard"]
    with pytest.raises(ValueError, match="one level per seat"):
        fit_levels(["easy", "hard"], 3)


def test_wilson_interval_and_percentiles() -> None:
    lo, hi = wilson(50, 100)
    assert lo == pytest.approx(0.4038, abs=1e-3) and hi == pytest.approx(0.5962, abs=1e-3)
    lo, hi = wilson(0, 10)
    assert lo == 0.0 and hi == pytest.approx(0.2775, abs=1e-3)
    assert percentiles_ms([0.001] * 98 + [0.5, 0.9]) == {"p50": 1.0, "p99": 500.0}
