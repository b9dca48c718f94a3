"""🔁 Rematch, under a finished game's standings: a new lobby with the same table.

The lobby takes the finished game's settings (edition, colours, goal, [T!] face down, pace) and its
computer players (same levels), with the tapper in the first seat as its creator. The other
players join with ✋ Join like in any lobby: nobody is seated in a game they did not ask for. From
then on it is an ordinary lobby (it expires, its creator or an admin starts or cancels it).

At a practice table (the bot's private chat) the rematch is the same: a practice lobby with the
same computers, its person in it, one tap on ▶️ Start away.

Refused (decision B15): to someone who did not play that game; while a game (lobby or running) is
open in that chat or topic, so a double tap opens one lobby; and, once that is over, if a newer
game was played there: those standings are old, and their key goes.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from sqlmodel import Session

from engine.ai import ALIASES, LEVELS

from .. import callbacks as cb
from .. import pacing
from ..errors import Refusal, ServiceError
from ..game_settings import GameSettings
from ..store import games as game_rows
from ..store.models import FINISHED, LOBBY, Game
from . import lobby, output, people
from .call import Answer, KeyCall, key_service
from .context import GameContext, player_rows, require_game
from .env import Env
from .tables import presenter_of


@dataclass
class RematchKey(KeyCall):
    """A refused rematch on standings a newer game made old also takes their key off."""

    def refused(self, error: ServiceError) -> Answer:
        tap = self.tap
        if error.reason is Refusal.REMATCH_OLD and tap.chat_id is not None and tap.message_id is not None:
            output.drop_keys(
                self.session, self.env, tap.chat_id, tap.message_id
            )  # those standings are history
        return super().refused(error)


@key_service(RematchKey)
def rematch(call: RematchKey, key: cb.Rematch) -> Answer:
    session, env, tap = call.session, call.env, call.tap
    ctx = require_game(session, key.game_id)
    game = ctx.game
    if tap.chat_id != game.chat_id or game.status != FINISHED:
        raise ServiceError(Refusal.MALFORMED)  # forged: another chat, or a game that did not finish
    if ctx.seat_of(tap.person.id) is None:
        raise ServiceError(Refusal.REMATCH_NOT_PLAYER)
    chat = people.lock_chat(session, game.chat_id, env)  # one lobby, even for a double tap
    here = lobby.active_game(session, game.chat_id, game.thread_id)
    if here is not None:
        if here.status != LOBBY:
            raise ServiceError(Refusal.GAME_EXISTS)
        assert here.id is not None
        if any(p.user_id == tap.person.id for p in player_rows(session, here.id)):
            raise ServiceError(Refusal.ALREADY_JOINED)
        raise ServiceError(Refusal.LOBBY_OPEN)
    if _played_since(session, game):
        raise ServiceError(Refusal.REMATCH_OLD)
    levels = (ALIASES.get(s.ai_level, s.ai_level) for s in ctx.seats if s.ai_level is not None)
    computers = [level for level in levels if level in LEVELS]  # an older bot's names, today's
    lobby.open_lobby(
        session, env, chat, game.thread_id, tap.person, call.language, _settings(ctx, env), computers
    )
    return Answer(presenter_of(ctx).rematch_opened(call.language))


def _settings(ctx: GameContext, env: Env) -> GameSettings:
    """The finished game's settings; a custom pace the bot no longer offers becomes the default."""
    settings = ctx.settings
    if not pacing.is_known(settings.pace, env.custom_pace):
        settings = replace(settings, pace=env.default_pace)
    return settings


def _played_since(session: Session, game: Game) -> bool:
    """A newer game was started in the same chat and topic (an expired or cancelled lobby was not)."""
    return game_rows.played_since(session, game)
