"""Playing a move: the engine applies it, the game row takes the new state with a compare-and-set
on its version, and the move log keeps the action with the events `apply` returned.

Everything in one transaction with the caller's other writes: the next turn's clock, the stats
when the game ends, and what the group will read (`record`). A move never plays the seats after
it that do not wait for a person (computers, players who left or are away): it gives them the
turn with a clock the bot plays at once (`game_clock.turn_clock`), and `services.autoplay`
plays each of them after the commit, in a transaction of its own, so whoever moved is answered
without waiting for a computer to think.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from sqlmodel import Session

import engine
from engine import EngineError, GameState, IllegalActionError
from engine.actions import Action, encode
from engine.events import Event, GameEnded, TurnStarted, dump_events

from .. import metrics
from ..errors import Refusal, ServiceError
from ..store import move_log
from ..store import seats as seat_rows
from ..store.models import ABANDONED, FINISHED
from . import stats
from .context import GameContext, SeatInfo, dump_state
from .env import Env
from .game_clock import clock_of, end_game, rules_of, set_clock, turn_clock


@dataclass
class MoveOutcome:
    seat: int
    code: str
    source: str  # player | idle | away | left | ai
    before: GameState
    after: GameState
    events: list[Event]

    @property
    def main(self) -> bool:
        """The move ended the turn (a sum or a discard; a [T!] card alone does not)."""
        return any(isinstance(e, (TurnStarted, GameEnded)) for e in self.events)


@dataclass
class PlayResult:
    ctx: GameContext
    outcomes: list[MoveOutcome] = field(default_factory=list)
    abandoned: bool = False
    #: The turn before these moves had a reminder: one may still wait to be sent.
    reminded: bool = False

    def __post_init__(self) -> None:
        self.reminded = self.reminded or bool(self.ctx.game.nudges_sent)

    @property
    def ended(self) -> bool:
        return self.ctx.state is not None and self.ctx.state.is_over

    @property
    def turn_over(self) -> bool:
        return self.abandoned or any(o.main for o in self.outcomes)


def apply_action(state: GameState, seat: int, action: Action | str) -> tuple[GameState, list[Event]]:
    """The engine's move, its refusals as service errors."""
    try:
        return engine.apply(state, seat, action)
    except EngineError as exc:
        raise refusal_of(exc) from exc


def refused(state: GameState, seat: int, codes: tuple[str, ...]) -> ServiceError | None:
    """The engine's refusal of these moves played one after the other, if any: a use case asks
    before it records anything of them."""
    for code in codes:
        try:
            state, _events = engine.apply(state, seat, code)
        except EngineError as exc:
            return refusal_of(exc)
    return None


def refusal_of(exc: EngineError) -> ServiceError:
    if isinstance(exc, IllegalActionError):
        return ServiceError(Refusal.ILLEGAL, rule=exc.reason, **exc.details)
    return ServiceError(Refusal.of_engine(exc.code))


def commit(session: Session, env: Env, ctx: GameContext, outcome: MoveOutcome) -> GameContext:
    """Record one applied move on the game row (its state, version, end and the next turn's
    clock) and in the move log; the context after it.

    Nothing is sent to the database yet: the game's changes of the whole transaction (every move
    of a burst, the board's bookkeeping) go out as one UPDATE when it flushes, naming the version
    it read (`models.Game`'s compare-and-set), so a write based on an outdated read fails
    (StaleDataError) and changes nothing.
    """
    game = ctx.game
    after = outcome.after
    version = game.version
    game.state = dump_state(after)
    game.version = version + 1
    game.updated_at = env.now
    if after.is_over:
        end_game(session, game, FINISHED, env.now)
    elif outcome.main or ctx.seats[after.current].autoplayed:
        # a person's turn starts when they can see it; the bot's is played after the commit
        turn_clock(session, env, ctx, after.current)
    else:
        set_clock(session, game, rules_of(ctx, env).acted(clock_of(game)))
    move_log.add(
        session,
        game_id=ctx.game_id,
        seq=version + 1,
        seat=outcome.seat,
        code=outcome.code,
        source=outcome.source,
        at=env.now,
        events=dump_events(outcome.events),
    )
    metrics.note_move(session, outcome.source)
    ctx = replace(ctx, state=after)
    if after.is_over:
        stats.record_game_end(session, game, after, env.now, ctx.seats)
    return ctx


def clear_idle(session: Session, ctx: GameContext, seat: SeatInfo) -> GameContext:
    """A player who acts is no longer idle: timeouts and the away flag go back to zero."""
    if not (seat.timeouts or seat.away):
        return ctx
    seat_rows.clear_idle(session, ctx.game_id, seat.seat)
    return ctx.with_seat(replace(ctx.seats[seat.seat], timeouts=0, away=False))


def nobody_plays(ctx: GameContext) -> bool:
    """Every person at the table left or is away: nobody would ever move again."""
    return not any(s.is_human and not s.left and not s.away for s in ctx.seats)


def abandon(session: Session, env: Env, ctx: GameContext) -> None:
    """Nobody plays any more: the game ends, scores kept, won by nobody."""
    game = ctx.game
    end_game(session, game, ABANDONED, env.now)
    stats.record_game_end(session, game, ctx.state, env.now, ctx.seats)


def play(session: Session, env: Env, ctx: GameContext, seat: SeatInfo, action: Action | str) -> PlayResult:
    """A person's own action (a key, an inline pick): apply, bring them back from idle, write.
    The seats after it that do not wait are played after the commit (`services.autoplay`)."""
    state = ctx.playing_state()
    after, events = apply_action(state, seat.seat, action)
    code = action if isinstance(action, str) else encode(action)
    outcome = MoveOutcome(seat.seat, code, "player", state, after, events)
    result = PlayResult(ctx)
    ctx = clear_idle(session, ctx, seat)  # before the clock: the turn may go on with them
    result.ctx = commit(session, env, ctx, outcome)
    result.outcomes.append(outcome)
    return result
