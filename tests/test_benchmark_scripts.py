"""The benchmarks parse their options, tell a refusal from an accepted move, sort the bot's writes
and build their tables; the tap-cost players and the sweep's data run once, small. They are run
by hand for figures (BENCHMARKS.md); nothing here is timed."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from types import ModuleType, SimpleNamespace

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

import ai_ladder
import bot_bench
import common
import engine_bench
import instances
import load_bench
import sweep_bench
import tap_cost

SCRIPTS = [ai_ladder, bot_bench, engine_bench, instances, load_bench, sweep_bench, tap_cost]
BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
#: All of benchmarks/*.py together, as `wc -l` counts them: what a reader of the benchmarks takes in.
LINE_LIMIT = 3_500


def test_the_benchmarks_stay_within_their_line_limit() -> None:
    lines = {path.name: path.read_bytes().count(b"\n") for path in BENCHMARKS.glob("*.py")}
    assert sum(lines.values()) <= LINE_LIMIT, lines


@pytest.mark.parametrize("module", SCRIPTS, ids=lambda m: m.__name__)
def test_help(module: ModuleType, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        module.main(["--help"])
    assert done.value.code == 0
    assert "--json" in capsys.readouterr().out


def test_a_cell_is_the_median_and_the_range_of_the_runs() -> None:
    runs = [{"p99": 30.0}, {"p99": 12.0}, {"p99": 40.0}, {"other": 1}]
    assert common.cell(runs, lambda f: f["p99"], "{:.0f} ms") == "30 ms (12–40 ms)"
    assert common.cell(runs[:1], lambda f: f["p99"], "{:.0f} ms") == "30 ms"
    assert common.cell(runs[3:], lambda f: f["p99"], "{:.0f} ms") == "—"
    table = common.table(
        "Load", {"SQLite": runs[:2], "PostgreSQL": runs[2:]}, [("p99", lambda f: f["p99"], "{:.0f}")]
    )
    assert table.splitlines() == [
        "| Load | SQLite | PostgreSQL |",
        "|---|---|---|",
        "| p99 | 21 (12–30) | 40 |",
    ]
    assert common.pct([10.0, 20.0], 0.5) == 15.0
    assert common.pct([], 0.5) is None
    assert common.spread([3.0, 1.0, 2.0]) == "2.0 (1.0–3.0)"


def write(chat: int, method: str, message: int, version: int | None, **flags: bool) -> load_bench.Write:
    return load_bench.Write(
        0.0,
        chat,
        method,
        message,
        version,
        None if version is None else -chat,  # one game a group
        flags.get("lobby", False),
        flags.get("keys_off", False),
        flags.get("notify", False),
    )


def test_the_bots_writes_are_sorted_by_what_they_show() -> None:
    writes = [
        write(-5, "sendMessage", 1, None, lobby=True),  # the lobby
        write(-5, "editMessageText", 1, None, lobby=True),  # its "has started"
        write(-5, "sendMessage", 2, 1),  # the game's first board
        write(-5, "sendMessage", 3, 2),  # the next board
        write(-5, "editMessageReplyMarkup", 2, None, keys_off=True),  # the old board's keys taken off
        write(-6, "sendMessage", 5, 1),  # another game's first board
        write(-5, "sendPhoto", 4, None),  # the chart
    ]
    sorts = [sort for _w, sort in load_bench.sort_writes(writes)]
    assert sorts == ["lobby", "lobby", "first_board", "board", "keys_off", "first_board", "record"]


def test_an_inline_tables_edits_are_sorted_though_their_keys_carry_no_version() -> None:
    """At an inline table every write is an edit of a post: the lobby's, its first board, each
    mover's post made the next board, the old board's keys taken off, a stale pick's note."""

    def edit(message: int, game: int | None, **flags: bool) -> load_bench.Write:
        lobby, keys_off = flags.get("lobby", False), flags.get("keys_off", False)
        return load_bench.Write(0.0, -7, "editMessageText", message, None, game, lobby, keys_off, False, True)

    writes = [
        edit(1, None, lobby=True),  # the posted lobby, its players
        edit(1, 4),  # started: the lobby's post is the first board
        edit(1, None, keys_off=True),  # the next post takes its keys
        edit(2, 4),  # the mover's post, the next board
        edit(3, None),  # a stale pick's post, noted
    ]
    sorts = [sort for _w, sort in load_bench.sort_writes(writes)]
    assert sorts == ["lobby", "first_board", "keys_off", "board", "record"]


def test_the_inline_share_spreads_inline_tables_over_the_groups() -> None:
    from tests.fakes import FakeTelegram

    fake = FakeTelegram(inline_mode=True)
    options = SimpleNamespace(seed=1, groups=4, players=3, computers="hard:3", inline_share=0.5)
    groups = load_bench.make_groups(fake, options)  # type: ignore[arg-type]
    assert [g.inline for g in groups] == [False, True, False, True]
    assert [fake.bot_in(g.chat) for g in groups] == [True, False, True, False]
    assert [g.computers for g in groups] == [("hard", 3), None, ("hard", 3), None]  # people only there


def test_a_refusal_is_not_an_accepted_move() -> None:
    refused = load_bench._refused
    assert refused("It's Ana's turn.")
    assert refused("This board is out of date: the live one is at the bottom of the chat.")
    assert refused("7 is not the target 9. Nothing was played.")
    assert not refused("Done!")


def test_a_claim_that_plays_a_t_card_counts_as_applied() -> None:
    """A Claim with a [T!] card chosen logs the card first (a Joker then its sum): applied once."""
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
    balancer = instances.Balancer([instance], "secret", fake)  # type: ignore[list-item]
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
    balancer = instances.Balancer([instance], "secret", fake)  # type: ignore[list-item]
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


def test_the_tap_cost_players_play_every_way_to_the_end(tmp_path: Path) -> None:
    """One small game of each way in a group with the bot: every tap counted with its statements,
    every turn a write."""
    ways = ("board", "panel", "inline")
    figures = asyncio.run(tap_cost.play(f"sqlite:///{tmp_path / 'bot.sqlite3'}", 1, seed=3, ways=ways))
    assert set(figures["ways"]) == set(ways)
    for kind, got in figures["taps"].items():
        assert got["tx"] == 1, kind  # a tap is one transaction
        assert got["sql_min"] >= 2, kind
    assert all(way["writes"] >= 1 for way in figures["ways"].values())
    assert figures["flood_rejections"] == 0
    assert figures["actions"] == sum(int(got["n"]) for got in figures["taps"].values())


def test_a_game_in_any_chat_costs_that_chat_one_edit_a_turn(tmp_path: Path) -> None:
    """The fourth way, an inline table: a group without the bot, where the lobby and every move
    are posts from the inline list. The bot can only edit those posts (by inline message id: the
    call names no chat, the write is counted in the chat its message is in): one edit a turn
    makes the mover's post the next board, and the keys leave the board before it.
    The players started the bot, so each turn tells its mover in private; the chat hears nothing."""
    figures = asyncio.run(
        tap_cost.play(f"sqlite:///{tmp_path / 'bot.sqlite3'}", 1, seed=3, ways=[tap_cost.ANY])
    )
    way = figures["ways"][tap_cost.ANY]
    assert way["no_t_boards"] == pytest.approx(1.0)  # a [T!] card's post is one more board
    # Each post takes the keys off the board before it: in an edit of its own, after the new
    # board, or in that board's last content edit when it had not gone out yet (one write).
    assert 0 < way["keys_off"] <= way["writes"]
    assert way["group_noise"] == 0 and way["private_noise"] > 0
    assert {"any chat: pick (chosen result plays the move)", "any chat: 🎯 Play list (query)"} <= set(
        figures["taps"]
    )
    assert all(got["tx"] == 1 for got in figures["taps"].values())  # a tap is one transaction
    assert figures["flood_rejections"] == 0


def test_the_notifications_option_plays_the_board_with_all_one_or_none_in_private(tmp_path: Path) -> None:
    """``--notifications``: board games where all, one or none of the 3 players started the bot.
    Each turn notifies its mover once, in private, when all did (a third of a notification per
    person); every board rings all three when none did; one in private lies between."""
    figures = asyncio.run(tap_cost.play(f"sqlite:///{tmp_path / 'bot.sqlite3'}", 1, seed=3, reach=True))
    ways = {way.split(", ")[1].split()[0]: got["per_person"] for way, got in figures["ways"].items()}
    assert list(ways) == ["all", "one", "none"]
    assert ways["all"] == pytest.approx(1 / 3)
    assert ways["none"] == pytest.approx(1.0)
    assert 1 / 3 < ways["one"] < 1
    assert figures["flood_rejections"] == 0


def test_one_sweep_pass_over_a_small_database(tmp_path: Path) -> None:
    from tgbot.store.db import create_all, make_engine

    url = f"sqlite:///{tmp_path / 'sweep.sqlite3'}"
    db = make_engine(url)
    create_all(db)
    try:
        built = sweep_bench.build(db, games=150, due=40, seed=1)
        figures = sweep_bench.sweep_pass(db, url)
    finally:
        db.dispose()
    assert figures["due_ids"] == sum(built.due.values()) == 40
    assert figures["failed"] == 0
    assert figures["reminders"] + figures["idle_moves"] > 0
    assert "ix_games_wake_at" in figures["plan"]
