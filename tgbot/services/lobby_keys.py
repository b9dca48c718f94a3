"""The lobby's keys: Join and Leave, the settings screen and its keys, a computer, Start and
Cancel, and the keys of a lobby as posted via inline mode (`callbacks.PostedLobby`). The rules
they apply are `lobby`'s; each key checks its lobby first (its chat, its message, its state).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from sqlmodel import Session

from engine.config import MAX_PLAYERS, MIN_PLAYERS

from .. import callbacks as cb
from .. import pacing
from ..errors import Refusal, ServiceError
from ..pacing import PaceName
from ..render import lobby as lobby_render
from ..render import private_turns as private_turns_render
from ..store import games as game_rows
from ..store import once_keys
from ..store import seats as seat_rows
from ..store.models import LOBBY, PAUSED, PLAYING, GamePlayer
from . import inline_table, lobby, output, people, record
from .call import Answer, KeyCall, key_service
from .context import GameContext, player_rows, require_game
from .env import Env
from .game_clock import clock_of, rules_of, set_clock
from .origins import Tap
from .tables import presenter_of


def _lobby(session: Session, env: Env, tap: Tap, game_id: int) -> GameContext:
    ctx = require_game(session, game_id, lock=True)
    elsewhere = tap.chat_id is not None and ctx.game.chat_id != tap.chat_id
    if elsewhere or presenter_of(ctx).on_panel(tap):
        raise ServiceError(Refusal.MALFORMED)  # a lobby key forged into another chat
    inline_table.check_tap(session, env, ctx, tap, lobby=True)
    if ctx.game.status != LOBBY:
        raise ServiceError(Refusal.NOT_LOBBY)
    return ctx


@dataclass
class LobbyKey(KeyCall):
    """A lobby key. Its refusals that do more than answer (decided on the first tap of a lobby
    posted via inline mode): a lobby posted where a game is open already is closed, pointing at
    the other; one no game took up (inline feedback is off) says what to turn on."""

    def refused(self, error: ServiceError) -> Answer:
        tap = self.tap
        game_id, inline_id, instance = error.details.get("game_id"), tap.inline_id, tap.chat_instance
        if error.reason is Refusal.SECOND_LOBBY and isinstance(game_id, int) and instance is not None:
            inline_table.close_second_lobby(self.session, self.env, game_id, instance)
        elif error.reason is Refusal.UNKNOWN_LOBBY and inline_id is not None:
            inline_table.say_feedback_off(self.session, self.env, inline_id, self.language)
        return super().refused(error)


def _lobby_key(call: KeyCall, game_id: int) -> tuple[GameContext, list[GamePlayer]]:
    """The lobby a join/leave/start/cancel/settings key is for, with its players; the tapper is
    known to the bot from then on."""
    ctx = _lobby(call.session, call.env, call.tap, game_id)
    people.note_user(call.session, call.tap.person, call.env)
    return ctx, player_rows(call.session, game_id)


@key_service(LobbyKey)
def join(call: LobbyKey, key: cb.Join) -> Answer:
    return _join(call, key.game_id)


@key_service(LobbyKey)
def leave(call: LobbyKey, key: cb.Leave) -> Answer:
    return _leave(call, key.game_id)


@key_service(LobbyKey)
def open_settings(call: LobbyKey, key: cb.OpenSettings) -> Answer:
    return _settings_screen(call, key.game_id, True)


@key_service(LobbyKey)
def close_settings(call: LobbyKey, key: cb.CloseSettings) -> Answer:
    return _settings_screen(call, key.game_id, False)


@key_service(LobbyKey)
def start_game(call: LobbyKey, key: cb.Start) -> Answer:
    return _start(call, key.game_id)


@key_service(LobbyKey)
def cancel_lobby(call: LobbyKey, key: cb.Cancel) -> Answer:
    return _cancel(call, key.game_id)


@key_service(LobbyKey)
def add_computer(call: LobbyKey, key: cb.AddComputer) -> Answer:
    return _add_computer(call, key.game_id, key.level, key.stay)


@key_service(LobbyKey)
def posted_step(call: LobbyKey, key: cb.PostedLobby) -> Answer:
    """A key of a lobby as it was posted from the inline list (drawn before its game existed):
    the game is the one that message became; none did when inline feedback is off (the message
    then says what to turn on)."""
    tap = call.tap
    game = inline_table.by_message(call.session, tap.inline_id) if tap.inline_id else None
    if game is None or game.id is None:
        raise ServiceError(Refusal.UNKNOWN_LOBBY)
    game_id = game.id
    if key.step is cb.LobbyStep.SETTINGS:
        return _settings_screen(call, game_id, True)
    if key.step is cb.LobbyStep.COMPUTER:
        return _add_computer(call, game_id, "normal", False)
    steps = {
        cb.LobbyStep.JOIN: _join,
        cb.LobbyStep.LEAVE: _leave,
        cb.LobbyStep.START: _start,
        cb.LobbyStep.CANCEL: _cancel,
    }
    return steps[key.step](call, game_id)


def _join(call: LobbyKey, game_id: int) -> Answer:
    ctx, players = _lobby_key(call, game_id)
    _not_practice(ctx)
    person = call.tap.person
    if any(p.user_id == person.id for p in players):
        raise ServiceError(Refusal.ALREADY_JOINED)
    if len(players) >= MAX_PLAYERS:
        raise ServiceError(Refusal.LOBBY_FULL)
    seat_rows.save(
        call.session,
        GamePlayer(game_id=ctx.game_id, seat=len(players), user_id=person.id, name=person.first_name[:128]),
    )
    seat = lobby.changed(call.session, call.env, ctx).seat_of(person.id)
    can_dm = seat is not None and seat.can_dm
    link = presenter_of(ctx).join_link(ctx, call.env, can_dm)
    if link is not None:
        return Answer(url=link)
    return Answer(private_turns_render.joined(call.language, can_dm))


def _leave(call: LobbyKey, game_id: int) -> Answer:
    ctx, _players = _lobby_key(call, game_id)
    _not_practice(ctx)
    lobby.leave_lobby(call.session, call.env, ctx, call.tap.person.id)
    return Answer(lobby_render.you_left(call.language))


def _not_practice(ctx: GameContext) -> None:
    """A practice lobby has no Join or Leave keys: nobody else can be in its chat."""
    if presenter_of(ctx).in_players_chat:
        raise ServiceError(Refusal.MALFORMED)


def _settings_screen(call: LobbyKey, game_id: int, shown: bool) -> Answer:
    ctx, _players = _lobby_key(call, game_id)
    presenter_of(ctx).show_lobby(call.session, call.env, ctx, settings_screen=shown)
    return Answer()


def _managed_lobby_key(call: KeyCall, game_id: int) -> tuple[GameContext, list[GamePlayer]]:
    """As `_lobby_key`, for the keys only the creator (or a group admin) may use."""
    ctx, players = _lobby_key(call, game_id)
    lobby.require_manager(ctx, call.tap.person.id, bool(call.tap.admin))
    return ctx, players


def _start(call: LobbyKey, game_id: int) -> Answer:
    ctx, players = _managed_lobby_key(call, game_id)
    if presenter_of(ctx).in_players_chat and all(p.ai_level is None for p in players):
        raise ServiceError(Refusal.NO_COMPUTER)
    lobby.start(call.session, call.env, ctx, players)
    return Answer()


def _cancel(call: LobbyKey, game_id: int) -> Answer:
    ctx, _players = _managed_lobby_key(call, game_id)
    lobby.cancel(call.session, call.env, ctx)
    return Answer()


def _add_computer(call: LobbyKey, game_id: int, level: str, stay: bool) -> Answer:
    session = call.session
    ctx = _lobby(session, call.env, call.tap, game_id)
    players = player_rows(session, game_id)
    if len(players) >= MAX_PLAYERS:
        raise ServiceError(Refusal.LOBBY_FULL)
    label = lobby_render.computer_name(ctx.language, [p.ai_level for p in players], level)
    computer = GamePlayer(game_id=game_id, seat=len(players), user_id=None, name=label, ai_level=level)
    seat_rows.save(session, computer)
    lobby.changed(session, call.env, ctx, stay)
    return Answer(lobby_render.computer_joined(call.language))


@key_service(LobbyKey)
def change_setting(call: LobbyKey, key: cb.Setting) -> Answer:
    """A settings key: in the lobby anyone may; the pace of a running game, its manager only."""
    session, env, tap = call.session, call.env, call.tap
    ctx = require_game(session, key.game_id, lock=True)
    if tap.chat_id is not None and ctx.game.chat_id != tap.chat_id:
        raise ServiceError(Refusal.MALFORMED)  # forged into another chat
    inline_table.check_tap(session, env, ctx, tap, lobby=ctx.game.status == LOBBY)
    if ctx.game.status != LOBBY:
        if not isinstance(key, cb.SetPace):
            raise ServiceError(Refusal.NOT_LOBBY)
        return change_pace(session, env, ctx, tap, key.value, bool(tap.admin), call.language)
    if isinstance(key, cb.SetPace) and not pacing.is_known(key.value, env.custom_pace):
        raise ServiceError(Refusal.BAD_SETTING)
    settings = key.change(ctx.settings, max(MIN_PLAYERS, len(ctx.seats)))
    ctx.game.settings = settings.to_json()
    lobby.changed(session, env, ctx, settings_screen=True)
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
    lobby.require_manager(ctx, tap.person.id, admin)
    settings = replace(ctx.settings, pace=pace)
    ctx.game.settings = settings.to_json()
    game_rows.save(session, ctx.game)
    ctx = replace(ctx, settings=settings)
    if ctx.game.status == PLAYING:
        clock = rules_of(ctx, env).restart(clock_of(ctx.game), ctx.playing_state().current, env.now)
        set_clock(session, ctx.game, clock)
    glang = ctx.language
    text = lobby_render.pace_changed(glang, pace, env.custom_pace)
    # Said once a minute at most; a change within it comes to stand in that notice.
    game = ctx.game
    output.say_capped(session, env, game.chat_id, once_keys.pace(ctx.game_id), text, thread_id=game.thread_id)
    on_board = tap.message_id == record.live_board(session, ctx)  # a forged key: the board keeps its own
    if tap.chat_id is not None and tap.message_id is not None and not on_board:
        output.drop_keys(session, env, tap.chat_id, tap.message_id)  # the /settings message
    return Answer(lobby_render.pace_popup(lang, pace, env.custom_pace))
