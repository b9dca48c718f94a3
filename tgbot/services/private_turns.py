"""Whether the bot may write to a person (`users.can_dm`), kept as Telegram says it and shown at
once on the lobbies they sit in (their 🔔); and the lobby's 🔔 link, ``/start p<game>``, answered.

The bot may write to someone once they opened its private chat (/start, any link to the bot,
Telegram's word that they unblocked it), and no more once they block it. Boards and reminders
read it as they are written (`panels.reached_privately`): from then on the player to move alone
is told, in private, and the board goes silently. Only lobbies, drawn before, are redrawn here.
"""

from __future__ import annotations

from sqlmodel import Session

from ..errors import Refusal, ServiceError
from ..render.private_turns import confirmed
from ..store import games as game_rows
from ..store import people as people_rows
from ..store.db import write_now
from ..store.models import ACTIVE_STATUSES, LOBBY
from . import people
from .call import CommandCall, Replied
from .context import GameContext, context_of, load_game
from .env import Env
from .people import Person
from .tables import presenter_of


def open_chat(session: Session, env: Env, person: Person) -> None:
    """The person opened their private chat with the bot: it may write to them."""
    user = people_rows.user(session, person.id)
    if user is not None and user.can_dm:
        people.upsert_user(session, person, env, can_dm=True)
        return
    lobbies = _their_lobbies(session, person.id)
    people.upsert_user(session, person, env, can_dm=True)
    _redraw(session, env, lobbies)


def set_reach(session: Session, env: Env, user_id: int, can_dm: bool) -> None:
    """Telegram said the person unblocked the bot (`can_dm`) or blocked it."""
    known = people_rows.can_dm_of(session, user_id)
    if known is None or known[0] == can_dm:
        return
    lobbies = _their_lobbies(session, user_id)
    people.set_can_dm(session, user_id, can_dm)
    _redraw(session, env, lobbies)


def _their_lobbies(session: Session, user_id: int) -> list[GameContext]:
    """The open lobbies the person sits in, locked before their row is written (the order a Join
    takes: its game, then its person), so the two never wait for each other."""
    waiting = game_rows.waiting_as(session, user_id, LOBBY)
    found = (load_game(session, game_id, lock=True) for game_id in waiting)
    return [ctx for ctx in found if ctx is not None and ctx.game.status == LOBBY]


def _redraw(session: Session, env: Env, lobbies: list[GameContext]) -> None:
    write_now(session)
    for ctx in lobbies:
        fresh = context_of(session, ctx.game)
        presenter_of(fresh).show_lobby(session, env, fresh)


def confirm(call: CommandCall, game_id: int) -> Replied:
    """The lobby's 🔔 link, opened by a player of that game (the chat is open: `open_chat`): it
    says which game and chat it was for (a chat the bot is not in, by the name its notices give
    it). Anyone else, and a game over, is told nothing changed."""
    ctx = load_game(call.session, game_id)
    seat = ctx.seat_of(call.command.person.id) if ctx is not None else None
    if ctx is None or ctx.game.status not in ACTIVE_STATUSES or seat is None or seat.left:
        raise ServiceError(Refusal.NOT_YOUR_LINK)
    lang = call.reply_language
    call.reply(confirmed(lang, game_id, presenter_of(ctx).chat_name(ctx, lang)))
    return Replied(game_id=game_id, action="private_turns")
