"""Settings: the operator's first contact with the bot, so errors must be exact and never leak secrets."""

from __future__ import annotations

import os
import re
from datetime import timedelta
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from pydantic import SecretStr, ValidationError

from tgbot.config import (
    DEFAULT_API_BASE_URL,
    ENV_NAMES,
    ENV_SETTINGS,
    TOKEN_ENV,
    ConfigError,
    Settings,
    load_settings,
    redact,
)
from tgbot.setting_values import normalize_database_url, parse_duration

OPERATING = Path(__file__).resolve().parent.parent / "docs" / "operating.md"

TOKEN = "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw-x"
OTHER_TOKEN = "987654321:ZZHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw_y"
BOTFATHER = (
    "create a bot with @BotFather in Telegram (/newbot), "
    "then set TELEGRAM_BOT_TOKEN=<token> in the environment or in .env"
)


def load(env: dict[str, str], env_file: Path | None = None, *, require_token: bool = True) -> Settings:
    """`load_settings` in a process whose environment is exactly `env`."""
    with mock.patch.dict(os.environ, env, clear=True):
        return load_settings(env_file=env_file, require_token=require_token)


def token_of(settings: Settings) -> str | None:
    token = settings.telegram_bot_token
    return None if token is None else token.get_secret_value()


def error_of(env: dict[str, str], env_file: Path | None = None) -> str:
    with pytest.raises(ConfigError) as info:
        load(env, env_file)
    message = str(info.value)
    assert "\n" not in message
    return message


def test_defaults() -> None:
    settings = load({"TELEGRAM_BOT_TOKEN": TOKEN})
    assert settings == Settings(telegram_bot_token=TOKEN)
    assert settings.database_url == "sqlite:///tweakbot.sqlite3"
    assert settings.telegram_api_base_url == DEFAULT_API_BASE_URL
    assert settings.log_level == "INFO"
    assert settings.nudge_after is None and settings.deadline_after is None
    assert settings.pause_max == timedelta(days=7)
    assert settings.lobby_ttl == timedelta(hours=24)
    assert settings.sweep_interval == timedelta(seconds=30)
    assert settings.send_rate == 25
    assert (settings.webhook_url, settings.webhook_secret) == (None, None)
    assert settings.bot_token() == TOKEN
    assert (settings.webhook_listen, settings.webhook_port, settings.metrics_port) == ("0.0.0.0", 8443, None)
    assert not settings.use_webhook


def test_every_variable_is_read() -> None:
    env = {
        "TELEGRAM_BOT_TOKEN": TOKEN,
        "DATABASE_URL": "postgres://bot:pw@db:5432/tweak",
        "TELEGRAM_API_BASE_URL": "http://localhost:8081/bot/",
        "LOG_LEVEL": "debug",
        "TWEAKBOT_NUDGE_AFTER": "10m",
        "TWEAKBOT_DEADLINE_AFTER": "1h30m",
        "TWEAKBOT_PAUSE_MAX_DAYS": "3",
        "TWEAKBOT_LOBBY_TTL": "2h",
        "TWEAKBOT_SWEEP_INTERVAL": "15s",
        "TWEAKBOT_SEND_RATE": "12",
        "TWEAKBOT_EVENT_LOOP": "AsyncIO",
        "WEBHOOK_URL": "https://bot.example.com/tg",
        "WEBHOOK_SECRET": "s3cret_value-1",
        "WEBHOOK_LISTEN": "127.0.0.1",
        "WEBHOOK_PORT": "8080",
        "METRICS_PORT": "9100",
    }
    assert set(env) == set(ENV_SETTINGS)
    settings = load(env)
    assert settings == Settings(
        telegram_bot_token=TOKEN,
        database_url="postgresql+psycopg://bot:pw@db:5432/tweak",
        telegram_api_base_url="http://localhost:8081/bot",
        log_level="DEBUG",
        nudge_after=timedelta(minutes=10),
        deadline_after=timedelta(minutes=90),
        pause_max=timedelta(days=3),
        lobby_ttl=timedelta(hours=2),
        sweep_interval=timedelta(seconds=15),
        send_rate=12,
        event_loop="asyncio",
        webhook_url="https://bot.example.com/tg",
        webhook_secret=SecretStr("s3cret_value-1"),
        webhook_listen="127.0.0.1",
        webhook_port=8080,
        metrics_port=9100,
    )
    assert settings.use_webhook
    assert settings.webhook_secret is not None
    assert settings.webhook_secret.get_secret_value() == "s3cret_value-1"


def test_plain_values_build_settings_without_reading_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Test fixtures pass plain values; a developer's shell or .env must not leak into them."""
    (tmp_path / ".env").write_text("LOG_LEVEL=DEBUG\nTWEAKBOT_NUDGE_AFTER=1m\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TWEAKBOT_LOBBY_TTL", "1h")
    settings = Settings(telegram_bot_token=TOKEN, database_url="sqlite:///x.sqlite3", webhook_port=0)
    assert token_of(settings) == TOKEN and settings.log_level == "INFO"
    assert settings.nudge_after is None and settings.lobby_ttl == timedelta(hours=24)
    assert settings.webhook_port == 0  # "any free port", for tests; the environment needs 1..65535
    with pytest.raises(ValidationError):
        Settings(telegram_bot_token="not-a-token")


def test_env_file_is_loaded_and_the_environment_wins(tmp_path: Path) -> None:
    env_file = tmp_path / ".env"
    env_file.write_text(
        "# local development\n"
        f"TELEGRAM_BOT_TOKEN={OTHER_TOKEN}\n"
        'LOG_LEVEL="WARNING"\n'
        "TWEAKBOT_LOBBY_TTL=6h\n"
        "export TWEAKBOT_SWEEP_INTERVAL=5s\n"
        "UNRELATED=ignored\n"
    )
    from_file = load({}, env_file)
    assert (token_of(from_file), from_file.log_level) == (OTHER_TOKEN, "WARNING")
    assert from_file.lobby_ttl == timedelta(hours=6)
    assert from_file.sweep_interval == timedelta(seconds=5)

    mixed = load(
        {
            "TELEGRAM_BOT_TOKEN": TOKEN,
            "LOG_LEVEL": "ERROR",
            "TWEAKBOT_LOBBY_TTL": "",
            "TWEAKBOT_SWEEP_INTERVAL": " ",
        },
        env_file,
    )
    assert (token_of(mixed), mixed.log_level) == (TOKEN, "ERROR")
    # An empty (or blank) variable (compose's ${VAR:-}) is "unset": the file still applies.
    assert mixed.lobby_ttl == timedelta(hours=6)
    assert mixed.sweep_interval == timedelta(seconds=5)


def test_only_our_exact_names_are_read(tmp_path: Path) -> None:
    env_file = tmp_path / ".env"
    env_file.write_text("log_level=DEBUG\nlobby_ttl=1h\nNUDGE_AFTER=1m\n")
    settings = load({"TELEGRAM_BOT_TOKEN": TOKEN, "sweep_interval": "1s", "log_level": "ERROR"}, env_file)
    assert settings == Settings(telegram_bot_token=TOKEN)


def test_missing_env_file_is_fine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert token_of(load({"TELEGRAM_BOT_TOKEN": TOKEN}, tmp_path / "nope.env")) == TOKEN
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TELEGRAM_BOT_TOKEN", TOKEN)
    assert token_of(load_settings()) == TOKEN  # process environment + ./.env by default
    (tmp_path / ".env").write_text("TWEAKBOT_LOBBY_TTL=3h\n")
    assert load_settings().lobby_ttl == timedelta(hours=3)


def test_missing_token() -> None:
    assert error_of({}) == f"TELEGRAM_BOT_TOKEN is missing; {BOTFATHER}"
    assert error_of({"TELEGRAM_BOT_TOKEN": "   "}) == f"TELEGRAM_BOT_TOKEN is missing; {BOTFATHER}"


def test_the_token_is_optional_only_when_asked_for_migrations() -> None:
    settings = load({"DATABASE_URL": "postgres://u:p@h/db"}, require_token=False)
    assert settings.telegram_bot_token is None
    assert settings.database_url == "postgresql+psycopg://u:p@h/db"
    with pytest.raises(ConfigError, match=r"^TELEGRAM_BOT_TOKEN is missing; create a bot with @BotFather"):
        settings.bot_token()
    # A token that is there but malformed is still an error: the next start would fail anyway.
    with pytest.raises(ConfigError, match="is not a valid bot token"):
        load({"TELEGRAM_BOT_TOKEN": "12345:short"}, require_token=False)


@pytest.mark.parametrize(
    "bad",
    [
        "123456:short",
        "abc:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw",
        "1234:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw",  # bot id too short
        "123456789 AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw",
        "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PAL/saw",
        f"bot{TOKEN}",
    ],
)
def test_malformed_token_is_explained_without_echoing_it(bad: str) -> None:
    message = error_of({"TELEGRAM_BOT_TOKEN": bad})
    assert message == f"TELEGRAM_BOT_TOKEN is not a valid bot token; {BOTFATHER}"
    assert bad not in message and bad.split(":")[-1] not in message


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("30s", timedelta(seconds=30)),
        ("10m", timedelta(minutes=10)),
        ("2h", timedelta(hours=2)),
        ("1d", timedelta(days=1)),
        ("1h30m", timedelta(minutes=90)),
        ("1d 12h", timedelta(hours=36)),
        ("1d2h3m4s", timedelta(days=1, hours=2, minutes=3, seconds=4)),
        (" 1.5H ", timedelta(minutes=90)),
        ("0s", timedelta(0)),
    ],
)
def test_parse_duration(text: str, expected: timedelta) -> None:
    assert parse_duration(text) == expected


@pytest.mark.parametrize(
    "text", ["", "30", "10 min", "1w", "m", "-5m", "1m1h", "1h1h", "5s junk", "1h,30m", "1..5h", "PT1H"]
)
def test_parse_duration_rejects_junk(text: str) -> None:
    with pytest.raises(ConfigError, match="is not a duration; use a number with a unit"):
        parse_duration(text)


def test_bad_durations_name_the_variable() -> None:
    message = error_of({"TELEGRAM_BOT_TOKEN": TOKEN, "TWEAKBOT_NUDGE_AFTER": "10 minutes"})
    assert message.startswith("TWEAKBOT_NUDGE_AFTER='10 minutes' is not valid; use a number with a unit")
    message = error_of({"TELEGRAM_BOT_TOKEN": TOKEN, "TWEAKBOT_SWEEP_INTERVAL": "0s"})
    assert message.startswith("TWEAKBOT_SWEEP_INTERVAL='0s' is not valid")
    message = error_of({"TELEGRAM_BOT_TOKEN": TOKEN, "TWEAKBOT_PAUSE_MAX_DAYS": "-1"})
    assert message.startswith("TWEAKBOT_PAUSE_MAX_DAYS='-1' is not valid; use a number of days")
    for rate in ("0", "31", "12.5", "fast"):
        message = error_of({"TELEGRAM_BOT_TOKEN": TOKEN, "TWEAKBOT_SEND_RATE": rate})
        assert message.startswith(f"TWEAKBOT_SEND_RATE='{rate}' is not valid; use a whole number of messages")
    for loop in ("trio", "auto"):  # auto (a loop chosen by the mode) is no more: decisions.md B33
        message = error_of({"TELEGRAM_BOT_TOKEN": TOKEN, "TWEAKBOT_EVENT_LOOP": loop})
        assert message == (
            f"TWEAKBOT_EVENT_LOOP='{loop}' is not valid; "
            "use one of asyncio, uvloop, or leave it unset (asyncio)"
        )
    assert load({"TELEGRAM_BOT_TOKEN": TOKEN}).event_loop == "asyncio"
    assert load({"TELEGRAM_BOT_TOKEN": TOKEN, "TWEAKBOT_EVENT_LOOP": "UVLoop"}).event_loop == "uvloop"
    assert load({"TELEGRAM_BOT_TOKEN": TOKEN, "TWEAKBOT_PAUSE_MAX_DAYS": "36h"}).pause_max == timedelta(
        hours=36
    )


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("postgres://u:p@h:5432/db", "postgresql+psycopg://u:p@h:5432/db"),
        ("postgresql://u:p@h/db?sslmode=require", "postgresql+psycopg://u:p@h/db?sslmode=require"),
        ("postgresql+psycopg://u@h/db", "postgresql+psycopg://u@h/db"),
        ("sqlite:///data/tweak.sqlite3", "sqlite:///data/tweak.sqlite3"),
        ("sqlite://", "sqlite://"),
    ],
)
def test_database_url_normalisation(url: str, expected: str) -> None:
    assert normalize_database_url(url) == expected
    assert load({"TELEGRAM_BOT_TOKEN": TOKEN, "DATABASE_URL": url}).database_url == expected


def test_bad_values_are_explained_without_secrets() -> None:
    base = {"TELEGRAM_BOT_TOKEN": TOKEN}
    message = error_of({**base, "DATABASE_URL": "tweak.sqlite3"})
    assert message.startswith("DATABASE_URL='tweak.sqlite3' is not valid; use sqlite:///")
    message = error_of({**base, "TELEGRAM_API_BASE_URL": "api.telegram.org/bot"})
    assert "must start with http:// or https://" in message
    message = error_of({**base, "TELEGRAM_API_BASE_URL": f"https://api.telegram.org/bot{TOKEN}"})
    assert message.startswith("TELEGRAM_API_BASE_URL must not contain the bot token") and TOKEN not in message
    assert "one of DEBUG, INFO, WARNING, ERROR" in error_of({**base, "LOG_LEVEL": "verbose"})
    assert "between 1 and 65535" in error_of({**base, "WEBHOOK_PORT": "70000"})
    assert "between 1 and 65535" in error_of({**base, "METRICS_PORT": "metrics"})
    assert "https://" in error_of({**base, "WEBHOOK_URL": "http://bot.example.com"})
    message = error_of({**base, "WEBHOOK_SECRET": "has spaces and $ymbols"})
    assert message.startswith("WEBHOOK_SECRET may only contain") and "ymbols" not in message
    assert "between 1 and 65535" in error_of({**base, "WEBHOOK_PORT": "0"})


def test_errors_never_quote_a_secret_even_in_the_wrong_variable() -> None:
    secret = "webhook-secret-xyz"
    base = {"TELEGRAM_BOT_TOKEN": TOKEN, "WEBHOOK_SECRET": secret}
    assert secret not in error_of({**base, "WEBHOOK_LISTEN": "x", "LOG_LEVEL": secret})
    message = error_of(
        {**base, "DATABASE_URL": "postgresql://bot:hunter2@db/tweak", "WEBHOOK_PORT": "hunter2"}
    )
    assert "hunter2" not in message and message.startswith("WEBHOOK_PORT='<hidden>' is not valid")
    message = error_of({**base, "LOG_LEVEL": OTHER_TOKEN})
    assert OTHER_TOKEN.split(":")[1] not in message


SECRET_ENV = {
    "TELEGRAM_BOT_TOKEN": TOKEN,
    "DATABASE_URL": "postgresql://bot:hunter2@db/tweak",
    "WEBHOOK_SECRET": "webhook-secret-xyz",
}


def test_repr_and_dumps_mask_secrets() -> None:
    settings = load(SECRET_ENV)
    texts = (
        repr(settings),
        str(settings),
        f"{settings}",
        settings.model_dump_json(),
        str(settings.model_dump()),
    )
    for text in texts:
        assert TOKEN not in text and TOKEN.split(":")[1] not in text
        assert "hunter2" not in text and "webhook-secret-xyz" not in text
        assert "postgresql+psycopg://bot:***@db/tweak" in text
    assert "telegram_bot_token=SecretStr('**********')" in repr(settings)
    assert "lobby_ttl=datetime.timedelta(days=1)" in repr(settings)
    assert settings.safe_database_url == "postgresql+psycopg://bot:***@db/tweak"
    # The real values are still there for the code that needs them.
    assert settings.bot_token() == TOKEN
    assert settings.database_url == "postgresql+psycopg://bot:hunter2@db/tweak"
    assert set(settings.secret_values()) == {TOKEN, "hunter2", "webhook-secret-xyz"}
    assert "<token>" in redact(f"url https://x/bot{TOKEN}/getMe")


def test_a_validation_error_escaping_elsewhere_does_not_quote_secrets() -> None:
    with pytest.raises(ValidationError) as info:
        Settings(telegram_bot_token="123:hunter2", webhook_secret="bad secret!", database_url="hunter2")
    assert "hunter2" not in str(info.value) and "bad secret" not in str(info.value)


def test_settings_are_frozen() -> None:
    settings = load({"TELEGRAM_BOT_TOKEN": TOKEN})
    with pytest.raises(ValidationError, match="frozen"):
        settings.log_level = "DEBUG"  # type: ignore[misc]


# --- the operator's guide's table of variables is checked against the Settings class ---------

REQUIRED = object()


def documented_environment_table() -> dict[str, Any]:
    """Variable -> documented default (None for "unset", REQUIRED, or the text in backticks)."""
    text = OPERATING.read_text(encoding="utf-8")
    section = text.split("### Environment (per bot)", 1)[1].split("\n## ", 1)[0]
    documented: dict[str, Any] = {}
    for names_cell, default_cell in re.findall(r"^\| ([^|]*`[A-Z_]+`[^|]*) \| ([^|]*) \|", section, re.M):
        names = re.findall(r"`([A-Z][A-Z0-9_]+)`", names_cell)
        if "required" in default_cell:
            defaults: list[Any] = [REQUIRED] * len(names)
        elif default_cell.strip() == "unset":
            defaults = [None] * len(names)
        else:
            defaults = re.findall(r"`([^`]+)`", default_cell)
        assert len(defaults) == len(names), f"one default per variable in the row for {names}"
        for name, default in zip(names, defaults, strict=True):
            assert name not in documented, f"{name} is documented twice"
            documented[name] = default
    return documented


def test_the_operators_guide_documents_every_variable_with_its_real_default() -> None:
    documented = documented_environment_table()
    assert set(documented) == set(ENV_SETTINGS), set(documented) ^ set(ENV_SETTINGS)
    by_env = {env: field for field, env in ENV_NAMES.items()}
    for name, default in documented.items():
        field = by_env[name]
        actual = Settings.model_fields[field].default
        if default is REQUIRED:
            assert actual is None and name == TOKEN_ENV
            assert error_of({}).startswith(f"{name} is missing")
        elif default is None:
            assert actual is None, f"{name}: docs/operating.md says unset, the default is {actual!r}"
        else:
            # The documented text, read as the operator would write it, gives the real default.
            parsed = getattr(load({TOKEN_ENV: TOKEN, name: default}), field)
            assert parsed == actual, f"{name}: docs/operating.md says {default!r}, the default is {actual!r}"


def test_errors_never_quote_a_secret_from_the_env_file(tmp_path: Path) -> None:
    env_file = tmp_path / ".env"
    env_file.write_text(
        f"TELEGRAM_BOT_TOKEN={TOKEN}\nWEBHOOK_SECRET=file-secret-xyz\nLOG_LEVEL=file-secret-xyz\n"
    )
    message = error_of({}, env_file)
    assert message.startswith("LOG_LEVEL='<hidden>' is not valid") and "file-secret-xyz" not in message
    assert error_of({"LOG_LEVEL": "loud"}, env_file).startswith("LOG_LEVEL='loud' is not valid")
