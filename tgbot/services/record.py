"""The group chat as the game's record: boards, round summaries and final standings.

A turn costs the group one bot message (DESIGN §6): the next board, which opens with the report
of every move since the board before it (the [T!] card and its effect, the sum or discard with
the points it won, each computer's move). Players scroll up to check a sum or a score, so the
record must re-add to every round summary:

* A report, once in the chat, is never changed. An old board loses its keys (last of all, when
  the group's budget allows), never its text.
* Every move is reported once. `games.reported_version` marks the moves already in the record;
  a [T!] card played without a board of its own (from a panel, an inline pick, a Joker) waits
  for the report of its turn.
* A board that has not reached the chat yet (Telegram's budget, an outage) is not followed by
  another: whatever the game says next takes its place and opens with its lines too
  (`games.board_report`): the next board, a round summary, the standings. So a busy group gets
  one message where a quiet one would have had two, and no line is lost or doubled.

Round summaries, the standings and the chart are messages of their own, sent silently.

A practice table keeps its record the same way in its player's own chat with the bot; only its
board differs (`practice_board`, for `services.tables.practice`): it shows that player's real
cards, redrawn as they compose, and it is their turn's notification (no panel, no note).

What differs by kind of table is left to it (`Table`, in `services.tables`): never asked here.
"""

from __future__ import annotations

from typing import Protocol

from sqlmodel import Session

from engine import public_view
from engine.events import GameEnded, RoundEnded, load_events

from ..render import board as board_render
from ..render.keys import Keyboard
from ..render.limits import chunks
from ..render.results import final_standings, move_lines, round_summary, standings_keys
from ..store import games as game_rows
from ..store import move_log, outbox
from ..store.models import PLAYING, Game
from ..store.outbox import Message, Priority
from ..store.surfaces import Board
from . import drafts, game_end, output, panels, surfaces
from .context import GameContext, SeatInfo
from .env import Env
from .moves import MoveOutcome, PlayResult
from .table_view import table_of


class Table(Protocol):
    """What the record leaves to the game's kind of table (`services.tables`): how its board is
    drawn, how the board of a new turn goes out with the turn's notification, and where the
    record's next message goes."""

    def board_view(
        self,
        session: Session,
        ctx: GameContext,
        env: Env,
        header: list[str],
        draft: board_render.Draft | None = None,
    ) -> tuple[str, Keyboard | None]: ...

    def show_board(self, session: Session, env: Env, ctx: GameContext, lines: list[str]) -> None: ...

    def ping(self, session: Session, env: Env, ctx: GameContext, seat: SeatInfo) -> None: ...

    def score_chart(self, session: Session, env: Env, ctx: GameContext, event: GameEnded) -> None: ...

    def write(
        self,
        session: Session,
        env: Env,
        ctx: GameContext,
        lines: list[str],
        *,
        body: str | None = None,
        keys: Keyboard | None = None,
    ) -> None: ...


# --- what the record says of moves ------------------------------------------------------------


def report_lines(lang: str, ctx: GameContext, outcomes: list[MoveOutcome]) -> list[str]:
    """What the group reads of these moves, one line per thing that happened."""
    face_down = ctx.settings.face_down
    return [
        line for o in outcomes for line in move_lines(lang, ctx.seats, o.source, o.seat, o.events, face_down)
    ]


def unreported(session: Session, ctx: GameContext, outcomes: list[MoveOutcome]) -> list[MoveOutcome]:
    """The moves not yet in the record, oldest first: those in the log before `outcomes` (a [T!]
    card played earlier in the turn, with no board of its own), then `outcomes`."""
    game = ctx.game
    first = game.version - len(outcomes) + 1  # each move made one version
    if game.reported_version + 1 >= first:
        return list(outcomes)
    state = ctx.playing_state()
    logged = move_log.between(session, ctx.game_id, game.reported_version, first)
    earlier = [
        MoveOutcome(m.seat, m.code, m.source, state, state, load_events(m.events))
        for m in logged
        if m.seat is not None and m.events is not None
    ]
    return earlier + list(outcomes)


# --- boards -----------------------------------------------------------------------------------


def group_board(
    ctx: GameContext, env: Env, header: list[str], practice: bool = False, own_views: bool = False
) -> tuple[str, Keyboard]:
    """The board as the group sees it: the public view only, so it cannot show a hidden card.
    `own_views`: a group the bot is in, where a person can see their own view (🃏 My cards)."""
    lang = ctx.language
    view = public_view(ctx.playing_state())
    table = table_of(ctx, env, None, practice=practice, own_views=own_views)
    return board_render.board_text(lang, view, table, None, "\n".join(header)), board_render.keyboard(
        lang, view, table
    )


def practice_board(
    session: Session,
    ctx: GameContext,
    env: Env,
    seat: SeatInfo,
    header: list[str],
    draft: board_render.Draft | None = None,
) -> tuple[str, Keyboard | None]:
    """A practice table's board: drawn as its player's private panel is (their real cards on the
    keys, the move they are composing: `draft`, else the one kept for them), under its report,
    in the game's language."""
    if draft is None:
        draft = drafts.load(session, ctx.game_id, seat.seat, ctx.game.version)
    return panels.view(ctx, env, seat, draft, "\n".join(header), ctx.language, practice=True)


def post_board(
    session: Session,
    env: Env,
    ctx: GameContext,
    table: Table,
    outcomes: list[MoveOutcome] | None = None,
    note: list[str] | None = None,
) -> None:
    """The next board, at the bottom of the group, opening with `note` (e.g. "the game goes on")
    and the report of the moves not yet in the record; the board before it keeps its text and
    loses its keys."""
    lines = report_lines(ctx.language, ctx, unreported(session, ctx, outcomes or []))
    table.show_board(session, env, ctx, [*(note or []), *lines])


def new_turn(ctx: GameContext) -> bool:
    """The board about to go out starts a person's turn: it is their turn's notification. A board
    in the middle of a turn (after a [T!] card) notifies nobody."""
    mover = ctx.current
    return mover is not None and not mover.autoplayed and not ctx.playing_state().t_played


def group_board_and_panel(
    session: Session, env: Env, ctx: GameContext, table: Table, lines: list[str]
) -> None:
    """The board under `lines`, mentioning the player to move, who gets one notification for the
    turn: in their private chat with the bot when they have one (their panel, if they play
    there, else a short note; the board then goes silently, so nobody else is woken), else the
    board's mention."""
    mover = ctx.current
    starts = new_turn(ctx)
    private = starts and panels.reached_privately(mover)
    put(session, env, ctx, table, lines, board=True, notify=starts and not private)
    if mover is not None and mover.gets_panel:
        draft = drafts.load(session, ctx.game_id, mover.seat, ctx.game.version)
        panels.show(session, env, ctx, mover, draft, fresh=private, notify=private)
    elif private and mover is not None:
        table.ping(session, env, ctx, mover)


def redraw_board(
    session: Session,
    env: Env,
    ctx: GameContext,
    table: Table,
    draft: board_render.Draft | None = None,
    priority: Priority = Priority.COSMETIC,
) -> None:
    """The live board again in place, its report kept: the group's language changed (a cosmetic
    edit, which a board still waiting to be sent takes in and keeps its own place for), or, at a
    practice table, its player composes (`draft`) or played a [T!] card alone."""
    if not ctx.game.board_no or ctx.state is None or ctx.state.is_over:
        return
    header = _lines(ctx.game.board_report)
    text, keys = table.board_view(session, ctx, env, header, draft)
    message = output.to_group(ctx, text, keys=keys, surface=surfaces.board(ctx.game), priority=priority)
    outbox.put(session, message, env.now)


def pause_board(session: Session, env: Env, ctx: GameContext) -> None:
    """A pause: the live board keeps its text and loses its keys; the game goes on under a new
    board. One that has not reached the chat yet goes out as it is (its keys then answer that the
    game is paused) and is taken by the next board."""
    shown = live_board(session, ctx)
    if shown is None:
        return
    game = ctx.game
    outbox.drop_keys(session, game.chat_id, shown, env.now, game_id=ctx.game_id, first=True)
    _new_board(session, game)  # not live any more: its report stays in the chat, the next is new
    game.board_report = ""
    game_rows.save(session, game)


def live_board(session: Session, ctx: GameContext) -> int | None:
    """The message id of the live board, if it has reached the chat."""
    if not ctx.game.board_no:
        return None
    shown = _shown_board(session, ctx.game)
    return shown.message_id if shown is not None else None


_NUMBERED = "tweakbot.record.numbered"  # (game, board number) this transaction numbered


def _new_board(session: Session, game: Game) -> None:
    """The game's next board takes the next number."""
    game.board_no += 1
    session.info.setdefault(_NUMBERED, set()).add((game.id, game.board_no))


def _shown_board(session: Session, game: Game) -> outbox.Shown | None:
    """The message that shows the game's live board, if it reached the chat. A board this
    transaction numbered has not (its row is written at the commit): not looked up, so a move
    that ends a round (the summary retires the board, the next board is new) reads it once."""
    if (game.id, game.board_no) in session.info.get(_NUMBERED, ()):
        return None
    return outbox.shown_message(session, game.chat_id, surfaces.board(game))


def board_on_its_way(session: Session, ctx: GameContext) -> bool:
    """The game's next board waits to be sent (the group's budget), or for the bot's moves before
    it: a tap on the board before it is early, not stale."""
    return bot_to_move(ctx) or (bool(ctx.game.board_no) and live_board(session, ctx) is None)


# --- after moves ------------------------------------------------------------------------------


def report(session: Session, env: Env, result: PlayResult, table: Table) -> None:
    """After a turn: the panels of those who moved closed, then the record: a summary for each
    round that ended (each under the report of its last moves), the standings and the chart at
    the end of the game, and the next board under the report of the moves after the last round
    end — once the turn is a person's. While the bot still has seats to play after the commit
    (`services.autoplay`), the moves wait for the board that follows them, so a person's move
    and the computers' after it cost the group one message, as one transaction's did.

    A [T!] card alone does not end the turn: it waits for the report of the turn (the caller
    posts a board when the player needs one to go on).
    """
    ctx = result.ctx
    if result.reminded:  # the player acted: a reminder still waiting would only mislead
        output.drop_reminder(session, ctx)
    if not result.turn_over:
        return
    lang = ctx.language
    outcomes = unreported(session, ctx, result.outcomes)
    _close_panels(session, env, ctx, result.outcomes, outcomes)
    lines: list[str] = []
    for outcome in outcomes:
        lines += report_lines(lang, ctx, [outcome])
        for event in outcome.events:
            if isinstance(event, RoundEnded):
                won = game_end.won_cards(outcomes, event.round, len(ctx.seats))
                summary = round_summary(lang, ctx.seats, event, won, ctx.settings.threshold(len(ctx.seats)))
                table.write(session, env, ctx, lines, body=summary)
                lines = []
            elif isinstance(event, GameEnded):
                rounds = len(ctx.state.round_points) if ctx.state else 0
                standings = final_standings(lang, ctx.seats, event, rounds)
                table.write(session, env, ctx, lines, body=standings, keys=standings_keys(lang, ctx.game_id))
                lines = []
                table.score_chart(session, env, ctx, event)
    if result.abandoned:
        table.write(session, env, ctx, lines, body=game_end.abandoned_text(lang, ctx))
    elif ctx.state is not None and not ctx.state.is_over and not bot_to_move(ctx):
        table.show_board(session, env, ctx, lines)


def bot_to_move(ctx: GameContext) -> bool:
    """The bot plays the next move, after the commit (a computer, a person who left or is away):
    the board waits for the turn of a person."""
    mover = ctx.current
    return ctx.game.status == PLAYING and mover is not None and mover.autoplayed


def close(session: Session, env: Env, ctx: GameContext, table: Table, text: str) -> None:
    """The game ends without a result (cancelled): the record says so once, under any moves not
    yet reported; the live board loses its keys."""
    if ctx.state is None:
        return
    lines = report_lines(ctx.language, ctx, unreported(session, ctx, []))
    table.write(session, env, ctx, lines, body=text)


def _close_panels(
    session: Session, env: Env, ctx: GameContext, played: list[MoveOutcome], outcomes: list[MoveOutcome]
) -> None:
    """Panels of players whose turn is over in this transaction (`played`: a move, or the idle
    default at the deadline) say what was played (of `outcomes`, the moves not yet reported),
    [T!] card included, and lose their keys: at the mover's own commit, not with the board that
    comes after the computers."""
    closing = ("player", "idle")
    movers = {o.seat for o in played if o.source in closing and o.main}
    for seat in ctx.seats:
        if seat.seat in movers and seat.panel and seat.user_id is not None:
            mine = [o for o in outcomes if o.seat == seat.seat and o.source in closing]
            panels.close(session, env, ctx, seat, report_lines(seat.language, ctx, mine))


# --- the next message of the record -------------------------------------------------------------


def put(
    session: Session,
    env: Env,
    ctx: GameContext,
    table: Table,
    lines: list[str],
    *,
    body: str | None = None,
    keys: Keyboard | None = None,
    board: bool = False,
    notify: bool = False,
    void_draft: bool = False,
) -> None:
    """The next message of the game's record: a board (`board`) or a text (`body`, with `keys`),
    under the report `lines`.

    If the live board has not reached the chat, this message takes its place and opens with
    that board's report too. A report too long for one message goes first as messages of its
    own, so no line is ever cut. `void_draft`: the live board is drawn from its player's draft
    (a practice table), so an edit of it not sent yet is void once the turn is over.
    """
    game = ctx.game
    surface: Board | None = None
    report = list(lines)
    retired = False
    if game.board_no:
        live = surfaces.board(game)
        shown = _shown_board(session, game)
        if shown is None:
            surface, report = live, _lines(game.board_report) + report
            game.board_report = ""  # its lines are in this message now
        else:  # the board the game leaves: its keys were never taken (it was live)
            chat, message_id = game.chat_id, shown.message_id
            if void_draft:  # a draft of the turn now over, not sent yet: void
                outbox.discard_surface(session, chat, live)
            outbox.drop_keys(session, chat, message_id, env.now, game_id=ctx.game_id, first=True)
            retired = True
    *before, report = chunks(report)
    for chunk in before:  # a long burst (computers, an outage): the record stays whole
        outbox.put(session, _message(ctx, "\n".join(chunk), None, surface), env.now)
        if surface is not None:
            _new_board(session, game)
            surface = None
    if board or keys is not None:  # a board, or the standings: on a board, for `old_standings`
        if surface is None:
            _new_board(session, game)
            surface = surfaces.board(game)
        game.board_report = "\n".join(report) if board else ""
        text = _under(report, body or "")
        if board:
            text, keys = table.board_view(session, ctx, env, report)
    else:
        if surface is not None or retired:
            # the surface now holds this text, or the board before it is not live any more: the
            # next board is a new one
            _new_board(session, game)
            game.board_report = ""
        text = _under(report, body or "")
    game.reported_version = game.version
    game_rows.save(session, game)
    outbox.put(session, _message(ctx, text, keys, surface, notify), env.now)


def _message(
    ctx: GameContext, text: str, keys: Keyboard | None, surface: Board | None, notify: bool = False
) -> Message:
    return output.to_group(ctx, text, keys=keys, surface=surface, notify=notify, priority=Priority.BOARD)


def _lines(text: str) -> list[str]:
    return text.split("\n") if text else []


def _under(header: list[str], text: str) -> str:
    return "\n".join(header) + "\n\n" + text if header else text
