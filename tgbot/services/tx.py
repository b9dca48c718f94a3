"""What the handlers need to know of a transaction: its type, and that it may fail for want of a
database (they never import the store themselves)."""

from __future__ import annotations

from sqlmodel import Session as Tx

from ..store.db import DatabaseTrouble

__all__ = ["DatabaseTrouble", "Tx"]
