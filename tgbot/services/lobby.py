"""The lobby: /newgame, joining and leaving, settings, computer players, start and cancel.

One game (lobby or running) per chat and forum topic. The creator, or a group admin, starts and
cancels; anyone may change the settings before the start. Each change redraws the lobby message
through the outbox, where a quick series of joins becomes one edit.

/newgame in the bot's private chat opens a practice table (`tables.TableKind.PRACTICE`): its
person against computers. Nobody else can be in that chat, so it has no Join or Leave, and it
starts with at least one computer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from sqlmodel import Session, col, select

import engine
from engine import EngineError
from engine.config import MAX_PLAYERS, MIN_PLAYERS

from .. import callbacks as cb
from .. import pacing
from ..errors import Refusal, ServiceError
from ..game_settings import GameSettings
from ..i18n import M_, _
from ..pacing import PaceName
from ..render import cards as cards_render
from ..render import private_turns as private_turns_render
from ..store import move_log
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
)
from ..store.outbox import Priority
from ..tables import TableKind
from ..turn_clock import TurnClock
from . import lobby_message, output, people, record, surfaces
from .call import Answer, CommandCall, KeyCall, Replied, command_service, key_service
from .context import GameContext, context_of, dump_state, player_rows, require_game
from .env import Env
from .game_clock import clock_of, rules_of, set_clock, turn_clock
from .origins import Tap
from .people import Person

COMPUTER_NAMES = {"easy": M_("Bot Easy"), "normal": M_("Bot Normal"), "hard": M_("Bot Hard")}


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


@command_service
def newgame(call: CommandCall) -> Replied:
    """/newgame: a lobby (one per chat and topic), unless a game is already here. In a group, for
    its members; in the bot's private chat, a practice table for its person and computers."""
    session, env, command = call.session, call.env, call.command
    chat = people.lock_chat(session, command.chat_id, env)  # another instance may be creating one too
    if command.chat_title:
        chat.title = command.chat_title[:128]
    existing = active_game(session, command.chat_id, command.thread_id)
    if existing is not None:
        _point_at(session, env, existing)
        return Replied("exists", existing.id)
    settings = GameSettings(pace=env.default_pace)
    game = open_lobby(session, env, chat, command.thread_id, command.person, call.language, settings)
    return Replied("lobby", game.id)


def open_lobby(
    session: Session,
    env: Env,
    chat: Chat,
    thread_id: int | None,
    creator: Person,
    language: str,
    settings: GameSettings,
    computers: Sequence[str] = (),
) -> Game:
    """A new lobby in `chat` (locked by the caller, with no game open in that topic): the creator
    in the first seat, then a computer player of each level in `computers`. A chat new to the bot
    speaks the creator's `language`; a practice table always speaks its person's."""
    people.note_user(session, creator, env)
    if not chat.language and TableKind.of_chat(chat.id) is not TableKind.PRACTICE:
        chat.language = language  # (a practice table takes its person's language each time)
    session.add(chat)
    game = Game(
        chat_id=chat.id,
        thread_id=thread_id,
        status=LOBBY,
        creator_id=creator.id,
        language=chat.language or language,
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
    elsewhere = tap.chat_id is not None and ctx.game.chat_id != tap.chat_id
    if elsewhere or (tap.private and ctx.table is not TableKind.PRACTICE):
        raise ServiceError(Refusal.MALFORMED)  # a lobby key forged into another chat
    if ctx.game.status != LOBBY:
        raise ServiceError(Refusal.NOT_LOBBY)
    return ctx


def _lobby_key(call: KeyCall, game_id: int) -> tuple[GameContext, list[GamePlayer]]:
    """The lobby a join/leave/start/cancel/settings key is for, with its players; the tapper is
    known to the bot from then on."""
    ctx = _lobby(call.session, call.tap, game_id)
    people.note_user(call.session, call.tap.person, call.env)
    return ctx, player_rows(call.session, game_id)


@key_service(KeyCall)
def join(call: KeyCall, key: cb.Join) -> Answer:
    ctx, players = _lobby_key(call, key.game_id)
    _not_practice(ctx)
    person = call.tap.person
    if any(p.user_id == person.id for p in players):
        raise ServiceError(Refusal.ALREADY_JOINED)
    if len(players) >= MAX_PLAYERS:
        raise ServiceError(Refusal.LOBBY_FULL)
    call.session.add(
        GamePlayer(game_id=ctx.game_id, seat=len(players), user_id=person.id, name=person.first_name[:128])
    )
    seat = _changed(call.session, call.env, ctx).seat_of(person.id)
    return Answer(private_turns_render.joined(call.language, seat is not None and seat.can_dm))


@key_service(KeyCall)
def leave(call: KeyCall, key: cb.Leave) -> Answer:
    ctx, _players = _lobby_key(call, key.game_id)
    _not_practice(ctx)
    leave_lobby(call.session, call.env, ctx, call.tap.person.id)
    return Answer(_(call.language, "You left the lobby."))


def _not_practice(ctx: GameContext) -> None:
    """A practice lobby has no Join or Leave keys: nobody else can be in its chat."""
    if ctx.table is TableKind.PRACTICE:
        raise ServiceError(Refusal.MALFORMED)


@key_service(KeyCall)
def open_settings(call: KeyCall, key: cb.OpenSettings) -> Answer:
    ctx, _players = _lobby_key(call, key.game_id)
    lobby_message.show_lobby(call.session, call.env, ctx, settings_screen=True)
    return Answer()


@key_service(KeyCall)
def close_settings(call: KeyCall, key: cb.CloseSettings) -> Answer:
    ctx, _players = _lobby_key(call, key.game_id)
    lobby_message.show_lobby(call.session, call.env, ctx, settings_screen=False)
    return Answer()


def _managed_lobby_key(call: KeyCall, game_id: int) -> tuple[GameContext, list[GamePlayer]]:
    """As `_lobby_key`, for the keys only the creator (or a group admin) may use."""
    ctx, players = _lobby_key(call, game_id)
    if not can_manage(ctx.game, call.tap.person.id, bool(call.tap.admin)):
        raise ServiceError(Refusal.NOT_CREATOR)
    return ctx, players


@key_service(KeyCall)
def start_game(call: KeyCall, key: cb.Start) -> Answer:
    ctx, players = _managed_lobby_key(call, key.game_id)
    if ctx.table is TableKind.PRACTICE and all(p.ai_level is None for p in players):
        raise ServiceError(Refusal.NO_COMPUTER)
    start(call.session, call.env, ctx, players)
    return Answer()


@key_service(KeyCall)
def cancel_lobby(call: KeyCall, key: cb.Cancel) -> Answer:
    ctx, _players = _managed_lobby_key(call, key.game_id)
    cancel(call.session, call.env, ctx)
    return Answer()


def _changed(session: Session, env: Env, ctx: GameContext, settings_screen: bool = False) -> GameContext:
    """The lobby redrawn as it is now; the game as it was drawn."""
    ctx.game.updated_at = env.now
    session.add(ctx.game)
    session.flush()
    drawn = context_of(session, ctx.game)
    lobby_message.show_lobby(session, env, drawn, settings_screen)
    return drawn


def leave_lobby(session: Session, env: Env, ctx: GameContext, user_id: int) -> None:
    players = player_rows(session, ctx.game_id)
    mine = [p for p in players if p.user_id == user_id]
    if not mine:
        raise ServiceError(Refusal.NOT_IN_GAME)
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


@key_service(KeyCall)
def add_computer(call: KeyCall, key: cb.AddComputer) -> Answer:
    session = call.session
    ctx = _lobby(session, call.tap, key.game_id)
    players = player_rows(session, key.game_id)
    if len(players) >= MAX_PLAYERS:
        raise ServiceError(Refusal.LOBBY_FULL)
    label = computer_name(ctx.language, [p.ai_level for p in players], key.level)
    session.add(
        GamePlayer(game_id=key.game_id, seat=len(players), user_id=None, name=label, ai_level=key.level)
    )
    _changed(session, call.env, ctx, key.stay)
    return Answer(_(call.language, "A computer player joined."))


@key_service(KeyCall)
def change_setting(call: KeyCall, key: cb.Setting) -> Answer:
    """A settings key: in the lobby anyone may; the pace of a running game, its manager only."""
    session, env, tap = call.session, call.env, call.tap
    ctx = require_game(session, key.game_id, lock=True)
    if tap.chat_id is not None and ctx.game.chat_id != tap.chat_id:
        raise ServiceError(Refusal.MALFORMED)  # forged into another chat
    if ctx.game.status != LOBBY:
        if not isinstance(key, cb.SetPace):
            raise ServiceError(Refusal.NOT_LOBBY)
        return change_pace(session, env, ctx, tap, key.value, bool(tap.admin), call.language)
    if isinstance(key, cb.SetPace) and not pacing.is_known(key.value, env.custom_pace):
        raise ServiceError(Refusal.BAD_SETTING)
    settings = key.change(ctx.settings, max(MIN_PLAYERS, len(ctx.seats)))
    ctx.game.settings = settings.to_json()
    _changed(session, env, ctx, settings_screen=True)
    return Answer()


def change_pace(
    session: Session, env: Env, ctx: GameContext, tap: Tap, pace: PaceName | None, admin: bool, lang: str
) -> Answer:
    """A pace key under /settings of a running game: the turn clock starts again. Here, with the
    lobby's settings, because the same key changes the pace before the start and after it."""
    if pace is None or not pacing.is_known(pace, env.custom_pace):
        raise ServiceError(Refusal.BAD_SETTING)
    if ctx.game.status not in (PLAYING, PAUSED):
        raise ServiceError(Refusal.NOT_PLAYING)
    if not can_manage(ctx.game, tap.person.id, admin):
        raise ServiceError(Refusal.NOT_CREATOR)
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
    # Said once a minute at most; a change within it comes to stand in that notice.
    game = ctx.game
    output.say_capped(session, env, game.chat_id, f"pace:{ctx.game_id}", text, thread_id=game.thread_id)
    on_board = tap.message_id == record.live_board(session, ctx)  # a forged key: the board keeps its own
    if tap.chat_id is not None and tap.message_id is not None and not on_board:
        output.drop_keys(session, env, tap.chat_id, tap.message_id)  # the /settings message
    return Answer(_(lang, "Pace: {pace}", pace=pacing.pace_label(lang, pace, env.custom_pace)))


def start(session: Session, env: Env, ctx: GameContext, players: list[GamePlayer]) -> None:
    """Deal: the lobby says who plays, the first board goes up, computers may move first."""
    if len(players) < MIN_PLAYERS:
        raise ServiceError(Refusal.TOO_FEW)
    if all(p.ai_level is not None for p in players):
        raise ServiceError(Refusal.NO_HUMANS)
    try:
        config = ctx.settings.engine_config(len(players))
    except EngineError as exc:
        raise ServiceError(Refusal.BAD_CONFIG, detail=str(exc)) from exc
    seed = env.new_seed()
    state = engine.new_game(config, seed)
    game = ctx.game
    game.seed = seed
    game.state = dump_state(state)
    game.status = PLAYING
    game.version = 1
    game.updated_at = env.now
    start = f"start:{seed}"
    move_log.add(session, game_id=ctx.game_id, seq=1, seat=None, code=start, source="system", at=env.now)
    session.flush()
    ctx = context_of(session, game)
    # A person's turn starts when the board is seen; a computer first to move plays after the
    # commit, and the first board comes under its moves (`services.autoplay`).
    turn_clock(session, env, ctx, state.current)
    lang = ctx.language
    names = ", ".join(cards_render.name(s.name) for s in ctx.seats)
    started = _(lang, "🃏 <b>TWEAK!</b> has started: {names}", names=names)
    lobby_message.close_lobby(session, env, ctx, started, Priority.COSMETIC)  # the board goes first
    if not record.bot_to_move(ctx):
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
