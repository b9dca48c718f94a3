"""A chat the bot is not in, reached through inline mode (`services.inline_table`): the game is
carried by the posts people make via the bot, which it edits; people are told of their turn
privately, where the bot may write to them, or not at all."""

from __future__ import annotations

from typing import ClassVar

from sqlmodel import Session

from engine.events import GameEnded

from ...errors import Refusal
from ...render import inline_table as render
from ...render import private_turns as private_turns_render
from ...render import table_notices
from ...render.keys import Keyboard
from ...store import outbox
from ...store.models import Game
from ...store.outbox import Message, Priority
from ...tables import TableKind
from .. import inline_table, panels, record, reminders
from ..context import GameContext, SeatInfo
from ..env import Env
from ..moves import PlayResult
from .group import GROUP_CHATS, GroupTable


class InlineTable(GroupTable):
    kind: ClassVar[TableKind] = TableKind.INLINE
    # any chat but a person's own with the bot
    picked_in: ClassVar[tuple[str, ...]] = ("private", *GROUP_CHATS)
    carried_by_posts: ClassVar[bool] = True
    # nobody can be asked about there: the lobby's keys are its poster's alone
    not_manager: ClassVar[Refusal] = Refusal.NOT_POSTER

    def chat_name(self, ctx: GameContext, lang: str) -> str:
        # the bot may not know its title: the game's players name it, as the inline list does
        return ctx.chat_title or render.table_name(lang, [s.name for s in ctx.seats if s.is_human])

    def pick_keys(self, lang: str, game_id: int) -> Keyboard | None:
        # with a key, Telegram gives the bot the posted pick's inline id: it becomes the next board
        return render.pick_keys(lang, game_id)

    # what the bot says goes into the live board (an edit, which notifies nobody)

    def show_board(self, session: Session, env: Env, ctx: GameContext, lines: list[str]) -> None:
        # an edit notifies nobody: the player is told privately, or not at all
        inline_table.show(session, env, ctx, lines)
        mover = ctx.current
        if mover is not None and record.new_turn(ctx) and panels.reached_privately(mover):
            self.ping(session, env, ctx, mover)

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
        inline_table.show(session, env, ctx, lines, body=body, final=keys is not None)

    def say(self, session: Session, env: Env, ctx: GameContext, text: str, *, notify: bool = False) -> None:
        inline_table.note(session, env, ctx, text)

    def board_on_its_way(self, session: Session, ctx: GameContext) -> bool:
        # the live board is the newest post: only the bot's moves can be on their way
        return record.bot_to_move(ctx)

    def call(self, ctx: GameContext, seat: SeatInfo, fallback: Message | None = None) -> Message | None:
        return None  # nobody can be mentioned there

    def score_chart(self, session: Session, env: Env, ctx: GameContext, event: GameEnded) -> None:
        return  # a chat the bot cannot post in gets no picture

    def post_lobby(self, session: Session, env: Env, ctx: GameContext, text: str, keys: Keyboard) -> None:
        if ctx.game.chat_instance is not None:  # (until its first tap, the post shows it as drawn)
            outbox.put(session, inline_table.lobby_message(ctx, text, keys), env.now)

    def close_lobby(
        self, session: Session, env: Env, ctx: GameContext, text: str, priority: Priority = Priority.TURN
    ) -> None:
        outbox.put(session, inline_table.lobby_message(ctx, text, None), env.now)

    def remind(self, session: Session, env: Env, ctx: GameContext, seat: SeatInfo, last_call: bool) -> bool:
        if not panels.reached_privately(seat):
            return False  # a chat the bot cannot post in: the idle default keeps the game going
        reminders.in_private(session, env, ctx, seat, last_call, self.chat_name(ctx, seat.language), None)
        return True

    def say_away(self, session: Session, env: Env, ctx: GameContext, seat: SeatInfo) -> None:
        # the bot cannot read that chat: /back goes to it in private
        text = table_notices.now_away_inline(ctx.language, seat.name, env.bot_username)
        self.say(session, env, ctx, text)

    def report_pick(self, session: Session, env: Env, result: PlayResult) -> None:
        self.report(session, env, result)
        if not result.turn_over:
            # a [T!] card alone: the post is the live board now, and shows the table it left
            self.post_board(session, env, result.ctx, result.outcomes)

    def retire_standings(self, session: Session, env: Env, game: Game) -> None:
        # the standings are the old game's last post
        if game.inline_id is not None:
            inline_table.keys_off(session, env, game, game.inline_id)

    def say_started(self, session: Session, env: Env, ctx: GameContext, started: str) -> None:
        # no message can be posted there: the lobby's is the first board
        inline_table.started(session, ctx, started)

    def join_link(self, ctx: GameContext, env: Env, can_dm: bool) -> str | None:
        # An edit notifies nobody: told in private or not at all. Their app opens the bot's chat
        # at the lobby's link, which turns that on (`private_turns.confirm`); a text would show
        # instead of it.
        return None if can_dm else private_turns_render.turns_link(ctx.game_id, env.bot_username)
