"""Practice in the bot's private chat: its person against computers. The chat is theirs (its id
is their id), so its board is their panel, showing their real cards, and it has a private
chat's budget, not a group's."""

from __future__ import annotations

from typing import ClassVar

from sqlmodel import Session

from ...render import board as board_render
from ...render.keys import Keyboard
from ...store.outbox import Priority
from ...tables import TableKind
from .. import record, reminders
from ..context import GameContext, SeatInfo
from ..env import Env
from ..moves import MoveOutcome, PlayResult
from ..origins import Tap
from .group import GroupTable


class PracticeTable(GroupTable):
    kind: ClassVar[TableKind] = TableKind.PRACTICE
    picked_in: ClassVar[tuple[str, ...]] = ("sender",)  # the bot's own chat with its person
    in_players_chat: ClassVar[bool] = True

    def on_panel(self, tap: Tap) -> bool:
        return False  # its board is in that very chat, and it has no panel

    def player_seat(self, ctx: GameContext) -> SeatInfo | None:
        return ctx.seat_of(ctx.game.chat_id)

    def board_view(
        self,
        session: Session,
        ctx: GameContext,
        env: Env,
        header: list[str],
        draft: board_render.Draft | None = None,
    ) -> tuple[str, Keyboard | None]:
        # drawn as its player's panel: their real cards, the move they compose
        seat = self.player_seat(ctx)
        if seat is None:
            return record.group_board(ctx, env, header, practice=True)
        return record.practice_board(session, ctx, env, seat, header, draft)

    def show_board(self, session: Session, env: Env, ctx: GameContext, lines: list[str]) -> None:
        # the board is in the player's own chat: it is their turn's notification (no panel, no note)
        record.put(session, env, ctx, self, lines, board=True, notify=record.new_turn(ctx), void_draft=True)

    def write(
        self,
        session: Session,
        env: Env,
        ctx: GameContext,
        lines: list[str],
        *,
        body: str | None = None,
        keys: Keyboard | None = None,
    ) -> None:
        # the board was drawn from its player's draft: an edit of it not sent yet is void
        record.put(session, env, ctx, self, lines, body=body, keys=keys, void_draft=True)

    def remind(self, session: Session, env: Env, ctx: GameContext, seat: SeatInfo, last_call: bool) -> bool:
        # the table is their own chat: a word to them there, under its board
        reminders.in_chat(session, env, ctx, seat, last_call, practice=True)
        return True

    def show_draft(
        self,
        session: Session,
        env: Env,
        ctx: GameContext,
        seat: SeatInfo,
        draft: board_render.Draft,
        private: bool,
    ) -> None:
        # the board is the player's own, in their chat (with its own budget): it follows each tap
        self.redraw_board(session, env, ctx, draft, Priority.COSMETIC)

    def report_pick(self, session: Session, env: Env, result: PlayResult) -> None:
        self.report(session, env, result)
        if not result.turn_over:
            # a [T!] card alone, picked from 🎯 Play: the board is its player's own, and shows what
            # the card did at once (as after a tap on it), the sum picked from it next
            self.redraw_board(session, env, result.ctx, None, Priority.BOARD)

    def show_t_played(
        self,
        session: Session,
        env: Env,
        ctx: GameContext,
        seat: SeatInfo,
        kept: board_render.Draft,
        outcomes: list[MoveOutcome],
        private: bool,
        joker: bool,
    ) -> None:
        # its board is the player's own: it shows what the card did
        self.redraw_board(session, env, ctx, kept, Priority.BOARD)
