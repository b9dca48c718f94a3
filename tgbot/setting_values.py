"""How a setting is spelled in the environment: the checks that turn its text into a value
(tgbot/config.py declares which setting takes which), and the redaction that keeps a secret out
of what is said back about it.

Each check takes a value as the environment gives it (a string) and returns it typed; a value
passed from code is already typed and goes through unchanged, to meet the constraints declared
on its field (positive durations, the port range).
"""

from __future__ import annotations

import re
from datetime import timedelta
from urllib.parse import urlsplit

from pydantic import SecretStr

TOKEN_RE = re.compile(r"^\d{5,12}:[A-Za-z0-9_-]{30,}$")
TOKEN_ANYWHERE_RE = re.compile(r"\d{5,12}:[A-Za-z0-9_-]{30,}")
_URL_PASSWORD_RE = re.compile(r"(://[^:/@\s]*):[^@/\s]*@")
_DURATION_PART_RE = re.compile(r"(\d+(?:\.\d+)?)\s*([dhms])")
_DURATION_UNITS = {"d": 86400.0, "h": 3600.0, "m": 60.0, "s": 1.0}
_WEBHOOK_SECRET_RE = re.compile(r"^[A-Za-z0-9_-]{1,256}$")
DURATION_HINT = "use a number with a unit s, m, h or d, e.g. 30s, 10m, 2h, 1d or 1h30m"
MAX_PAUSE = timedelta(days=3650)


class ConfigError(Exception):
    """A setting is missing or wrong. ``str()`` is one line: what is wrong, then how to fix it."""

    def __init__(self, message: str) -> None:
        super().__init__(" ".join(message.split()))


class Explained(ValueError):
    """A validation failure whose message is already the whole operator-facing line."""


def redact(text: str) -> str:
    """Hide bot tokens and URL passwords in a value before it is echoed back to the operator."""
    return _URL_PASSWORD_RE.sub(r"\1:***@", TOKEN_ANYWHERE_RE.sub("<token>", text))


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
        raise ConfigError(f"{redact(text)!r} is not a duration; {DURATION_HINT}")
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


def database_password(url: str) -> str | None:
    """The password in a database URL as written there (percent-encoded, if it needed to be)."""
    try:
        password = urlsplit(url).password
    except ValueError:  # not a URL we can take apart: nothing to hide then
        return None
    return password or None


def duration(value: object) -> object:
    if isinstance(value, str):
        try:
            return parse_duration(value)
        except ConfigError as exc:
            raise ValueError(str(exc)) from None
    return value


def pause_days(value: object) -> object:
    """A number of days (the variable's name says so); a duration with a unit is accepted too."""
    if isinstance(value, str):
        try:
            days = float(value)
        except ValueError:
            return duration(value)
        if not 0 < days <= MAX_PAUSE.days:  # also refuses nan and inf
            raise ValueError("out of range")
        return timedelta(days=days)
    return value


def env_port(value: object) -> object:
    """1..65535 from the environment; code may pass 0 for "any free port" (tests do)."""
    if isinstance(value, str):
        port = int(value)
        if not 1 <= port <= 65535:
            raise ValueError("out of range")
        return port
    return value


def database_url(value: object) -> object:
    if isinstance(value, str):
        if not re.match(r"^[a-z][a-z0-9+.-]*://", value, re.IGNORECASE):
            raise ValueError("no scheme")
        return normalize_database_url(value)
    return value


def upper(value: object) -> object:
    return value.upper() if isinstance(value, str) else value


def lower(value: object) -> object:
    return value.strip().lower() if isinstance(value, str) else value


def https_url(value: object) -> object:
    if isinstance(value, str) and not value.startswith("https://"):
        raise ValueError("Telegram only delivers webhooks over HTTPS")
    return value


def bot_token(value: SecretStr | None) -> SecretStr | None:
    if value is not None and not TOKEN_RE.match(value.get_secret_value()):
        raise ValueError("malformed")
    return value


def webhook_secret(value: SecretStr | None) -> SecretStr | None:
    if value is not None and not _WEBHOOK_SECRET_RE.match(value.get_secret_value()):
        raise ValueError("malformed")
    return value
