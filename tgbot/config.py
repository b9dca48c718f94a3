"""Settings from the environment, with a ``.env`` file as a convenience for local runs.

Everything is validated at start-up, in one place, because a bot that starts with a bad value
fails later in confusing ways (a malformed token only shows up as a 404 from Telegram, a bad
duration as a sweep that never fires). Errors are a single line naming the variable and the fix,
so they read well both in a terminal and in `journalctl`/`docker logs`.

Secrets (the bot token, the webhook secret, a database password) never appear in an error
message or a repr: those end up in logs and bug reports.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import TypeVar

from dotenv import dotenv_values

T = TypeVar("T")

TOKEN_ENV = "TELEGRAM_BOT_TOKEN"
DATABASE_URL_ENV = "DATABASE_URL"
API_BASE_URL_ENV = "TELEGRAM_API_BASE_URL"
LOG_LEVEL_ENV = "LOG_LEVEL"
NUDGE_AFTER_ENV = "TWEAKBOT_NUDGE_AFTER"
DEADLINE_AFTER_ENV = "TWEAKBOT_DEADLINE_AFTER"
PAUSE_MAX_ENV = "TWEAKBOT_PAUSE_MAX_DAYS"
LOBBY_TTL_ENV = "TWEAKBOT_LOBBY_TTL"
SWEEP_INTERVAL_ENV = "TWEAKBOT_SWEEP_INTERVAL"
WEBHOOK_URL_ENV = "WEBHOOK_URL"
WEBHOOK_SECRET_ENV = "WEBHOOK_SECRET"
WEBHOOK_LISTEN_ENV = "WEBHOOK_LISTEN"
WEBHOOK_PORT_ENV = "WEBHOOK_PORT"
METRICS_PORT_ENV = "METRICS_PORT"

#: Every environment variable the bot reads; deploy files are checked against this list.
ENV_SETTINGS: tuple[str, ...] = (
    TOKEN_ENV,
    DATABASE_URL_ENV,
    API_BASE_URL_ENV,
    LOG_LEVEL_ENV,
    NUDGE_AFTER_ENV,
    DEADLINE_AFTER_ENV,
    PAUSE_MAX_ENV,
    LOBBY_TTL_ENV,
    SWEEP_INTERVAL_ENV,
    WEBHOOK_URL_ENV,
    WEBHOOK_SECRET_ENV,
    WEBHOOK_LISTEN_ENV,
    WEBHOOK_PORT_ENV,
    METRICS_PORT_ENV,
)

DEFAULT_DATABASE_URL = "sqlite:///tweakbot.sqlite3"
DEFAULT_API_BASE_URL = "https://api.telegram.org/bot"
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")

TOKEN_RE = re.compile(r"^\d{5,12}:[A-Za-z0-9_-]{30,}$")
_TOKEN_ANYWHERE_RE = re.compile(r"\d{5,12}:[A-Za-z0-9_-]{30,}")
_URL_PASSWORD_RE = re.compile(r"(://[^:/@\s]*):[^@/\s]*@")
_DURATION_PART_RE = re.compile(r"(\d+(?:\.\d+)?)\s*([dhms])")
_DURATION_UNITS = {"d": 86400.0, "h": 3600.0, "m": 60.0, "s": 1.0}
_WEBHOOK_SECRET_RE = re.compile(r"^[A-Za-z0-9_-]{1,256}$")
_DURATION_HINT = "use a number with a unit s, m, h or d, e.g. 30s, 10m, 2h, 1d or 1h30m"


class ConfigError(Exception):
    """A setting is missing or wrong. ``str()`` is one line: what is wrong, then how to fix it."""

    def __init__(self, message: str) -> None:
        super().__init__(" ".join(message.split()))


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


@dataclass(frozen=True, repr=False)
class Settings:
    telegram_bot_token: str
    database_url: str = DEFAULT_DATABASE_URL
    telegram_api_base_url: str = DEFAULT_API_BASE_URL
    log_level: str = "INFO"
    #: Operator-wide pace (reminder / auto-play); None keeps the per-game presets.
    nudge_after: timedelta | None = None
    deadline_after: timedelta | None = None
    pause_max: timedelta = timedelta(days=7)
    lobby_ttl: timedelta = timedelta(hours=24)
    sweep_interval: timedelta = timedelta(seconds=30)
    #: Public HTTPS URL Telegram posts updates to; None means long polling.
    webhook_url: str | None = None
    webhook_secret: str | None = None
    webhook_listen: str = "0.0.0.0"
    webhook_port: int = 8443
    metrics_port: int | None = None

    @property
    def use_webhook(self) -> bool:
        return self.webhook_url is not None

    @property
    def safe_database_url(self) -> str:
        """The database URL with any password hidden, for logs."""
        return redact(self.database_url)

    def __repr__(self) -> str:
        shown = {
            "telegram_bot_token": "'<hidden>'",
            "database_url": repr(self.safe_database_url),
            "webhook_secret": "None" if self.webhook_secret is None else "'<hidden>'",
        }
        fields = ", ".join(
            f"{name}={shown.get(name, repr(getattr(self, name)))}" for name in self.__dataclass_fields__
        )
        return f"Settings({fields})"

    __str__ = __repr__


def _read(environ: Mapping[str, str], env_file: str | Path | None) -> dict[str, str]:
    """Merge the .env file under the environment, keeping only our names and non-empty values.

    An empty variable counts as unset (compose files pass ``${VAR:-}`` through as ""), so it
    neither overrides the file nor replaces a default.
    """
    values: dict[str, str] = {}
    if env_file is not None and Path(env_file).is_file():
        for name, value in dotenv_values(env_file).items():
            if name in ENV_SETTINGS and value is not None and value.strip():
                values[name] = value.strip()
    for name in ENV_SETTINGS:
        value = environ.get(name)
        if value is not None and value.strip():
            values[name] = value.strip()
    return values


def _token(values: Mapping[str, str]) -> str:
    token = values.get(TOKEN_ENV)
    problem = "is missing" if token is None else None if TOKEN_RE.match(token) else "is not a valid bot token"
    if problem is not None:
        raise ConfigError(
            f"{TOKEN_ENV} {problem}; create a bot with @BotFather in Telegram (/newbot), "
            f"then set {TOKEN_ENV}=<token> in the environment or in .env"
        )
    assert token is not None
    return token


def _optional(values: Mapping[str, str], name: str, parse: Callable[[str], T], fix: str) -> T | None:
    raw = values.get(name)
    if raw is None:
        return None
    try:
        return parse(raw)
    except ValueError:
        raise ConfigError(f"{name}={redact(raw)!r} is not valid; {fix}") from None


def _positive_duration(raw: str) -> timedelta:
    try:
        duration = parse_duration(raw)
    except ConfigError as exc:
        raise ValueError(str(exc)) from None
    if duration <= timedelta(0):
        raise ValueError("not positive")
    return duration


def _pause_days(raw: str) -> timedelta:
    """A number of days (the variable's name says so); a duration with a unit is accepted too."""
    try:
        days = float(raw)
    except ValueError:
        return _positive_duration(raw)
    if not days > 0 or days > 3650:
        raise ValueError("out of range")
    return timedelta(days=days)


def _port(raw: str) -> int:
    port = int(raw)
    if not 1 <= port <= 65535:
        raise ValueError("out of range")
    return port


def _database_url(raw: str) -> str:
    if not re.match(r"^[a-z][a-z0-9+.-]*://", raw, re.IGNORECASE):
        raise ValueError("no scheme")
    return normalize_database_url(raw)


def _api_base_url(raw: str) -> str:
    if not raw.startswith(("http://", "https://")):
        raise ValueError("no http(s) scheme")
    if _TOKEN_ANYWHERE_RE.search(raw):
        raise ConfigError(
            f"{API_BASE_URL_ENV} must not contain the bot token (it is appended automatically); "
            f"set it to the server's base URL ending in /bot, e.g. {DEFAULT_API_BASE_URL}"
        )
    return raw.rstrip("/")


def _log_level(raw: str) -> str:
    level = raw.upper()
    if level not in LOG_LEVELS:
        raise ValueError("unknown level")
    return level


def _webhook_url(raw: str) -> str:
    if not raw.startswith("https://"):
        raise ValueError("Telegram only delivers webhooks over HTTPS")
    return raw


def load_settings(environ: Mapping[str, str] | None = None, env_file: str | Path | None = ".env") -> Settings:
    """Read the settings from ``environ`` (default: the process environment) over ``env_file``.

    A missing ``.env`` is fine: in production everything comes from the environment.
    """
    values = _read(os.environ if environ is None else environ, env_file)
    defaults = Settings(telegram_bot_token="")
    token = _token(values)
    secret_value = values.get(WEBHOOK_SECRET_ENV)
    if secret_value is not None and not _WEBHOOK_SECRET_RE.match(secret_value):
        # Not routed through _optional: that would echo the secret back.
        raise ConfigError(
            f"{WEBHOOK_SECRET_ENV} may only contain A-Z, a-z, 0-9, _ and - (1 to 256 characters); "
            "generate one with: python -c 'import secrets; print(secrets.token_urlsafe(32))'"
        )
    duration = f"{_DURATION_HINT}, or leave it unset"
    return Settings(
        telegram_bot_token=token,
        database_url=_optional(
            values,
            DATABASE_URL_ENV,
            _database_url,
            "use sqlite:///path/to/tweakbot.sqlite3 or postgresql://user:password@host:5432/dbname",
        )
        or defaults.database_url,
        telegram_api_base_url=_optional(
            values,
            API_BASE_URL_ENV,
            _api_base_url,
            f"it must start with http:// or https://, e.g. {DEFAULT_API_BASE_URL} (the default)",
        )
        or defaults.telegram_api_base_url,
        log_level=_optional(values, LOG_LEVEL_ENV, _log_level, f"use one of {', '.join(LOG_LEVELS)}")
        or defaults.log_level,
        nudge_after=_optional(values, NUDGE_AFTER_ENV, _positive_duration, duration),
        deadline_after=_optional(values, DEADLINE_AFTER_ENV, _positive_duration, duration),
        pause_max=_optional(
            values, PAUSE_MAX_ENV, _pause_days, "use a number of days between 0 and 3650, e.g. 7"
        )
        or defaults.pause_max,
        lobby_ttl=_optional(values, LOBBY_TTL_ENV, _positive_duration, duration) or defaults.lobby_ttl,
        sweep_interval=_optional(values, SWEEP_INTERVAL_ENV, _positive_duration, duration)
        or defaults.sweep_interval,
        webhook_url=_optional(
            values,
            WEBHOOK_URL_ENV,
            _webhook_url,
            "use the public https:// URL Telegram should post updates to, or leave it unset for polling",
        ),
        webhook_secret=secret_value,
        webhook_listen=values.get(WEBHOOK_LISTEN_ENV, defaults.webhook_listen),
        webhook_port=_optional(values, WEBHOOK_PORT_ENV, _port, "use a port number between 1 and 65535")
        or defaults.webhook_port,
        metrics_port=_optional(
            values, METRICS_PORT_ENV, _port, "use a port number between 1 and 65535, or leave it unset"
        ),
    )
