"""The scale benchmarks parse their options, tell a refusal from an accepted move and build their
tables. They are run by hand (BENCHMARKS.md); nothing here is timed."""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

import hard_leaf
import hard_oracle
import import_ladder
import instances
import pg_statement
import side_by_side
import started_rss

from engine.ai.sampling import sample_world, world_config
from engine.cards import BALANCED_BACK
from engine.config import GameConfig
from engine.game import new_game
from engine.views import seat_view, unseen_cards


@pytest.mark.parametrize("module", [instances, side_by_side])
def test_help(module: ModuleType, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        module.main(["--help"])
    assert done.value.code == 0
    assert "--groups" in capsys.readouterr().out


@pytest.mark.parametrize(("module", "option"), [(import_ladder, "--python"), (started_rss, "--bot-python")])
def test_help_of_the_memory_scripts(
    module: ModuleType, option: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as done:
        module.main(["--help"])
    assert done.value.code == 0
    assert option in capsys.readouterr().out


def test_a_refusal_is_not_an_accepted_move() -> None:
    refused = instances._refusal()
    assert refused("It's Ana's turn.")
    assert refused("This board is out of date: the live one is at the bottom of the chat.")
    assert refused("7 is not the target 9. Nothing was played.")
    assert not refused("Done!")


def test_a_claim_that_plays_a_t_card_counts_as_applied() -> None:
    """A Claim with a [T!] card chosen logs the card first (a Joker then its sum): applied once."""
    from types import SimpleNamespace

    from sqlalchemy import create_engine, text

    db = create_engine("sqlite://")
    with db.begin() as connection:
        for table in (
            "games (id INT, chat_id INT, status TEXT, version INT, board_no INT)",
            "moves (game_id INT, seq INT, code TEXT, source TEXT)",
            "shown_messages (chat_id INT, surface TEXT, message_id INT)",
            "outbox (chat_id INT)",
        ):
            connection.execute(text(f"CREATE TABLE {table}"))
        connection.execute(text("INSERT INTO games VALUES (1, -100, 'finished', 5, 1)"))
        log = [(1, "S0+1"), (2, "J+"), (3, "S1+2"), (4, "T1"), (5, "D0")]
        for seq, code in log:
            connection.execute(text(f"INSERT INTO moves VALUES (1, {seq}, '{code}', 'player')"))
    # The claims at versions 0, 1 (Joker and sum) and 3 (a Thief), the discard at version 4.
    taps = [
        SimpleNamespace(data=f"k:1:{v}:{op}", query_id=str(v))
        for v, op in ((0, "c"), (1, "c"), (3, "c"), (4, "d"))
    ]
    answers = {t.query_id: SimpleNamespace(answered=True, expired=False, text="Done!") for t in taps}
    fake = SimpleNamespace(answers=answers, messages=lambda chat: [])
    figures = instances.check(db, fake, SimpleNamespace(taps=taps))
    counted = ("accepted_move_taps", "accepted_not_applied", "accepted_twice")
    assert [figures[name] for name in counted] == [4, 0, 0]
    assert figures["player_moves_without_accepted_answer"] == 0  # the Joker's sum rode on its claim
    assert figures["bad_move_logs"] == 0


def run(cpu_s: float, p99: float, rss: float) -> dict[str, Any]:
    return {
        "players": 12,
        "taps": 100,
        "answered": 100,
        "latency_p50_ms": 5.0,
        "latency_p99_ms": p99,
        "moves": 10,
        "cpu_s": cpu_s,
        "cpu_percent": 3.0,
        "peak_rss_mb": rss,
        "rss_ready_mb": rss - 5,
        "matplotlib_loaded": False,
        "count_429": 0,
        "max_group_writes_60s": 18,
        "writes_per_s_mean": 1.0,
        "loadavg_start": 0.5,
    }


def test_side_by_side_table_and_goals() -> None:
    after = {("sqlite", 4): [run(0.5, 30, 70), run(0.6, 35, 72)], ("postgres", 4): [run(0.8, 50, 80)]}
    before = {"sqlite:4": [run(1.2, 90, 100)]}
    table = side_by_side.load_table(after, [4])
    assert "| CPU per tap answered | 5.5 ms (5.0–6.0 ms) | 8.0 ms |" in table
    goals = side_by_side.goals(after, before)
    assert "SQLite, 4 groups: answers p99 32 ms (goal ≤ 40 ms): met" in goals
    assert "PostgreSQL, 4 groups: answers p99 50 ms (goal ≤ 40 ms): not met" in goals
    assert "CPU per tap 12.0 → 5.5 ms (2.18× less; goal ≥ 2×: met)" in goals


def test_the_leaf_fit_finds_known_weights() -> None:
    """A fit of made-up points with known weights gives them back; the edge is against the others' mean."""
    import numpy as np

    rng = np.random.default_rng(1)
    x = rng.normal(size=(400, 2))
    beta, se = hard_leaf.fit(x, 2.0 + 0.5 * x[:, 0] + 3.0 * x[:, 1])
    assert np.allclose(beta, [2.0, 0.5, 3.0])
    assert np.all(se < 1e-6)
    assert hard_leaf.edge([5, 1, 2], 0) == 3.5
    assert hard_leaf.edge([5, 1, 2], 1) == -2.5


def test_the_leaf_report_has_a_row_per_deck_size() -> None:
    table = hard_leaf.report(players=3, rounds=30, seed=7)
    rows = [line for line in table.splitlines() if line.startswith("| ") and line[2].isdigit()]
    assert [row.split(" | ")[0] for row in rows] == ["| 0-2", "| 3-9", "| 10-19", "| 20-99"]


def test_the_bots_own_time_per_update_comes_from_their_update_lines(tmp_path: Path) -> None:
    """Only the bots' per-update lines count, from every instance's log; other lines with `ms=`
    (a warning, the harness's) do not."""
    first, second = tmp_path / "instance-0.log", tmp_path / "instance-1.log"
    at = "2026-12-02 21:00:00,001"
    first.write_text(
        f"{at} INFO tweakbot.updates update=1 chat=-5 game=3 action=pick outcome=ok ms=4.0\n"
        f"{at} WARNING tweakbot.delivery 429 in chat -5: paused ms=900\n"
        f"{at} INFO tweakbot.updates update=2 chat=-5 game=3 action=claim outcome=ok ms=10.0 moves=1\n"
    )
    second.write_text(
        f"{at} INFO tweakbot.updates update=3 chat=-6 game=None action=help outcome=ok ms=7.0\n"
    )
    figures = instances.bot_update_times([first, second])
    assert figures["bot_updates_logged"] == 3
    assert figures["bot_update_p50_ms"] == 7.0
    assert figures["bot_update_p99_ms"] == pytest.approx(7.0 + 0.98 * 3.0)  # interpolated, 7 to 10
    assert instances.bot_update_times([]) == {
        "bot_update_p50_ms": None,
        "bot_update_p99_ms": None,
        "bot_updates_logged": 0.0,
    }


@pytest.mark.parametrize("db", ["sqlite", "postgres"])
def test_the_statement_costs_are_measured_per_part(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    """One short child run: every part of a statement gets a figure, PostgreSQL's driver variants
    too (their engines really connect and read the delivery row)."""
    import json

    pg_statement.main(["--child", "--db", db, "--blocks", "2", "--per-block", "3"])
    from coldrun import MARK

    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith(MARK))
    figures = json.loads(line.removeprefix(MARK))
    parts = ["driver", "read", "connection_transaction", "transaction"]
    if db == "postgres":
        parts.append("unprepared")
    assert sorted(figures) == sorted(f"{part}_us" for part in parts)
    assert all(value > 0 for value in figures.values())


def test_answers_are_grouped_by_the_second_their_tap_was_made() -> None:
    made = {"a": (100.2, 100.21), "b": (100.9, 101.4), "c": (102.5, 102.51), "late": (101.0, None)}
    answers = {
        q: SimpleNamespace(answered=done is not None, expired=False, created_at=at, answered_at=done)
        for q, (at, done) in made.items()
    }
    load = SimpleNamespace(taps=[SimpleNamespace(query_id=q) for q in made])
    # Second 0: answers of 10 and 500 ms (median 255); second 2: 10 ms; the unanswered tap is left out.
    assert instances._by_second(SimpleNamespace(answers=answers), load, 100.0) == [
        (0, 2, 255, 500),
        (2, 1, 10, 10),
    ]


async def test_the_balancer_hands_telegram_the_call_a_webhook_response_names() -> None:
    """Webhook replies (decisions.md B26) reach the fake as Telegram would make them."""
    from aiohttp import web

    from tests.fakes import FakeTelegram

    fake = FakeTelegram()
    ana = fake.user(1, "Ana")
    chat = fake.private(ana)
    keys = {"inline_keyboard": [[{"text": "go", "callback_data": "x"}]]}
    await fake.webhook_reply(
        200,
        "application/json",
        json.dumps({"method": "sendMessage", "chat_id": chat.id, "text": "b", "reply_markup": keys}).encode(),
    )
    tap = fake.callback_update(ana, fake.last_message(chat.id), "x")

    async def hook(request: web.Request) -> web.Response:
        update = await request.json()
        return web.json_response(
            {
                "method": "answerCallbackQuery",
                "callback_query_id": update["callback_query"]["id"],
                "text": "ok",
            }
        )

    app = web.Application()
    app.router.add_post("/hook", hook)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    instance = SimpleNamespace(
        url=f"http://127.0.0.1:{port}/hook", updates=0, refused=0, index=0, webhook=True
    )
    balancer = instances.Balancer([instance], "secret", "rr", fake)  # type: ignore[list-item]
    try:
        balancer.deliver(tap)
        await balancer.close()
    finally:
        await runner.cleanup()
    answer = fake.answers[tap["callback_query"]["id"]]
    assert answer.answered and answer.text == "ok" and balancer.failed == 0
    assert [c.via_webhook for c in fake.calls_to("answerCallbackQuery")] == [True]


async def test_a_polling_instance_fetches_its_updates_with_get_updates() -> None:
    """`--mode polling`: nothing is posted; the bot's getUpdates finds the update."""
    from telegram import Bot

    from tests.fakes import FakeTelegram
    from tests.fakes.telegram import TEST_TOKEN

    fake = FakeTelegram()
    ana = fake.user(1, "Ana")
    group = fake.group()
    update = fake.command_update(group, ana, "/newgame")
    instance = SimpleNamespace(
        url="http://127.0.0.1:9/unreachable", updates=0, refused=0, index=0, webhook=False
    )
    balancer = instances.Balancer([instance], "secret", "rr", fake)  # type: ignore[list-item]
    try:
        balancer.deliver(update)
    finally:
        await balancer.close()
    got = await Bot(TEST_TOKEN, request=fake, get_updates_request=fake).get_updates(timeout=0)
    assert [u.update_id for u in got] == [update["update_id"]]
    assert instance.updates == 1 and balancer.failed == 0 and not balancer.pending


@pytest.mark.parametrize(
    "options", [["--db", "sqlite", "--instances", "2"], ["--mode", "polling", "--instances", "1", "2"]]
)
def test_sqlite_and_polling_run_one_instance(options: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        instances.main(options)
    assert done.value.code == 2
    assert "one instance" in capsys.readouterr().err


@pytest.mark.parametrize("seed", range(6))
def test_the_oracle_samples_deal_the_others_their_real_hands(seed: int) -> None:
    real = new_game(GameConfig(players=4), seed)
    seat = real.current
    view = seat_view(real, seat)
    unseen = unseen_cards(view)
    world = sample_world(view, world_config(view), unseen, seed)
    assert world is not None
    others = [s for s in range(4) if s != seat]
    assert any(world.hands[s] != real.hands[s] for s in others)  # a plain sample guesses them
    known = hard_oracle.known_hands(world, real, seat, seed)
    assert [known.hands[s] for s in others] == [real.hands[s] for s in others]
    assert known.hands[seat] == real.hands[seat]
    dealt = Counter(known.deck) + sum((Counter(known.hands[s]) for s in others), Counter())
    assert dealt == Counter(unseen)  # the same cards, none made up or lost
    assert BALANCED_BACK[known.deck[-1]] == view.base_target
