"""Settings from the environment, with a ``.env`` file as a convenience for local runs.

Everything is validated at start-up, in one place, because a bot that starts with a bad value
fails later in confusing ways (a malformed token only shows up as a 404 from Telegram, a bad
duration as a sweep that never fires). Errors are a single line naming the variable and the fix,
so they read well both in a terminal and in `journalctl`/`docker logs`.

Secrets (the bot token, the webhook secret, a database password) never appear in an error
message, a repr or a dump: those end up in logs and bug reports. The token and the webhook
secret are ``SecretStr``; the database URL is a plain string (SQLAlchemy needs it whole) that is
shown with its password masked.

`Settings(...)` built from plain values reads nothing else, so tests and tools get exactly what
they pass; `load_settings()` is what reads the environment over ``.env`` (python-dotenv reads the
file). The model is plain pydantic: pydantic-settings' sources (cloud secret stores, YAML, TOML)
would cost every bot process 1.5 MB of memory for one ``.env`` file (decisions.md B28).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping
from datetime import timedelta
from pathlib import Path
from typing import Annotated, Any, Literal, get_args
from urllib.parse import unquote, urlsplit

from dotenv import dotenv_values
from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    SecretStr,
    ValidationError,
    field_serializer,
    model_validator,
)

from .event_loop import DEFAULT_EVENT_LOOP, EVENT_LOOPS, EventLoop
from .turn_clock import LOBBY_TTL, PAUSE_MAX

TOKEN_ENV = "TELEGRAM_BOT_TOKEN"
DATABASE_URL_ENV = "DATABASE_URL"
API_BASE_URL_ENV = "TELEGRAM_API_BASE_URL"
LOG_LEVEL_ENV = "LOG_LEVEL"
NUDGE_AFTER_ENV = "TWEAKBOT_NUDGE_AFTER"
DEADLINE_AFTER_ENV = "TWEAKBOT_DEADLINE_AFTER"
PAUSE_MAX_ENV = "TWEAKBOT_PAUSE_MAX_DAYS"
LOBBY_TTL_ENV = "TWEAKBOT_LOBBY_TTL"
SWEEP_INTERVAL_ENV = "TWEAKBOT_SWEEP_INTERVAL"
SEND_RATE_ENV = "TWEAKBOT_SEND_RATE"
EVENT_LOOP_ENV = "TWEAKBOT_EVENT_LOOP"
WEBHOOK_URL_ENV = "WEBHOOK_URL"
WEBHOOK_SECRET_ENV = "WEBHOOK_SECRET"
WEBHOOK_LISTEN_ENV = "WEBHOOK_LISTEN"
WEBHOOK_PORT_ENV = "WEBHOOK_PORT"
METRICS_PORT_ENV = "METRICS_PORT"

DEFAULT_DATABASE_URL = "sqlite:///tweakbot.sqlite3"
DEFAULT_API_BASE_URL = "https://api.telegram.org/bot"
#: Messages a second Telegram lets one bot send in all (the most TWEAKBOT_SEND_RATE may be).
TELEGRAM_RATE = 30
#: Messages a second one instance sends at most by default, across all chats: Telegram's 30 less
#: headroom for calls that are not paced (a retry whose first try did land).
DEFAULT_SEND_RATE = 25
LogLevel = Literal["DEBUG", "INFO", "WARNING", "ERROR"]
LOG_LEVELS: tuple[str, ...] = get_args(LogLevel)

TOKEN_RE = re.compile(r"^\d{5,12}:[A-Za-z0-9_-]{30,}$")
_TOKEN_ANYWHERE_RE = re.compile(r"\d{5,12}:[A-Za-z0-9_-]{30,}")
_URL_PASSWORD_RE = re.compile(r"(://[^:/@\s]*):[^@/\s]*@")
_DURATION_PART_RE = re.compile(r"(\d+(?:\.\d+)?)\s*([dhms])")
_DURATION_UNITS = {"d": 86400.0, "h": 3600.0, "m": 60.0, "s": 1.0}
_WEBHOOK_SECRET_RE = re.compile(r"^[A-Za-z0-9_-]{1,256}$")
_DURATION_HINT = "use a number with a unit s, m, h or d, e.g. 30s, 10m, 2h, 1d or 1h30m"
_MAX_PAUSE = timedelta(days=3650)
_HIDDEN = "<hidden>"

_BOTFATHER = (
    "create a bot with @BotFather in Telegram (/newbot), "
    f"then set {TOKEN_ENV}=<token> in the environment or in .env"
)
_DURATION_FIX = f"{_DURATION_HINT}, or leave it unset"
#: How to fix each variable, appended to "NAME='value' is not valid; ".
_FIX = {
    DATABASE_URL_ENV: "use sqlite:///path/to/tweakbot.sqlite3 or postgresql://user:password@host:5432/dbname",
    API_BASE_URL_ENV: f"it must start with http:// or https://, e.g. {DEFAULT_API_BASE_URL} (the default)",
    LOG_LEVEL_ENV: f"use one of {', '.join(LOG_LEVELS)}",
    NUDGE_AFTER_ENV: _DURATION_FIX,
    DEADLINE_AFTER_ENV: _DURATION_FIX,
    PAUSE_MAX_ENV: "use a number of days between 0 and 3650, e.g. 7",
    LOBBY_TTL_ENV: _DURATION_FIX,
    SWEEP_INTERVAL_ENV: _DURATION_FIX,
    SEND_RATE_ENV: (
        f"use a whole number of messages a second between 1 and {TELEGRAM_RATE}, e.g. 12 for each of "
        f"two instances on one token, or leave it unset ({DEFAULT_SEND_RATE})"
    ),
    EVENT_LOOP_ENV: f"use one of {', '.join(EVENT_LOOPS)}, or leave it unset ({DEFAULT_EVENT_LOOP})",
    WEBHOOK_URL_ENV: (
        "use the public https:// URL Telegram should post updates to, or leave it unset for polling"
    ),
    WEBHOOK_LISTEN_ENV: "use the address to listen on, e.g. 0.0.0.0 or 127.0.0.1",
    WEBHOOK_PORT_ENV: "use a port number between 1 and 65535",
    METRICS_PORT_ENV: "use a port number between 1 and 65535, or leave it unset",
}
#: The whole message for the secrets: whatever went wrong, their value is never quoted back.
_SECRET_PROBLEM = {
    TOKEN_ENV: f"{TOKEN_ENV} is not a valid bot token; {_BOTFATHER}",
    WEBHOOK_SECRET_ENV: (
        f"{WEBHOOK_SECRET_ENV} may only contain A-Z, a-z, 0-9, _ and - (1 to 256 characters); "
        "generate one with: python -c 'import secrets; print(secrets.token_urlsafe(32))'"
    ),
}


class ConfigError(Exception):
    """A setting is missing or wrong. ``str()`` is one line: what is wrong, then how to fix it."""

    def __init__(self, message: str) -> None:
        super().__init__(" ".join(message.split()))


class _Explained(ValueError):
    """A validation failure whose message is already the whole operator-facing line."""


def redact(text: str) -> str:
    """Hide bot tokens and URL passwords in a value before it is echoed back to the operator."""
    return _URL_PASSWORD_RE.sub(r"\1:***@", _TOKEN_ANYWHERE_RE.sub("<token>", text))


def parse_duration(text: str) -> timedelta:
    """Parse "30s", "10m", "2h", "1d", "1h30m" or "1d 12h" (units in that order, each once).

    Strict on purpose: "30" or "10 min" would be easy to misread (seconds? minutes?), and a wrong
    unit silently turns a ten-minute reminder into a ten-second one.
    """
    compact = text.strip().lower()
    position, units, total = 0, "", 0.0
    for match in _DURATION_PART_RE.finditer(compact):
        gap = compact[position : match.start()]
        unit = match.group(2)
        if gap.strip() or (units and "dhms".index(unit) <= "dhms".index(units[-1])):
            break
        units += unit
        total += float(match.group(1)) * _DURATION_UNITS[unit]
        position = match.end()
    if not units or compact[position:].strip():
        raise ConfigError(f"{redact(text)!r} is not a duration; {_DURATION_HINT}")
    return timedelta(seconds=total)


def normalize_database_url(url: str) -> str:
    """Point bare PostgreSQL URLs (as hosting providers hand them out) at psycopg 3, our driver.

    SQLAlchemy reads "postgresql://" as psycopg2, which we do not install, and no longer accepts
    the "postgres://" spelling at all.
    """
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url.removeprefix(prefix)
    return url


def _database_password(url: str) -> str | None:
    """The password in a database URL as written there (percent-encoded, if it needed to be)."""
    try:
        password = urlsplit(url).password
    except ValueError:  # not a URL we can take apart: nothing to hide then
        return None
    return password or None


def reveal(secret: SecretStr | None) -> str | None:
    """The value of an optional secret, for the one place that must hand it on (PTB, the web server)."""
    return None if secret is None else secret.get_secret_value()


# --- validators for values as the environment spells them (always strings) -------------------
# Values passed from code are already typed and skip the string parsing; they still meet the
# constraints (positive durations, port range) declared on the field.


def _duration(value: object) -> object:
    if isinstance(value, str):
        try:
            return parse_duration(value)
        except ConfigError as exc:
            raise ValueError(str(exc)) from None
    return value


def _pause_days(value: object) -> object:
    """A number of days (the variable's name says so); a duration with a unit is accepted too."""
    if isinstance(value, str):
        try:
            days = float(value)
        except ValueError:
            return _duration(value)
        if not 0 < days <= _MAX_PAUSE.days:  # also refuses nan and inf
            raise ValueError("out of range")
        return timedelta(days=days)
    return value


def _env_port(value: object) -> object:
    """1..65535 from the environment; code may pass 0 for "any free port" (tests do)."""
    if isinstance(value, str):
        port = int(value)
        if not 1 <= port <= 65535:
            raise ValueError("out of range")
        return port
    return value


def _database_url(value: object) -> object:
    if isinstance(value, str):
        if not re.match(r"^[a-z][a-z0-9+.-]*://", value, re.IGNORECASE):
            raise ValueError("no scheme")
        return normalize_database_url(value)
    return value


def _api_base_url(value: object) -> object:
    if isinstance(value, str):
        if not value.startswith(("http://", "https://")):
            raise ValueError("no http(s) scheme")
        if _TOKEN_ANYWHERE_RE.search(value):
            raise _Explained(
                f"{API_BASE_URL_ENV} must not contain the bot token (it is appended automatically); "
                f"set it to the server's base URL ending in /bot, e.g. {DEFAULT_API_BASE_URL}"
            )
        return value.rstrip("/")
    return value


def _log_level(value: object) -> object:
    return value.upper() if isinstance(value, str) else value


def _lower(value: object) -> object:
    return value.strip().lower() if isinstance(value, str) else value


def _webhook_url(value: object) -> object:
    if isinstance(value, str) and not value.startswith("https://"):
        raise ValueError("Telegram only delivers webhooks over HTTPS")
    return value


def _bot_token(value: SecretStr | None) -> SecretStr | None:
    if value is not None and not TOKEN_RE.match(value.get_secret_value()):
        raise ValueError("malformed")
    return value


def _webhook_secret(value: SecretStr | None) -> SecretStr | None:
    if value is not None and not _WEBHOOK_SECRET_RE.match(value.get_secret_value()):
        raise ValueError("malformed")
    return value


Duration = Annotated[timedelta, BeforeValidator(_duration), Field(gt=timedelta(0))]
Port = Annotated[int, BeforeValidator(_env_port), Field(ge=0, le=65535)]


class Settings(BaseModel):
    """Every setting of a bot process; each field reads the environment variable named by its alias."""

    model_config = ConfigDict(
        extra="ignore",
        frozen=True,
        validate_by_name=True,
        validate_by_alias=True,
        validate_default=True,
        hide_input_in_errors=True,  # a ValidationError that escapes must not quote a secret either
    )

    #: Required to run the bot; `tweakbot migrate` needs only the database.
    telegram_bot_token: Annotated[SecretStr | None, AfterValidator(_bot_token)] = Field(
        default=None, validation_alias=TOKEN_ENV
    )
    database_url: Annotated[str, BeforeValidator(_database_url)] = Field(
        default=DEFAULT_DATABASE_URL, validation_alias=DATABASE_URL_ENV
    )
    telegram_api_base_url: Annotated[str, BeforeValidator(_api_base_url)] = Field(
        default=DEFAULT_API_BASE_URL, validation_alias=API_BASE_URL_ENV
    )
    log_level: Annotated[LogLevel, BeforeValidator(_log_level)] = Field(
        default="INFO", validation_alias=LOG_LEVEL_ENV
    )
    #: Operator-wide pace (reminder / auto-play); None keeps the per-game presets.
    nudge_after: Duration | None = Field(default=None, validation_alias=NUDGE_AFTER_ENV)
    deadline_after: Duration | None = Field(default=None, validation_alias=DEADLINE_AFTER_ENV)
    pause_max: Annotated[timedelta, BeforeValidator(_pause_days), Field(gt=timedelta(0), le=_MAX_PAUSE)] = (
        Field(default=PAUSE_MAX, validation_alias=PAUSE_MAX_ENV)
    )
    lobby_ttl: Duration = Field(default=LOBBY_TTL, validation_alias=LOBBY_TTL_ENV)
    sweep_interval: Duration = Field(default=timedelta(seconds=30), validation_alias=SWEEP_INTERVAL_ENV)
    #: Messages a second this instance sends at most, across all chats. Telegram allows a bot
    #: about 30 in all, whichever process sends them: k instances sharing one token at its
    #: ceiling each take 25/k (the pacing is per process; docs/SCALING.md).
    send_rate: int = Field(default=DEFAULT_SEND_RATE, ge=1, le=TELEGRAM_RATE, validation_alias=SEND_RATE_ENV)
    event_loop: Annotated[EventLoop, BeforeValidator(_lower)] = Field(
        default=DEFAULT_EVENT_LOOP, validation_alias=EVENT_LOOP_ENV
    )
    #: Public HTTPS URL Telegram posts updates to; None means long polling.
    webhook_url: Annotated[str | None, BeforeValidator(_webhook_url)] = Field(
        default=None, validation_alias=WEBHOOK_URL_ENV
    )
    webhook_secret: Annotated[SecretStr | None, AfterValidator(_webhook_secret)] = Field(
        default=None, validation_alias=WEBHOOK_SECRET_ENV
    )
    webhook_listen: str = Field(default="0.0.0.0", validation_alias=WEBHOOK_LISTEN_ENV)
    webhook_port: Port = Field(default=8443, validation_alias=WEBHOOK_PORT_ENV)
    metrics_port: Port | None = Field(default=None, validation_alias=METRICS_PORT_ENV)

    @model_validator(mode="before")
    @classmethod
    def _blank_is_unset(cls, data: Any) -> Any:
        """An empty or blank value neither replaces a default nor fails validation: compose
        passes ``${VAR:-}`` through as "", and a stray space in ``.env`` is invisible."""
        if not isinstance(data, dict):
            return data
        return {
            key: value.strip() if isinstance(value, str) else value
            for key, value in data.items()
            if not (isinstance(value, str) and not value.strip())
        }

    @field_serializer("database_url")
    def _database_url_without_password(self, url: str) -> str:
        return redact(url)

    def __repr_args__(self) -> Iterator[tuple[str | None, Any]]:
        for name, value in super().__repr_args__():
            yield name, self.safe_database_url if name == "database_url" else value

    @property
    def use_webhook(self) -> bool:
        return self.webhook_url is not None

    @property
    def safe_database_url(self) -> str:
        """The database URL with any password hidden, for logs."""
        return redact(self.database_url)

    def bot_token(self) -> str:
        """The token for PTB. Only `tweakbot migrate` loads settings without one, and it never
        builds the bot; anywhere else a missing token is the operator's one-line error."""
        if self.telegram_bot_token is None:
            raise ConfigError(f"{TOKEN_ENV} is missing; {_BOTFATHER}")
        return self.telegram_bot_token.get_secret_value()

    def secret_values(self) -> list[str]:
        """Every secret in these settings, as the log redaction needs them (tgbot/logs.py)."""
        password = _database_password(self.database_url)
        candidates = [reveal(self.telegram_bot_token), reveal(self.webhook_secret), password]
        if password is not None:
            candidates.append(unquote(password))
        return [value for value in dict.fromkeys(candidates) if value]


def _env_names() -> dict[str, str]:
    """Field name -> environment variable, from the aliases (the single list of names)."""
    names: dict[str, str] = {}
    for field_name, info in Settings.model_fields.items():
        assert isinstance(info.validation_alias, str), field_name
        names[field_name] = info.validation_alias
    return names


ENV_NAMES: dict[str, str] = _env_names()
#: Every environment variable the bot reads; deploy files and the README are checked against it.
ENV_SETTINGS: tuple[str, ...] = tuple(ENV_NAMES.values())


def _hide_secrets(message: str, values: Mapping[str, Any]) -> str:
    """Belt and braces: a secret pasted into the wrong variable is still not quoted back."""
    secrets = [values.get(TOKEN_ENV), values.get(WEBHOOK_SECRET_ENV)]
    url = values.get(DATABASE_URL_ENV)
    if isinstance(url, str):
        secrets.append(_database_password(url))
    for secret in secrets:
        if isinstance(secret, str) and len(secret.strip()) >= 4:
            message = message.replace(secret.strip(), _HIDDEN)
    return message


def _config_error(error: ValidationError, values: Mapping[str, Any]) -> ConfigError:
    """The first problem (in field order, so the token comes first) as the operator's one line."""
    problem = error.errors()[0]
    key = str(problem["loc"][0]) if problem["loc"] else ""
    name = ENV_NAMES.get(key, key)
    cause = problem.get("ctx", {}).get("error")
    if isinstance(cause, _Explained):
        message = str(cause)
    elif name in _SECRET_PROBLEM:
        message = _SECRET_PROBLEM[name]
    else:
        raw = values.get(name, problem["input"])
        shown = redact(raw if isinstance(raw, str) else repr(raw))
        fix = _FIX.get(name, "see the settings table in README.md")
        message = f"{name}={shown!r} is not valid; {fix}"
    return ConfigError(_hide_secrets(message, values))


def _env_file_values(env_file: str | Path | None) -> dict[str, str]:
    """What ``.env`` says under the bot's exact variable names (none when there is no file).

    ``.env`` may hold other tools' variables too: with fields also settable by name,
    "log_level=DEBUG" there would otherwise set the log level. Only "LOG_LEVEL" should.
    """
    if env_file is None:
        return {}
    found = dotenv_values(env_file, encoding="utf-8")  # a missing file reads as empty
    return {name: value for name, value in found.items() if name in ENV_SETTINGS and value is not None}


def load_settings(
    environ: Mapping[str, str] | None = None,
    env_file: str | Path | None = ".env",
    *,
    require_token: bool = True,
) -> Settings:
    """Read the settings from ``environ`` (default: the process environment) over ``env_file``.

    A missing ``.env`` is fine: in production everything comes from the environment.
    ``require_token=False`` is for `tweakbot migrate`, which needs only the database.
    """
    environ = os.environ if environ is None else environ
    # A blank variable is unset, so that ``.env`` still applies (compose passes ``${VAR:-}``).
    passed = {name: environ[name] for name in ENV_SETTINGS if name in environ and environ[name].strip()}
    values = {**_env_file_values(env_file), **passed}
    try:
        settings = Settings.model_validate(values)
    except ValidationError as exc:
        raise _config_error(exc, values) from None
    if require_token:
        settings.bot_token()  # the operator's one-line error when it is missing
    return settings
