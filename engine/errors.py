"""Errors raised by the engine.

Each failure has its own class so a caller (the bot, a test, the simulator) can
tell a stale tap from a forged one without parsing messages.
"""

from __future__ import annotations


class EngineError(Exception):
    """Base of every error the engine raises on purpose."""

    code = "error"


class GameOverError(EngineError):
    code = "game_over"


class NotYourTurnError(EngineError):
    code = "not_your_turn"


class MalformedActionError(EngineError):
    """The action code or object cannot be understood at all."""

    code = "malformed"


class IllegalActionError(EngineError):
    """The action is well formed but the rules forbid it now.

    `reason` is a stable keyword (e.g. ``wrong_total``) so the bot can explain it
    in the player's language.
    """

    code = "illegal"

    def __init__(self, reason: str, message: str = "", **details: object) -> None:
        super().__init__(message or reason)
        self.reason = reason
        self.details = details


class ConfigError(EngineError):
    code = "config"


class SchemaError(EngineError):
    """A saved game cannot be loaded (unknown schema version or broken data)."""

    code = "schema"
