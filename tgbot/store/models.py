"""Database tables (DESIGN §2). The game row is the single source of truth.

Times are stored as naive UTC datetimes so SQLite and PostgreSQL compare them
the same way. `wake_at` is the earliest moment the sweep must look at a game
(reminder, deadline, lobby expiry, pause expiry); one index on it keeps the
sweep cheap however many games exist.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, Column, DateTime, Index, Text, UniqueConstraint
from sqlmodel import Field, SQLModel

LOBBY = "lobby"
PLAYING = "playing"
PAUSED = "paused"
FINISHED = "finished"
CANCELLED = "cancelled"
ABANDONED = "abandoned"
EXPIRED = "expired"

ACTIVE_STATUSES = (LOBBY, PLAYING, PAUSED)


def _utc_column(nullable: bool) -> Column:  # type: ignore[type-arg]
    """A naive-UTC timestamp column (the same on SQLite and PostgreSQL)."""
    return Column(DateTime(timezone=False), nullable=nullable)


class Chat(SQLModel, table=True):
    __tablename__ = "chats"

    id: int = Field(sa_column=Column(BigInteger, primary_key=True, autoincrement=False))
    title: str | None = Field(default=None, max_length=128)
    language: str | None = Field(default=None, max_length=8)
    quiet_start: int | None = None  # hour 0-23, local time
    quiet_end: int | None = None
    utc_offset_minutes: int = 0
    bot_removed: bool = False
    created_at: datetime = Field(sa_column=_utc_column(nullable=False))


class User(SQLModel, table=True):
    __tablename__ = "users"

    id: int = Field(sa_column=Column(BigInteger, primary_key=True, autoincrement=False))
    first_name: str = Field(default="", max_length=128)
    username: str | None = Field(default=None, max_length=64)
    tg_language: str | None = Field(default=None, max_length=16)
    language: str | None = Field(default=None, max_length=8)  # /language in private overrides tg_language
    can_dm: bool = False
    created_at: datetime = Field(sa_column=_utc_column(nullable=False))


class Game(SQLModel, table=True):
    __tablename__ = "games"
    __table_args__ = (
        Index("ix_games_chat_status", "chat_id", "status"),
        Index("ix_games_wake_at", "wake_at"),
    )

    id: int | None = Field(default=None, primary_key=True)
    chat_id: int = Field(sa_column=Column(BigInteger, nullable=False))
    thread_id: int | None = Field(default=None, sa_column=Column(BigInteger, nullable=True))
    status: str = Field(default=LOBBY, max_length=16)
    version: int = 0
    settings: str = Field(default="{}", sa_column=Column(Text, nullable=False))
    state: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    seed: int = Field(default=0, sa_column=Column(BigInteger, nullable=False))
    creator_id: int = Field(sa_column=Column(BigInteger, nullable=False))
    language: str = Field(default="en", max_length=8)
    lobby_message_id: int | None = None
    board_message_id: int | None = None
    current_seat: int | None = None
    turn_started_at: datetime | None = Field(default=None, sa_column=_utc_column(nullable=True))
    next_nudge_at: datetime | None = Field(default=None, sa_column=_utc_column(nullable=True))
    deadline_at: datetime | None = Field(default=None, sa_column=_utc_column(nullable=True))
    nudges_sent: int = 0
    paused_until: datetime | None = Field(default=None, sa_column=_utc_column(nullable=True))
    wake_at: datetime | None = Field(default=None, sa_column=_utc_column(nullable=True))
    created_at: datetime = Field(sa_column=_utc_column(nullable=False))
    updated_at: datetime = Field(sa_column=_utc_column(nullable=False))
    finished_at: datetime | None = Field(default=None, sa_column=_utc_column(nullable=True))


class GamePlayer(SQLModel, table=True):
    __tablename__ = "game_players"
    __table_args__ = (UniqueConstraint("game_id", "seat", name="uq_game_players_seat"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="games.id", index=True)
    seat: int
    user_id: int | None = Field(default=None, sa_column=Column(BigInteger, nullable=True, index=True))
    name: str = Field(max_length=128)
    ai_level: str | None = Field(default=None, max_length=16)  # computer seat
    away: bool = False
    left: bool = False
    timeouts: int = 0  # consecutive auto-plays
    panel_message_id: int | None = None  # private turn panel


class Move(SQLModel, table=True):
    """Append-only move log: replay, history and audit.

    `seq` equals the game version the move produced, so the log of a game is
    gap-free and a duplicate can never be written (unique constraint).
    """

    __tablename__ = "moves"
    __table_args__ = (UniqueConstraint("game_id", "seq", name="uq_moves_game_seq"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="games.id", index=True)
    seq: int
    seat: int | None = None
    code: str = Field(max_length=32)
    source: str = Field(default="player", max_length=16)  # player | idle | away | ai | system
    at: datetime = Field(sa_column=_utc_column(nullable=False))


class PlayerStats(SQLModel, table=True):
    """A person's running totals in one group, updated when a game ends (same transaction).

    Counted: finished games (won or not) and abandoned games (played, nobody wins).
    Cancelled and expired games never count. Computer seats are kept apart in
    `computer_stats`. A shared win counts as a win for every winner.
    """

    __tablename__ = "player_stats"

    chat_id: int = Field(sa_column=Column(BigInteger, primary_key=True, autoincrement=False))
    user_id: int = Field(sa_column=Column(BigInteger, primary_key=True, autoincrement=False))
    games: int = 0
    wins: int = 0
    rounds: int = 0  # finished rounds played
    points: int = 0  # points of those rounds
    tweaks: int = 0
    t_played: int = 0  # [T!] cards played
    updated_at: datetime = Field(sa_column=_utc_column(nullable=False))


class ComputerStats(SQLModel, table=True):
    """The computer players' totals in one group, per difficulty (one row per level, counted per seat)."""

    __tablename__ = "computer_stats"

    chat_id: int = Field(sa_column=Column(BigInteger, primary_key=True, autoincrement=False))
    level: str = Field(primary_key=True, max_length=16)  # easy | normal | hard
    games: int = 0
    wins: int = 0
    rounds: int = 0
    points: int = 0
    tweaks: int = 0
    t_played: int = 0
    updated_at: datetime = Field(sa_column=_utc_column(nullable=False))
