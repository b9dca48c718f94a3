"""The seats that do not wait for a person (computers, and people who left or are away), played
after the commit that gave them the turn, one move a transaction.

Whatever gives such a seat the turn (a person's move, the game's start, a player leaving, the
idle default at a deadline that leaves its player away) ends its transaction with the bot's clock
on the turn (`TurnClock.autoplayed`: no reminder, no deadline) and the game noted for after the
commit (`store.db.AfterCommit.autoplay`, by `game_clock.set_clock`). So the person who moved is
answered at once, and no transaction holds the game, or SQLite's one writer, while a computer
thinks. The process then plays the turn (`tgbot.jobs.autoplay`) in three steps:

1. `turn_due` reads the game (read-only: no lock, not the writer) and says what is to be played
   at the version the turn was noted at;
2. `choose` works the move out, outside any transaction (a Hard computer thinks for tens of
   milliseconds);
3. `play` applies it in a short transaction of its own if the game is still at that version,
   read under the game's lock (and written with the compare-and-set on the version every move
   has): a second process, or the same turn asked for twice, finds the version moved on and plays
   nothing, so each of these moves is applied exactly once.

Each move gives the next turn its clock in its turn: another computer's is noted again, and the
move that gives the turn to a person posts their board, opening with the report of every move
since the board before it (`record.report`), and notifies them; a round or the game that ends on
the way is reported as it ends.

Nothing lives only in memory. The bot's clock keeps `wake_at` a few seconds ahead
(`turn_clock.AUTOPLAY_TAKEOVER`): a process that stops between a commit and the move it owes
leaves the game due, and the sweep that finds it (after a restart, or on another instance)
takes the turn over (`claim`) and hands it to `tgbot.jobs.autoplay` the same way.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlmodel import Session

import engine
from engine import GameState
from engine.actions import encode
from engine.ai import choose_action

from ..store.models import PLAYING
from ..turn_clock import TurnClock
from . import moves
from .context import GameContext, load_game
from .env import Env
from .game_clock import clock_of, set_clock
from .tables import presenter_of


@dataclass(frozen=True)
class Turn:
    """A turn the bot is to play, as read at `version`."""

    game_id: int
    version: int
    seat: int
    state: GameState
    #: The computer's level; None: the engine's idle default (a person who left or is away).
    level: str | None
    #: False: nothing to think about (the turn is a person's again, or nobody plays any more);
    #: `play` sees to it.
    move: bool


def _at(ctx: GameContext, version: int) -> bool:
    """The game still runs at `version`."""
    game = ctx.game
    state = ctx.state
    return game.version == version and game.status == PLAYING and state is not None and not state.is_over


def turn_due(session: Session, game_id: int, version: int) -> Turn | None:
    """The turn to play at `version`, or None when the game has moved on (played already, by this
    process or another) or stopped (paused, over)."""
    ctx = load_game(session, game_id)
    if ctx is None or not _at(ctx, version):
        return None
    seat = ctx.current
    assert seat is not None
    move = seat.autoplayed and not moves.nobody_plays(ctx)
    return Turn(game_id, version, seat.seat, ctx.playing_state(), seat.ai_level, move)


def choose(turn: Turn) -> str:
    """The move the bot plays for the turn: a computer's choice, seeded from public facts (the game
    and its version, never the hidden deal, so any process chooses the same), or the idle
    default. Pure: the engine alone."""
    if turn.level is not None:
        seed = turn.game_id * 1_000_003 + turn.version
        return encode(choose_action(turn.state, turn.seat, turn.level, seed=seed))
    return encode(engine.default_action(turn.state, turn.seat))


def play(session: Session, env: Env, turn: Turn, code: str | None) -> None:
    """Play `code` for the turn, if the game is still at its version; with nobody left to play,
    the game ends as abandoned instead. A turn that is a person's again (they came back before the
    bot played it) gets its board and a clock that waits for them."""
    ctx = load_game(session, turn.game_id, lock=True)
    if ctx is None or not _at(ctx, turn.version):
        return  # played already (another process, the same turn asked twice), or stopped
    seat = ctx.current
    assert seat is not None
    if not seat.autoplayed:
        if clock_of(ctx.game).autoplay:
            give_turn(session, env, ctx)
        return
    result = moves.PlayResult(ctx)
    if moves.nobody_plays(ctx):
        moves.abandon(session, env, ctx)
        result.abandoned = True
        presenter_of(result.ctx).report(session, env, result)
        return
    if code is None:  # the table changed since the read (a person left, or came back): think now
        code = choose(Turn(turn.game_id, turn.version, seat.seat, ctx.playing_state(), seat.ai_level, True))
    source = "ai" if seat.ai_level else ("left" if seat.left else "away")
    state = ctx.playing_state()
    after, events = moves.apply_action(state, seat.seat, code)
    outcome = moves.MoveOutcome(seat.seat, code, source, state, after, events)
    result.ctx = moves.commit(session, env, ctx, outcome)
    result.outcomes.append(outcome)
    presenter_of(result.ctx).report(session, env, result)


def give_turn(session: Session, env: Env, ctx: GameContext) -> None:
    """The turn is a person's: their board, under the report of the moves since the board before
    it, and a clock that waits until they can see it."""
    seat = ctx.current
    assert seat is not None
    set_clock(session, ctx.game, TurnClock.waiting(clock_of(ctx.game), seat.seat))
    presenter_of(ctx).post_board(session, env, ctx)


def claim(session: Session, env: Env, ctx: GameContext) -> None:
    """The sweep found a turn the bot plays still unplayed at its wake-up (the process that owed
    it stopped, or failed): this process takes it over, after this commit, and pushes the wake-up
    on so that no other takes it meanwhile."""
    seat = ctx.playing_state().current
    set_clock(session, ctx.game, TurnClock.autoplayed(clock_of(ctx.game), seat, env.now))
