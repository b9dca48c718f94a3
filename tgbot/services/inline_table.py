"""A game in any chat, through inline mode: the table where the bot may only edit what people
post via it (`tgbot.tables`; what it does differently: `services.tables.inline`).

The bot can neither send into such a chat nor read it nor learn its id. What it can do is answer
inline queries, answer taps (popups), and edit the messages people post from its inline list,
by their inline message id. So the game is carried by those posts:

* **The newest game message is the live board** (`games.inline_id`). A person posts the lobby
  (🎴 New game here), each turn's pick (🎯 Play), or the board again (📋 Board here); each post
  becomes the live board, and the message before it keeps its text and loses its keys.
* **Nothing is said in a message of its own**: everything the record says between two posts —
  the mover's move, the computers' moves, an idle default, a notice, a round's summary, the
  standings — is added to the live board's report (`games.board_report`). An edit repeats the
  report and redraws only the board under it, so nothing reported is taken away; a report too
  long for one message shows what fits, and the rest opens the next post.
* **The chat is known by the `chat_instance` of its first tap** (`games.chat_instance`): a tap
  from another chat (a forwarded copy) is refused, and a second lobby in a chat where a game is
  open is closed, pointing at the first.
* People are told it is their move privately, where the bot may write to them; nobody else can
  be: an edit notifies nobody.

A game here is stored under a chat id of its own, from its lobby's message
(`tables.inline_chat_id`), and keeps it: a tap tells the chat, never rewrites the game. What
the chat's games share goes under the chat's id once the first tap tells it (`outbox_chat`):
their rows wait in one queue, with one budget (a group's, the safe assumption: Telegram counts
edits of inline messages on their chat, and a rematch is a new lobby message of the same chat),
and the stats add up per chat as for any chat.
"""

from __future__ import annotations

import hashlib
from dataclasses import replace

from sqlmodel import Session

from engine import public_view

from ..errors import Refusal, ServiceError
from ..inline_data import GameQuery
from ..render import inline_table as render
from ..render.keys import Keyboard
from ..store import games as game_rows
from ..store import once, once_keys, outbox
from ..store.models import CANCELLED, FINISHED, LOBBY, PAUSED, PLAYING, Game
from ..store.outbox import Message, Payload, Priority
from ..store.surfaces import InlineKeysOff
from ..tables import TableKind, inline_chat_id, played_in
from . import people, surfaces
from .context import GameContext, load_game
from .env import Env
from .game_clock import end_game
from .origins import Tap
from .table_view import table_of


def is_inline(ctx: GameContext) -> bool:
    """The game is this module's: played in a chat reached through inline mode (its stored kind;
    what the kind does is `services.tables.inline`'s)."""
    return ctx.game.table_kind == TableKind.INLINE


# --- taps -------------------------------------------------------------------------------------


def check_tap(session: Session, env: Env, ctx: GameContext, tap: Tap, *, lobby: bool = False) -> None:
    """A key of this game was tapped: on one of its messages, in its chat. The chat is learnt from
    the first tap in the lobby; a second lobby in a chat with a game open is refused (the caller
    closes it: `close_second_lobby`)."""
    if not is_inline(ctx):
        if tap.inline_id is not None:
            raise ServiceError(Refusal.MALFORMED)  # a group's key on a message posted elsewhere
        return
    if tap.inline_id is None or tap.chat_instance is None:
        raise ServiceError(Refusal.MALFORMED)
    game = ctx.game
    if lobby and tap.inline_id != game.inline_id:
        raise ServiceError(Refusal.MALFORMED)  # a lobby is one message: its keys on another are forged
    if game.chat_instance is None:
        if not lobby:
            raise ServiceError(Refusal.MALFORMED)  # every game starts from its lobby, in its chat
        if _other_game_in(session, tap.chat_instance, ctx.game_id) is not None:
            raise ServiceError(Refusal.SECOND_LOBBY, game_id=ctx.game_id)
        _settle_in(session, env, ctx, tap.chat_instance)
    elif game.chat_instance != tap.chat_instance:
        raise ServiceError(Refusal.MALFORMED)  # a copy of the game's message in another chat


def _settle_in(session: Session, env: Env, ctx: GameContext, chat_instance: str) -> None:
    """The first tap tells the chat a lobby was posted in: the game learns it (its `chat_id`
    stays its own), and from now on its rows go to the chat's queue (`outbox_chat`). The chat's
    row is locked first, so two lobbies tapped at once in one chat are settled one at a time and
    the second sees the first (`check_tap`).

    Nothing waits under the lobby's own id to follow it: the lobby is drawn into its message by
    the inline result itself, and its edits wait for this tap (`InlineTable.post_lobby`); what
    is queued before it closes the lobby for good (it expired, it was a second one)."""
    game = ctx.game
    people.lock_chat(session, inline_chat_id(f"chat:{chat_instance}"), env)
    game.chat_instance = chat_instance
    game_rows.save(session, game)


def outbox_chat(game: Game) -> int:
    """The chat id the game's rows wait under: its chat's, shared by every game there, once a tap
    told it; until then the lobby's own (`tables.played_in`)."""
    return played_in(game.chat_id, game.chat_instance)


def _other_game_in(session: Session, chat_instance: str, game_id: int) -> str | None:
    """The status of a game open in the chat besides this one (None: there is none)."""
    return game_rows.other_open_status(session, chat_instance, game_id)


def close_second_lobby(session: Session, env: Env, game_id: int, chat_instance: str) -> None:
    """A lobby posted where a game is already open: cancelled, its message pointing at the other
    (edited within that chat's budget, which the other game spends too)."""
    game = game_rows.get(session, game_id)
    if game is None or game.inline_id is None:
        return
    chat_id = inline_chat_id(f"chat:{chat_instance}")
    outbox.discard_surface(session, outbox_chat(game), surfaces.lobby(game_id))
    end_game(session, game, CANCELLED, env.now)
    lobby = _other_game_in(session, chat_instance, game_id) == LOBBY
    text = render.second_lobby(game.language, env.bot_username, lobby=lobby)
    payload = Payload(text, inline_id=game.inline_id)
    outbox.put(session, Message(chat_id, payload, game_id=game_id), env.now)


def correct_post(session: Session, env: Env, ctx: GameContext, inline_id: str, text: str) -> None:
    """A posted pick that played nothing stands in the chat: it is edited to say so (its own
    message, so a burst of old picks costs one edit each, never a message of the bot's). The edit
    is cosmetic: it takes only the chat's spare budget, so a burst of old picks never holds up
    the next board."""
    payload = Payload(text, inline_id=inline_id)
    message = Message(outbox_chat(ctx.game), payload, priority=Priority.COSMETIC, game_id=ctx.game_id)
    outbox.put(session, message, env.now)


def play_query(game: Game) -> str:
    """What the live board's 🎯 Play key types (in the chat it is in): the game, and a mark of
    its chat. An inline query never says its chat, nor does a chosen result, so the mark is how
    the list knows it was opened from the board in the game's own chat: a query without it
    (typed by hand, in another chat) lists no moves, and no move is posted where the game is not."""
    assert game.id is not None
    mark = chat_mark(game)
    return GameQuery(game.id, f" {mark} " if mark else "").data


def chat_mark(game: Game) -> str:
    """Four letters from the game's chat (letters: the player types digits after it)."""
    if game.chat_instance is None:
        return ""
    digest = hashlib.sha256(f"{game.id}:{game.chat_instance}".encode()).digest()
    return "".join(_MARK_LETTERS[b % len(_MARK_LETTERS)] for b in digest[:4])


_MARK_LETTERS = "abcdefghjkmnpqrstuvwxyz"


def from_its_chat(ctx: GameContext, query: str) -> bool:
    """The query was typed by the game's 🎯 Play key (`play_query`): it names the game and its
    chat's mark."""
    named = GameQuery.of(query)
    if named is None or named.game_id != ctx.game_id:
        return False
    mark = chat_mark(ctx.game)
    return not mark or named.typed.split()[:1] == [mark]


def say_elsewhere(session: Session, env: Env, ctx: GameContext, tap: Tap, text: str) -> None:
    """A 📋 Board here post tapped in a chat that is not the game's: it says so, and loses its
    key (once, however often it is tapped; in that chat's budget)."""
    assert tap.inline_id is not None and tap.chat_instance is not None
    if not once.first_time(session, once_keys.elsewhere(tap.inline_id), env.now):
        return
    chat_id = inline_chat_id(f"chat:{tap.chat_instance}")
    outbox.put(session, Message(chat_id, Payload(text, inline_id=tap.inline_id)), env.now)


def is_live(ctx: GameContext, tap: Tap) -> bool:
    """The tap is on the game's live message (not an older board, nor a forged copy)."""
    return tap.inline_id is not None and tap.inline_id == ctx.game.inline_id


def drop_keys(session: Session, env: Env, ctx: GameContext, inline_id: str) -> None:
    """An older message of the game, tapped: it loses its keys, last of all."""
    keys_off(session, env, ctx.game, inline_id)


def keys_off(session: Session, env: Env, game: Game, inline_id: str) -> None:
    """A message of `game` that is not live any more loses its keys, last of all (a tapped old
    board; the standings of a game a newer one followed)."""
    payload = Payload(inline_id=inline_id, keys_only=True)
    message = Message(outbox_chat(game), payload, InlineKeysOff(inline_id), Priority.CLEANUP, game.id)
    outbox.put(session, message, env.now)


# --- posts ------------------------------------------------------------------------------------


def on_post(session: Session, env: Env, ctx: GameContext, inline_id: str) -> None:
    """A person posted a new message of the game (a pick, the board brought back): it is the
    live board now. The one before it keeps what it shows, without keys; what it could not hold
    (a long burst), or all it held if it was deleted, opens this one. That edit waits behind the
    new board (a chat the bot is not in takes about one edit a second, and the mover waits for
    the new board, not for the old one's keys to go), unless the old board's own content has not
    gone out yet: then it goes right after the new board (`outbox.replace_waiting`)."""
    game = ctx.game
    if game.inline_id == inline_id:
        return
    record, carried = render.Record.from_text(game.board_report), render.Record.from_text(game.board_report)
    if game.inline_id is not None and game.board_no:
        board = _board_text(ctx, env)
        shown, carried = record.fit(board)
        held = shown.to_text() or None
        _edit(session, env, ctx, shown.text(board) or "…", None, Priority.CLEANUP, held, Priority.TURN)
    # (with none — a person deleted it — the new message opens with all the old one held; if a
    # person deleted it unbeknown to the bot, that edit finds it gone: `gone`)
    game.board_no += 1
    game.inline_id = inline_id
    game.board_report = carried.to_text()
    game_rows.save(session, game)


def show(
    session: Session,
    env: Env,
    ctx: GameContext,
    lines: list[str],
    *,
    body: str | None = None,
    final: bool = False,
) -> None:
    """Record `lines` (moves) and `body` (a round's summary, the standings, or with no lines a
    notice) in the live message, and redraw it: the board under its record, or, once the game is
    over, the record alone (`final`: with the key that posts a rematch). With no live message (a
    person deleted it) the record waits for the next post."""
    game = ctx.game
    record = render.Record.from_text(game.board_report)
    record.add_moves(lines)
    if body is not None:
        record.add_block(body)
    _redraw(session, env, ctx, record, final)


def note(session: Session, env: Env, ctx: GameContext, text: str) -> None:
    """A notice of the game (someone left, is away, the pace changed): a part of the live
    message's record of its own, as a group would have had a message."""
    record = render.Record.from_text(ctx.game.board_report)
    record.add_notice(text)
    _redraw(session, env, ctx, record, False)


def _redraw(
    session: Session,
    env: Env,
    ctx: GameContext,
    record: render.Record,
    final: bool,
    *,
    caught_up: bool = True,
) -> None:
    """`caught_up`: the record holds every move so far (not so for a deleted board's lines taken
    over while the bot's seats still play: their moves wait for the board after them)."""
    game = ctx.game
    game.board_report = record.to_text()
    if caught_up:
        game.reported_version = game.version
    if not game.board_no:
        game.board_no = 1  # the lobby's message is the first board
    game_rows.save(session, game)
    if game.inline_id is None:
        return
    running = ctx.state is not None and not ctx.state.is_over and game.status in (PLAYING, PAUSED)
    board = _board_text(ctx, env) if running else None
    shown, _carried = record.fit(board)
    keys: Keyboard | None = None
    if board is not None:
        keys = render.board_keys(ctx.language, table_of(ctx, env, None), play_query(game))
    elif final:
        keys = render.rematch_keys(ctx.language, ctx.game_id)
    _edit(session, env, ctx, shown.text(board), keys)


def _edit(
    session: Session,
    env: Env,
    ctx: GameContext,
    text: str,
    keys: Keyboard | None,
    priority: Priority = Priority.BOARD,
    held: str | None = None,
    waiting: Priority | None = None,
) -> None:
    """The live board's message shows `text` (and `keys`): its next edit (a waiting one gives way,
    at the priority `waiting` when given, else keeping the more urgent). `held`: the record of a
    board losing its keys, for the live one if that board is gone."""
    game = ctx.game
    payload = Payload(text, keys, inline_id=game.inline_id, held=held)
    message = Message(outbox_chat(game), payload, surfaces.board(game), priority, ctx.game_id)
    if waiting is not None and outbox.replace_waiting(session, replace(message, priority=waiting)):
        return
    outbox.put(session, message, env.now)


def gone(session: Session, env: Env, game_id: int, inline_id: str, held: str | None) -> None:
    """A person deleted a message of the game; the bot learns it only when an edit finds it gone.
    The live one: the game goes on without a board until someone posts one (📋 Board here, a
    pick), which opens with its record. An older board, found gone as it lost its keys (deleted
    while it was live, unbeknown to the bot, then replaced by a post): the chat lost what it
    `held`, so the live message takes it over, before its own record, and the chat still re-adds
    to every summary."""
    ctx = load_game(session, game_id, lock=True)
    if ctx is None or not is_inline(ctx):
        return
    game = ctx.game
    if game.inline_id == inline_id:
        game.inline_id = None
        game_rows.save(session, game)
        return
    if not held:
        return
    record = render.Record.from_text(game.board_report).after(render.Record.from_text(held))
    _redraw(session, env, ctx, record, game.status == FINISHED, caught_up=False)


def _board_text(ctx: GameContext, env: Env) -> str:
    view = public_view(ctx.playing_state())
    return render.board(ctx.language, view, table_of(ctx, env, None))


# --- the lobby --------------------------------------------------------------------------------


def lobby_message(ctx: GameContext, text: str, keys: Keyboard | None) -> Message:
    """The lobby's content, edited into the message it was posted as."""
    payload = Payload(text, keys, inline_id=ctx.game.inline_id)
    return Message(outbox_chat(ctx.game), payload, surfaces.lobby(ctx.game_id), Priority.TURN, ctx.game_id)


def started(session: Session, ctx: GameContext, header: str) -> None:
    """The game starts: its lobby's message is its first board (no message can be posted), so the
    lobby's waiting edits give way, and the message opens with who plays."""
    game = ctx.game
    outbox.discard_surface(session, outbox_chat(game), surfaces.lobby(ctx.game_id))
    game.board_no = 1
    record = render.Record()
    record.add_notice(header)
    game.board_report = record.to_text()
    game_rows.save(session, game)


def by_message(session: Session, inline_id: str) -> Game | None:
    return game_rows.by_message(session, inline_id)


def say_feedback_off(session: Session, env: Env, inline_id: str, lang: str) -> None:
    """A posted lobby no game took up: inline feedback is off, so the bot never heard of it. The
    message says so (once: every later tap gets the popup alone), and loses its key."""
    if not once.first_time(session, once_keys.no_feedback(inline_id), env.now):
        return
    text = render.feedback_off(lang, env.bot_username)
    outbox.put(session, Message(inline_chat_id(inline_id), Payload(text, inline_id=inline_id)), env.now)
