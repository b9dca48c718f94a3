"""Database tables (DESIGN §2). The game row is the single source of truth.

Times are stored as naive UTC datetimes so SQLite and PostgreSQL compare them
the same way. `wake_at` is the earliest moment the sweep must look at a game
(reminder, deadline, lobby expiry, pause expiry); one index on it keeps the
sweep cheap however many games exist.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import BigInteger, Column, DateTime, Index, Integer, Text, UniqueConstraint
from sqlalchemy.types import TypeDecorator
from sqlmodel import AutoString, Field, SQLModel

from .surfaces import Surface, SurfaceColumn


class GameStatus(StrEnum):
    """Where a game is; the value is the `status` column's text. A game ends one way
    (`services.game_clock.end_game`), in one of `ENDED_STATUSES`."""

    LOBBY = "lobby"
    PLAYING = "playing"
    PAUSED = "paused"
    FINISHED = "finished"  # played to the end
    CANCELLED = "cancelled"  # ended without a result (/cancel, a second lobby in a chat)
    ABANDONED = "abandoned"  # nobody plays any more: scores kept, won by nobody
    EXPIRED = "expired"  # a lobby nobody started in time


class GameStatusColumn(TypeDecorator[GameStatus]):
    """The `status` column: a `GameStatus` in the bot, its text in the database."""

    impl = AutoString(16)
    cache_ok = True

    def process_bind_param(self, value: str | None, dialect: Any) -> str | None:
        return None if value is None else GameStatus(value).value

    def process_result_value(self, value: str | None, dialect: Any) -> GameStatus | None:
        return None if value is None else GameStatus(value)


# The members under their old names.
LOBBY = GameStatus.LOBBY
PLAYING = GameStatus.PLAYING
PAUSED = GameStatus.PAUSED
FINISHED = GameStatus.FINISHED
CANCELLED = GameStatus.CANCELLED
ABANDONED = GameStatus.ABANDONED
EXPIRED = GameStatus.EXPIRED

ACTIVE_STATUSES = (LOBBY, PLAYING, PAUSED)
ENDED_STATUSES = (FINISHED, CANCELLED, ABANDONED, EXPIRED)
#: Typed card values a draft keeps at most (more is no sum of a hand card and a table).
TYPED_DIGITS = 24


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


#: The game's version, its compare-and-set guard: every UPDATE of a game row names the version
#: it read (the ORM's ``version_id_col``), so a write based on an outdated read changes nothing
#: and fails (StaleDataError), and all of a transaction's changes to a game are one UPDATE.
_GAME_VERSION = Column("version", Integer, nullable=False, default=0)


class Game(SQLModel, table=True):
    __tablename__ = "games"
    __table_args__ = (
        Index("ix_games_chat_status", "chat_id", "status"),
        Index("ix_games_wake_at", "wake_at"),
        # A message shows one game (NULLs, the games of chats the bot is in, never conflict).
        Index("ux_games_inline_id", "inline_id", unique=True),
        Index("ix_games_chat_instance", "chat_instance"),
    )
    __mapper_args__ = {"version_id_col": _GAME_VERSION, "version_id_generator": False}

    id: int | None = Field(default=None, primary_key=True)
    chat_id: int = Field(sa_column=Column(BigInteger, nullable=False))
    thread_id: int | None = Field(default=None, sa_column=Column(BigInteger, nullable=True))
    status: GameStatus = Field(default=LOBBY, sa_column=Column(GameStatusColumn, nullable=False))
    version: int = Field(default=0, sa_column=_GAME_VERSION)
    settings: str = Field(default="{}", sa_column=Column(Text, nullable=False))
    state: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    seed: int = Field(default=0, sa_column=Column(BigInteger, nullable=False))
    creator_id: int = Field(sa_column=Column(BigInteger, nullable=False))
    language: str = Field(default="en", max_length=8)
    #: The group board is the outbox surface ``board:<id>:<board_no>``; a new board (at the
    #: bottom of the chat) takes the next number, so which message is live is decided here, in
    #: the game's own transaction, and never by a process's memory.
    board_no: int = 0
    #: The report the live board opens with (the moves since the board before it), one line per
    #: row. While that board has not reached the chat, whatever the game says next (the next
    #: board, a round summary) takes its place and opens with these lines too, so no move's line
    #: is lost or shown twice (`services.record`).
    board_report: str = Field(default="", sa_column=Column(Text, nullable=False))
    #: Moves up to this version have their line in the group's record (a board, a summary). A
    #: [T!] card played without a board of its own waits for the report of the turn.
    reported_version: int = 0
    #: A game in a chat the bot is not in (inline mode, `tgbot.tables`): the message people
    #: posted via the bot that shows the game now (its lobby, then its live board), which the bot
    #: edits; and the chat's `chat_instance`, learnt from the first tap there, which every later
    #: tap must carry.
    inline_id: str | None = Field(default=None, max_length=64)
    chat_instance: str | None = Field(default=None, max_length=64)
    #: Where the game is played (`tgbot.tables.TableKind`): a group, practice in the bot's private
    #: chat, or a chat reached through inline mode. Stored when the lobby opens and never changed,
    #: so what a table does is chosen from it (`services.tables`), not from the chat id's range.
    table_kind: str = Field(default="group", max_length=16)
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
    #: The player uses the private panel (composed there last, or opened it): their turns are
    #: shown there too. Everyone else plays on the group board and gets no private messages.
    panel: bool = False


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
    #: What the engine's `apply` reported (engine.events JSON list): stats, history and the
    #: replay file read it instead of replaying the game. None for entries written before it.
    events: str | None = Field(default=None, sa_column=Column(Text, nullable=True))


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


class PracticeStats(SQLModel, table=True):
    """A person's practice games (in their private chat with the bot) against one computer level,
    updated when a game ends (same transaction): a game counts once for each level that sat at
    its table. Kept apart from `player_stats`, so practice never enters a group's numbers."""

    __tablename__ = "practice_stats"

    user_id: int = Field(sa_column=Column(BigInteger, primary_key=True, autoincrement=False))
    level: str = Field(primary_key=True, max_length=16)  # easy | normal | hard
    games: int = 0
    wins: int = 0
    updated_at: datetime = Field(sa_column=_utc_column(nullable=False))


class Draft(SQLModel, table=True):
    """The move a player is composing, kept on the server (DESIGN §3, §5).

    A tap changes the draft as it is now, whatever keyboard it came from, so tapping ahead of a
    slow edit never loses a selection. A draft of an older game version is void.
    """

    __tablename__ = "drafts"

    game_id: int = Field(foreign_key="games.id", primary_key=True)
    seat: int = Field(primary_key=True)
    version: int
    hand: int | None = None  # index into the hand
    mask: int = 0  # bit i: table position i is chosen
    #: The [T!] play chosen with its key (an engine action code), played by *Claim*.
    t_code: str | None = Field(default=None, max_length=16)
    #: The card values the player typed in reply to their own view ("531"), kept beside the
    #: draft so a compose tap after them still shows the sums they make (issue 61).
    typed: str | None = Field(default=None, max_length=TYPED_DIGITS)
    updated_at: datetime = Field(sa_column=_utc_column(nullable=False))


class OutboxRow(SQLModel, table=True):
    """Something to show in a chat, written in the transaction that decided it (DESIGN §6).

    A row with a `surface` is the latest wanted content of that message (a board, a lobby, a
    panel), the only row of its chat and surface: a newer one replaces it while it waits (`rev`
    counts the replacements, so a sender that delivered an older content leaves the newer one
    queued). Rows without a surface are new messages. `tgbot.delivery` sends each chat's rows in
    (priority, id) order within its budget.
    """

    __tablename__ = "outbox"
    __table_args__ = (
        Index("ix_outbox_chat_order", "chat_id", "priority", "id"),
        # One row per chat and surface (NULLs are distinct: rows without a surface never
        # conflict): the upsert that replaces a waiting content names it (`outbox.put`).
        Index("ux_outbox_chat_surface", "chat_id", "surface", unique=True),
    )

    id: int | None = Field(default=None, primary_key=True)
    chat_id: int = Field(sa_column=Column(BigInteger, nullable=False))
    surface: Surface | None = Field(default=None, sa_column=Column(SurfaceColumn, nullable=True))
    priority: int = 0
    payload: str = Field(sa_column=Column(Text, nullable=False))
    rev: int = 0
    attempts: int = 0
    game_id: int | None = None
    created_at: datetime = Field(sa_column=_utc_column(nullable=False))


class ShownMessage(SQLModel, table=True):
    """Which Telegram message shows a surface now, and what it shows (to skip no-op edits)."""

    __tablename__ = "shown_messages"

    chat_id: int = Field(sa_column=Column(BigInteger, primary_key=True, autoincrement=False))
    surface: Surface = Field(sa_column=Column(SurfaceColumn, primary_key=True))
    message_id: int = Field(sa_column=Column(BigInteger, nullable=False))
    digest: str = Field(default="", max_length=32)


class DeliveryChat(SQLModel, table=True):
    """A chat's delivery state, shared by every bot instance: who sends to it now (a lease),
    what it has spent of Telegram's budget lately, and a pause after a 429.

    Times are epoch seconds of the delivery timer (`tgbot.time_source.Timer.time`).
    """

    __tablename__ = "delivery_chats"

    chat_id: int = Field(sa_column=Column(BigInteger, primary_key=True, autoincrement=False))
    holder: str | None = Field(default=None, max_length=64)
    lease_until: float = 0.0
    paused_until: float = 0.0
    recent: str = Field(default="[]", sa_column=Column(Text, nullable=False))  # send times, last minute
    last_message_id: int | None = Field(default=None, sa_column=Column(BigInteger, nullable=True))


class Notice(SQLModel, table=True):
    """When a chat was last told something that needs saying only once in a while (a repeated
    refusal), so a burst of the same command costs the group one message, not one each."""

    __tablename__ = "notices"

    chat_id: int = Field(sa_column=Column(BigInteger, primary_key=True, autoincrement=False))
    key: str = Field(primary_key=True, max_length=64)
    said_at: datetime = Field(sa_column=_utc_column(nullable=False))


class SeenTap(SQLModel, table=True):
    """What was done once and must not be done again (`store/once.py`): every update applied
    (``update:<update_id>:<service>``; Telegram may deliver an update twice: a webhook retried,
    two instances, a poller killed before it confirmed its offset), and a few facts keyed by what
    an update carries (a pick played, a note said). The column keeps its first name (it held
    callback query ids); the sweep forgets entries after a day."""

    __tablename__ = "seen_taps"
    # The sweep forgets by age: a range of this index, not a scan of a day of updates.
    __table_args__ = (Index("ix_seen_taps_seen_at", "seen_at"),)

    query_id: str = Field(primary_key=True, max_length=64)
    seen_at: datetime = Field(sa_column=_utc_column(nullable=False))
