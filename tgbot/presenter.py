"""Turns service results into Telegram messages.

Budget per turn in the group (DESIGN §6): the previous board is edited into the
move report (it loses its keyboard) and a new board is posted at the bottom,
mentioning the player to move. Round summaries and final standings are extra
messages only when a round or the game ends.
"""

from __future__ import annotations

from telegram import Bot

from engine.events import GameEnded, RoundEnded, Summed

from . import telegram_io as io
from .deps import Deps
from .i18n import _
from .render import board as board_render
from .render import cards as cards_render
from .render import lobby as lobby_render
from .render.results import AUTO_TAGS, event_line, final_standings, round_summary
from .services import games
from .services.context import GameContext
from .services.games import MoveOutcome, PlayResult
from .store.db import session_scope


def group_language(ctx: GameContext) -> str:
    return ctx.game.language or "en"


def report_lines(lang: str, ctx: GameContext, outcomes: list[MoveOutcome]) -> list[str]:
    lines: list[str] = []
    for outcome in outcomes:
        tag = AUTO_TAGS.get(outcome.source, "")
        for event in outcome.events:
            line = event_line(lang, ctx.seats, event, ctx.settings.face_down)
            if line:
                lines.append(f"{tag} {line}" if tag else line)
    return lines


async def post_board(deps: Deps, bot: Bot, ctx: GameContext, header: list[str] | None = None) -> int | None:
    """Post the board at the bottom of the chat and remember it."""
    lang = group_language(ctx)
    text = board_render.board_text(lang, ctx, board_render.Draft(), board_render.GROUP, None)
    if header:
        text = "\n".join(header) + "\n\n" + text
    markup = board_render.keyboard(lang, ctx, board_render.Draft(), board_render.GROUP, None, bot.username)
    sent = await io.send(bot, ctx.game.chat_id, text, markup, ctx.game.thread_id)
    with session_scope(deps.db) as session:
        games.set_board_message(session, ctx.game_id, sent.message_id)
    ctx.game.board_message_id = sent.message_id
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
    """Strip the keys from the private panels of players whose turn is over."""
    movers = {o.seat for o in result.outcomes if o.source == "player"}
    for seat in ctx.seats:
        if seat.seat not in movers or seat.panel_message_id is None or seat.user_id is None:
            continue
        lang = seat.language
        lines = report_lines(
            lang, ctx, [o for o in result.outcomes if o.seat == seat.seat and o.source == "player"]
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


async def announce(deps: Deps, bot: Bot, result: PlayResult, previous_board: int | None) -> None:
    """Report a burst of moves: result lines, round summaries, then the next board."""
    ctx = result.ctx
    lang = group_language(ctx)
    chat_id, thread_id = ctx.game.chat_id, ctx.game.thread_id
    turn_over = any(o.main for o in result.outcomes)
    lines = report_lines(lang, ctx, result.outcomes)
    await close_panels(deps, bot, ctx, result)
    if not turn_over and not result.abandoned:
        # Only a [T!] card was played: refresh the board in place.
        await refresh_group_board(deps, bot, ctx, header=lines)
        return
    header: list[str] = []
    if previous_board is not None:
        if not await io.edit(bot, chat_id, previous_board, "\n".join(lines) or "…", None):
            header = lines
    else:
        header = lines
    for outcome in result.outcomes:
        for event in outcome.events:
            if isinstance(event, RoundEnded):
                won = _won_cards(result.outcomes, event.round, len(ctx.seats))
                text = round_summary(lang, ctx.seats, event, won, ctx.settings.threshold(len(ctx.seats)))
                if header:
                    text = "\n".join(header) + "\n\n" + text
                    header = []
                await io.send(bot, chat_id, text, None, thread_id)
            elif isinstance(event, GameEnded):
                state = ctx.state
                rounds = len(state.round_points) if state else 0
                await io.send(bot, chat_id, final_standings(lang, ctx.seats, event, rounds), None, thread_id)
    if result.abandoned:
        await io.send(
            bot,
            chat_id,
            _(lang, "🛑 Every player has left or is away: the game is over, scores kept."),
            None,
            thread_id,
        )
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
    sent = await io.send(bot, ctx.game.chat_id, text, markup, ctx.game.thread_id)
    with session_scope(deps.db) as session:
        games.set_board_message(session, ctx.game_id, sent.message_id)
    ctx.game.board_message_id = sent.message_id


async def show_lobby(deps: Deps, bot: Bot, ctx: GameContext, settings_screen: bool = False) -> None:
    lang = group_language(ctx)
    text = lobby_render.lobby_text(lang, ctx)
    markup = (
        lobby_render.settings_keyboard(lang, ctx)
        if settings_screen
        else lobby_render.lobby_keyboard(lang, ctx)
    )
    message_id = ctx.game.lobby_message_id
    if message_id is not None and await io.edit(bot, ctx.game.chat_id, message_id, text, markup):
        return
    sent = await io.send(bot, ctx.game.chat_id, text, markup, ctx.game.thread_id)
    with session_scope(deps.db) as session:
        games.set_lobby_message(session, ctx.game_id, sent.message_id)
    ctx.game.lobby_message_id = sent.message_id
