"""The lobby: /newgame, joining and leaving, settings, computer players, start and cancel.

One game (lobby or running) per chat and forum topic. The creator, or a group admin, starts and
cancels; anyone may change the settings before the start. Each change redraws the lobby message
through the outbox, where a quick series of joins becomes one edit.

/newgame in the bot's private chat opens a practice table (`services.tables.practice`): its
person against computers. Nobody else can be in that chat, so it has no Join or Leave, and it
starts with at least one computer.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlmodel import Session

import engine
from engine import EngineError
from engine.config import MIN_PLAYERS

from ..errors import Outcome, Refusal, ServiceError
from ..game_settings import GameSettings
from ..render import lobby as lobby_render
from ..store import games as game_rows
from ..store import move_log, once_keys
from ..store import people as people_rows
from ..store import seats as seat_rows
from ..store.db import write_now
from ..store.models import (
    CANCELLED,
    EXPIRED,
    LOBBY,
    PLAYING,
    Chat,
    Game,
    GamePlayer,
)
from ..tables import inline_chat_id
from ..turn_clock import TurnClock
from . import inline_table, old_standings, output, people, record, surfaces
from .call import CommandCall, Replied, command_service
from .context import GameContext, context_of, dump_state, player_rows
from .env import Env
from .game_clock import end_game, set_clock, turn_clock
from .people import Person
from .tables import kind_of_new, presenter_for, presenter_of


def active_game(session: Session, chat_id: int, thread_id: int | None) -> Game | None:
    return game_rows.open_in_topic(session, chat_id, thread_id)


def active_games(session: Session, chat_id: int) -> list[Game]:
    """Every lobby and running game of a chat (all its topics), oldest first."""
    return game_rows.open_in_chat(session, chat_id)


def can_manage(game: Game, user_id: int, admin: bool) -> bool:
    return game.creator_id == user_id or admin


def require_manager(ctx: GameContext, user_id: int, admin: bool) -> None:
    """A lobby's (and a table's pace) keys are the creator's, or a group admin's; in a chat the
    bot is not in nobody can be asked about, so there they are its poster's alone."""
    if not can_manage(ctx.game, user_id, admin):
        raise ServiceError(presenter_of(ctx).not_manager)


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
        return Replied(Outcome.EXISTS, existing.id)
    settings = GameSettings(pace=env.default_pace)
    game = open_lobby(session, env, chat, command.thread_id, command.person, call.language, settings)
    return Replied(Outcome.LOBBY, game.id)


def open_lobby(
    session: Session,
    env: Env,
    chat: Chat,
    thread_id: int | None,
    creator: Person,
    language: str,
    settings: GameSettings,
    computers: Sequence[str] = (),
    *,
    inline_id: str | None = None,
) -> Game:
    """A new lobby in `chat` (locked by the caller, with no game open in that topic): the creator
    in the first seat, then a computer player of each level in `computers`. A chat new to the bot
    speaks the creator's `language`; a practice table always speaks its person's. `inline_id`:
    the message a person posted the lobby as, in a chat the bot is not in (`inline_table`)."""
    people.note_user(session, creator, env)
    kind = kind_of_new(chat.id, inline_id)
    if not chat.language and not presenter_for(kind).in_players_chat:
        chat.language = language  # (a practice table takes its person's language each time)
    people_rows.save(session, chat)
    game = Game(
        chat_id=chat.id,
        thread_id=thread_id,
        status=LOBBY,
        creator_id=creator.id,
        language=chat.language or language,
        settings=settings.to_json(),
        created_at=env.now,
        updated_at=env.now,
        inline_id=inline_id,
        table_kind=kind,
    )
    game_id = game_rows.create(session, game)
    creator_seat = GamePlayer(game_id=game_id, seat=0, user_id=creator.id, name=creator.first_name[:128])
    seat_rows.save(session, creator_seat)
    levels: list[str] = []
    for level in computers:
        name = lobby_render.computer_name(game.language, levels, level)
        levels.append(level)
        computer = GamePlayer(game_id=game_id, seat=len(levels), user_id=None, name=name, ai_level=level)
        seat_rows.save(session, computer)
    set_clock(session, game, TurnClock.lobby(env.now, env.lobby_ttl))  # an unstarted lobby expires
    write_now(session)
    drawn = context_of(session, game)
    presenter_of(drawn).show_lobby(session, env, drawn)
    return game


def open_posted_lobby(
    session: Session,
    env: Env,
    creator: Person,
    language: str,
    inline_id: str,
    settings: GameSettings,
    computers: Sequence[str] = (),
) -> Game | None:
    """A lobby a person posted via inline mode (🎴 New game here, 🔁 Rematch here) in a chat the
    bot is not in: the game, its lobby shown in that message; None when that message is a game's
    already (the pick arrived twice)."""
    chat = people.lock_chat(session, inline_chat_id(inline_id), env)  # one game, whoever asks twice
    if inline_table.by_message(session, inline_id) is not None:
        return None
    return open_lobby(session, env, chat, None, creator, language, settings, computers, inline_id=inline_id)


def _point_at(session: Session, env: Env, game: Game) -> None:
    """A second /newgame is answered under the running game's board (or lobby), so one tap finds
    it; sixty in a row still get one answer a minute, not sixty."""
    assert game.id is not None
    surface = surfaces.board(game) if game.status != LOBBY else surfaces.lobby(game.id)
    text = lobby_render.already_running(game.language)
    key = once_keys.exists(game.id)
    output.say_once(session, env, game.chat_id, key, text, thread_id=game.thread_id, reply_to=surface)


def changed(session: Session, env: Env, ctx: GameContext, settings_screen: bool = False) -> GameContext:
    """The lobby redrawn as it is now; the game as it was drawn."""
    ctx.game.updated_at = env.now
    game_rows.write(session, ctx.game)
    drawn = context_of(session, ctx.game)
    presenter_of(drawn).show_lobby(session, env, drawn, settings_screen)
    return drawn


def leave_lobby(session: Session, env: Env, ctx: GameContext, user_id: int) -> None:
    players = player_rows(session, ctx.game_id)
    mine = [p for p in players if p.user_id == user_id]
    if not mine:
        raise ServiceError(Refusal.NOT_IN_GAME)
    seat_rows.leave(session, mine[0], [p for p in players if p.user_id != user_id])
    changed(session, env, ctx)


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
    write_now(session)
    ctx = context_of(session, game)
    # A person's turn starts when the board is seen; a computer first to move plays after the
    # commit, and the first board comes under its moves (`services.autoplay`).
    turn_clock(session, env, ctx, state.current)
    lang = ctx.language
    started = lobby_render.started(lang, [s.name for s in ctx.seats])
    presenter_of(ctx).say_started(session, env, ctx, started)
    if not record.bot_to_move(ctx):
        presenter_of(ctx).post_board(session, env, ctx)
    old_standings.retire(session, env, ctx)  # a newer game is played here: their rematch is history


def cancel(session: Session, env: Env, ctx: GameContext) -> None:
    """The game ends without a result; its lobby or board says so and loses its keys."""
    game = ctx.game
    lang = ctx.language
    was_lobby = game.status == LOBBY
    end_game(session, game, CANCELLED, env.now)
    text = lobby_render.cancelled(lang)
    if was_lobby:
        presenter_of(ctx).close_lobby(session, env, ctx, text)
    else:
        presenter_of(ctx).close(session, env, ctx, text)
        output.drop_reminder(session, ctx)


def expire(session: Session, env: Env, ctx: GameContext) -> None:
    """Nobody started the lobby in time."""
    game = ctx.game
    end_game(session, game, EXPIRED, env.now)
    text = lobby_render.expired(ctx.language)
    presenter_of(ctx).close_lobby(session, env, ctx, text)
