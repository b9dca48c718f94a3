"""Why a request was refused (a stable keyword the handlers translate), or could not be answered."""

from __future__ import annotations


class DatabaseTrouble(Exception):
    """The database did not answer in time, or not at all: the update gets an apology."""


class ServiceError(Exception):
    def __init__(self, reason: str, **details: object) -> None:
        super().__init__(reason)
        self.reason = reason
        self.details = details
