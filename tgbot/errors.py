"""Why a request was refused, as a stable keyword the handlers translate."""

from __future__ import annotations


class ServiceError(Exception):
    def __init__(self, reason: str, **details: object) -> None:
        super().__init__(reason)
        self.reason = reason
        self.details = details
