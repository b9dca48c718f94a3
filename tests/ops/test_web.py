"""Webhook mode, /healthz and /metrics over real HTTP on 127.0.0.1 (Telegram itself is the fake)."""

from __future__ import annotations

import gc
import json
import logging
import sys
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.fakes import FakeTelegram
from tgbot import metrics
from tgbot.config import ConfigError
from tgbot.jobs import run_sweep
from tgbot.runner import serve
from tgbot.store.db import make_engine
from tgbot.web import MAX_BODY_BYTES, SECRET_HEADER, BotServer, health, health_handler

from .conftest import build, served

SECRET = "s3cret-token_for-tests"
HOOK = "https://bot.example.com/telegram/hook"


@pytest.fixture
def db_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'bot.sqlite3'}"


def webhook_settings() -> dict[str, object]:
    return {"webhook_url": HOOK, "webhook_secret": SECRET, "webhook_listen": "127.0.0.1", "webhook_port": 0}


async def test_webhook_accepts_only_requests_with_the_secret_token(db_url: str) -> None:
    fake = FakeTelegram()
    ana = fake.user(1, "Ana")
    group = fake.group("Friends")
    async with served(db_url, webhook=True, fake=fake, **webhook_settings()) as bot:
        await bot.until(lambda: fake.webhook is not None)
        assert fake.webhook is not None
        assert fake.webhook["url"] == HOOK and fake.webhook["secret_token"] == SECRET
        url = bot.url("/telegram/hook")

        def body() -> str:
            return json.dumps(fake.command_update(group, ana, "/help@tweak_test_bot"))

        missing = await bot.http.post(url, content=body(), headers={"Content-Type": "application/json"})
        wrong = await bot.http.post(
            url, content=body(), headers={"Content-Type": "application/json", SECRET_HEADER: SECRET + "x"}
        )
        assert (missing.status_code, wrong.status_code) == (403, 403)
        garbage = await bot.http.post(url, content=b"not json", headers={SECRET_HEADER: SECRET})
        assert garbage.status_code == 400
        assert fake.calls_to("sendMessage") == []

        good = await bot.http.post(
            url, content=body(), headers={"Content-Type": "application/json", SECRET_HEADER: SECRET}
        )
        assert good.status_code == 200
        await bot.until(lambda: len(fake.calls_to("sendMessage")) == 1)
        replies = [m for m in fake.messages(group.id) if m.from_bot]
        assert len(replies) == 1 and "/newgame" in replies[0].text
        too_big = await bot.http.post(
            url, content=b" " * (MAX_BODY_BYTES + 1) + body().encode(), headers={SECRET_HEADER: SECRET}
        )
        assert too_big.status_code == 413
        # Only the webhook path takes updates.
        other = await bot.http.post(bot.url("/"), content=body(), headers={SECRET_HEADER: SECRET})
        assert other.status_code in (404, 405)
    # Stopping does not delete the webhook: another instance may be serving it.
    assert fake.webhook is not None
    assert fake.calls_to("deleteWebhook") == []


async def test_health_and_metrics_on_the_webhook_server(db_url: str) -> None:
    fake = FakeTelegram()
    ana = fake.user(1, "Ana")
    chat = fake.private(ana)
    async with served(db_url, webhook=True, fake=fake, **webhook_settings()) as bot:
        before = metrics.value("tweakbot_updates_handled_total", {"action": "help", "outcome": "ok"})
        sweeps_before = metrics.value("tweakbot_sweep_duration_seconds_count")
        fresh = await bot.http.get(bot.url("/healthz"))
        assert fresh.status_code == 200
        assert fresh.json()["database"] == "ok" and fresh.json()["last_sweep_at"] is None

        update = fake.command_update(chat, ana, "/help")
        response = await bot.http.post(
            bot.url("/telegram/hook"), json=update, headers={SECRET_HEADER: SECRET}
        )
        assert response.status_code == 200
        await bot.until(lambda: len(fake.calls_to("sendMessage")) == 1)
        await run_sweep(bot.deps)
        bot.deps.clock.advance(timedelta(seconds=42))  # type: ignore[attr-defined]

        health_now = await bot.http.get(bot.url("/healthz"))
        assert health_now.status_code == 200
        body = health_now.json()
        assert body["status"] == "ok" and body["database"] == "ok" and body["sweep"] == "ok"
        assert body["last_sweep_at"] is not None and body["last_sweep_age_seconds"] == 42.0

        scraped = await bot.http.get(bot.url("/metrics"))
        assert scraped.status_code == 200
        assert scraped.headers["content-type"].startswith("text/plain")
        text = scraped.text
        for name in (
            "tweakbot_updates_handled_total",
            "tweakbot_moves_applied_total",
            "tweakbot_deliveries_total",
            "tweakbot_outbox_waiting",
            "tweakbot_sweep_duration_seconds_bucket",
        ):
            assert f"# TYPE {name.removesuffix('_total').removesuffix('_bucket')}" in text, name
        assert 'tweakbot_updates_handled_total{action="help",outcome="ok"}' in text
        assert (
            metrics.value("tweakbot_updates_handled_total", {"action": "help", "outcome": "ok"}) == before + 1
        )
        assert metrics.value("tweakbot_sweep_duration_seconds_count") == sweeps_before + 1


async def test_health_reports_an_unreachable_database(db_url: str) -> None:
    fake = FakeTelegram()
    _app, deps, _settings = build(db_url, fake)
    deps.db.engine = make_engine(
        "postgresql+psycopg://postgres@127.0.0.1:1/nothing"
    )  # nothing listens on port 1
    body = await health(deps, timedelta(seconds=30), started=0.0)
    assert body["status"] == "unavailable" and body["database"] == "unreachable"


async def test_health_reports_a_stalled_sweep(db_url: str) -> None:
    fake = FakeTelegram()
    _app, deps, _settings = build(db_url, fake)
    deps.stats["last_sweep_at"] = deps.clock.now() - timedelta(minutes=10)
    body = await health(deps, timedelta(seconds=30), started=0.0)
    assert (body["status"], body["database"], body["sweep"]) == ("unavailable", "ok", "late")
    deps.stats["last_sweep_at"] = deps.clock.now() - timedelta(minutes=1)
    body = await health(deps, timedelta(seconds=30), started=0.0)
    assert (body["status"], body["sweep"]) == ("ok", "ok")


async def test_healthz_polled_while_unhealthy_logs_one_line_per_episode(
    db_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """A monitor polls /healthz every few seconds: its 503 is an answer, said in the log once when
    the sweep falls behind and once when the database stops answering, not once a poll."""
    caplog.set_level(logging.INFO)
    fake = FakeTelegram()
    _app, deps, _settings = build(db_url, fake)
    get = health_handler(deps, timedelta(seconds=30), started=0.0)
    deps.stats["last_sweep_at"] = deps.clock.now() - timedelta(minutes=10)
    assert [(await get(None)).status for _ in range(3)] == [503] * 3  # type: ignore[arg-type]
    deps.db.engine = make_engine("postgresql+psycopg://postgres@127.0.0.1:1/nothing")
    deps.stats["last_sweep_at"] = deps.clock.now()
    assert [(await get(None)).status for _ in range(3)] == [503] * 3  # type: ignore[arg-type]
    said = [(r.levelname, r.getMessage()) for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(said) == 2, said
    assert said[0][0] == "WARNING" and "no sweep for over 300 s" in said[0][1]
    assert said[1][0] == "WARNING" and "the database is not answering" in said[1][1]


async def test_a_started_bot_takes_its_start_up_objects_out_of_full_collections(db_url: str) -> None:
    gc.unfreeze()
    async with served(db_url, webhook=False, servers=0) as bot:
        await bot.until(lambda: gc.get_freeze_count() > 0)
        frozen = gc.get_freeze_count()
        assert frozen > 10_000  # the modules and the application, not a handful of objects
        assert bot.app.running


async def test_polling_with_metrics_port_serves_health_and_metrics_only(db_url: str) -> None:
    fake = FakeTelegram()
    ana = fake.user(1, "Ana")
    group = fake.group("Friends")
    async with served(db_url, webhook=False, fake=fake, metrics_port=0, webhook_listen="127.0.0.1") as bot:
        fake.queue_update(fake.command_update(group, ana, "/help@tweak_test_bot"))
        await bot.until(lambda: len(fake.calls_to("sendMessage")) == 1)
        assert (await bot.http.get(bot.url("/healthz"))).json()["database"] == "ok"
        assert "tweakbot_updates_handled_total" in (await bot.http.get(bot.url("/metrics"))).text
        hook = await bot.http.post(bot.url("/telegram/hook"), json={}, headers={SECRET_HEADER: SECRET})
        assert hook.status_code == 404
    assert fake.webhook is None  # polling never sets a webhook


async def test_webhook_mode_refuses_to_start_without_a_secret(db_url: str) -> None:
    app, _deps, settings = build(db_url, FakeTelegram(), webhook_url=HOOK, webhook_secret=None)
    with pytest.raises(ConfigError, match="WEBHOOK_SECRET"):
        await serve(app, settings, webhook=True, handle_signals=False)


@pytest.mark.usefixtures("root_logging_restored")
def test_cli_webhook_mode_needs_url_and_secret(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.fakes.telegram import TEST_TOKEN
    from tgbot.__main__ import main

    monkeypatch.chdir(tmp_path)
    for name in ("WEBHOOK_URL", "WEBHOOK_SECRET", "DATABASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TELEGRAM_BOT_TOKEN", TEST_TOKEN)
    assert main(["--webhook"]) == 2
    assert "WEBHOOK_URL" in capsys.readouterr().err
    monkeypatch.setenv("WEBHOOK_URL", HOOK)
    assert main(["--webhook"]) == 2
    assert "WEBHOOK_SECRET" in capsys.readouterr().err
    assert not (tmp_path / "tweakbot.sqlite3").exists()  # it stopped before touching the database


@pytest.mark.usefixtures("root_logging_restored")
def test_cli_asked_for_uvloop_where_it_is_not_installed_stops_with_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.fakes.telegram import TEST_TOKEN
    from tgbot import __main__

    monkeypatch.chdir(tmp_path)
    for name in ("WEBHOOK_URL", "WEBHOOK_SECRET", "DATABASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TELEGRAM_BOT_TOKEN", TEST_TOKEN)
    monkeypatch.setenv("TWEAKBOT_EVENT_LOOP", "uvloop")
    monkeypatch.setitem(sys.modules, "uvloop", None)  # `import uvloop` raises ImportError
    monkeypatch.setattr(__main__, "migrate_apart", lambda: pytest.fail("went on to migrate"))
    assert __main__.main([]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tweakbot: TWEAKBOT_EVENT_LOOP=uvloop") and err.count("\n") == 1
    assert "not installed" in err and "tweakbot[uvloop]" in err


async def test_a_port_already_taken_is_an_error_and_the_server_holds_nothing(db_url: str) -> None:
    """A second server on a bound port fails at start (as the operator sees it: OSError) and
    leaves no half-started server behind; the first keeps serving."""
    app, deps, _settings = build(db_url, FakeTelegram())
    first = BotServer(app, deps, host="127.0.0.1", port=0, sweep_interval=timedelta(seconds=30))
    await first.start()
    try:
        second = BotServer(app, deps, host="127.0.0.1", port=first.port, sweep_interval=timedelta(seconds=30))
        with pytest.raises(OSError):
            await second.start()
        await second.stop()  # nothing to stop: no error
        async with httpx.AsyncClient(timeout=5) as http:
            scraped = await http.get(f"http://127.0.0.1:{first.port}/metrics")
        assert scraped.status_code == 200
    finally:
        await first.stop()
        deps.db.close()


@pytest.mark.usefixtures("root_logging_restored")
@pytest.mark.parametrize(
    ("argv", "setting", "loop"),
    [
        (["--webhook"], None, "asyncio"),
        ([], None, "asyncio"),
        (["--webhook"], "uvloop", "uvloop"),
        ([], "uvloop", "uvloop"),
    ],
)
def test_the_cli_runs_either_mode_on_pythons_loop_unless_uvloop_is_asked_for(
    argv: list[str], setting: str | None, loop: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One loop in every mode: Python's by default, uvloop when TWEAKBOT_EVENT_LOOP says so
    (decisions.md B33)."""
    from tests.fakes.telegram import TEST_TOKEN
    from tgbot import __main__, app, deps, event_loop

    class StoppedDatabase:
        def close(self) -> None: ...

        def busy(self) -> bool:
            return False

    ran: list[str] = []

    def run(main: Any, choice: str) -> None:
        main.close()  # the serve() coroutine, never started
        ran.append(choice)

    monkeypatch.chdir(tmp_path)
    for name in ("WEBHOOK_URL", "WEBHOOK_SECRET", "DATABASE_URL", "TWEAKBOT_EVENT_LOOP"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TELEGRAM_BOT_TOKEN", TEST_TOKEN)
    if argv:
        monkeypatch.setenv("WEBHOOK_URL", HOOK)
        monkeypatch.setenv("WEBHOOK_SECRET", SECRET)
    if setting is not None:
        monkeypatch.setenv("TWEAKBOT_EVENT_LOOP", setting)
    monkeypatch.setattr(__main__, "migrate_apart", lambda: True)
    monkeypatch.setattr(app, "build_application", lambda *args, **kwargs: type("App", (), {"bot_data": {}})())
    monkeypatch.setattr(deps, "get_deps", lambda bot_data: type("Deps", (), {"db": StoppedDatabase()})())
    monkeypatch.setattr(event_loop, "run", run)
    assert __main__.main(argv) == 0
    assert ran == [loop]
