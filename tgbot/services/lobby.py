"""The lobby: /newgame, joining and leaving, settings, computer players, start and cancel.

One game (lobby or running) per chat and forum topic. The creator, or a group admin, starts and
cancels; anyone may change the settings before the start. Each change redraws the lobby message
through the outbox, where a quick series of joins becomes one edit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from sqlmodel import Session, col, select

import engine
from engine import EngineError
from engine.config import MAX_PLAYERS, MIN_PLAYERS

from .. import pacing
from ..errors import ServiceError
from ..game_settings import GameSettings
from ..i18n import M_, _
from ..render import cards as cards_render
from ..store.models import (
    ACTIVE_STATUSES,
    CANCELLED,
    EXPIRED,
    LOBBY,
    PAUSED,
    PLAYING,
    Chat,
    Game,
    GamePlayer,
    Move,
)
from ..store.outbox import Priority
from ..turn_clock import TurnClock
from . import lobby_message, moves, output, people, record, surfaces
from .context import GameContext, context_of, dump_state, player_rows, require_game
from .env import Env
from .game_clock import clock_of, rules_of, set_clock
from .people import Person
from .play import Answer, Tap, answer_refusal

COMPUTER_NAMES = {"easy": M_("Bot Easy"), "normal": M_("Bot Normal"), "hard": M_("Bot Hard")}


@dataclass(frozen=True)
class Created:
    game_id: int | None  # None: a game was already here
    existing: Game | None = None


def active_game(session: Session, chat_id: int, thread_id: int | None) -> Game | None:
    query = select(Game).where(Game.chat_id == chat_id, col(Game.status).in_(ACTIVE_STATUSES))
    query = (
        query.where(Game.thread_id == thread_id)
        if thread_id is not None
        else query.where(col(Game.thread_id).is_(None))
    )
    return session.exec(query.order_by(col(Game.id).desc())).first()


def active_games(session: Session, chat_id: int) -> list[Game]:
    """Every lobby and running game of a chat (all its topics), oldest first."""
    query = select(Game).where(Game.chat_id == chat_id, col(Game.status).in_(ACTIVE_STATUSES))
    return list(session.exec(query.order_by(col(Game.id))).all())


def can_manage(game: Game, user_id: int, admin: bool) -> bool:
    return game.creator_id == user_id or admin


def create(
    session: Session, env: Env, chat_id: int, thread_id: int | None, title: str | None, creator: Person
) -> Created:
    """/newgame: a lobby, unless a game is already here."""
    chat = people.lock_chat(session, chat_id, env)  # another instance may be creating one too
    if title:
        chat.title = title[:128]
    existing = active_game(session, chat_id, thread_id)
    if existing is not None:
        _point_at(session, env, existing)
        return Created(None, existing)
    game = open_lobby(session, env, chat, thread_id, creator, GameSettings(pace=env.default_pace))
    return Created(game.id)


def open_lobby(
    session: Session,
    env: Env,
    chat: Chat,
    thread_id: int | None,
    creator: Person,
    settings: GameSettings,
    computers: Sequence[str] = (),
) -> Game:
    """A new lobby in `chat` (locked by the caller, with no game open in that topic): the creator
    in the first seat, then a computer player of each level in `computers`."""
    people.upsert_user(session, creator, env)
    if not chat.language:
        chat.language = people.language_of(session, creator.id, creator.language_code)
    session.add(chat)
    game = Game(
        chat_id=chat.id,
        thread_id=thread_id,
        status=LOBBY,
        creator_id=creator.id,
        language=chat.language,
        settings=settings.to_json(),
        created_at=env.now,
        updated_at=env.now,
    )
    session.add(game)
    session.flush()
    assert game.id is not None
    session.add(GamePlayer(game_id=game.id, seat=0, user_id=creator.id, name=creator.first_name[:128]))
    levels: list[str] = []
    for level in computers:
        name = computer_name(game.language, levels, level)
        levels.append(level)
        session.add(GamePlayer(game_id=game.id, seat=len(levels), user_id=None, name=name, ai_level=level))
    set_clock(session, game, TurnClock.lobby(env.now, env.lobby_ttl))  # an unstarted lobby expires
    session.flush()
    lobby_message.show_lobby(session, env, context_of(session, game))
    return game


def computer_name(lang: str, seated: Sequence[str | None], level: str) -> str:
    """A new computer player's name: "Bot Normal", or "Bot Normal 2" when one of that level sits there."""
    same = sum(1 for seated_level in seated if seated_level == level)
    return _(lang, COMPUTER_NAMES[level]) + (f" {same + 1}" if same else "")


def _point_at(session: Session, env: Env, game: Game) -> None:
    """A second /newgame is answered under the running game's board (or lobby), so one tap finds
    it; sixty in a row still get one answer a minute, not sixty."""
    assert game.id is not None
    surface = surfaces.board(game) if game.status != LOBBY else surfaces.lobby(game.id)
    text = _(game.language, "A game is already running here. Scroll up to its board, or send /board.")
    output.say_once(
        session, env, game.chat_id, f"exists:{game.id}", text, thread_id=game.thread_id, reply_to=surface
    )


def _lobby(session: Session, tap: Tap, game_id: int) -> GameContext:
    ctx = require_game(session, game_id, lock=True)
    if tap.private or (tap.chat_id is not None and ctx.game.chat_id != tap.chat_id):
        raise ServiceError("malformed")  # a lobby key forged into another chat
    if ctx.game.status != LOBBY:
        raise ServiceError("not_lobby")
    return ctx


def lobby_key(session: Session, env: Env, tap: Tap, game_id: int, op: str, admin: bool = False) -> Answer:
    """Join, leave, start, cancel, or switch between the lobby and its settings."""
    lang = people.language_of(session, tap.person.id, tap.person.language_code)
    try:
        with session.begin_nested():
            ctx = _lobby(session, tap, game_id)
            people.upsert_user(session, tap.person, env)
            return _lobby_op(session, env, tap, ctx, op, admin, lang)
    except ServiceError as error:
        return _refused(lang, error, admin)


def _lobby_op(
    session: Session, env: Env, tap: Tap, ctx: GameContext, op: str, admin: bool, lang: str
) -> Answer:
    game_id = ctx.game_id
    person = tap.person
    players = player_rows(session, game_id)
    if op == "join":
        if any(p.user_id == person.id for p in players):
            raise ServiceError("already_joined")
        if len(players) >= MAX_PLAYERS:
            raise ServiceError("lobby_full")
        session.add(
            GamePlayer(game_id=game_id, seat=len(players), user_id=person.id, name=person.first_name[:128])
        )
        _changed(session, env, ctx)
        return Answer(_(lang, "You're in!"))
    if op == "leave":
        leave_lobby(session, env, ctx, person.id)
        return Answer(_(lang, "You left the lobby."))
    if op in ("settings", "back"):
        lobby_message.show_lobby(session, env, ctx, settings_screen=op == "settings")
        return Answer()
    if not can_manage(ctx.game, person.id, admin):
        raise ServiceError("not_creator")
    if op == "start":
        start(session, env, ctx, players)
        return Answer()
    cancel(session, env, ctx)
    return Answer()


def _changed(session: Session, env: Env, ctx: GameContext, settings_screen: bool = False) -> None:
    ctx.game.updated_at = env.now
    session.add(ctx.game)
    session.flush()
    lobby_message.show_lobby(session, env, context_of(session, ctx.game), settings_screen)


def leave_lobby(session: Session, env: Env, ctx: GameContext, user_id: int) -> None:
    players = player_rows(session, ctx.game_id)
    mine = [p for p in players if p.user_id == user_id]
    if not mine:
        raise ServiceError("not_in_game")
    session.delete(mine[0])
    session.flush()
    rest = [p for p in players if p.user_id != user_id]
    for offset, p in enumerate(rest):  # two passes: seats stay unique at every step
        p.seat = 100 + offset
        session.add(p)
    session.flush()
    for seat, p in enumerate(rest):
        p.seat = seat
        session.add(p)
    _changed(session, env, ctx)


def add_computer(
    session: Session, env: Env, tap: Tap, game_id: int, level: str, settings_screen: bool
) -> Answer:
    lang = people.language_of(session, tap.person.id, tap.person.language_code)
    try:
        with session.begin_nested():
            ctx = _lobby(session, tap, game_id)
            players = player_rows(session, game_id)
            if len(players) >= MAX_PLAYERS:
                raise ServiceError("lobby_full")
            label = computer_name(ctx.language, [p.ai_level for p in players], level)
            session.add(
                GamePlayer(game_id=game_id, seat=len(players), user_id=None, name=label, ai_level=level)
            )
            _changed(session, env, ctx, settings_screen)
            return Answer(_(lang, "A computer player joined."))
    except ServiceError as error:
        return answer_refusal(lang, error)


def change_setting(
    session: Session, env: Env, tap: Tap, game_id: int, key: str, value: str, admin: bool = False
) -> Answer:
    """A settings key: in the lobby anyone may; the pace of a running game, its manager only."""
    lang = people.language_of(session, tap.person.id, tap.person.language_code)
    try:
        with session.begin_nested():
            ctx = require_game(session, game_id, lock=True)
            if tap.chat_id is not None and not tap.private and ctx.game.chat_id != tap.chat_id:
                raise ServiceError("malformed")
            if ctx.game.status != LOBBY:
                if key != "p":
                    raise ServiceError("not_lobby")
                return change_pace(session, env, ctx, tap, value, admin, lang)
            if key == "p" and not pacing.is_known(value, env.custom_pace):
                raise ServiceError("bad_setting")
            settings = ctx.settings.with_change(key, value, max(MIN_PLAYERS, len(ctx.seats)))
            if settings is None:
                raise ServiceError("bad_setting")
            ctx.game.settings = settings.to_json()
            _changed(session, env, ctx, settings_screen=True)
            return Answer()
    except ServiceError as error:
        return _refused(lang, error, admin)


def change_pace(
    session: Session, env: Env, ctx: GameContext, tap: Tap, pace: str, admin: bool, lang: str
) -> Answer:
    """A pace key under /settings of a running game: the turn clock starts again. Here, with the
    lobby's settings, because the same key changes the pace before the start and after it."""
    if not pacing.is_known(pace, env.custom_pace):
        raise ServiceError("bad_setting")
    if ctx.game.status not in (PLAYING, PAUSED):
        raise ServiceError("not_playing")
    if not can_manage(ctx.game, tap.person.id, admin):
        raise ServiceError("not_creator")
    settings = replace(ctx.settings, pace=pace)
    ctx.game.settings = settings.to_json()
    session.add(ctx.game)
    ctx = replace(ctx, settings=settings)
    if ctx.game.status == PLAYING:
        clock = rules_of(ctx, env).restart(clock_of(ctx.game), ctx.playing_state().current, env.now)
        set_clock(session, ctx.game, clock)
    glang = ctx.language
    label = pacing.pace_label(glang, pace, env.custom_pace)
    text = _(glang, "⚙️ The pace of this game is now {pace}; the turn clock starts again.", pace=label)
    output.say_in_game(session, env, ctx, text)
    on_board = tap.message_id == record.live_board(session, ctx)  # a forged key: the board keeps its own
    if tap.chat_id is not None and tap.message_id is not None and not on_board:
        output.drop_keys(session, env, tap.chat_id, tap.message_id)  # the /settings message
    return Answer(_(lang, "Pace: {pace}", pace=pacing.pace_label(lang, pace, env.custom_pace)))


def _refused(lang: str, error: ServiceError, admin: bool) -> Answer:
    """The refusal to show; one a group admin may overrule (only the creator may do that) also asks
    the handler to check with Telegram, and is shown as it is if the tapper is no admin."""
    answer = answer_refusal(lang, error)
    return replace(answer, need_admin=True) if error.reason == "not_creator" and not admin else answer


def start(session: Session, env: Env, ctx: GameContext, players: list[GamePlayer]) -> None:
    """Deal: the lobby says who plays, the first board goes up, computers may move first."""
    if len(players) < MIN_PLAYERS:
        raise ServiceError("too_few")
    if all(p.ai_level is not None for p in players):
        raise ServiceError("no_humans")
    try:
        config = ctx.settings.engine_config(len(players))
    except EngineError as exc:
        raise ServiceError("bad_config", detail=str(exc)) from exc
    seed = env.new_seed()
    state = engine.new_game(config, seed)
    game = ctx.game
    game.seed = seed
    game.state = dump_state(state)
    game.status = PLAYING
    game.version = 1
    game.updated_at = env.now
    session.add(
        Move(game_id=ctx.game_id, seq=1, seat=None, code=f"start:{seed}", source="system", at=env.now)
    )
    # The turn starts when the board is seen.
    set_clock(session, game, TurnClock.waiting(clock_of(game), state.current))
    session.flush()
    ctx = context_of(session, game)
    lang = ctx.language
    names = ", ".join(cards_render.name(s.name) for s in ctx.seats)
    started = _(lang, "🃏 <b>TWEAK!</b> has started: {names}", names=names)
    lobby_message.close_lobby(session, env, ctx, started, Priority.COSMETIC)  # the board goes first
    result = moves.PlayResult(ctx)
    moves.autoplay(session, env, result)  # a computer may be first to move
    if result.outcomes or result.abandoned:
        record.report(session, env, result)  # the first board, under the computers' moves
    else:
        record.post_board(session, env, ctx)


def cancel(session: Session, env: Env, ctx: GameContext) -> None:
    """The game ends without a result; its lobby or board says so and loses its keys."""
    game = ctx.game
    lang = ctx.language
    was_lobby = game.status == LOBBY
    game.status = CANCELLED
    game.finished_at = env.now
    game.updated_at = env.now
    set_clock(session, game, TurnClock.stop())
    session.add(game)
    text = _(lang, "✖️ The game was cancelled.")
    if was_lobby:
        lobby_message.close_lobby(session, env, ctx, text)
    else:
        record.close(session, env, ctx, text)
        output.drop_reminder(session, ctx)


def expire(session: Session, env: Env, ctx: GameContext) -> None:
    """Nobody started the lobby in time."""
    game = ctx.game
    game.status = EXPIRED
    game.finished_at = env.now
    game.updated_at = env.now
    set_clock(session, game, TurnClock.stop())
    text = _(
        ctx.language, "⌛ This lobby closed: nobody started the game in time. Send /newgame to try again."
    )
    lobby_message.close_lobby(session, env, ctx, text)
