"""The inline list's lines that post a game's messages in a chat the bot is not in, and what the
bot does when one is posted (`inline_table` explains that table).

* **🎴 New game here** (the list typed with nothing, in any chat but the person's own with the
  bot): posts a lobby; its chosen result makes the game, and the lobby is drawn into the message.
* **📋 Board here** (for each running game of that kind the person plays; also under "it's Ben's
  turn"): posts a message whose key brings the live board into it, at the bottom of the chat (a
  lost board comes back so too) — only in the game's own chat, which only a tap tells.
* **🔁 Rematch here** (the final standings' key types ``rematch g<id>``): posts a lobby with the
  finished game's settings and computers, for a player of that game.

A chosen result arrives once per post (inline feedback on, the result with keys, so it carries
the posted message's inline id). A move picked from 🎯 Play is `inline_moves.pick`'s.
"""

from __future__ import annotations

from dataclasses import replace

from sqlmodel import Session

from engine.ai import ALIASES, LEVELS

from .. import callbacks as cb
from .. import pacing
from ..errors import Outcome, Refusal, ServiceError
from ..game_settings import GameSettings
from ..inline_data import BoardHere, NewLobby, RematchHere, RematchQuery
from ..render import board as board_render
from ..render import inline_table as render
from ..render import lobby as lobby_render
from ..render.keys import Keyboard
from ..store import games as game_rows
from ..store.models import FINISHED, PAUSED, PLAYING
from . import inline_moves, inline_table, lobby
from .call import (
    Answer,
    InlineAnswer,
    InlineCall,
    KeyCall,
    Noted,
    PickCall,
    Result,
    inline_service,
    key_service,
    pick_service,
)
from .context import GameContext, load_game, require_game
from .env import Env

#: Inline games listed for 📋 Board here at most (the newest).
BOARDS_LISTED = 5
#: Where a person may post a game's messages: any chat but their own with the bot (that is
#: practice, `/newgame` there) and channels.
POSTABLE_CHATS = ("private", "group", "supergroup")


@inline_service
def answer(call: InlineCall) -> InlineAnswer:
    """The inline list: the lines that post a game's messages, or a game's moves (`inline`)."""
    return listed(call) or inline_moves.answer(call.session, call.env, call.origin)


def listed(call: InlineCall) -> InlineAnswer | None:
    """The list for a query that is no game's moves: the lines that post a lobby or a board, or
    a rematch's; None for a query naming a game (its moves, `inline_moves.answer`)."""
    origin = call.origin
    rematch = RematchQuery.of(origin.query)
    if rematch is not None:
        return InlineAnswer(_rematch_results(call, rematch.game_id))
    if origin.query.strip():
        return None
    if origin.chat_type not in POSTABLE_CHATS:
        return None  # the person's own chat with the bot: practice there is /newgame
    lang = call.language
    title, description = render.new_game_title(lang)
    text, keys = _posted_lobby(call, GameSettings(pace=call.env.default_pace), ())
    results = [Result(NewLobby(), title, description, text, keys)]
    for game_id in _inline_games_of(call.session, origin.person.id):
        ctx = load_game(call.session, game_id)
        if ctx is not None:
            results.append(inline_moves.board_result(lang, ctx))
    return InlineAnswer(results)


def _inline_games_of(session: Session, user_id: int) -> list[int]:
    return game_rows.running_inline_for(session, user_id, BOARDS_LISTED)


def _rematch_results(call: InlineCall, game_id: int) -> list[Result]:
    lang = call.language
    ctx = load_game(call.session, game_id)
    if ctx is None or ctx.game.status != FINISHED or ctx.seat_of(call.origin.person.id) is None:
        raise ServiceError(Refusal.REMATCH_NOT_PLAYER)
    title, description = render.rematch_title(lang)
    text, keys = _posted_lobby(call, *_rematch_table(ctx, call.env))
    return [Result(RematchHere(game_id), title, description, text, keys)]


def _posted_lobby(
    call: InlineCall, settings: GameSettings, computers: tuple[str, ...]
) -> tuple[str, Keyboard]:
    """The lobby as it will be: its creator (the person typing) and `computers` seated."""
    person, lang = call.origin.person, call.language
    players = [board_render.Player(person.first_name, person.id, None, False, False)]
    seated: list[str | None] = []
    for level in computers:
        players.append(
            board_render.Player(lobby_render.computer_name(lang, seated, level), None, level, False, False)
        )
        seated.append(level)
    view = lobby_render.LobbyView(0, tuple(players), settings, call.env.bot_username, inline=True)
    return render.posted_lobby(lang, view, call.env.custom_pace)


def _rematch_table(ctx: GameContext, env: Env) -> tuple[GameSettings, tuple[str, ...]]:
    """A finished game's settings (a pace the bot no longer offers: the default) and computers."""
    settings = ctx.settings
    if not pacing.is_known(settings.pace, env.custom_pace):
        settings = replace(settings, pace=env.default_pace)
    levels = (ALIASES.get(s.ai_level, s.ai_level) for s in ctx.seats if s.ai_level is not None)
    return settings, tuple(level for level in levels if level in LEVELS)


@pick_service
def chosen(call: PickCall) -> Noted:
    """A result of the bot's inline list was posted: a lobby, a board or a move."""
    posted = call.origin.posted
    if isinstance(posted, NewLobby):
        return _new_lobby(call, GameSettings(pace=call.env.default_pace), ())
    if isinstance(posted, BoardHere):
        return Noted(Outcome.BOARD_OFFERED, posted.game_id)  # it waits for a tap: `show_board`
    if isinstance(posted, RematchHere):
        return _rematch_here(call, posted.game_id)
    return inline_moves.pick(call.session, call.env, call.origin)


def _new_lobby(call: PickCall, settings: GameSettings, computers: tuple[str, ...]) -> Noted:
    inline_id = call.origin.inline_id
    if inline_id is None:
        return Noted(Outcome.NO_INLINE_ID)  # posted without keys: never the bot's own result
    game = lobby.open_posted_lobby(
        call.session, call.env, call.origin.person, call.language, inline_id, settings, computers
    )
    if game is None:
        return Noted(Outcome.DUPLICATE)
    return Noted(Outcome.LOBBY, game.id)


@key_service(KeyCall)
def show_board(call: KeyCall, key: cb.ShowBoard) -> Answer:
    """📋 Show the board, on a 📋 Board here post. A chosen result does not say where it was
    posted; this tap does (its `chat_instance`). In the game's own chat the post becomes the live
    board (the one before it loses its keys, and hands over its record if it was deleted); in
    any other it says where the game is played, and nothing changes: a board there would take
    moves the game's chat never sees."""
    session, env, tap = call.session, call.env, call.tap
    if tap.inline_id is None or tap.chat_instance is None:
        raise ServiceError(Refusal.MALFORMED)  # the key of a post via the bot: never on a message
    ctx = require_game(session, key.game_id, lock=True)
    if not inline_table.is_inline(ctx):
        raise ServiceError(Refusal.MALFORMED)
    if ctx.game.status not in (PLAYING, PAUSED):
        raise ServiceError(Refusal.NOT_PLAYING)
    if tap.chat_instance != ctx.game.chat_instance:
        names = [seat.name for seat in ctx.seats]
        inline_table.say_elsewhere(session, env, ctx, tap, render.played_elsewhere(ctx.language, names))
        return Answer(render.played_elsewhere(call.language, names), True, Outcome.ELSEWHERE, ctx.game_id)
    inline_table.on_post(session, env, ctx, tap.inline_id)
    inline_table.show(session, env, ctx, [])
    return Answer(game_id=ctx.game_id)


def _rematch_here(call: PickCall, game_id: int) -> Noted:
    ctx = load_game(call.session, game_id)
    if ctx is None or ctx.seat_of(call.origin.person.id) is None or ctx.game.status != FINISHED:
        return Noted(Outcome.IGNORED)
    return _new_lobby(call, *_rematch_table(ctx, call.env))
