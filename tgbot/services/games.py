"""Game services: lobby, start, moves and autoplay, each in one transaction.

Handlers call these with a session; nothing here talks to Telegram. Every move
is: load, apply with the engine, compare-and-set on the version, append to the
move log.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from sqlalchemy import update
from sqlmodel import Session, col, select

import engine
from engine import EngineError, GameState, IllegalActionError
from engine.actions import Action, Discard, Sum, encode
from engine.events import Event, GameEnded, TurnStarted

from .. import metrics
from ..i18n import M_, normalize
from ..i18n import _ as translate
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
from . import pacing, stats
from .context import GameContext, seat_info
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


def load_context(session: Session, game_id: int, game: Game | None = None) -> GameContext:
    game = game or session.get(Game, game_id)
    if game is None:
        raise ServiceError("no_game")
    # One query for the seats and their users (this runs on every tap).
    rows = session.exec(
        select(GamePlayer, User)
        .outerjoin(User, col(User.id) == col(GamePlayer.user_id))
        .where(GamePlayer.game_id == game_id)
        .order_by(col(GamePlayer.seat))
    ).all()
    seats = [
        seat_info(
            p,
            can_dm=bool(u is not None and u.can_dm),
            language=user_language(u) if p.user_id is not None else "en",
        )
        for p, u in rows
    ]
    chat = session.get(Chat, game.chat_id)
    state = GameState.from_json(json.loads(game.state)) if game.state else None
    return GameContext(
        game=game,
        seats=seats,
        state=state,
        settings=GameSettings.from_json(game.settings),
        chat_title=(chat.title if chat and chat.title else ""),
        chat=chat,
    )


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


def turn_clock_values(
    session: Session, game: Game, state: GameState, now: datetime, custom_pace: pacing.Pace | None
) -> dict[str, object]:
    """The turn-clock columns for a turn that starts now (DESIGN §4)."""
    if state.is_over or game.status not in (PLAYING, LOBBY):
        return dict(
            current_seat=None,
            next_nudge_at=None,
            deadline_at=None,
            turn_started_at=None,
            wake_at=None,
            nudges_sent=0,
        )
    settings = GameSettings.from_json(game.settings)
    pace = pacing.resolve(settings.pace, custom_pace)
    quiet = quiet_hours(session.get(Chat, game.chat_id))
    clock = pacing.first_schedule(pace, now, quiet)
    return dict(
        current_seat=state.current,
        turn_started_at=now,
        nudges_sent=0,
        next_nudge_at=clock.next_nudge_at,
        deadline_at=clock.deadline_at,
        wake_at=pacing.earliest(clock.next_nudge_at, clock.deadline_at),
    )


def schedule_turn(
    session: Session, game: Game, state: GameState, now: datetime, custom_pace: pacing.Pace | None
) -> None:
    for key, value in turn_clock_values(session, game, state, now, custom_pace).items():
        setattr(game, key, value)


# --- moves ----------------------------------------------------------------


def commit_move(
    session: Session,
    game: Game,
    state_before: GameState,
    seat: int,
    action: Action | str,
    source: str,
    now: datetime,
    custom_pace: pacing.Pace | None,
) -> MoveOutcome:
    """Apply one engine action and write it with compare-and-set."""
    try:
        after, events = engine.apply(state_before, seat, action)
    except IllegalActionError as exc:
        raise ServiceError("illegal", rule=exc.reason, **exc.details) from exc
    except EngineError as exc:
        raise ServiceError(exc.code) from exc
    code = action if isinstance(action, str) else encode(action)
    version = game.version
    outcome = MoveOutcome(seat, code, source, state_before, after, events)
    turn_over = outcome.main
    values: dict[str, object] = {
        "state": json.dumps(after.to_json(), separators=(",", ":")),
        "version": version + 1,
        "updated_at": now,
    }
    if after.is_over:
        values.update(status=FINISHED, finished_at=now)
    if turn_over or after.is_over:
        values.update(turn_clock_values(session, game, after, now, custom_pace))
    result = session.execute(
        update(Game).where(col(Game.id) == game.id, col(Game.version) == version).values(**values)
    )
    if result.rowcount != 1:  # type: ignore[attr-defined]
        raise ServiceError("stale")
    assert game.id is not None
    session.add(Move(game_id=game.id, seq=version + 1, seat=seat, code=code, source=source, at=now))
    metrics.note_move(session, source)  # counted when the transaction commits
    session.flush()
    session.refresh(game)
    if after.is_over:
        stats.record_game_end(session, game, after, now)  # same transaction as the final move
    return outcome


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
    game = session.get(Game, game_id)
    if game is None:
        raise ServiceError("no_game")
    if game.status == PAUSED:
        raise ServiceError("paused")
    if game.status != PLAYING or game.state is None:
        raise ServiceError("not_playing")
    ctx = load_context(session, game_id, game)
    me = ctx.seat_of(user_id)
    if me is None:
        raise ServiceError("not_in_game")
    if version != game.version:
        raise ServiceError("stale")
    assert ctx.state is not None
    if ctx.state.current != me.seat:
        raise ServiceError("not_your_turn", name=ctx.seats[ctx.state.current].name)
    outcome = commit_move(session, game, ctx.state, me.seat, code, "player", now, custom_pace)
    _touch_player(session, game_id, me.seat)
    if not outcome.main and not outcome.after.is_over:
        _acted_mid_turn(session, game, custom_pace)
    result = PlayResult(ctx, [outcome])
    current = autoplay(session, game, result, now, custom_pace)
    result.ctx = current or load_context(session, game_id, game)
    result.ended = result.ctx.state is not None and result.ctx.state.is_over
    return result


def _acted_mid_turn(session: Session, game: Game, custom_pace: pacing.Pace | None) -> None:
    """A [T!] card alone does not end the turn, but the player is here: no more reminders.

    The deadline still finishes the turn. Relaxed games (no deadline) keep their daily reminder.
    """
    pace = pacing.resolve(GameSettings.from_json(game.settings).pace, custom_pace)
    if pace.deadline is None or game.deadline_at is None:
        return
    game.next_nudge_at = None
    game.nudges_sent = max(game.nudges_sent, pacing.MAX_REMINDERS)
    game.wake_at = game.deadline_at
    session.add(game)


def _touch_player(session: Session, game_id: int, seat: int) -> None:
    """A player who acts is no longer idle: reset timeouts and the away flag."""
    player = session.exec(
        select(GamePlayer).where(GamePlayer.game_id == game_id, GamePlayer.seat == seat)
    ).one()
    if player.timeouts or player.away:
        player.timeouts = 0
        player.away = False
        session.add(player)


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
    session: Session, game: Game, result: PlayResult, now: datetime, custom_pace: pacing.Pace | None
) -> GameContext | None:
    """Play at once for seats that do not wait: computers, and humans who left or are away.

    Returns the context it loaded last when that is still current (nothing written since), so a
    caller need not load it again; None when the caller must reload.
    """
    assert game.id is not None
    for _ in range(MAX_AUTOPLAY):
        if game.status != PLAYING:
            return None
        ctx = load_context(session, game.id, game)
        state = ctx.state
        if state is None or state.is_over:
            return ctx
        seat = ctx.seats[state.current]
        if not seat.autoplayed:
            return ctx
        if not any(s.is_human and not s.left and not s.away for s in ctx.seats):
            _abandon(session, game, now)
            result.abandoned = True
            return None
        source = "ai" if seat.ai_level else ("left" if seat.left else "away")
        action = autoplay_action(ctx, seat.seat)
        result.outcomes.append(commit_move(session, game, state, seat.seat, action, source, now, custom_pace))
    return None


def run_autoplay(
    session: Session, game_id: int, now: datetime, custom_pace: pacing.Pace | None = None
) -> PlayResult:
    """Let computer/away/left seats move until a human is to play (e.g. right after the start)."""
    game = session.get(Game, game_id)
    if game is None:
        raise ServiceError("no_game")
    result = PlayResult(load_context(session, game_id, game))
    autoplay(session, game, result, now, custom_pace)
    result.ctx = load_context(session, game_id, game)
    result.ended = result.ctx.state is not None and result.ctx.state.is_over
    return result


def _abandon(session: Session, game: Game, now: datetime) -> None:
    game.status = ABANDONED
    game.finished_at = now
    game.next_nudge_at = game.deadline_at = game.wake_at = None
    game.updated_at = now
    session.add(game)
    session.flush()
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
        autoplay(session, game, result, now, custom_pace)
    result.ctx = load_context(session, game_id, game)
    result.ended = result.ctx.state is not None and result.ctx.state.is_over
    return result


# The message ids below are written with one UPDATE each (no read first): they run after every move.


def set_board_message(session: Session, game_id: int, message_id: int | None) -> None:
    session.execute(update(Game).where(col(Game.id) == game_id).values(board_message_id=message_id))


def set_lobby_message(session: Session, game_id: int, message_id: int | None) -> None:
    session.execute(update(Game).where(col(Game.id) == game_id).values(lobby_message_id=message_id))


def set_panel_message(session: Session, game_id: int, seat: int, message_id: int | None) -> None:
    session.execute(
        update(GamePlayer)
        .where(col(GamePlayer.game_id) == game_id, col(GamePlayer.seat) == seat)
        .values(panel_message_id=message_id)
    )


def set_can_dm(session: Session, user_id: int, can_dm: bool) -> None:
    user = session.get(User, user_id)
    if user is not None and user.can_dm != can_dm:
        user.can_dm = can_dm
        session.add(user)


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
