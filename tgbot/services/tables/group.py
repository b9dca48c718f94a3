"""A group the bot is in: the bot posts one board a turn (DESIGN §6), mentions the player to
move, and a player may play from their private panel. The other kinds override this class.

A use case decides and saves, then calls one method here per step (`report`, `post_board`,
`say`, `show_lobby`, …); what a kind does differently is an override, never a question the use
case asks. The modules this draws on (`record`, `panels`, `lobby_message`, `inline_table`) are
each one kind's or one surface's, and never ask which kind a game is."""

from __future__ import annotations

from typing import ClassVar

from sqlmodel import Session

from engine.events import GameEnded

from ...errors import Refusal
from ...render import board as board_render
from ...render import lobby as lobby_render
from ...render import table_notices, turn_notice
from ...render.keys import Keyboard
from ...store import outbox
from ...store.models import Game
from ...store.outbox import Message, Priority
from ...tables import TableKind
from .. import game_end, lobby_message, output, panels, record, reminders, surfaces
from ..context import GameContext, SeatInfo
from ..env import Env
from ..moves import MoveOutcome, PlayResult
from ..origins import Tap

#: Telegram's `chat_type` of an inline query sent in a group.
GROUP_CHATS = ("group", "supergroup")


class GroupTable:
    kind: ClassVar[TableKind] = TableKind.GROUP
    #: Where a move may be picked from the inline list (🎯 Play): the query's `chat_type`.
    picked_in: ClassVar[tuple[str, ...]] = GROUP_CHATS
    #: The game is carried by the posts people make via the bot (the bot posts nothing of its own
    #: there, it edits those posts, and an edit notifies nobody): what the bot says goes into the
    #: live board's report, a posted pick is the next board, and nobody can be mentioned there.
    carried_by_posts: ClassVar[bool] = False
    #: The table is its one person's private chat with the bot: the board is drawn as their panel
    #: (their real cards), it notifies them itself, nobody else can join, and a computer must play.
    in_players_chat: ClassVar[bool] = False
    #: Who a person tapping the lobby's or the pace's keys must be, when they may not.
    not_manager: ClassVar[Refusal] = Refusal.NOT_CREATOR

    def player_seat(self, ctx: GameContext) -> SeatInfo | None:
        """The seat whose private chat the table is (None: a table of a shared chat)."""
        return None

    def chat_name(self, ctx: GameContext, lang: str) -> str:
        """How a private message, in its reader's language, names the game's chat."""
        return ctx.chat_title

    def pick_keys(self, lang: str, game_id: int) -> Keyboard | None:
        """The keys a move posted from the inline list carries (none: it is only a message)."""
        return None

    def on_panel(self, tap: Tap) -> bool:
        """The tap is on its player's private panel: a tap in private, for a game played here."""
        return tap.private

    # --- what a person is answered --------------------------------------------------------------

    def join_link(self, ctx: GameContext, env: Env, can_dm: bool) -> str | None:
        """Where a person who just joined is sent instead of a text (none: told in a text)."""
        return None

    def rematch_opened(self, lang: str) -> str:
        """What the person who opened a rematch is told."""
        return lobby_render.rematch_opened(lang, self.in_players_chat)

    # --- the record: what a use case hands over once it has decided and saved ---------------

    def report(self, session: Session, env: Env, result: PlayResult) -> None:
        """After moves: the record of what they did, and the next board (`record.report`)."""
        record.report(session, env, result, self)

    def post_board(
        self,
        session: Session,
        env: Env,
        ctx: GameContext,
        outcomes: list[MoveOutcome] | None = None,
        note: list[str] | None = None,
    ) -> None:
        """The next board, opening with `note` and the moves not yet reported."""
        record.post_board(session, env, ctx, self, outcomes, note)

    def redraw_board(
        self,
        session: Session,
        env: Env,
        ctx: GameContext,
        draft: board_render.Draft | None = None,
        priority: Priority = Priority.COSMETIC,
    ) -> None:
        """The live board again in place, its report kept."""
        record.redraw_board(session, env, ctx, self, draft, priority)

    def close(self, session: Session, env: Env, ctx: GameContext, text: str) -> None:
        """The game ends without a result: the record says so once."""
        record.close(session, env, ctx, self, text)

    def board_on_its_way(self, session: Session, ctx: GameContext) -> bool:
        """The next board waits to be sent, or for the bot's moves before it."""
        return record.board_on_its_way(session, ctx)

    def report_pick(self, session: Session, env: Env, result: PlayResult) -> None:
        """After a move picked from the inline list (🎯 Play): the record, as after any move."""
        self.report(session, env, result)

    def show_draft(
        self,
        session: Session,
        env: Env,
        ctx: GameContext,
        seat: SeatInfo,
        draft: board_render.Draft,
        private: bool,
    ) -> None:
        """The move `seat` composes changed: a surface that shows it follows (their private panel,
        if they tapped there: `private`). The group board does not."""
        if private:
            panels.show(session, env, ctx, seat, draft, Priority.COSMETIC)

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
        """A [T!] card played alone, the turn going on: the panel it was played from shows what it
        did (`kept`: the cards chosen keep their places), or a new board does (a Joker's waits for
        the sum it is part of)."""
        if private:
            panels.show(session, env, ctx, seat, kept, Priority.TURN)
        elif not joker:
            self.post_board(session, env, ctx, outcomes)

    def say_started(self, session: Session, env: Env, ctx: GameContext, started: str) -> None:
        """The game starts: the lobby's last words (cosmetic: the first board goes first)."""
        self.close_lobby(session, env, ctx, started, Priority.COSMETIC)

    def say(self, session: Session, env: Env, ctx: GameContext, text: str, *, notify: bool = False) -> None:
        """A notice of the game in its chat."""
        outbox.put(session, output.to_group(ctx, text, notify=notify), env.now)

    def remind(self, session: Session, env: Env, ctx: GameContext, seat: SeatInfo, last_call: bool) -> bool:
        """The turn's next reminder to `seat`; False when nobody can be told."""
        if panels.reached_privately(seat):
            # in private, like the turn's own notification: the group is not woken for one player
            group = reminders.in_chat_message(ctx, env, seat, last_call, practice=False)
            chat = self.chat_name(ctx, seat.language)
            reminders.in_private(session, env, ctx, seat, last_call, chat, self.call(ctx, seat, group))
            return True
        reminders.in_chat(session, env, ctx, seat, last_call, practice=self.in_players_chat)
        return True

    def say_away(self, session: Session, env: Env, ctx: GameContext, seat: SeatInfo) -> None:
        """`seat` missed two turns in a row: they are away now."""
        self.say(session, env, ctx, table_notices.now_away(ctx.language, seat.name))

    # --- the lobby ------------------------------------------------------------------------------

    def show_lobby(self, session: Session, env: Env, ctx: GameContext, settings_screen: bool = False) -> None:
        """The lobby drawn anew: posted, or edited as people join and change settings."""
        text, keys = lobby_message.draw(
            ctx, env, settings_screen, practice=self.in_players_chat, inline=self.carried_by_posts
        )
        self.post_lobby(session, env, ctx, text, keys)

    def post_lobby(self, session: Session, env: Env, ctx: GameContext, text: str, keys: Keyboard) -> None:
        lobby_message.post_lobby(session, env, ctx, text, keys)

    def repost_lobby(self, session: Session, env: Env, ctx: GameContext) -> None:
        """/board in a lobby: the lobby again at the bottom; the old message loses its keys."""
        lobby_message.forget_lobby(session, env, ctx)
        self.show_lobby(session, env, ctx)

    def close_lobby(
        self, session: Session, env: Env, ctx: GameContext, text: str, priority: Priority = Priority.TURN
    ) -> None:
        """The lobby's last words (started, cancelled, expired), without keys."""
        lobby_message.close_lobby(session, env, ctx, text, priority)

    # --- what `record` leaves to the kind (`record.Table`) ------------------------------------

    def retire_standings(self, session: Session, env: Env, game: Game) -> None:
        """A newer game started at the table of `game`, which was played out: its standings, on
        its last board surface, lose 🔁 Rematch (`old_standings`)."""
        shown = outbox.shown_message(session, game.chat_id, surfaces.board(game))
        if shown is not None:
            outbox.drop_keys(session, game.chat_id, shown.message_id, env.now, game_id=game.id)

    def board_view(
        self,
        session: Session,
        ctx: GameContext,
        env: Env,
        header: list[str],
        draft: board_render.Draft | None = None,
    ) -> tuple[str, Keyboard | None]:
        """The board as its chat sees it: the public view, under its report (with 🃏 My cards
        where the bot is in the chat: an ephemeral view needs the chat's messages)."""
        return record.group_board(ctx, env, header, own_views=not self.carried_by_posts)

    def show_board(self, session: Session, env: Env, ctx: GameContext, lines: list[str]) -> None:
        """A turn's board, and its one notification: privately when the player can be reached,
        else the board's mention."""
        record.group_board_and_panel(session, env, ctx, self, lines)

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
        """The record's next message: `body` under the report `lines`."""
        record.put(session, env, ctx, self, lines, body=body, keys=keys)

    def score_chart(self, session: Session, env: Env, ctx: GameContext, event: GameEnded) -> None:
        """The final standings' picture."""
        game_end.score_chart(session, env, ctx, event)

    def ping(
        self,
        session: Session,
        env: Env,
        ctx: GameContext,
        seat: SeatInfo,
        text: str | None = None,
        fallback: Message | None = None,
    ) -> None:
        """The player to move is told in their chat with the bot (`text`, else that it is their
        move in this chat); if that chat refuses the bot, the group mention (`fallback`, else the
        board's) notifies them instead."""
        lang = seat.language
        text = text or turn_notice.your_move_in(lang, self.chat_name(ctx, lang))
        panels.ping(session, env, ctx, seat, text, self.call(ctx, seat, fallback))

    def call(self, ctx: GameContext, seat: SeatInfo, fallback: Message | None = None) -> Message | None:
        """The group mention a private notification falls back on."""
        return fallback or panels.group_call(ctx, seat)
