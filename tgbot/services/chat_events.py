"""What happens to games when their chat changes under them (DESIGN §5).

* **Migration** (a group became a supergroup, with a new chat id): the chat's settings, stats and
  games move to the new id; what was waiting to be shown goes along (move reports and notices
  as they were; boards and lobbies drawn afresh, since the old messages cannot be edited from
  the new chat). Idempotent: Telegram tells twice, and a send may find out first.
* **Bot removed** (kicked, or a 403 when writing): the running games are held, paused with no end,
  state kept; nothing can be shown there meanwhile. **Bot back**: the group is told to send
  /board, which lets a held game go on (so does /resume).
* **A player left the group**: their seat is left, exactly like /leave.
* A **private chat that blocks the bot** gets no more panels; the group board still works. A
  practice table in that chat is held like a game of a group the bot left, until the person
  opens the chat again and sends /board.
* A **board deleted** by an admin is posted again when a reminder finds it gone.

`SenderTrouble` is how the delivery side reports these (it never touches the games itself).
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from dataclasses import replace

from sqlmodel import Session

from ..errors import Outcome
from ..render import table_notices
from ..store import chat_moves, outbox
from ..store import games as game_rows
from ..store import people as people_rows
from ..store.models import ACTIVE_STATUSES, LOBBY, PAUSED, PLAYING, Game
from ..store.surfaces import Board, Lobby, Surface
from ..turn_clock import TurnClock
from . import (
    inline_table,
    lobby,
    people,
    private_turns,
    stats,
    surfaces,
    table_control,
)
from .call import EventCall, Noted, event_service
from .context import GameContext, SeatInfo, context_of, load_game
from .env import Env
from .game_clock import clock_of, is_held, set_clock, start_when_shown
from .tables import presenter_of

log = logging.getLogger("tweakbot.chat_events")

#: Supergroup and channel ids are -100… (Telegram's -1000000000000 minus the channel id): only a
#: basic group becomes a supergroup, once, so such a chat never migrates again.
SUPERGROUP_IDS_FROM = -1_000_000_000_000


def migrate_chat(session: Session, env: Env, old_id: int, new_id: int) -> list[int]:
    """Move the chat to `new_id`; the ids of the active games that moved."""
    if old_id == new_id:
        return []
    old = people_rows.chat(session, old_id)
    if old is not None:
        new = people.upsert_chat(session, new_id, old.title, env)
        if not new.language:
            new.language = old.language
        if new.quiet_start is None and old.quiet_start is not None:
            new.quiet_start, new.quiet_end = old.quiet_start, old.quiet_end
            new.utc_offset_minutes = old.utc_offset_minutes
        new.bot_removed = False
        people_rows.save(session, new)
    chat_moves.move_rows(session, old_id, new_id)
    stats.migrate_chat_stats(session, old_id, new_id, env.now)
    games = game_rows.in_chat(session, old_id)
    live = {surface for g in games if g.status in ACTIVE_STATUSES for surface in _live_surfaces(g)}
    _carry_waiting(session, old_id, live)
    outbox.move_chat(session, old_id, new_id)
    moved: list[int] = []
    for game in games:
        game.chat_id = new_id
        if game.status in ACTIVE_STATUSES and game.id is not None:
            moved.append(game.id)
    game_rows.write(session, *games)
    for game_id in moved:
        ctx = context_of(session, game_rows.the_one(session, game_id))
        if ctx.game.status == LOBBY:
            presenter_of(ctx).show_lobby(session, env, ctx)
        else:
            note = table_notices.now_supergroup(ctx.language)
            presenter_of(ctx).post_board(session, env, ctx, note=[note])
    return sorted(moved)


def _live_surfaces(game: Game) -> list[Surface]:
    assert game.id is not None
    return [surfaces.board(game), surfaces.lobby(game.id)]


def _carry_waiting(session: Session, chat_id: int, live: set[Surface]) -> None:
    """Before the rows move: a live board or lobby is drawn afresh in the new chat (its waiting
    content is dropped); any other waiting surface (an old board becoming a move report) goes
    as a plain message, keys taken off, so no move line is lost."""
    outbox.write_pending(session)  # what this transaction put is among them
    for row in chat_moves.waiting_surfaces(session, chat_id):
        if row.surface in live:
            chat_moves.drop_waiting(session, row)
            continue
        payload = outbox.Payload.from_json(row.payload)
        if payload.edit_only or payload.keys_only:
            chat_moves.drop_waiting(session, row)
            continue
        row.payload = replace(payload, keys=None, message_id=None).to_json()
        row.surface = None
        chat_moves.keep_waiting(session, row)


def bot_removed(session: Session, env: Env, chat_id: int) -> list[int]:
    """Hold the chat's running games (paused with no end); their ids."""
    chat = people.upsert_chat(session, chat_id, None, env)
    chat.bot_removed = True
    people_rows.save(session, chat)
    held: list[int] = []
    for game in game_rows.running_in(session, chat_id):
        game.status = PAUSED
        game.updated_at = env.now
        set_clock(session, game, TurnClock.pause(clock_of(game), env.now, None))
        assert game.id is not None
        held.append(game.id)
    return sorted(held)


def bot_added(session: Session, env: Env, chat_id: int, title: str | None) -> None:
    """The bot is (back) in the group: games waiting for /board say so."""
    chat = people.upsert_chat(session, chat_id, title, env)
    chat.bot_removed = False
    people_rows.save(session, chat)
    for game in lobby.active_games(session, chat_id):
        if is_held(game):
            ctx = context_of(session, game)
            presenter_of(ctx).say(session, env, ctx, table_notices.bot_back(ctx.language))


def member_left(call: EventCall, user_id: int) -> list[int]:
    """A person left (or was removed from) the group: they leave its games; the games changed.
    Each game in a savepoint of its own: one that refuses (already gone) leaves the others be."""
    session = call.session
    changed: list[int] = []
    for game in lobby.active_games(session, call.origin.chat_id):
        assert game.id is not None
        ctx = load_game(session, game.id, lock=True)
        seat = ctx.seat_of(user_id) if ctx is not None else None
        if ctx is None or seat is None or seat.left:
            continue  # not in it, or already gone: leaving twice changes nothing
        if call.attempt(functools.partial(_leave, call, ctx, seat)).outcome is Outcome.OK:
            changed.append(game.id)
    return changed


def _leave(call: EventCall, ctx: GameContext, seat: SeatInfo) -> Noted:
    assert seat.user_id is not None
    if ctx.game.status == LOBBY:
        lobby.leave_lobby(call.session, call.env, ctx, seat.user_id)
    else:
        notice = table_notices.left_group(ctx.language, seat.name)
        table_control.leave_game(call.session, call.env, ctx, seat.user_id, notice)
    return Noted()


# --- the changes as they arrive (`handlers.chat_events`) ---------------------------------------


@event_service
def chat_migrated(call: EventCall, new_id: int) -> Noted:
    """The chat (`origin.chat_id`) became a supergroup with `new_id`."""
    moved = migrate_chat(call.session, call.env, call.origin.chat_id, new_id)
    return Noted(Outcome.MOVED, count=len(moved))


@event_service
def bot_left(call: EventCall) -> Noted:
    held = bot_removed(call.session, call.env, call.origin.chat_id)
    return Noted(Outcome.HELD, count=len(held))


@event_service
def bot_joined(call: EventCall, title: str | None) -> Noted:
    bot_added(call.session, call.env, call.origin.chat_id, title)
    return Noted()


@event_service
def person_left(call: EventCall) -> Noted:
    """`origin.person` left the group `origin.chat_id`."""
    assert call.origin.person is not None
    changed = member_left(call, call.origin.person.id)
    return Noted(Outcome.LEFT, count=len(changed))


@event_service
def private_chat(call: EventCall, open_now: bool) -> Noted:
    """The person started (`open_now`) or blocked their private chat with the bot: panels and
    reminders may go there, or not; a practice table there is held, or says how to go on."""
    session, env, chat_id = call.session, call.env, call.origin.chat_id
    private_turns.set_reach(session, env, chat_id, open_now)
    if open_now and any(is_held(game) for game in lobby.active_games(session, chat_id)):
        bot_added(session, env, chat_id, None)
    elif not open_now:
        hold_practice(session, env, chat_id)
    return Noted(Outcome.OPEN if open_now else Outcome.BLOCKED)


def hold_practice(session: Session, env: Env, user_id: int) -> None:
    """The person's chat with the bot refuses it: a practice table there is held (nothing of it
    could be seen), as a group's games are when the bot is removed."""
    if lobby.active_games(session, user_id):
        bot_removed(session, env, user_id)


class SenderTrouble:
    """The services' answers to what Telegram told a sender (`delivery.recording.ChatTrouble`)."""

    def __init__(self, make_env: Callable[[], Env]) -> None:
        self.make_env = make_env

    def bot_removed(self, session: Session, chat_id: int) -> None:
        bot_removed(session, self.make_env(), chat_id)

    def private_blocked(self, session: Session, user_id: int) -> None:
        env = self.make_env()
        private_turns.set_reach(session, env, user_id, False)
        hold_practice(session, env, user_id)

    def migrated(self, session: Session, old_id: int, new_id: int) -> None:
        """A send found the group migrated: its games follow. A supergroup that says it migrated
        (a broken answer, or the second hop of a chain) is not followed, so a send never loops:
        what waits for it is dropped."""
        if old_id <= SUPERGROUP_IDS_FROM:
            dropped = outbox.drop_chat(session, old_id)
            log.error(
                "chat %s, a supergroup, says it became %s: not followed (%d dropped)", old_id, new_id, dropped
            )
            return
        migrate_chat(session, self.make_env(), old_id, new_id)

    def surface_shown(self, session: Session, chat_id: int, surface: Surface) -> None:
        start_when_shown(session, self.make_env(), chat_id, surface)

    def inline_gone(self, session: Session, game_id: int, inline_id: str, held: str | None) -> None:
        """A person deleted a message of a game played via inline mode (`inline_table.gone`)."""
        inline_table.gone(session, self.make_env(), game_id, inline_id, held)

    def surface_lost(self, session: Session, chat_id: int, surface: Surface) -> None:
        """A message a reminder answered is gone (deleted by an admin): the live board or lobby
        is posted again."""
        if not isinstance(surface, Board | Lobby):
            return
        ctx = load_game(session, surface.game_id, lock=True)
        if ctx is None or ctx.game.chat_id != chat_id:
            return
        env = self.make_env()
        if isinstance(surface, Lobby) and ctx.game.status == LOBBY:
            presenter_of(ctx).show_lobby(session, env, ctx)
        elif surface == surfaces.board(ctx.game) and ctx.game.status == PLAYING:
            presenter_of(ctx).post_board(session, env, ctx)
