"""What the record says when a round or the game ends, besides the moves: the cards each seat
won in the round, the last words of a game nobody plays any more, and the scores' chart (drawn
by the sender just before it goes, never on a tap). `record` puts them in the chat."""

from __future__ import annotations

from sqlmodel import Session

from engine.events import GameEnded, Summed

from ..render import chart
from ..render import results as results_render
from ..store import outbox
from ..store.outbox import Media, MediaKind, Priority
from . import output
from .context import GameContext
from .env import Env
from .moves import MoveOutcome


def won_cards(outcomes: list[MoveOutcome], round_no: int, seats: int) -> list[int]:
    """Cards each seat won in a round: read from the round's last move before it was played
    (the next deal empties the piles), plus what that move itself won."""
    last = next((o for o in reversed(outcomes) if o.before.round == round_no), None)
    if last is None:
        return [0] * seats
    counts = [len(last.before.piles[s]) for s in range(seats)]
    for event in last.events:
        if isinstance(event, Summed):
            counts[event.seat] += 1 + len(event.table_cards)
    return counts


def abandoned_text(lang: str, ctx: GameContext) -> str:
    """The end of a game nobody plays any more, with the scores as they stood (this round included)."""
    state = ctx.state
    if state is None:
        return results_render.abandoned(lang, [])
    totals = state.scores_total()
    scores = {s.seat: totals[s.seat] for s in ctx.seats}
    order = sorted(ctx.seats, key=lambda s: (-scores[s.seat], s.seat))
    return results_render.abandoned(lang, [(s.name, scores[s.seat]) for s in order])


def score_chart(session: Session, env: Env, ctx: GameContext, event: GameEnded) -> None:
    """The final standings' picture, drawn by the sender just before it goes (never on a tap)."""
    state = ctx.state
    if state is None or not state.round_points:
        return
    lang = ctx.language
    threshold = ctx.settings.threshold(len(ctx.seats))
    spec = chart.spec(
        results_render.chart_texts(lang, threshold),
        results_render.chart_texts("en", threshold),
        [s.name for s in ctx.seats],
        state.round_points,
        threshold,
        list(event.winners),
    )
    message = output.to_group(
        ctx,
        results_render.chart_caption(lang),
        priority=Priority.INFO,
        media=Media(MediaKind.PHOTO, f"tweak-{ctx.game_id}.png", chart=spec),
    )
    outbox.put(session, message, env.now)
