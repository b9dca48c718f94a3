"""What the chats should show after a service acted, written to the outbox in the same transaction.

The group's budget is the product's real limit (DESIGN §6), so a turn costs the group two bot
writes: the old board becomes the move report (an edit that takes its keys) and a new board is
posted at the bottom, mentioning the player to move (the turn's one notification). Round
summaries, final standings and the score chart are extra messages only when a round or the game
ends, sent silently. Draft previews are the cheapest kind of write: they wait for spare budget
and a newer preview or the report replaces them.

Private panels go only to players who use them (`SeatInfo.gets_panel`); a panel is edited in
place while it is the chat's latest message, and its keys go when the turn is over.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from sqlmodel import Session

from engine import public_view, seat_view, sum_options
from engine.actions import encode
from engine.events import GameEnded, RoundEnded, Summed
from engine.game import t_actions

from ..i18n import _
from ..render import board as board_render
from ..render import cards as cards_render
from ..render import chart
from ..render import lobby as lobby_render
from ..render import results as results_render
from ..render.keys import Keyboard
from ..render.limits import fit_lines
from ..render.results import AUTO_TAGS, event_line, final_standings, idle_line, round_summary
from ..store import outbox
from ..store.models import PLAYING, Game, Notice
from ..store.outbox import Message, Priority
from . import drafts
from .context import GameContext, SeatInfo
from .env import Env
from .moves import MoveOutcome, PlayResult

Draft = board_render.Draft
#: A refusal repeated within this window (sixty /newgame in a row) is answered once.
REPEAT_WINDOW = timedelta(minutes=1)


# --- surfaces ---------------------------------------------------------------------------------


def board_surface(game: Game) -> str:
    return f"board:{game.id}:{game.board_no}"


def lobby_surface(game_id: int) -> str:
    return f"lobby:{game_id}"


def panel_surface(game_id: int, seat: int) -> str:
    return f"panel:{game_id}:{seat}"


def reminder_surface(game_id: int) -> str:
    """A group reminder while it waits to be sent: dropped when the turn moves on first."""
    return f"reminder:{game_id}"


def drop_reminder(session: Session, ctx: GameContext) -> None:
    """The player acted, the turn is over or the clock stopped: a group reminder that has not
    gone out yet would only mislead."""
    surface = reminder_surface(ctx.game_id)
    outbox.discard_surface(session, ctx.game.chat_id, surface)
    outbox.forget_shown(session, ctx.game.chat_id, surface)


def _to_group(ctx: GameContext, text: str, **kw: object) -> Message:
    return Message(ctx.game.chat_id, text, thread_id=ctx.game.thread_id, game_id=ctx.game_id, **kw)  # type: ignore[arg-type]


def say(
    session: Session,
    env: Env,
    chat_id: int,
    text: str,
    *,
    thread_id: int | None = None,
    keys: Keyboard | None = None,
    notify: bool = False,
    priority: Priority = Priority.TURN,
    surface: str | None = None,
) -> None:
    """A plain message into a chat (a reply to a command, a notice)."""
    message = Message(
        chat_id, text, keys, thread_id=thread_id, notify=notify, priority=priority, surface=surface
    )
    outbox.put(session, message, env.now)


def send_file(
    session: Session,
    env: Env,
    chat_id: int,
    caption: str,
    media: dict[str, Any],
    thread_id: int | None = None,
) -> None:
    message = Message(chat_id, caption, thread_id=thread_id, priority=Priority.INFO, media=media)
    outbox.put(session, message, env.now)


def say_once(
    session: Session,
    env: Env,
    chat_id: int,
    key: str,
    text: str,
    *,
    thread_id: int | None = None,
    reply_to: str | None = None,
    window: timedelta = REPEAT_WINDOW,
) -> bool:
    """Say `text` unless the same `key` was said in this chat within `window`; True when said."""
    notice = session.get(Notice, (chat_id, key))
    if notice is not None and env.now - notice.said_at < window:
        return False
    if notice is None:
        notice = Notice(chat_id=chat_id, key=key, said_at=env.now)
    notice.said_at = env.now
    session.add(notice)
    message = Message(chat_id, text, thread_id=thread_id, reply_to=reply_to)
    outbox.put(session, message, env.now)
    return True


def say_in_game(
    session: Session,
    env: Env,
    ctx: GameContext,
    text: str,
    *,
    notify: bool = False,
    keys: Keyboard | None = None,
) -> None:
    outbox.put(session, _to_group(ctx, text, notify=notify, keys=keys), env.now)


def edit_message(
    session: Session, env: Env, chat_id: int, message_id: int, text: str, keys: Keyboard | None
) -> None:
    """Change the message a key was tapped on (a rules page, the language picker)."""
    outbox.put(
        session, Message(chat_id, text, keys, message_id=message_id, surface=f"msg:{message_id}"), env.now
    )


def drop_keys(session: Session, env: Env, chat_id: int, message_id: int) -> None:
    """Take the keys off a message that is no longer live (a stale board someone tapped)."""
    outbox.drop_keys(session, chat_id, message_id, env.now, surface=f"msg:{message_id}")


# --- boards -----------------------------------------------------------------------------------


def table_of(ctx: GameContext, env: Env, viewer: int | None) -> board_render.Table:
    """What a board needs besides the view. The mover's legal [T!] plays are shown to the mover,
    and on the group board only while [T!] cards are face up (they are public then)."""
    state = ctx.playing_state()
    visible = viewer == state.current or (viewer is None and not ctx.settings.face_down)
    choices = (
        tuple(encode(a) for a in t_actions(state, state.current)) if visible and not state.is_over else ()
    )
    return board_render.Table(
        game_id=ctx.game_id,
        version=ctx.game.version,
        players=players(ctx),
        face_down=ctx.settings.face_down,
        chat_title=ctx.chat_title,
        bot_username=env.bot_username,
        inline=env.inline,
        t_choices=choices,
    )


def group_board(
    ctx: GameContext, env: Env, draft: Draft | None = None, header: list[str] | None = None
) -> tuple[str, Keyboard]:
    lang = ctx.language
    view = public_view(ctx.playing_state())
    table = table_of(ctx, env, None)
    text = board_render.board_text(lang, view, table, draft, "\n".join(header or []))
    return text, board_render.keyboard(lang, view, table, draft)


def post_board(session: Session, env: Env, ctx: GameContext, header: list[str] | None = None) -> None:
    """A new board at the bottom of the group; the player to move is mentioned (notified).

    The board (and the mover's panel) shows the move being composed, if any: a /board in the
    middle of a move keeps it."""
    game = ctx.game
    game.board_no += 1
    session.add(game)
    mover = ctx.current
    draft = drafts.load(session, ctx.game_id, mover.seat, game.version) if mover is not None else None
    text, keys = group_board(ctx, env, draft, header)
    notify = mover is not None and not mover.autoplayed
    outbox.put(session, _to_group(ctx, text, keys=keys, surface=board_surface(game), notify=notify), env.now)
    if mover is not None and mover.gets_panel:
        show_panel(session, env, ctx, mover, draft)


def refresh_board(
    session: Session,
    env: Env,
    ctx: GameContext,
    draft: Draft | None = None,
    header: list[str] | None = None,
    priority: Priority = Priority.PREVIEW,
) -> None:
    """Redraw the live board in place (a draft preview, a [T!] card's effect)."""
    if ctx.game.board_no == 0:
        post_board(session, env, ctx, header)
        return
    text, keys = group_board(ctx, env, draft, header)
    message = _to_group(ctx, text, keys=keys, surface=board_surface(ctx.game), priority=priority)
    outbox.put(session, message, env.now)


def retire_board(session: Session, env: Env, ctx: GameContext, text: str | None = None) -> None:
    """The live board stops being live: it takes `text` (or keeps its text) and loses its keys."""
    if ctx.game.board_no == 0:
        return
    surface = board_surface(ctx.game)
    if text is None:
        message = _to_group(
            ctx, "", surface=surface, keys_only=True, edit_only=True, priority=Priority.PREVIEW
        )
    else:  # posted as a message of its own if the board never made it to the chat
        message = _to_group(ctx, text, surface=surface)
    outbox.put(session, message, env.now)


def repost_board(session: Session, env: Env, ctx: GameContext, header: list[str] | None = None) -> None:
    """The board again at the bottom (/board, a pause lifted); the old one loses its keys."""
    retire_board(session, env, ctx)
    post_board(session, env, ctx, header)


# --- panels -----------------------------------------------------------------------------------


def panel_view(
    ctx: GameContext, env: Env, seat: SeatInfo, draft: Draft | None = None
) -> tuple[str, Keyboard | None]:
    state = ctx.playing_state()
    view = seat_view(state, seat.seat)
    table = table_of(ctx, env, seat.seat)
    text = board_render.board_text(seat.language, view, table, draft)
    my_move = state.current == seat.seat and not state.is_over and ctx.game.status == PLAYING
    return text, board_render.keyboard(seat.language, view, table, draft) if my_move else None


def show_panel(
    session: Session,
    env: Env,
    ctx: GameContext,
    seat: SeatInfo,
    draft: Draft | None = None,
    priority: Priority = Priority.INFO,
    fresh: bool = False,
) -> None:
    """The player's private panel, kept at the bottom of their chat with the bot (`fresh`: posted
    anew even if it is, e.g. when they asked for it)."""
    assert seat.user_id is not None
    text, keys = panel_view(ctx, env, seat, draft)
    surface = panel_surface(ctx.game_id, seat.seat)
    message = Message(
        seat.user_id,
        text,
        keys,
        surface=surface,
        bottom=True,
        fresh=fresh,
        priority=priority,
        game_id=ctx.game_id,
    )
    outbox.put(session, message, env.now)


def close_panel(session: Session, env: Env, ctx: GameContext, seat: SeatInfo, lines: list[str]) -> None:
    """The turn is over: the panel says what was played and loses its keys (if it was shown)."""
    if seat.user_id is None:
        return
    text = board_render.closed_panel_text(seat.language, ctx.chat_title, lines)
    message = Message(
        seat.user_id,
        text,
        surface=panel_surface(ctx.game_id, seat.seat),
        edit_only=True,
        priority=Priority.INFO,
    )
    outbox.put(session, message, env.now)


def retire_panel(session: Session, env: Env, ctx: GameContext, seat: SeatInfo) -> None:
    """The player composes on the group board now: their panel (if shown) says so, without keys."""
    if seat.user_id is None or not seat.can_dm:
        return
    text = _(
        seat.language,
        "↪️ You play this game on the group board now. Tap 📱 Panel there to play here again.",
    )
    message = Message(
        seat.user_id,
        text,
        surface=panel_surface(ctx.game_id, seat.seat),
        edit_only=True,
        priority=Priority.INFO,
    )
    outbox.put(session, message, env.now)


# --- reports ----------------------------------------------------------------------------------


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
    return fit_lines(lang, lines)  # a long burst of computer moves still fits above a board


def split_at_round_ends(outcomes: list[MoveOutcome]) -> list[list[MoveOutcome]]:
    """The burst cut after each move that ended a round (never empty: at least one segment)."""
    segments: list[list[MoveOutcome]] = [[]]
    for outcome in outcomes:
        segments[-1].append(outcome)
        if any(isinstance(e, (RoundEnded, GameEnded)) for e in outcome.events):
            segments.append([])
    return [segment for segment in segments if segment] or [[]]


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


def report(session: Session, env: Env, result: PlayResult, announced: bool = False) -> None:
    """After moves: panels closed, the old board turned into the report, round ends, the game's
    end, and the next board.

    `announced`: the player's own message already announces the move (an inline pick): the old
    board only loses its keys, when budget allows, and the report rides on the new board, so the
    turn costs the group one write.
    """
    ctx = result.ctx
    lang = ctx.language
    drop_reminder(session, ctx)  # the player acted: a reminder still waiting would only mislead
    _close_panels(session, env, result)
    if not result.turn_over:
        # Only a [T!] card was played: the board shows its effect, and the turn goes on.
        refresh_board(session, env, ctx, None, report_lines(lang, ctx, result.outcomes), Priority.TURN)
        return
    segments = split_at_round_ends(result.earlier + result.outcomes)
    later = {id(segment[0]): segment for segment in segments[1:]}
    first = report_lines(lang, ctx, segments[0])
    header: list[str] = []
    if ctx.game.board_no and first and not announced:
        retire_board(session, env, ctx, "\n".join(first))
    else:
        if ctx.game.board_no:
            retire_board(session, env, ctx)
        header = first
    for outcome in result.outcomes:
        if id(outcome) in later:
            header += report_lines(lang, ctx, later[id(outcome)])
        for event in outcome.events:
            if isinstance(event, RoundEnded):
                won = won_cards(result.outcomes, event.round, len(ctx.seats))
                summary = round_summary(lang, ctx.seats, event, won, ctx.settings.threshold(len(ctx.seats)))
                say_in_game(session, env, ctx, _under(header, summary))
                header = []
            elif isinstance(event, GameEnded):
                rounds = len(ctx.state.round_points) if ctx.state else 0
                standings = _under(header, final_standings(lang, ctx.seats, event, rounds))
                say_in_game(
                    session, env, ctx, standings, keys=results_render.standings_keys(lang, ctx.game_id)
                )
                header = []
                score_chart(session, env, ctx, event)
    if result.abandoned:
        say_in_game(session, env, ctx, _under(header, abandoned_text(lang, ctx)))
        return
    if ctx.state is not None and not ctx.state.is_over:
        post_board(session, env, ctx, header or None)


def _under(header: list[str], text: str) -> str:
    return "\n".join(header) + "\n\n" + text if header else text


def _close_panels(session: Session, env: Env, result: PlayResult) -> None:
    """Panels of players whose turn is over (a move, or the idle default at the deadline)."""
    ctx = result.ctx
    closing = ("player", "idle")
    movers = {o.seat for o in result.outcomes if o.source in closing and o.main}
    for seat in ctx.seats:
        if seat.seat in movers and seat.panel and seat.user_id is not None:
            mine = [
                o for o in result.earlier + result.outcomes if o.seat == seat.seat and o.source in closing
            ]
            close_panel(session, env, ctx, seat, report_lines(seat.language, ctx, mine))


def abandoned_text(lang: str, ctx: GameContext) -> str:
    """The end of a game nobody plays any more, with the scores as they stood (this round included)."""
    text = _(lang, "🛑 Every player has left or is away: the game is over, scores kept.")
    state = ctx.state
    if state is None:
        return text
    totals = state.scores_total()
    scores = {s.seat: totals[s.seat] for s in ctx.seats}
    order = sorted(ctx.seats, key=lambda s: (-scores[s.seat], s.seat))
    return text + "\n\n" + "\n".join(f"{cards_render.name(s.name)} — {scores[s.seat]}" for s in order)


def score_chart(session: Session, env: Env, ctx: GameContext, event: GameEnded) -> None:
    """The final standings' picture, drawn by the sender just before it goes (never on a tap)."""
    state = ctx.state
    if state is None or not state.round_points:
        return
    lang = ctx.language
    threshold = ctx.settings.threshold(len(ctx.seats))
    spec = chart.spec(
        chart_texts(lang, threshold),
        chart_texts("en", threshold),
        [s.name for s in ctx.seats],
        state.round_points,
        threshold,
        list(event.winners),
    )
    message = _to_group(
        ctx,
        _(lang, "📈 Scores per round"),
        priority=Priority.INFO,
        media={"kind": "photo", "filename": f"tweak-{ctx.game_id}.png", "chart": spec},
    )
    outbox.put(session, message, env.now)


def chart_texts(lang: str, threshold: int) -> chart.ChartTexts:
    return chart.ChartTexts(
        title=_(lang, "Scores per round"),
        round_label=_(lang, "Round"),
        points_label=_(lang, "Points"),
        goal_label=_(lang, "Goal {points}", points=threshold),
    )


# --- lobby ------------------------------------------------------------------------------------


def players(ctx: GameContext) -> tuple[board_render.Player, ...]:
    return tuple(board_render.Player(s.name, s.user_id, s.ai_level, s.left, s.away) for s in ctx.seats)


def show_lobby(session: Session, env: Env, ctx: GameContext, settings_screen: bool = False) -> None:
    lang = ctx.language
    view = lobby_render.LobbyView(ctx.game_id, players(ctx), ctx.settings)
    text = lobby_render.lobby_text(lang, view, env.custom_pace)
    keys = (
        lobby_render.settings_keyboard(lang, view, env.custom_pace)
        if settings_screen
        else lobby_render.lobby_keyboard(lang, view)
    )
    outbox.put(session, _to_group(ctx, text, keys=keys, surface=lobby_surface(ctx.game_id)), env.now)


def repost_lobby(session: Session, env: Env, ctx: GameContext) -> None:
    """/board in a lobby: the lobby again at the bottom; the old message loses its keys."""
    surface = lobby_surface(ctx.game_id)
    shown = outbox.shown_message(session, ctx.game.chat_id, surface)
    if shown is not None:
        drop_keys(session, env, ctx.game.chat_id, shown.message_id)
        outbox.forget_shown(session, ctx.game.chat_id, surface)
    show_lobby(session, env, ctx)


def close_lobby(session: Session, env: Env, ctx: GameContext, text: str) -> None:
    """The lobby's last words (started, cancelled, expired), without keys; posted if it never was."""
    outbox.put(session, _to_group(ctx, text, surface=lobby_surface(ctx.game_id)), env.now)


# --- hints for the composer -------------------------------------------------------------------


def sum_hint(ctx: GameContext, seat: SeatInfo, draft: Draft) -> str:
    view = seat_view(ctx.playing_state(), seat.seat)
    hand = view.hand or ()
    # The search only matters for the hint of a hand card picked alone.
    can_sum = draft.hand is not None and draft.hand < len(hand)
    can_sum = can_sum and not draft.menu and not draft.chosen(len(view.table))
    if can_sum and draft.hand is not None:
        can_sum = bool(sum_options([hand[draft.hand]], list(view.table), view.target))
    return board_render.sum_hint(seat.language, view, draft, can_sum)


def hand_popup(ctx: GameContext, seat: SeatInfo) -> str:
    return board_render.hand_popup(seat.language, seat_view(ctx.playing_state(), seat.seat))
