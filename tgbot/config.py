"""Settings from the environment, with a ``.env`` file as a convenience for local runs.

Everything is validated at start-up, in one place, because a bot that starts with a bad value
fails later in confusing ways (a malformed token only shows up as a 404 from Telegram, a bad
duration as a sweep that never fires). Errors are a single line naming the variable and the fix,
so they read well both in a terminal and in `journalctl`/`docker logs`.

Secrets (the bot token, the webhook secret, a database password) never appear in an error
message, a repr or a dump: those end up in logs and bug reports. The token and the webhook
secret are ``SecretStr``; the database URL is a plain string (SQLAlchemy needs it whole) that is
shown with its password masked.

`Settings` is pydantic-settings' ``BaseSettings``: `load_settings()` builds it from the
environment over ``.env``, by the variables' exact names; `Settings(...)` built from plain values
in code (tests, tools) reads nothing else, so they get exactly what they pass.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from datetime import timedelta
from pathlib import Path
from typing import Annotated, Any, Literal, get_args
from urllib.parse import unquote

from pydantic import (
    AfterValidator,
    BeforeValidator,
    Field,
    SecretStr,
    ValidationError,
    field_serializer,
    model_validator,
)
from pydantic.fields import FieldInfo
from pydantic_settings import (
    BaseSettings,
    DotEnvSettingsSource,
    EnvSettingsSource,
    InitSettingsSource,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
)

from . import setting_values as check
from .event_loop import DEFAULT_EVENT_LOOP, EVENT_LOOPS, EventLoop
from .setting_values import (
    DURATION_HINT,
    MAX_PAUSE,
    Explained,
    database_password,
    redact,
)
from .setting_values import ConfigError as ConfigError  # raised by load_settings, caught by its callers
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

_HIDDEN = "<hidden>"

_BOTFATHER = (
    "create a bot with @BotFather in Telegram (/newbot), "
    f"then set {TOKEN_ENV}=<token> in the environment or in .env"
)
_DURATION_FIX = f"{DURATION_HINT}, or leave it unset"
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


def reveal(secret: SecretStr | None) -> str | None:
    """The value of an optional secret, for the one place that must hand it on (PTB, the web server)."""
    return None if secret is None else secret.get_secret_value()


def _api_base_url(value: object) -> object:
    if isinstance(value, str):
        if not value.startswith(("http://", "https://")):
            raise ValueError("no http(s) scheme")
        if check.TOKEN_ANYWHERE_RE.search(value):
            raise Explained(
                f"{API_BASE_URL_ENV} must not contain the bot token (it is appended automatically); "
                f"set it to the server's base URL ending in /bot, e.g. {DEFAULT_API_BASE_URL}"
            )
        return value.rstrip("/")
    return value


Duration = Annotated[timedelta, BeforeValidator(check.duration), Field(gt=timedelta(0))]
Port = Annotated[int, BeforeValidator(check.env_port), Field(ge=0, le=65535)]
PauseDays = Annotated[timedelta, BeforeValidator(check.pause_days), Field(gt=timedelta(0), le=MAX_PAUSE)]


class _Environment(EnvSettingsSource):
    """The process environment, where a blank value (spaces only) is unset, as an empty one is
    (``env_ignore_empty``): ``.env`` then still applies."""

    def prepare_field_value(self, field_name: str, field: FieldInfo, value: Any, is_complex: bool) -> Any:
        if isinstance(value, str) and not value.strip():
            return None
        return super().prepare_field_value(field_name, field, value, is_complex)


class Settings(BaseSettings):
    """Every setting of a bot process; each field reads the environment variable named by its
    alias, and only that name (not the field's: ``.env`` may hold other tools' variables)."""

    model_config = SettingsConfigDict(
        env_file=".env",
        env_file_encoding="utf-8",
        env_ignore_empty=True,  # compose passes ``${VAR:-}`` through as ""
        case_sensitive=True,
        extra="ignore",
        frozen=True,
        validate_default=True,
        hide_input_in_errors=True,  # a ValidationError that escapes must not quote a secret either
    )

    def __init__(self, **values: Any) -> None:
        """Code names a setting by its field (``Settings(send_rate=12)``), the environment only
        by its variable."""
        super().__init__(**{ENV_NAMES.get(name, name): value for name, value in values.items()})

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        """Values passed from code are the whole settings; with none, the environment over ``.env``."""
        if isinstance(init_settings, InitSettingsSource) and init_settings.init_kwargs:
            return (init_settings,)
        return (_Environment(settings_cls), dotenv_settings)

    #: Required to run the bot; `tweakbot migrate` needs only the database.
    telegram_bot_token: Annotated[SecretStr | None, AfterValidator(check.bot_token)] = Field(
        default=None, validation_alias=TOKEN_ENV
    )
    database_url: Annotated[str, BeforeValidator(check.database_url)] = Field(
        default=DEFAULT_DATABASE_URL, validation_alias=DATABASE_URL_ENV
    )
    telegram_api_base_url: Annotated[str, BeforeValidator(_api_base_url)] = Field(
        default=DEFAULT_API_BASE_URL, validation_alias=API_BASE_URL_ENV
    )
    log_level: Annotated[LogLevel, BeforeValidator(check.upper)] = Field(
        default="INFO", validation_alias=LOG_LEVEL_ENV
    )
    #: Operator-wide pace (reminder / auto-play); None keeps the per-game presets.
    nudge_after: Duration | None = Field(default=None, validation_alias=NUDGE_AFTER_ENV)
    deadline_after: Duration | None = Field(default=None, validation_alias=DEADLINE_AFTER_ENV)
    pause_max: PauseDays = Field(default=PAUSE_MAX, validation_alias=PAUSE_MAX_ENV)
    lobby_ttl: Duration = Field(default=LOBBY_TTL, validation_alias=LOBBY_TTL_ENV)
    sweep_interval: Duration = Field(default=timedelta(seconds=30), validation_alias=SWEEP_INTERVAL_ENV)
    #: Messages a second this instance sends at most, across all chats. Telegram allows a bot
    #: about 30 in all, whichever process sends them: k instances sharing one token at its
    #: ceiling each take 25/k (the pacing is per process; docs/SCALING.md).
    send_rate: int = Field(default=DEFAULT_SEND_RATE, ge=1, le=TELEGRAM_RATE, validation_alias=SEND_RATE_ENV)
    event_loop: Annotated[EventLoop, BeforeValidator(check.lower)] = Field(
        default=DEFAULT_EVENT_LOOP, validation_alias=EVENT_LOOP_ENV
    )
    #: Public HTTPS URL Telegram posts updates to; None means long polling.
    webhook_url: Annotated[str | None, BeforeValidator(check.https_url)] = Field(
        default=None, validation_alias=WEBHOOK_URL_ENV
    )
    webhook_secret: Annotated[SecretStr | None, AfterValidator(check.webhook_secret)] = Field(
        default=None, validation_alias=WEBHOOK_SECRET_ENV
    )
    webhook_listen: str = Field(default="0.0.0.0", validation_alias=WEBHOOK_LISTEN_ENV)
    webhook_port: Port = Field(default=8443, validation_alias=WEBHOOK_PORT_ENV)
    metrics_port: Port | None = Field(default=None, validation_alias=METRICS_PORT_ENV)

    @model_validator(mode="before")
    @classmethod
    def _blank_is_unset(cls, data: Any) -> Any:
        """A blank value neither replaces a default nor fails validation (a stray space in
        ``.env`` is invisible), and values are read without the spaces around them."""
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
        password = database_password(self.database_url)
        candidates = [reveal(self.telegram_bot_token), reveal(self.webhook_secret), password]
        if password is not None:
            candidates.append(unquote(password))
        return [value for value in dict.fromkeys(candidates) if value]


#: Field name -> environment variable, from the aliases (the single list of names).
ENV_NAMES: dict[str, str] = {name: str(info.validation_alias) for name, info in Settings.model_fields.items()}
#: Every environment variable the bot reads; deploy files and docs/operating.md are checked against it.
ENV_SETTINGS: tuple[str, ...] = tuple(ENV_NAMES.values())


def _hide_secrets(message: str, values: Mapping[str, Any]) -> str:
    """Belt and braces: a secret pasted into the wrong variable is still not quoted back."""
    secrets = [values.get(TOKEN_ENV), values.get(WEBHOOK_SECRET_ENV)]
    url = values.get(DATABASE_URL_ENV)
    if isinstance(url, str):
        secrets.append(database_password(url))
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
    if isinstance(cause, Explained):
        message = str(cause)
    elif name in _SECRET_PROBLEM:
        message = _SECRET_PROBLEM[name]
    else:
        raw = values.get(name, problem["input"])
        shown = redact(raw if isinstance(raw, str) else repr(raw))
        fix = _FIX.get(name, "see the settings table in docs/operating.md")
        message = f"{name}={shown!r} is not valid; {fix}"
    return ConfigError(_hide_secrets(message, values))


def _raw_values(env_file: str | Path | None) -> dict[str, Any]:
    """What the environment over ``.env`` says, unvalidated: for the error's wording alone."""
    found = DotEnvSettingsSource(Settings, env_file=env_file)() if env_file is not None else {}
    return {**found, **_Environment(Settings)()}


def load_settings(env_file: str | Path | None = ".env", *, require_token: bool = True) -> Settings:
    """Read the settings from the process environment over ``env_file`` (None: no file).

    A missing ``.env`` is fine: in production everything comes from the environment.
    ``require_token=False`` is for `tweakbot migrate`, which needs only the database.
    """
    try:
        settings = Settings(_env_file=env_file)
    except ValidationError as exc:
        raise _config_error(exc, _raw_values(env_file)) from None
    if require_token:
        settings.bot_token()  # the operator's one-line error when it is missing
    return settings
