"""Shared helpers for the end-to-end bot tests: reading the store, finding surfaces, checking privacy."""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from datetime import timedelta
from typing import Any, TypeVar

from sqlmodel import Session, col, select

from engine import GameState
from tests.bot.conftest import BotRig
from tests.bot.players import Player, board_part, card_labels, to_move
from tests.fakes.flood import FloodLimits
from tests.fakes.telegram import (
    MESSAGE_METHODS,
    ApiCall,
    CallbackAnswer,
    FakeChat,
    FakeTelegram,
    FakeUser,
    StoredMessage,
)
from tests.fakes.timer import VirtualTimer
from tgbot.render.cards import card as card_label
from tgbot.services.env import Env
from tgbot.services.output import REPEAT_WINDOW
from tgbot.store.models import Game, GamePlayer, Move, OutboxRow, ShownMessage
from tgbot.store.surfaces import Board, Lobby, Panel, Surface
from tgbot.time_source import ManualClock

BOT = "@tweak_test_bot"

T = TypeVar("T")


def current_game(rig: BotRig, chat_id: int | None = None) -> Game:
    """The newest game (of a chat, when given), freshly read from the database."""
    with Session(rig.deps.db.engine) as session:
        query = select(Game)
        if chat_id is not None:
            query = query.where(Game.chat_id == chat_id)
        game = session.exec(query.order_by(col(Game.id).desc())).first()
        assert game is not None, "no game in the database"
        return game


def game_row(rig: BotRig, game_id: int) -> Game:
    with Session(rig.deps.db.engine) as session:
        game = session.get(Game, game_id)
        assert game is not None
        return game


def shown_id(rig: BotRig | Any, chat_id: int, surface: Surface) -> int | None:
    """The message that shows a surface now (the outbox's record), or None."""
    engine = rig.deps.db.engine if isinstance(rig, BotRig) else rig
    with Session(engine) as session:
        shown = session.get(ShownMessage, (chat_id, surface))
        return shown.message_id if shown is not None else None


def board_id(rig: BotRig | Any, game: Game) -> int | None:
    """The live board's message id (None before the first board is shown)."""
    assert game.id is not None
    return shown_id(rig, game.chat_id, Board(game.id, game.board_no)) if game.board_no else None


def lobby_id(rig: BotRig | Any, game: Game) -> int | None:
    assert game.id is not None
    return shown_id(rig, game.chat_id, Lobby(game.id))


def panel_id(rig: BotRig | Any, game_id: int, seat: int, user_id: int) -> int | None:
    return shown_id(rig, user_id, Panel(game_id, seat))


def board_of(rig: BotRig, game: Game) -> StoredMessage:
    found = board_id(rig, game)
    assert found is not None, "the game has no board on screen"
    return rig.fake.message(game.chat_id, found)


def state_of(game: Game) -> GameState:
    assert game.state is not None
    return GameState.from_json(json.loads(game.state))


def stored_state(rig: BotRig, game_id: int) -> GameState:
    return state_of(game_row(rig, game_id))


def players_of(rig: BotRig, game_id: int) -> list[GamePlayer]:
    with Session(rig.deps.db.engine) as session:
        query = select(GamePlayer).where(GamePlayer.game_id == game_id).order_by(col(GamePlayer.seat))
        return list(session.exec(query).all())


def moves_of(rig: BotRig, game_id: int) -> list[Move]:
    with Session(rig.deps.db.engine) as session:
        return list(session.exec(select(Move).where(Move.game_id == game_id).order_by(col(Move.seq))).all())


def texts(calls: Sequence[ApiCall], chat_id: int | None = None) -> list[str]:
    """The texts the bot sent or wrote by edit in these calls (optionally only in one chat)."""
    return [
        str(call.params.get("text"))
        for call in calls
        if call.method in ("sendMessage", "editMessageText")
        and (chat_id is None or call.chat_id == chat_id)
        and call.params.get("text") is not None
    ]


def group_writes(fake: FakeTelegram, chat_id: int, since: int) -> list[str]:
    """The methods of the writes into a chat (messages, edits) since call number `since`."""
    return [c.method for c in fake.calls[since:] if c.chat_id == chat_id and c.method in MESSAGE_METHODS]


def snapshot(rig: BotRig, game_id: int) -> tuple[str, int, str | None, int]:
    """Everything a tap could change about a game: status, version, state JSON and the move count."""
    with Session(rig.deps.db.engine) as session:
        game = session.get(Game, game_id)
        assert game is not None
        count = len(session.exec(select(Move).where(Move.game_id == game_id)).all())
        return game.status, game.version, game.state, count


async def open_private_chats(rig: BotRig, users: Iterable[FakeUser]) -> None:
    for user in users:
        await rig.tg.send(rig.fake.private(user), user, "/start")


async def new_lobby(
    rig: BotRig, group: FakeChat, creator: FakeUser, joiners: Iterable[FakeUser]
) -> StoredMessage:
    await rig.tg.send(group, creator, f"/newgame{BOT}")
    lobby = rig.fake.last_message(group.id)
    for user in joiners:
        answer = await rig.tg.tap(user, lobby, "✋ Join")
        assert answer.text.startswith("You're in!")
    return lobby


async def start_game(
    rig: BotRig, group: FakeChat, creator: FakeUser, joiners: Iterable[FakeUser]
) -> tuple[Game, StoredMessage]:
    """/newgame, everybody joins, the creator starts; returns the game row and the first board."""
    lobby = await new_lobby(rig, group, creator, joiners)
    await rig.tg.tap(creator, lobby, "▶️ Start")
    game = current_game(rig, group.id)
    assert game.status == "playing"
    return game, board_of(rig, game)


def next_turn(rig: BotRig, chat_id: int, players: list[Player]) -> tuple[Game, StoredMessage, Player] | None:
    """The game, its live board and whose turn the board says it is; None once the game is over."""
    game = current_game(rig, chat_id)
    if game.status != "playing":
        return None
    board = board_of(rig, game)
    player = to_move(board.text or "", players)
    assert player is not None, board.text
    return game, board, player


def set_state(rig: BotRig, game_id: int, state: GameState) -> None:
    """Test set-up only: replace a game's state without touching its version."""
    with Session(rig.deps.db.engine) as session:
        game = session.get(Game, game_id)
        assert game is not None
        game.state = json.dumps(state.to_json(), separators=(",", ":"))
        session.add(game)
        session.commit()


# --- privacy ----------------------------------------------------------------------------------------


def public_labels(before: GameState, after: GameState) -> set[str]:
    """Labels of every card that was public at some moment between two states.

    Table cards before and after, and every card that reached a score pile in between (a played
    hand card, table cards won, a stolen card that was then summed).
    """
    public = [*before.table, *after.table]
    for seat in range(after.players):
        public.extend((Counter(after.piles[seat]) - Counter(before.piles[seat])).elements())
    if after.round != before.round or after.is_over:
        # the round ended in this turn: every hand was played out, piles may have been reset
        for seat in range(before.players):
            public.extend(before.piles[seat])
            public.extend(before.hands[seat])  # hands were played out by the end of the round
    return {card_label(c) for c in public}


def markup_texts(call: ApiCall) -> list[str]:
    markup: Any = call.params.get("reply_markup")
    if isinstance(markup, str):
        markup = json.loads(markup)
    if not markup:
        return []
    return [b["text"] for row in markup.get("inline_keyboard", []) for b in row]


def assert_group_calls_show_only_public_cards(
    calls: list[ApiCall], group_id: int, before: GameState, after: GameState
) -> int:
    """No group message or keyboard in ``calls`` shows a card that was never public; returns the count."""
    allowed = public_labels(before, after)
    checked = 0
    for call in calls:
        if call.chat_id != group_id or call.method not in (
            "sendMessage",
            "editMessageText",
            "editMessageReplyMarkup",
        ):
            continue
        shown = set(card_labels(str(call.params.get("text", ""))))
        for text in markup_texts(call):
            shown.update(card_labels(text))
        leaked = shown - allowed
        assert not leaked, (call.method, call.params.get("text"), sorted(leaked), sorted(allowed))
        checked += 1
    return checked


class GroupPrivacyWatch:
    """Checks every tap: the group calls it caused show only cards public by then.

    Installed on a ``TelegramTestClient`` (it wraps ``tap_data``, which ``tap`` uses), so a card a
    player selects while composing is caught even if it becomes public a moment later.
    """

    def __init__(self, rig: BotRig, group: FakeChat) -> None:
        self.rig = rig
        self.group = group
        self.checked_taps = 0
        self.checked_calls = 0
        original = rig.tg.tap_data

        async def watched(
            user: FakeUser, message: StoredMessage, data: str | None, *, expect_answer: bool = True
        ) -> CallbackAnswer:
            before = self._state()
            first = len(rig.fake.calls)
            answer = await original(user, message, data, expect_answer=expect_answer)
            after = self._state()
            if before is not None and after is not None:
                calls = rig.fake.calls[first:]
                self.checked_calls += assert_group_calls_show_only_public_cards(
                    calls, group.id, before, after
                )
                self.checked_taps += 1
            return answer

        rig.tg.tap_data = watched  # type: ignore[method-assign]

    def _state(self) -> GameState | None:
        with Session(self.rig.deps.db.engine) as session:
            game = session.exec(
                select(Game).where(Game.chat_id == self.group.id).order_by(col(Game.id).desc())
            ).first()
            return state_of(game) if game is not None and game.state is not None else None


def assert_board_shows_only_public_cards(fake: FakeTelegram, board: StoredMessage, state: GameState) -> None:
    """A group board shows the table and nothing else: no hand card anywhere, keys included. (The
    report it opens with names cards that were played: `GroupPrivacyWatch` checks those.)"""
    shown = Counter(card_labels(board_part(board.text or "")))
    for text, _data in fake.buttons(board):
        shown.update(card_labels(text))
    table = Counter(card_label(c) for c in state.table)
    # each table card appears once in the text and once on its key
    assert shown == table + table, (board.text, state.table)


# --- the new shell: services run by hand, panels by their surface -------------------------------------


async def run_service(rig: BotRig, work: Callable[[Any, Env], T]) -> T:
    """Run ``work(session, env)`` in one transaction as a handler would (off the event loop), and
    wait, like ``tg.process`` does, until every sender it woke is done."""
    baseline = asyncio.all_tasks()
    task = asyncio.ensure_future(rig.deps.db.run(lambda session: work(session, rig.deps.env())))
    await rig.tg.settle(baseline)
    return task.result()


def live_panel(rig: BotRig, game_id: int, user: FakeUser) -> StoredMessage:
    """The message that shows ``user``'s private panel of a game now (its outbox surface)."""
    seat = next((p.seat for p in players_of(rig, game_id) if p.user_id == user.id), None)
    assert seat is not None, f"{user.first_name} has no seat in game {game_id}"
    return seat_panel(rig, game_id, seat, user)


# --- private panels ---------------------------------------------------------------------------------


def panel_link(rig: BotRig, board: StoredMessage) -> str:
    """The board's "📱 Panel" key (in any language): a deep link into the private chat with the
    bot, ``https://t.me/<bot>?start=g<game>``."""
    links = [b["url"] for row in board.keyboard for b in row if "?start=g" in b.get("url", "")]
    assert len(links) == 1, board.keyboard
    assert links[0].startswith(f"https://t.me/{BOT[1:]}?start=g"), links[0]
    return str(links[0])


async def open_panel(rig: BotRig, user: FakeUser, board: StoredMessage) -> list[ApiCall]:
    """``user`` taps the board's "📱 Panel" key: Telegram opens the private chat and sends the
    deep link's ``/start <payload>``."""
    payload = panel_link(rig, board).split("?start=", 1)[1]
    return await rig.tg.send(rig.fake.private(user), user, f"/start {payload}")


def panel_of(rig: BotRig, game: Game, seat: int, user: FakeUser) -> StoredMessage:
    """The message in ``user``'s private chat that shows their panel of ``game`` now."""
    assert game.id is not None
    return seat_panel(rig, game.id, seat, user)


def seat_panel(rig: BotRig | Any, game_id: int, seat: int, user: FakeUser) -> StoredMessage:
    """The message in ``user``'s private chat that shows the panel of ``seat`` in a game now."""
    found = panel_id(rig, game_id, seat, user.id)
    assert found is not None, f"{user.first_name} has no private panel of game {game_id}"
    return rig.fake.message(user.id, found)


async def board_again(rig: BotRig, chat: FakeChat, user: FakeUser) -> None:
    """/board sent a minute after the one before: the board (or lobby) is posted again at most
    once a minute (`table_control.board`), and a test that wants a board each time lets the game
    clock move on first."""
    rig.clock.advance(REPEAT_WINDOW + timedelta(seconds=1))
    await rig.tg.send(chat, user, "/board@tweak_test_bot")


def inline_fake(feedback: bool = True) -> FakeTelegram:
    """A fake Telegram with inline mode on (and inline feedback unless `feedback` is False), as
    BotFather's /setinline and /setinlinefeedback leave a bot that plays in any chat."""
    clock = ManualClock()
    return FakeTelegram(
        clock=clock.now, timer=VirtualTimer(), flood=FloodLimits(), inline_mode=True, inline_feedback=feedback
    )


def waiting_rows(rig: BotRig) -> list[OutboxRow]:
    """What the outbox still holds, oldest first."""
    with Session(rig.deps.db.engine) as session:
        return list(session.exec(select(OutboxRow).order_by(col(OutboxRow.id))).all())


async def drain(rig: BotRig, seconds: int = 240) -> None:
    """Let virtual time run until every outbox row is delivered."""
    for _ in range(seconds):
        await rig.tg.advance(1.0)
        if not waiting_rows(rig):
            return
    raise AssertionError(
        f"{len(waiting_rows(rig))} outbox rows still waiting after {seconds} virtual seconds"
    )
