"""Turns service results into Telegram messages.

Budget per turn in the group (DESIGN §6): the previous board is edited into the
move report (it loses its keyboard) and a new board is posted at the bottom,
mentioning the player to move. Round summaries and final standings are extra
messages only when a round or the game ends.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from sqlmodel import Session
from telegram import Bot, InlineKeyboardMarkup

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
    text, markup = _group_board(ctx, bot, header)
    ctx.game.board_message_id = await _post(deps, bot, ctx, text, markup, games.set_board_message)
    if panel:
        await send_panel(deps, bot, ctx)
    return ctx.game.board_message_id


async def repost_board(deps: Deps, bot: Bot, ctx: GameContext, header: list[str] | None = None) -> None:
    """Move the board to the bottom of the chat; the old one loses its keys, so only one is live."""
    if ctx.game.board_message_id is not None:
        await io.drop_keyboard(bot, ctx.game.chat_id, ctx.game.board_message_id)
    await post_board(deps, bot, ctx, header=header)


def _group_board(ctx: GameContext, bot: Bot, header: list[str] | None) -> tuple[str, InlineKeyboardMarkup]:
    lang = group_language(ctx)
    draft = board_render.Draft()
    text = board_render.board_text(lang, ctx, draft, board_render.GROUP, None)
    markup = board_render.keyboard(lang, ctx, draft, board_render.GROUP, None, bot.username)
    return _under(header, text), markup


def _under(header: list[str] | None, text: str) -> str:
    """`text` with the report lines that belong above it (moves that came before it)."""
    return "\n".join(header) + "\n\n" + text if header else text


RememberMessage = Callable[[Session, int, int | None], None]


async def _post(
    deps: Deps,
    bot: Bot,
    ctx: GameContext,
    text: str,
    markup: InlineKeyboardMarkup | None,
    remember: RememberMessage,
) -> int | None:
    """Send into the game's group and store the new message id with `remember` (None if it failed)."""
    sent = await delivery.send_to_game(deps, bot, ctx.game, text, markup)
    with session_scope(deps.db) as session:
        remember(session, ctx.game_id, sent.message_id)
    return sent.message_id


async def _edit_or_post(
    deps: Deps,
    bot: Bot,
    ctx: GameContext,
    message_id: int | None,
    text: str,
    markup: InlineKeyboardMarkup | None,
    remember: RememberMessage,
) -> int | None:
    """Edit the message in place; when it is gone (deleted by an admin) or too old, post a fresh one."""
    if message_id is not None and await io.edit(bot, ctx.game.chat_id, message_id, text, markup):
        return message_id
    return await _post(deps, bot, ctx, text, markup, remember)


def private_panel(
    lang: str, ctx: GameContext, seat: int, bot_username: str, keys: bool = True
) -> tuple[str, InlineKeyboardMarkup | None]:
    """A player's own view of the board, with the hand shown; `keys` while they may move."""
    draft = board_render.Draft()
    text = board_render.board_text(lang, ctx, draft, board_render.PRIVATE, seat)
    markup = (
        board_render.keyboard(lang, ctx, draft, board_render.PRIVATE, seat, bot_username) if keys else None
    )
    return text, markup


async def send_panel(deps: Deps, bot: Bot, ctx: GameContext) -> None:
    """The private turn panel for the player to move, when they opened a chat with the bot."""
    seat = ctx.current
    if seat is None or seat.autoplayed or not seat.can_dm or seat.user_id is None:
        return
    text, markup = private_panel(seat.language, ctx, seat.seat, bot.username)
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
    """Cards each seat won in a round.

    The next deal empties the piles, so they are read from the round's last move before it was
    played, plus what that move itself won.
    """
    last = next((o for o in reversed(outcomes) if o.before.round == round_no), None)
    if last is None:
        return [0] * seats
    counts = [len(last.before.piles[s]) for s in range(seats)]
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


async def send_score_chart(deps: Deps, bot: Bot, ctx: GameContext, event: GameEnded) -> None:
    """The final standings' picture: everyone's total after each round, and the goal line."""
    state = ctx.state
    if state is None or not state.round_points:
        return
    lang = group_language(ctx)
    threshold = ctx.settings.threshold(len(ctx.seats))

    def labels(language: str) -> chart.ChartTexts:
        return chart.ChartTexts(
            title=_(language, "Scores per round"),
            round_label=_(language, "Round"),
            points_label=_(language, "Points"),
            goal_label=_(language, "Goal {points}", points=threshold),
        )

    names = [s.name for s in ctx.seats]
    try:
        texts = chart.legible(labels(lang), labels("en"))
        png = await asyncio.to_thread(
            chart.score_chart_png, names, state.round_points, threshold, texts, event.winners
        )
    except Exception:  # a picture is a bonus: never lose the game's end over it
        log.exception("score chart for game %s failed", ctx.game_id)
        return
    caption = _(lang, "📈 Scores per round")
    filename = f"tweak-{ctx.game_id}.png"
    await delivery.send_file_to_game(deps, bot, ctx.game, "photo", png, filename, caption)


async def announce(deps: Deps, bot: Bot, result: PlayResult, previous_board: int | None) -> None:
    """Report a burst of moves: result lines, round summaries, then the next board."""
    ctx = result.ctx
    lang = group_language(ctx)
    await close_panels(deps, bot, ctx, result)
    if not any(o.main for o in result.outcomes) and not result.abandoned:
        # Only a [T!] card was played: refresh the board in place.
        await refresh_group_board(deps, bot, ctx, header=report_lines(lang, ctx, result.outcomes))
        return
    # The old board reports the moves up to the first round end; moves after a round end
    # (computers going on in the next round) come after that round's summary.
    segments = split_at_round_ends(result.outcomes)
    later = {id(segment[0]): segment for segment in segments[1:]}
    header = await _report_on_board(
        bot, ctx.game.chat_id, previous_board, report_lines(lang, ctx, segments[0])
    )
    for outcome in result.outcomes:
        if id(outcome) in later:
            header += report_lines(lang, ctx, later[id(outcome)])
        for event in outcome.events:
            if isinstance(event, RoundEnded):
                won = _won_cards(result.outcomes, event.round, len(ctx.seats))
                summary = round_summary(lang, ctx.seats, event, won, ctx.settings.threshold(len(ctx.seats)))
                await delivery.send_to_game(deps, bot, ctx.game, _under(header, summary))
                header = []
            elif isinstance(event, GameEnded):
                rounds = len(ctx.state.round_points) if ctx.state else 0
                await delivery.send_to_game(
                    deps, bot, ctx.game, final_standings(lang, ctx.seats, event, rounds)
                )
                await send_score_chart(deps, bot, ctx, event)
    if result.abandoned:
        await delivery.send_to_game(deps, bot, ctx.game, _under(header, _abandoned_text(lang, ctx)))
        return
    if ctx.state is not None and not ctx.state.is_over:
        await post_board(deps, bot, ctx, header=header or None)


async def _report_on_board(bot: Bot, chat_id: int, board_id: int | None, lines: list[str]) -> list[str]:
    """Edit the old board into the move report; the lines still to show when it cannot be edited."""
    if board_id is None:
        return list(lines)
    if not lines:
        # Nothing to report (the last human left): keep the board's text, take its keys.
        await io.drop_keyboard(bot, chat_id, board_id)
        return []
    if await io.edit(bot, chat_id, board_id, "\n".join(lines), None):
        return []
    return list(lines)


def _abandoned_text(lang: str, ctx: GameContext) -> str:
    """The end of a game nobody plays any more, with the scores as they stood (this round included)."""
    text = _(lang, "🛑 Every player has left or is away: the game is over, scores kept.")
    state = ctx.state
    if state is None:
        return text
    scores = {s.seat: state.totals[s.seat] + state.round_score(s.seat) for s in ctx.seats}
    order = sorted(ctx.seats, key=lambda s: (-scores[s.seat], s.seat))
    return text + "\n\n" + "\n".join(f"{cards_render.name(s.name)} — {scores[s.seat]}" for s in order)


async def refresh_group_board(
    deps: Deps, bot: Bot, ctx: GameContext, header: list[str] | None = None
) -> None:
    """Redraw the current board in place; post a fresh one if it cannot be edited."""
    text, markup = _group_board(ctx, bot, header)
    ctx.game.board_message_id = await _edit_or_post(
        deps, bot, ctx, ctx.game.board_message_id, text, markup, games.set_board_message
    )


async def show_lobby(deps: Deps, bot: Bot, ctx: GameContext, settings_screen: bool = False) -> None:
    lang = group_language(ctx)
    text = lobby_render.lobby_text(lang, ctx, deps.custom_pace)
    markup = (
        lobby_render.settings_keyboard(lang, ctx, deps.custom_pace)
        if settings_screen
        else lobby_render.lobby_keyboard(lang, ctx)
    )
    ctx.game.lobby_message_id = await _edit_or_post(
        deps, bot, ctx, ctx.game.lobby_message_id, text, markup, games.set_lobby_message
    )
