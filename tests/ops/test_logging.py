"""Logs: one structured line per update, never the token, never what users wrote (at INFO)."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes import FakeTelegram, TelegramTestClient
from tests.fakes.telegram import TEST_TOKEN
from tests.ops.fake_http import FakeBotApiServer
from tgbot import logs
from tgbot.app import build_application, make_deps
from tgbot.store.db import make_engine
from tgbot.time_source import ManualClock

from .conftest import build

LINE = re.compile(
    r"^update=(\d+) chat=(-?\d+|None) game=(\d+|None) action=(\w+) outcome=(\w+) ms=\d+(\.\d+)?( \w+=\S+)*$"
)


def update_lines(caplog: pytest.LogCaptureFixture) -> list[re.Match[str]]:
    found = []
    for record in caplog.records:
        if record.name == "tweakbot.updates":
            match = LINE.match(record.getMessage())
            assert match, record.getMessage()
            found.append(match)
    return found


async def test_one_line_per_update_with_game_action_outcome_and_time(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    fake = FakeTelegram()
    app, deps, _settings = build(f"sqlite:///{tmp_path / 'bot.sqlite3'}", fake)
    ana, ben = fake.user(1, "Ana"), fake.user(2, "Ben")
    group = fake.group("Friends")
    async with TelegramTestClient(app, fake) as tg:
        await tg.send(group, ana, "/newgame@tweak_test_bot")
        lobby = fake.last_message(group.id)
        await tg.tap(ben, lobby, "✋ Join")
        await tg.send(group, ana, "/help@tweak_test_bot")
        await tg.send(group, ana, "/start@tweak_test_bot")  # in a group, /start is /help
        await tg.send(group, ben, "just chatting")
        await tg.send(group, ben, "/frobnicate@tweak_test_bot")
        await tg.tap_data(ben, lobby, "garbage")
    deps.db.close()
    lines = update_lines(caplog)
    assert [(m.group(4), m.group(5)) for m in lines] == [
        ("newgame", "lobby"),
        ("lobby", "ok"),
        ("help", "ok"),
        ("help", "ok"),
        ("text", "ok"),
        ("unknown_command", "unknown_command"),  # a refusal's outcome is its reason
        ("callback", "malformed"),
    ]
    assert len({m.group(1) for m in lines}) == len(lines)  # one line per update id
    game_ids = {m.group(3) for m in lines[:2]}
    assert len(game_ids) == 1 and game_ids != {"None"}
    assert all(m.group(2) == str(group.id) for m in lines)


async def test_an_unhandled_error_is_the_outcome(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    fake = FakeTelegram()
    app, deps, _settings = build(f"sqlite:///{tmp_path / 'bot.sqlite3'}", fake)
    ana = fake.user(1, "Ana")
    group = fake.group("Friends")
    async with TelegramTestClient(app, fake, raise_errors=False) as tg:
        fake.fail_next("*", exception=RuntimeError("boom"), times=50)
        deps.db.close()
        deps.db.engine = make_engine("postgresql+psycopg://postgres@127.0.0.1:1/nothing")
        await tg.send(group, ana, "/newgame@tweak_test_bot")
    lines = update_lines(caplog)
    assert [(m.group(4), m.group(5)) for m in lines] == [("newgame", "error")]


async def test_no_user_text_at_info(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    fake = FakeTelegram()
    app, deps, _settings = build(f"sqlite:///{tmp_path / 'bot.sqlite3'}", fake)
    ana = fake.user(1, "Ana")
    group = fake.group("Friends")
    async with TelegramTestClient(app, fake) as tg:
        await tg.send(group, ana, "my private words xyzzy")
        await tg.send(group, ana, "/newgame@tweak_test_bot xyzzy-argument")
        await tg.send(fake.private(ana), ana, "/start xyzzy")
    deps.db.close()
    at_info = [r.getMessage() for r in caplog.records if r.levelno >= logging.INFO]
    assert at_info and not [m for m in at_info if "xyzzy" in m]
    # (PTB itself logs whole updates at DEBUG: that level is for developers only.)


async def test_the_token_never_reaches_a_log_line_even_at_debug(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Real HTTP (the bot's aiohttp client; every request's URL holds the token), at DEBUG
    everywhere, PTB's and aiohttp's loggers included."""
    caplog.set_level(logging.DEBUG)
    logs.install_redaction([TEST_TOKEN])
    http_logger = logging.getLogger("aiohttp")
    saved = http_logger.level
    http_logger.setLevel(logging.DEBUG)
    fake = FakeTelegram()
    ana = fake.user(1, "Ana")
    group = fake.group("Friends")
    db_url = f"sqlite:///{tmp_path / 'bot.sqlite3'}"
    try:
        async with FakeBotApiServer(fake, TEST_TOKEN) as api:
            from tests.bot.conftest import make_settings

            settings = make_settings(db_url, telegram_api_base_url=api.base_url)
            deps = make_deps(settings, db=make_engine(db_url), clock=ManualClock())
            app = build_application(settings, deps=deps)
            async with TelegramTestClient(app, fake) as tg:
                await tg.send(group, ana, "/help@tweak_test_bot")
            deps.db.close()
    finally:
        http_logger.setLevel(saved)
    assert len(fake.calls_to("sendMessage")) == 1
    messages = [r.getMessage() for r in caplog.records]
    assert any("sendMessage" in m for m in messages)  # the calls were logged, at DEBUG
    secret_part = TEST_TOKEN.split(":")[1]
    assert not [m for m in messages if secret_part in m]


@pytest.fixture(autouse=True)
def _record_lookups() -> Iterator[None]:
    """`setup_logging` turns off what LOG_FORMAT never shows, process-wide: back on after."""
    saved = logging._srcfile, logging.logThreads, logging.logProcesses, logging.logMultiprocessing  # type: ignore[attr-defined]
    yield
    logging._srcfile, logging.logThreads, logging.logProcesses, logging.logMultiprocessing = saved  # type: ignore[attr-defined]


def test_setup_logging_quiets_url_loggers() -> None:
    root = logging.getLogger()
    saved_handlers, saved_level = root.handlers[:], root.level
    try:
        logs.setup_logging("DEBUG", [TEST_TOKEN])
        assert root.level == logging.DEBUG
        # a record does not look up what the format never shows (its caller, thread, process)
        shown = logging.getLogger("anything")
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(shown, "findCaller", lambda *a, **k: pytest.fail("looked up the caller"))
            shown.info("a line")
        assert logging.getLogger("httpx").getEffectiveLevel() == logging.WARNING
        record = logging.getLogger("anything").makeRecord(
            "anything", logging.INFO, __file__, 1, "url=%s", (f"/bot{TEST_TOKEN}/getMe",), None
        )
        assert TEST_TOKEN not in record.getMessage()
        assert record.getMessage() == f"url=/bot{logs.REDACTED}/getMe"
    finally:
        root.handlers[:] = saved_handlers
        root.setLevel(saved_level)


def test_a_failed_last_get_updates_at_stop_is_one_warning_line(capsys: pytest.CaptureFixture[str]) -> None:
    """PTB's last getUpdates at a stop failing (Telegram slow or gone) is logged by PTB with a
    traceback; the bot's log makes it one warning line."""
    from telegram.error import TimedOut

    root = logging.getLogger()
    saved_handlers, saved_level = root.handlers[:], root.level
    updater = logging.getLogger(logs.UPDATER_LOGGER)
    saved_filters = updater.filters[:]
    try:
        logs.setup_logging("INFO", [TEST_TOKEN])
        try:
            raise TimedOut("Timed out")
        except TimedOut:
            updater.exception(
                "Error while calling `get_updates` one more time to mark all fetched updates. "
                "Suppressing error to ensure graceful shutdown."
            )
        updater.info("an ordinary line stays as it is")
    finally:
        root.handlers[:] = saved_handlers
        root.setLevel(saved_level)
        updater.filters[:] = saved_filters
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 2, lines
    assert " WARNING telegram.ext.Updater could not mark the last fetched updates as read" in lines[0]
    assert "TimedOut: Timed out" in lines[0] and "Traceback" not in "\n".join(lines)
    assert lines[1].endswith("INFO telegram.ext.Updater an ordinary line stays as it is")
