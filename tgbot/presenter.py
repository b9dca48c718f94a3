"""Turns service results into Telegram messages.

Budget per turn in the group (DESIGN §6): the previous board is edited into the
move report (it loses its keyboard) and a new board is posted at the bottom,
mentioning the player to move. Round summaries and final standings are extra
messages only when a round or the game ends.
"""

from __future__ import annotations

import asyncio
import logging

from telegram import Bot

from engine.events import GameEnded, RoundEnded, Summed

from . import delivery
from . import telegram_io as io
from .deps import Deps
from .i18n import _
from .render import board as board_render
from .render import cards as cards_render
from .render import chart
from .render import lobby as lobby_render
from .render.limits import fit_lines
from .render.results import AUTO_TAGS, event_line, final_standings, idle_line, round_summary
from .services import games
from .services.context import GameContext
from .services.games import MoveOutcome, PlayResult
from .store.db import session_scope

log = logging.getLogger("tweakbot.presenter")


def group_language(ctx: GameContext) -> str:
    return ctx.game.language or "en"


def report_lines(lang: str, ctx: GameContext, outcomes: list[MoveOutcome]) -> list[str]:
    lines: list[str] = []
    for outcome in outcomes:
        tag = AUTO_TAGS.get(outcome.source, "")
        for event in outcome.events:
            idle = idle_line(lang, ctx.seats, event) if outcome.source == "idle" else None
            if idle:
                lines.append(idle)
                continue
            line = event_line(lang, ctx.seats, event, ctx.settings.face_down)
            if line:
                lines.append(f"{tag} {line}" if tag else line)
    return fit_lines(lang, lines)  # a long burst of computer moves still fits under a board


async def post_board(
    deps: Deps, bot: Bot, ctx: GameContext, header: list[str] | None = None, panel: bool = True
) -> int | None:
    """Post the board at the bottom of the chat and remember it (and the private panel, with `panel`)."""
    lang = group_language(ctx)
    text = board_render.board_text(lang, ctx, board_render.Draft(), board_render.GROUP, None)
    if header:
        text = "\n".join(header) + "\n\n" + text
    markup = board_render.keyboard(lang, ctx, board_render.Draft(), board_render.GROUP, None, bot.username)
    sent = await delivery.send_to_game(deps, bot, ctx.game, text, markup)
    with session_scope(deps.db) as session:
        games.set_board_message(session, ctx.game_id, sent.message_id)
    ctx.game.board_message_id = sent.message_id
    if panel:
        await send_panel(deps, bot, ctx)
    return sent.message_id


async def send_panel(deps: Deps, bot: Bot, ctx: GameContext) -> None:
    """The private turn panel for the player to move, when they opened a chat with the bot."""
    seat = ctx.current
    if seat is None or seat.autoplayed or not seat.can_dm or seat.user_id is None:
        return
    lang = seat.language
    draft = board_render.Draft()
    text = board_render.board_text(lang, ctx, draft, board_render.PRIVATE, seat.seat)
    markup = board_render.keyboard(lang, ctx, draft, board_render.PRIVATE, seat.seat, bot.username)
    sent = await io.send(bot, seat.user_id, text, markup)
    with session_scope(deps.db) as session:
        if sent.blocked:
            games.set_can_dm(session, seat.user_id, False)
        games.set_panel_message(session, ctx.game_id, seat.seat, sent.message_id)
    seat.panel_message_id = sent.message_id


async def close_panels(deps: Deps, bot: Bot, ctx: GameContext, result: PlayResult) -> None:
    """Strip the keys from the private panels of players whose turn is over.

    A [T!] card alone does not end the turn: that panel stays open (it was redrawn with the effect).
    """
    closing = ("player", "idle")  # idle: the bot played the turn at the deadline
    movers = {o.seat for o in result.outcomes if o.source in closing and o.main}
    for seat in ctx.seats:
        if seat.seat not in movers or seat.panel_message_id is None or seat.user_id is None:
            continue
        lang = seat.language
        lines = report_lines(
            lang, ctx, [o for o in result.outcomes if o.seat == seat.seat and o.source in closing]
        )
        text = (
            _(lang, "✔️ Played in <b>{chat}</b>:", chat=cards_render.name(ctx.chat_title, 40))
            + "\n"
            + "\n".join(lines)
        )
        await io.edit(bot, seat.user_id, seat.panel_message_id, text, None)
        with session_scope(deps.db) as session:
            games.set_panel_message(session, ctx.game_id, seat.seat, None)
        seat.panel_message_id = None


def _won_cards(outcomes: list[MoveOutcome], round_no: int, seats: int) -> list[int]:
    """Cards each seat won in a round, counted from the last pre-deal state."""
    counts = [0] * seats
    last = None
    for outcome in outcomes:
        if outcome.before.round == round_no:
            last = outcome
    if last is None:
        return counts
    for s in range(seats):
        counts[s] = len(last.before.piles[s])
    for event in last.events:
        if isinstance(event, Summed):
            counts[event.seat] += 1 + len(event.table_cards)
    return counts


def split_at_round_ends(outcomes: list[MoveOutcome]) -> list[list[MoveOutcome]]:
    """The burst cut after each move that ended a round (never empty: at least one segment)."""
    segments: list[list[MoveOutcome]] = [[]]
    for outcome in outcomes:
        segments[-1].append(outcome)
        if _ends_round(outcome):
            segments.append([])
    return [segment for segment in segments if segment] or [[]]


def _ends_round(outcome: MoveOutcome) -> bool:
    return any(isinstance(e, (RoundEnded, GameEnded)) for e in outcome.events)


async def send_score_chart(bot: Bot, ctx: GameContext, event: GameEnded) -> None:
    """The final standings' picture: everyone's total after each round, and the goal line."""
    state = ctx.state
    if state is None or not state.round_points:
        return
    lang = group_language(ctx)
    threshold = ctx.settings.threshold(len(ctx.seats))
    texts = chart.ChartTexts(
        title=_(lang, "Scores per round"),
        round_label=_(lang, "Round"),
        points_label=_(lang, "Points"),
        goal_label=_(lang, "Goal {points}", points=threshold),
    )
    names = [s.name for s in ctx.seats]
    try:
        png = await asyncio.to_thread(
            chart.score_chart_png, names, state.round_points, threshold, texts, event.winners
        )
    except Exception:  # a picture is a bonus: never lose the game's end over it
        log.exception("score chart for game %s failed", ctx.game_id)
        return
    caption = _(lang, "📈 Scores per round")
    filename = f"tweak-{ctx.game_id}.png"
    await io.send_file(bot, ctx.game.chat_id, "photo", png, filename, caption, ctx.game.thread_id)


async def announce(deps: Deps, bot: Bot, result: PlayResult, previous_board: int | None) -> None:
    """Report a burst of moves: result lines, round summaries, then the next board."""
    ctx = result.ctx
    lang = group_language(ctx)
    chat_id = ctx.game.chat_id
    turn_over = any(o.main for o in result.outcomes)
    lines = report_lines(lang, ctx, result.outcomes)
    await close_panels(deps, bot, ctx, result)
    if not turn_over and not result.abandoned:
        # Only a [T!] card was played: refresh the board in place.
        await refresh_group_board(deps, bot, ctx, header=lines)
        return
    # The old board reports the moves up to the first round end; moves after a round end
    # (computers going on in the next round) come after that round's summary.
    segments = split_at_round_ends(result.outcomes)
    first = report_lines(lang, ctx, segments[0])
    later = {id(segment[0]): segment for segment in segments[1:]}
    header: list[str] = []
    if previous_board is not None:
        if not first:
            # Nothing to report (the last human left): keep the board's text, take its keys.
            await io.drop_keyboard(bot, chat_id, previous_board)
        elif not await io.edit(bot, chat_id, previous_board, "\n".join(first), None):
            header = first
    else:
        header = first
    for outcome in result.outcomes:
        if id(outcome) in later:
            header += report_lines(lang, ctx, later[id(outcome)])
        for event in outcome.events:
            if isinstance(event, RoundEnded):
                won = _won_cards(result.outcomes, event.round, len(ctx.seats))
                text = round_summary(lang, ctx.seats, event, won, ctx.settings.threshold(len(ctx.seats)))
                if header:
                    text = "\n".join(header) + "\n\n" + text
                    header = []
                await delivery.send_to_game(deps, bot, ctx.game, text)
            elif isinstance(event, GameEnded):
                state = ctx.state
                rounds = len(state.round_points) if state else 0
                standings = final_standings(lang, ctx.seats, event, rounds)
                await delivery.send_to_game(deps, bot, ctx.game, standings)
                await send_score_chart(bot, ctx, event)
    if result.abandoned:
        text = _(lang, "🛑 Every player has left or is away: the game is over, scores kept.")
        if ctx.state is not None:
            state = ctx.state
            scores = {s.seat: state.totals[s.seat] + state.round_score(s.seat) for s in ctx.seats}
            order = sorted(ctx.seats, key=lambda s: (-scores[s.seat], s.seat))
            text += "\n\n" + "\n".join(f"{cards_render.name(s.name)} — {scores[s.seat]}" for s in order)
        if header:
            text = "\n".join(header) + "\n\n" + text
        await delivery.send_to_game(deps, bot, ctx.game, text)
        return
    if ctx.state is not None and not ctx.state.is_over:
        await post_board(deps, bot, ctx, header=header or None)


async def refresh_group_board(
    deps: Deps, bot: Bot, ctx: GameContext, header: list[str] | None = None
) -> None:
    """Redraw the current board in place; post a fresh one if it cannot be edited."""
    lang = group_language(ctx)
    message_id = ctx.game.board_message_id
    text = board_render.board_text(lang, ctx, board_render.Draft(), board_render.GROUP, None)
    if header:
        text = "\n".join(header) + "\n\n" + text
    markup = board_render.keyboard(lang, ctx, board_render.Draft(), board_render.GROUP, None, bot.username)
    if message_id is not None and await io.edit(bot, ctx.game.chat_id, message_id, text, markup):
        return
    # Gone (deleted by an admin) or no longer editable: a fresh board instead of an error.
    sent = await delivery.send_to_game(deps, bot, ctx.game, text, markup)
    with session_scope(deps.db) as session:
        games.set_board_message(session, ctx.game_id, sent.message_id)
    ctx.game.board_message_id = sent.message_id


async def show_lobby(deps: Deps, bot: Bot, ctx: GameContext, settings_screen: bool = False) -> None:
    lang = group_language(ctx)
    text = lobby_render.lobby_text(lang, ctx, deps.custom_pace)
    markup = (
        lobby_render.settings_keyboard(lang, ctx, deps.custom_pace)
        if settings_screen
        else lobby_render.lobby_keyboard(lang, ctx)
    )
    message_id = ctx.game.lobby_message_id
    if message_id is not None and await io.edit(bot, ctx.game.chat_id, message_id, text, markup):
        return
    sent = await delivery.send_to_game(deps, bot, ctx.game, text, markup)
    with session_scope(deps.db) as session:
        games.set_lobby_message(session, ctx.game_id, sent.message_id)
    ctx.game.lobby_message_id = sent.message_id
