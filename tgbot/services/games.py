"""Game services: lobby, start, moves and autoplay, each in one transaction.

Handlers call these with a session; nothing here talks to Telegram. Every move
is: load, apply with the engine, compare-and-set on the version, append to the
move log.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from functools import cache, lru_cache
from typing import Any

from sqlalchemy import bindparam, insert, update
from sqlalchemy import select as core_select
from sqlalchemy.engine import Connection
from sqlalchemy.sql.dml import Update
from sqlmodel import Session, col, select

import engine
from engine import EngineError, GameState, IllegalActionError
from engine.actions import Action, Discard, Sum, encode
from engine.events import Event, GameEnded, TurnStarted

from .. import metrics
from ..i18n import M_, normalize
from ..i18n import _ as translate
from ..store.core import (
    CHATS,
    GAME_COLUMNS,
    GAMES,
    MOVES,
    PLAYERS,
    USERS,
    detached_game,
    set_committed,
    write_gathered,
    write_later,
)
from ..store.models import (
    ABANDONED,
    ACTIVE_STATUSES,
    CANCELLED,
    FINISHED,
    LOBBY,
    PAUSED,
    PLAYING,
    Chat,
    Game,
    GamePlayer,
    Move,
    User,
)
from . import languages, pacing, stats
from .context import GameContext, SeatInfo
from .errors import ServiceError
from .settings import GameSettings

MAX_SEATS = 6
MIN_SEATS = 2
AI_NAMES = {"easy": M_("Bot Easy"), "normal": M_("Bot Normal"), "hard": M_("Bot Hard")}
AI_LEVELS = {"easy": "random", "normal": "greedy", "hard": "smart"}
MAX_AUTOPLAY = 400  # a burst of computer/idle moves never runs away


@dataclass
class TgUser:
    """The few facts about a Telegram user the services need."""

    id: int
    first_name: str
    username: str | None = None
    language_code: str | None = None


@dataclass
class MoveOutcome:
    seat: int
    code: str
    source: str
    before: GameState
    after: GameState
    events: list[Event]

    @property
    def main(self) -> bool:
        return any(isinstance(e, (TurnStarted, GameEnded)) for e in self.events)


@dataclass
class PlayResult:
    ctx: GameContext
    outcomes: list[MoveOutcome] = field(default_factory=list)
    ended: bool = False
    abandoned: bool = False


# --- users and chats ------------------------------------------------------


def _ensure_row(session: Session, model: type[User] | type[Chat], key: int, now: datetime) -> None:
    """Insert a missing user/chat row so that two bot instances doing it at once both succeed.

    On PostgreSQL ``ON CONFLICT DO NOTHING`` waits for the other instance's insert instead of
    failing on the primary key; SQLite serialises writers anyway (one instance per file).
    """
    if session.get_bind().dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert

        statement = insert(model).values(id=key, created_at=now).on_conflict_do_nothing(index_elements=["id"])
        session.execute(statement)


def lock_chat(session: Session, chat_id: int, now: datetime) -> None:
    """Serialise chat-wide decisions (one active game per chat) across bot instances.

    PostgreSQL only: the chat row stays locked until the transaction ends, so a second
    instance's /newgame waits and then sees the first one's lobby.
    """
    if session.get_bind().dialect.name == "postgresql":
        _ensure_row(session, Chat, chat_id, now)
        session.execute(select(Chat.id).where(Chat.id == chat_id).with_for_update())


def upsert_user(session: Session, tg: TgUser, now: datetime, can_dm: bool | None = None) -> User:
    languages.forget(session, tg.id)  # the caller may change the language too (/language)
    user = session.get(User, tg.id)
    if user is None:
        _ensure_row(session, User, tg.id, now)
        user = session.get(User, tg.id) or User(id=tg.id, created_at=now)
    user.first_name = tg.first_name[:128]
    user.username = tg.username
    if tg.language_code:
        user.tg_language = tg.language_code[:16]
    if can_dm is not None:
        user.can_dm = can_dm
    session.add(user)
    return user


def user_language(user: User | None) -> str:
    if user is None:
        return "en"
    return normalize(user.language or user.tg_language)


def upsert_chat(session: Session, chat_id: int, title: str | None, now: datetime) -> Chat:
    chat = session.get(Chat, chat_id)
    if chat is None:
        _ensure_row(session, Chat, chat_id, now)
        chat = session.get(Chat, chat_id) or Chat(id=chat_id, created_at=now)
    if title:
        chat.title = title[:128]
    session.add(chat)
    return chat


def quiet_hours(chat: Chat | None) -> pacing.QuietHours | None:
    if chat is None or chat.quiet_start is None or chat.quiet_end is None:
        return None
    return pacing.QuietHours(chat.quiet_start, chat.quiet_end, chat.utc_offset_minutes)


# --- loading --------------------------------------------------------------


def active_game(session: Session, chat_id: int, thread_id: int | None) -> Game | None:
    query = select(Game).where(Game.chat_id == chat_id, col(Game.status).in_(ACTIVE_STATUSES))
    query = (
        query.where(Game.thread_id == thread_id)
        if thread_id is not None
        else query.where(col(Game.thread_id).is_(None))
    )
    return session.exec(query.order_by(col(Game.id).desc())).first()


def active_games_in_chat(session: Session, chat_id: int) -> list[Game]:
    query = select(Game).where(Game.chat_id == chat_id, col(Game.status).in_(ACTIVE_STATUSES))
    return list(session.exec(query).all())


# Core statements, built once: a tap reads its game, chat (title, quiet hours), seats and their
# users with one of them (`_SNAPSHOT`) instead of ORM entities.
_CHAT_COLUMNS = (CHATS.c.title, CHATS.c.quiet_start, CHATS.c.quiet_end, CHATS.c.utc_offset_minutes)
_CHAT = core_select(*_CHAT_COLUMNS).where(CHATS.c.id == bindparam("chat_id"))
_SEAT_COLUMNS = (
    PLAYERS.c.game_id,
    PLAYERS.c.seat,
    PLAYERS.c.user_id,
    PLAYERS.c.name,
    PLAYERS.c.ai_level,
    PLAYERS.c.away,
    PLAYERS.c.left,
    PLAYERS.c.timeouts,
    PLAYERS.c.panel_message_id,
    USERS.c.id.label("known_user"),
    USERS.c.can_dm,
    USERS.c.language,
    USERS.c.tg_language,
)
_SEATS_JOIN = PLAYERS.outerjoin(USERS, USERS.c.id == PLAYERS.c.user_id)
_SEATS = (
    core_select(*_SEAT_COLUMNS)
    .select_from(_SEATS_JOIN)
    .where(PLAYERS.c.game_id == bindparam("game_id"))
    .order_by(PLAYERS.c.seat)
)
_GAME_COUNT = len(GAME_COLUMNS)
_SEAT_COUNT = len(_SEAT_COLUMNS)
# Everything a tap needs in one statement: one row per seat, the game and its chat on each.
_SNAPSHOT = (
    core_select(*GAMES.columns, *_CHAT_COLUMNS, *_SEAT_COLUMNS)
    .select_from(
        GAMES.outerjoin(CHATS, CHATS.c.id == GAMES.c.chat_id)
        .outerjoin(PLAYERS, PLAYERS.c.game_id == GAMES.c.id)
        .outerjoin(USERS, USERS.c.id == PLAYERS.c.user_id)
    )
    .where(GAMES.c.id == bindparam("game_id"))
    .order_by(PLAYERS.c.seat)
)
_SEATS_AT = _GAME_COUNT + len(_CHAT_COLUMNS)


#: The seats of several games at once (the sweep), ordered by game and seat; `game_ids`: a list.
SEATS_OF_GAMES = (
    core_select(*_SEAT_COLUMNS)
    .select_from(_SEATS_JOIN)
    .where(PLAYERS.c.game_id.in_(bindparam("game_ids", expanding=True)))
    .order_by(PLAYERS.c.game_id, PLAYERS.c.seat)
)


def seat_from_row(row: Any, at: int = 0) -> SeatInfo:
    """A seat read with `_SEAT_COLUMNS` starting at column `at` (the user may have no row:
    English, no private messages)."""
    _game, seat, user_id, name, ai_level, away, left, timeouts, panel, known, can_dm, lang, tg_lang = row[
        at : at + _SEAT_COUNT
    ]
    return SeatInfo(
        seat=seat,
        user_id=user_id,
        name=name,
        ai_level=ai_level,
        away=bool(away),
        left=bool(left),
        can_dm=bool(known is not None and can_dm),
        language=normalize(lang or tg_lang) if known is not None else "en",
        panel_message_id=panel,
        timeouts=timeouts,
    )


def quiet_of(start: int | None, end: int | None, offset: int | None) -> pacing.QuietHours | None:
    if start is None or end is None:
        return None
    return pacing.QuietHours(start, end, offset or 0)


def _chat_facts(conn: Connection, chat_id: int) -> tuple[str, pacing.QuietHours | None]:
    """A chat's title and quiet hours ("" and None without a row)."""
    row = conn.execute(_CHAT, {"chat_id": chat_id}).first()
    if row is None:
        return "", None
    return row.title or "", quiet_of(row.quiet_start, row.quiet_end, row.utc_offset_minutes)


# Parsed states by their JSON text. A game's state text only ever changes with its version, and
# the services never change a GameState in place (the engine's `apply` returns a new one), so a
# state parsed once serves every later tap that reads the same text (a turn is several taps).
_STATES: dict[str, GameState] = {}
_STATES_KEPT = 512


def parse_state(text: str | None) -> GameState | None:
    if not text:
        return None
    state = _STATES.get(text)
    if state is None:
        state = GameState.from_json(json.loads(text))
        _remember_state(text, state)
    return state


def _remember_state(text: str, state: GameState) -> None:
    if len(_STATES) >= _STATES_KEPT:
        del _STATES[next(iter(_STATES))]  # the oldest
    _STATES[text] = state


@lru_cache(maxsize=1024)
def _settings(text: str) -> GameSettings:
    return GameSettings.from_json(text)


def parse_settings(text: str) -> GameSettings:
    """A game's settings (immutable; the few distinct texts are parsed once)."""
    return _settings(text) if len(text) < 512 else GameSettings.from_json(text)


def dump_state(state: GameState) -> str:
    """The JSON stored for `state` (remembered, so reading it back costs no parsing)."""
    text = json.dumps(state.to_json(), separators=(",", ":"))
    _remember_state(text, state)
    return text


def build_context(
    game: Game,
    seats: list[SeatInfo],
    chat_title: str,
    quiet: pacing.QuietHours | None,
    state: GameState | None = None,
) -> GameContext:
    """A context from what was read; the state is parsed from the row unless given."""
    return GameContext(
        game=game,
        seats=seats,
        state=state if state is not None else parse_state(game.state),
        settings=parse_settings(game.settings),
        chat_title=chat_title,
        quiet=quiet,
    )


def connection_of(db: Session | Connection) -> Connection:
    """The connection of a session (after flushing what it holds, as an ORM query would)."""
    if isinstance(db, Session):
        db.flush()
        write_gathered(db)
        return db.connection()
    return db


def load_snapshot(db: Session | Connection, game_id: int) -> GameContext | None:
    """The game as it is now, in one Core statement; None when there is no such game.

    The context's `game` is detached (in no session): the services write with Core and set what
    they wrote on it, so it stays current for the caller (and the presenter).
    """
    rows = connection_of(db).execute(_SNAPSHOT, {"game_id": game_id}).all()
    if not rows:
        return None
    first = rows[0]
    game = detached_game(dict(zip(GAME_COLUMNS, first, strict=False)))
    title, start, end, offset = first[_GAME_COUNT:_SEATS_AT]
    seats = [seat_from_row(row, _SEATS_AT) for row in rows if row[_SEATS_AT] is not None]
    return build_context(game, seats, title or "", quiet_of(start, end, offset))


def load_context(session: Session, game_id: int, game: Game | None = None) -> GameContext:
    """The game (the given row, else the session's), its seats and its parsed state."""
    game = game or session.get(Game, game_id)
    if game is None:
        raise ServiceError("no_game")
    conn = connection_of(session)  # like an ORM query: pending changes first
    seats = [seat_from_row(r) for r in conn.execute(_SEATS, {"game_id": game_id})]
    title, quiet = _chat_facts(conn, game.chat_id)
    return build_context(game, seats, title, quiet)


def _players(session: Session, game_id: int) -> list[GamePlayer]:
    return list(
        session.exec(
            select(GamePlayer).where(GamePlayer.game_id == game_id).order_by(col(GamePlayer.seat))
        ).all()
    )


# --- lobby ----------------------------------------------------------------


def create_lobby(
    session: Session,
    chat_id: int,
    thread_id: int | None,
    creator: TgUser,
    language: str,
    now: datetime,
    pace: str,
    lobby_ttl_seconds: int,
) -> Game:
    if active_game(session, chat_id, thread_id) is not None:
        raise ServiceError("game_exists")
    game = Game(
        chat_id=chat_id,
        thread_id=thread_id,
        status=LOBBY,
        creator_id=creator.id,
        language=language,
        settings=GameSettings(pace=pace).to_json(),
        created_at=now,
        updated_at=now,
    )
    game.wake_at = now + timedelta(seconds=lobby_ttl_seconds)
    session.add(game)
    session.flush()
    assert game.id is not None
    session.add(GamePlayer(game_id=game.id, seat=0, user_id=creator.id, name=creator.first_name[:128]))
    return game


def _lobby(session: Session, game_id: int) -> Game:
    # Row lock (PostgreSQL): a second instance handling the same tap waits, then sees the change.
    game = session.get(Game, game_id, with_for_update=True)
    if game is None:
        raise ServiceError("no_game")
    if game.status != LOBBY:
        raise ServiceError("not_lobby")
    return game


def lobby_join(session: Session, game_id: int, user: TgUser, now: datetime) -> None:
    game = _lobby(session, game_id)
    players = _players(session, game_id)
    if any(p.user_id == user.id for p in players):
        raise ServiceError("already_joined")
    if len(players) >= MAX_SEATS:
        raise ServiceError("lobby_full")
    session.add(GamePlayer(game_id=game_id, seat=len(players), user_id=user.id, name=user.first_name[:128]))
    game.updated_at = now
    session.add(game)


def lobby_add_ai(session: Session, game_id: int, difficulty: str, now: datetime) -> None:
    game = _lobby(session, game_id)
    players = _players(session, game_id)
    if len(players) >= MAX_SEATS:
        raise ServiceError("lobby_full")
    same = sum(1 for p in players if p.ai_level == difficulty)
    label = translate(game.language, AI_NAMES[difficulty]) + (f" {same + 1}" if same else "")
    session.add(GamePlayer(game_id=game_id, seat=len(players), user_id=None, name=label, ai_level=difficulty))
    game.updated_at = now
    session.add(game)


def _renumber(session: Session, players: list[GamePlayer]) -> None:
    """Keep seats 0..n-1 without gaps; two passes avoid unique-constraint clashes."""
    for offset, p in enumerate(players):
        p.seat = 100 + offset
        session.add(p)
    session.flush()
    for seat, p in enumerate(players):
        p.seat = seat
        session.add(p)


def lobby_leave(session: Session, game_id: int, user_id: int, now: datetime) -> None:
    game = _lobby(session, game_id)
    players = _players(session, game_id)
    mine = [p for p in players if p.user_id == user_id]
    if not mine:
        raise ServiceError("not_in_game")
    session.delete(mine[0])
    session.flush()
    _renumber(session, [p for p in players if p.user_id != user_id])
    game.updated_at = now
    session.add(game)


def lobby_setting(session: Session, game_id: int, key: str, value: str, now: datetime) -> GameSettings:
    game = _lobby(session, game_id)
    settings = GameSettings.from_json(game.settings)
    players = max(MIN_SEATS, len(_players(session, game_id)))
    if key == "p" and value not in pacing.PACES and value != pacing.CUSTOM:
        raise ServiceError("bad_setting")
    changed = settings.with_change(key, value, players)
    if changed is None:
        raise ServiceError("bad_setting")
    game.settings = changed.to_json()
    game.updated_at = now
    session.add(game)
    return changed


def can_manage(game: Game, user_id: int, is_admin: bool) -> bool:
    return game.creator_id == user_id or is_admin


def start_game(
    session: Session,
    game_id: int,
    user_id: int,
    is_admin: bool,
    now: datetime,
    seed: int,
    custom_pace: pacing.Pace | None = None,
) -> GameContext:
    game = _lobby(session, game_id)
    if not can_manage(game, user_id, is_admin):
        raise ServiceError("not_creator")
    players = _players(session, game_id)
    if len(players) < MIN_SEATS:
        raise ServiceError("too_few")
    if all(p.ai_level is not None for p in players):
        raise ServiceError("no_humans")
    settings = GameSettings.from_json(game.settings)
    try:
        config = settings.engine_config(len(players))
    except EngineError as exc:
        raise ServiceError("bad_config", detail=str(exc)) from exc
    state = engine.new_game(config, seed)
    game.seed = seed
    game.state = json.dumps(state.to_json(), separators=(",", ":"))
    game.status = PLAYING
    game.version = 1
    game.updated_at = now
    session.add(Move(game_id=game_id, seq=1, seat=None, code=f"start:{seed}", source="system", at=now))
    schedule_turn(session, game, state, now, custom_pace)
    session.add(game)
    session.flush()
    return load_context(session, game_id, game)


def cancel_game(session: Session, game_id: int, user_id: int, is_admin: bool, now: datetime) -> Game:
    game = session.get(Game, game_id)
    if game is None or game.status not in ACTIVE_STATUSES:
        raise ServiceError("no_game")
    if not can_manage(game, user_id, is_admin):
        raise ServiceError("not_creator")
    game.status = CANCELLED
    game.finished_at = now
    game.wake_at = None
    game.next_nudge_at = None
    game.deadline_at = None
    game.updated_at = now
    session.add(game)
    return game


# --- time -----------------------------------------------------------------


class _LookUp:
    """Marker: read the chat's quiet hours from the database."""


LOOK_UP = _LookUp()
Quiet = pacing.QuietHours | None | _LookUp


def clock_values(
    status: str,
    settings: GameSettings,
    state: GameState,
    now: datetime,
    custom_pace: pacing.Pace | None,
    quiet: pacing.QuietHours | None,
) -> dict[str, object]:
    """The turn-clock columns for a turn that starts now (DESIGN §4), from what is known."""
    if state.is_over or status not in (PLAYING, LOBBY):
        return dict(
            current_seat=None,
            next_nudge_at=None,
            deadline_at=None,
            turn_started_at=None,
            wake_at=None,
            nudges_sent=0,
        )
    pace = pacing.resolve(settings.pace, custom_pace)
    clock = pacing.first_schedule(pace, now, quiet)
    return dict(
        current_seat=state.current,
        turn_started_at=now,
        nudges_sent=0,
        next_nudge_at=clock.next_nudge_at,
        deadline_at=clock.deadline_at,
        wake_at=pacing.earliest(clock.next_nudge_at, clock.deadline_at),
    )


def _quiet(session: Session, game: Game, quiet: Quiet) -> pacing.QuietHours | None:
    if isinstance(quiet, _LookUp):
        return _chat_facts(connection_of(session), game.chat_id)[1]  # a chat row changed here counts
    return quiet


def turn_clock_values(
    session: Session,
    game: Game,
    state: GameState,
    now: datetime,
    custom_pace: pacing.Pace | None,
    quiet: Quiet = LOOK_UP,
) -> dict[str, object]:
    """The turn-clock columns for a turn that starts now (DESIGN §4)."""
    if state.is_over or game.status not in (PLAYING, LOBBY):
        quiet = None  # not needed: no clock
    settings = GameSettings.from_json(game.settings)
    return clock_values(game.status, settings, state, now, custom_pace, _quiet(session, game, quiet))


def schedule_turn(
    session: Session, game: Game, state: GameState, now: datetime, custom_pace: pacing.Pace | None
) -> None:
    """Set a fresh turn clock on an ORM-attached `game` (written when the session flushes)."""
    for key, value in turn_clock_values(session, game, state, now, custom_pace).items():
        setattr(game, key, value)


def write_game(session: Session, game: Game, values: Mapping[str, object]) -> None:
    """`UPDATE games SET values WHERE id` with Core (no compare-and-set), also set on `game`."""
    session.flush()  # what the session holds is written first, as before an ORM flush
    session.connection().execute(_plain_update(tuple(values)), {"b_id": game.id, **_bind(values)})
    set_committed(game, values)


def reschedule(
    session: Session,
    game: Game,
    state: GameState,
    now: datetime,
    custom_pace: pacing.Pace | None,
    quiet: Quiet = LOOK_UP,
    **also: object,
) -> None:
    """A fresh turn clock written at once (Core), with the other columns in `also` (e.g. status)."""
    status = str(also.get("status", game.status))
    if state.is_over or status not in (PLAYING, LOBBY):
        quiet = None  # not needed: no clock
    settings = GameSettings.from_json(game.settings)
    clock = clock_values(status, settings, state, now, custom_pace, _quiet(session, game, quiet))
    write_game(session, game, {**also, **clock})


# --- writing with Core ----------------------------------------------------


def _bind(values: Mapping[str, object]) -> dict[str, object]:
    return {f"v_{key}": value for key, value in values.items()}


@cache
def _plain_update(keys: tuple[str, ...]) -> Update:
    return (
        update(GAMES)
        .where(GAMES.c.id == bindparam("b_id"))
        .values({key: bindparam(f"v_{key}") for key in keys})
    )


@cache
def _versioned_update(keys: tuple[str, ...]) -> Update:
    """Compare-and-set: only the version that was read may be replaced."""
    return (
        update(GAMES)
        .where(GAMES.c.id == bindparam("b_id"), GAMES.c.version == bindparam("b_version"))
        .values({key: bindparam(f"v_{key}") for key in keys})
    )


_INSERT_MOVE = insert(MOVES)
_TOUCH_PLAYER = (
    update(PLAYERS)
    .where(PLAYERS.c.game_id == bindparam("b_game"), PLAYERS.c.seat == bindparam("b_seat"))
    .values(timeouts=0, away=False)
)
_SET_TIMEOUTS = (
    update(PLAYERS)
    .where(PLAYERS.c.game_id == bindparam("b_game"), PLAYERS.c.seat == bindparam("b_seat"))
    .values(timeouts=bindparam("v_timeouts"), away=bindparam("v_away"))
)


# --- moves ----------------------------------------------------------------


def apply_action(state: GameState, seat: int, action: Action | str) -> tuple[GameState, list[Event]]:
    """The engine's move, its refusals as service errors."""
    try:
        return engine.apply(state, seat, action)
    except IllegalActionError as exc:
        raise ServiceError("illegal", rule=exc.reason, **exc.details) from exc
    except EngineError as exc:
        raise ServiceError(exc.code) from exc


def commit_move(
    session: Session,
    game: Game,
    state_before: GameState,
    seat: int,
    action: Action | str,
    source: str,
    now: datetime,
    custom_pace: pacing.Pace | None,
    quiet: Quiet = LOOK_UP,
) -> MoveOutcome:
    """Apply one engine action and write it with compare-and-set."""
    after, events = apply_action(state_before, seat, action)
    code = action if isinstance(action, str) else encode(action)
    outcome = MoveOutcome(seat, code, source, state_before, after, events)
    write_move(session, game, outcome, now, custom_pace, quiet)
    return outcome


def write_move(
    session: Session,
    game: Game,
    outcome: MoveOutcome,
    now: datetime,
    custom_pace: pacing.Pace | None,
    quiet: Quiet = LOOK_UP,
    also: Mapping[str, object] | None = None,
) -> None:
    """Write an applied move: the game row with compare-and-set on the version it was read at,
    the move log entry, and the stats when it ended the game, all in the caller's transaction.

    `game` (attached or detached) gets the written values; `also` are more columns for the same
    UPDATE. Raises ServiceError("stale"), having written nothing, when the version moved on.
    """
    after = outcome.after
    version = game.version
    values: dict[str, object] = {
        "state": dump_state(after),
        "version": version + 1,
        "updated_at": now,
    }
    if also:
        values.update(also)
    if after.is_over:
        values.update(status=FINISHED, finished_at=now)
    if outcome.main or after.is_over:
        settings = GameSettings.from_json(game.settings)
        status = str(values.get("status", game.status))
        ticking = not after.is_over and status in (PLAYING, LOBBY)  # else no clock, no quiet hours
        known = _quiet(session, game, quiet) if ticking else None
        values.update(clock_values(status, settings, after, now, custom_pace, known))
    session.flush()  # anything pending in the session goes first, as before an ORM statement
    conn = session.connection()
    result = conn.execute(
        _versioned_update(tuple(values)), {"b_id": game.id, "b_version": version, **_bind(values)}
    )
    if result.rowcount != 1:
        raise ServiceError("stale")
    assert game.id is not None
    entry = {
        "game_id": game.id,
        "seq": version + 1,
        "seat": outcome.seat,
        "code": outcome.code,
        "source": outcome.source,
        "at": now,
    }
    write_later(session, _INSERT_MOVE, entry)  # at once, except in the sweep's batches
    metrics.note_move(session, outcome.source)  # counted when the transaction commits
    set_committed(game, values)
    if after.is_over:
        stats.record_game_end(session, game, after, now)  # same transaction as the final move


def play(
    session: Session,
    game_id: int,
    version: int,
    user_id: int,
    code: str,
    now: datetime,
    custom_pace: pacing.Pace | None = None,
) -> PlayResult:
    """A player's own action from a key they tapped."""
    ctx = load_snapshot(session, game_id)
    if ctx is None:
        raise ServiceError("no_game")
    return play_loaded(session, ctx, version, user_id, code, now, custom_pace)


def play_loaded(
    session: Session,
    ctx: GameContext,
    version: int,
    user_id: int,
    code: str,
    now: datetime,
    custom_pace: pacing.Pace | None = None,
) -> PlayResult:
    """`play` for a game already read in this transaction (`load_snapshot`)."""
    return write_play(session, ctx, check_play(ctx, version, user_id, code), now, custom_pace)


def check_play(ctx: GameContext, version: int, user_id: int, code: str) -> MoveOutcome:
    """A player's action checked and applied in memory; nothing is written (ServiceError if refused)."""
    game = ctx.game
    if game.status == PAUSED:
        raise ServiceError("paused")
    if game.status != PLAYING or game.state is None:
        raise ServiceError("not_playing")
    me = ctx.seat_of(user_id)
    if me is None:
        raise ServiceError("not_in_game")
    if version != game.version:
        raise ServiceError("stale")
    assert ctx.state is not None
    if ctx.state.current != me.seat:
        raise ServiceError("not_your_turn", name=ctx.seats[ctx.state.current].name)
    after, events = apply_action(ctx.state, me.seat, code)
    return MoveOutcome(me.seat, code, "player", ctx.state, after, events)


def write_play(
    session: Session, ctx: GameContext, outcome: MoveOutcome, now: datetime, custom_pace: pacing.Pace | None
) -> PlayResult:
    """Write a checked action (compare-and-set: ServiceError("stale"), nothing written, when the
    game moved on), bring the player back if they were idle, then let the computers reply.

    The game row is written before the player's row, in the same order as the sweep's idle
    moves, so two instances on PostgreSQL never wait on each other's locks in a circle.
    """
    game = ctx.game
    after = outcome.after
    also = None
    if not outcome.main and not after.is_over:
        also = _acted_mid_turn(game, ctx.settings, custom_pace)
    write_move(session, game, outcome, now, custom_pace, ctx.quiet, also)
    seats = _touch_player(session, ctx, ctx.seats[outcome.seat])
    result = PlayResult(ctx, [outcome])
    result.ctx = autoplay(session, game, result, now, custom_pace, replace(ctx, seats=seats, state=after))
    result.ended = result.ctx.state is not None and result.ctx.state.is_over
    return result


def _acted_mid_turn(
    game: Game, settings: GameSettings, custom_pace: pacing.Pace | None
) -> dict[str, object] | None:
    """A [T!] card alone does not end the turn, but the player is here: no more reminders.

    The deadline still finishes the turn. Relaxed games (no deadline) keep their daily reminder.
    """
    pace = pacing.resolve(settings.pace, custom_pace)
    if pace.deadline is None or game.deadline_at is None:
        return None
    return {
        "next_nudge_at": None,
        "nudges_sent": max(game.nudges_sent, pacing.MAX_REMINDERS),
        "wake_at": game.deadline_at,
    }


def _touch_player(session: Session, ctx: GameContext, me: SeatInfo) -> list[SeatInfo]:
    """A player who acts is no longer idle: reset timeouts and the away flag. The seats after."""
    return clear_idle(session, ctx, me)


def clear_idle(db: Session | Connection, ctx: GameContext, me: SeatInfo) -> list[SeatInfo]:
    """Reset a seat's timeouts and away flag (one UPDATE, only when set); the seats after it.

    The seat is as read in this transaction (`load_snapshot`): the sweep only raises these
    with an idle move, which changes the version too.
    """
    if not (me.timeouts or me.away):
        return ctx.seats
    connection_of(db).execute(_TOUCH_PLAYER, {"b_game": ctx.game_id, "b_seat": me.seat})
    return [replace(s, timeouts=0, away=False) if s.seat == me.seat else s for s in ctx.seats]


def set_timeouts(session: Session, game_id: int, seat: int, timeouts: int, away: bool) -> None:
    params = {"b_game": game_id, "b_seat": seat, "v_timeouts": timeouts, "v_away": away}
    write_later(session, _SET_TIMEOUTS, params)  # at once, except in the sweep's batches


def autoplay_action(ctx: GameContext, seat: int) -> Action:
    """What the bot plays for a computer seat, or for an idle/away/left human."""
    state = ctx.state
    assert state is not None
    info = ctx.seats[seat]
    if info.ai_level is not None:
        from engine.ai import choose_action

        level = AI_LEVELS.get(info.ai_level, "greedy")
        return choose_action(state, seat, level, seed=state.rng ^ (ctx.game.version * 7919))
    return engine.default_action(state, seat)


def autoplay(
    session: Session,
    game: Game,
    result: PlayResult,
    now: datetime,
    custom_pace: pacing.Pace | None,
    ctx: GameContext | None = None,
) -> GameContext:
    """Play at once for seats that do not wait: computers, and humans who left or are away.

    `ctx` is the game as it stands (read in this transaction, or just written); without it the
    game is read. Returns the context after the moves: nothing else changes the seats meanwhile,
    and `game` carries every value written, so nothing needs reading again.
    """
    assert game.id is not None
    if ctx is None:
        ctx = load_context(session, game.id, game)
    for _ in range(MAX_AUTOPLAY):
        if game.status != PLAYING:
            break
        state = ctx.state
        if state is None or state.is_over:
            break
        seat = ctx.seats[state.current]
        if not seat.autoplayed:
            break
        if not any(s.is_human and not s.left and not s.away for s in ctx.seats):
            _abandon(session, game, now)
            result.abandoned = True
            break
        source = "ai" if seat.ai_level else ("left" if seat.left else "away")
        action = autoplay_action(ctx, seat.seat)
        outcome = commit_move(session, game, state, seat.seat, action, source, now, custom_pace, ctx.quiet)
        result.outcomes.append(outcome)
        ctx = replace(ctx, state=outcome.after)
    return ctx


def run_autoplay(
    session: Session, game_id: int, now: datetime, custom_pace: pacing.Pace | None = None
) -> PlayResult:
    """Let computer/away/left seats move until a human is to play (e.g. right after the start)."""
    ctx = load_snapshot(session, game_id)
    if ctx is None:
        raise ServiceError("no_game")
    result = PlayResult(ctx)
    result.ctx = autoplay(session, ctx.game, result, now, custom_pace, ctx)
    result.ended = result.ctx.state is not None and result.ctx.state.is_over
    return result


def _abandon(session: Session, game: Game, now: datetime) -> None:
    write_game(
        session,
        game,
        {
            "status": ABANDONED,
            "finished_at": now,
            "next_nudge_at": None,
            "deadline_at": None,
            "wake_at": None,
            "updated_at": now,
        },
    )
    stats.record_game_end(session, game, None, now)  # played, won by nobody


def leave_game(
    session: Session, game_id: int, user_id: int, now: datetime, custom_pace: pacing.Pace | None = None
) -> PlayResult:
    """/leave during a game: the seat is played by the idle default from now on."""
    game = session.get(Game, game_id)
    if game is None or game.status not in (PLAYING, PAUSED):
        raise ServiceError("not_playing")
    player = session.exec(
        select(GamePlayer).where(GamePlayer.game_id == game_id, GamePlayer.user_id == user_id)
    ).first()
    if player is None:
        raise ServiceError("not_in_game")
    if player.left:
        raise ServiceError("already_left")
    player.left = True
    session.add(player)
    session.flush()
    ctx = load_context(session, game_id, game)
    result = PlayResult(ctx)
    if not any(s.is_human and not s.left for s in ctx.seats):
        _abandon(session, game, now)
        result.abandoned = True
    elif game.status == PLAYING:
        ctx = autoplay(session, game, result, now, custom_pace, ctx)
    result.ctx = ctx
    result.ended = result.ctx.state is not None and result.ctx.state.is_over
    return result


# The message ids below are written with one Core UPDATE each (no read first): they run after
# every move.
_SET_BOARD = update(GAMES).where(GAMES.c.id == bindparam("b_id")).values(board_message_id=bindparam("v"))
_SET_LOBBY = update(GAMES).where(GAMES.c.id == bindparam("b_id")).values(lobby_message_id=bindparam("v"))
_SET_PANEL = (
    update(PLAYERS)
    .where(PLAYERS.c.game_id == bindparam("b_id"), PLAYERS.c.seat == bindparam("b_seat"))
    .values(panel_message_id=bindparam("v"))
)
_SET_CAN_DM = (
    update(USERS)
    .where(USERS.c.id == bindparam("b_id"), USERS.c.can_dm != bindparam("v"))
    .values(can_dm=bindparam("v"))
)


def set_board_message(session: Session, game_id: int, message_id: int | None) -> None:
    session.connection().execute(_SET_BOARD, {"b_id": game_id, "v": message_id})


def set_lobby_message(session: Session, game_id: int, message_id: int | None) -> None:
    session.connection().execute(_SET_LOBBY, {"b_id": game_id, "v": message_id})


def set_panel_message(session: Session, game_id: int, seat: int, message_id: int | None) -> None:
    session.connection().execute(_SET_PANEL, {"b_id": game_id, "b_seat": seat, "v": message_id})


def set_can_dm(session: Session, user_id: int, can_dm: bool) -> None:
    session.flush()  # a user row added in this session counts
    session.connection().execute(_SET_CAN_DM, {"b_id": user_id, "v": can_dm})


def games_of_user(session: Session, user_id: int) -> list[Game]:
    query = (
        select(Game)
        .join(GamePlayer, col(GamePlayer.game_id) == col(Game.id))
        .where(GamePlayer.user_id == user_id, col(Game.status).in_((PLAYING, PAUSED)))
        .order_by(col(Game.id).desc())
    )
    return list(session.exec(query).all())


def is_sum_or_discard(code: str) -> bool:
    try:
        action = engine.decode(code)
    except EngineError:
        return False
    return isinstance(action, (Sum, Discard))
