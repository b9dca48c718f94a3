"""What a tap costs, the path every game takes many times a minute (DESIGN §5, §6).

* A tap is **one transaction** (run by the handler in a worker thread): the checks, the draft or
  the move, and what the chats should show (the outbox) all commit together.
* The tap is **answered before any chat message** is sent: the popup comes from the database's
  answer alone, and the outbox's senders write to the chats afterwards.
* A compose tap on the group board costs the group **nothing**: the popup shows the running draft,
  and the board is not redrawn. The move costs one message: the next board, under its report.
* The senders spend at most **two transactions per write** to Telegram.

Speed itself is measured by benchmarks/ (never asserted here).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from typing import Any

import engine
from engine import public_view, seat_view
from engine.actions import encode
from engine.ai import choose_action
from engine.game import t_actions
from tests.bot.conftest import BotRig
from tests.bot.helpers import (
    board_id,
    board_of,
    current_game,
    drain,
    group_writes,
    start_game,
    state_of,
    waiting_rows,
)
from tests.bot.players import Player, play_turn, to_move
from tests.fakes.telegram import MESSAGE_METHODS, CallbackAnswer, FakeUser, StoredMessage
from tgbot.delivery import telegram_io as io
from tgbot.game_settings import GameSettings
from tgbot.render import board as board_render
from tgbot.render.cards import card as card_label

MAX_TURNS = 3000
HANDLERS = "tgbot.deps"  # where the handlers' transactions are started (Deps.run)
SENDERS = "tgbot.delivery.sender"
#: Compose keys: they change the draft, never the game (a [T!] key too: it only chooses).
COMPOSE_OPS = ("h", "t", "x")


class TapWatch:
    """Checks every tap: one handler transaction, answered before any message, compose taps no
    group write."""

    def __init__(self, rig: BotRig, group_id: int) -> None:
        self.rig = rig
        self.group_id = group_id
        self.transactions: list[str] = []  # the module of each transaction's work, in order
        self.taps: Counter[str] = Counter()
        self.compose_writes: Counter[int] = Counter()
        db = rig.deps.db
        run = db.run

        async def counted(work: Callable[..., Any], **kw: Any) -> Any:
            self.transactions.append(getattr(work, "__module__", "?"))
            return await run(work, **kw)

        db.run = counted  # type: ignore[method-assign]
        original = rig.tg.tap_data

        async def watched(
            user: FakeUser, message: StoredMessage, data: str | None, *, expect_answer: bool = True
        ) -> CallbackAnswer:
            first_call, first_tx = len(rig.fake.calls), len(self.transactions)
            answer = await original(user, message, data, expect_answer=expect_answer)
            self.check(data, answer, first_call, first_tx)
            return answer

        rig.tg.tap_data = watched  # type: ignore[method-assign]

    def check(self, data: str | None, answer: CallbackAnswer, first_call: int, first_tx: int) -> None:
        calls = self.rig.fake.calls[first_call:]
        mine = [t for t in self.transactions[first_tx:] if t == HANDLERS]
        assert len(mine) == 1, (data, self.transactions[first_tx:])
        answers = [
            i
            for i, c in enumerate(calls)
            if c.method == "answerCallbackQuery" and str(c.params.get("callback_query_id")) == answer.query_id
        ]
        assert len(answers) == 1, (data, [c.method for c in calls])
        sent = [i for i, c in enumerate(calls) if c.method in MESSAGE_METHODS]
        assert all(i > answers[0] for i in sent), (data, [c.method for c in calls])
        kind = (data or "?").split(":")
        name = kind[0] if kind[0] != "k" or len(kind) < 4 else f"k:{kind[3]}"
        self.taps[name] += 1
        if kind[0] == "t" or (kind[0] == "k" and len(kind) > 3 and kind[3] in COMPOSE_OPS):
            writes = sum(1 for c in calls if c.method in MESSAGE_METHODS and c.chat_id == self.group_id)
            assert writes == 0, (data, [(c.method, c.chat_id) for c in calls])
            self.compose_writes[writes] += 1


async def test_every_tap_of_a_game_is_one_transaction_answered_before_any_message(rig: BotRig) -> None:
    fake, tg = rig.fake, rig.tg
    ana, ben, cai = fake.user(1, "Ana"), fake.user(2, "Ben"), fake.user(3, "Cai")
    group = fake.group("Friends")
    watch = TapWatch(rig, group.id)
    # the lobby's keys are taps too
    game, board = await start_game(rig, group, ana, [ben, cai])
    players = [Player(u, random.Random(40 + i)) for i, u in enumerate((ana, ben, cai))]
    for turn in range(MAX_TURNS):
        game = current_game(rig, group.id)
        if game.status != "playing":
            break
        board = board_of(rig, game)
        player = to_move(board.text, players)
        assert player is not None, board.text
        if turn % 7 == 0:  # refused taps are one transaction too: another player's, a stale key
            other = players[(players.index(player) + 1) % 3]
            assert (await tg.tap_data(other.user, board, f"k:{game.id}:{game.version}:t:0")).text
            assert (await tg.tap_data(player.user, board, f"k:{game.id}:{game.version - 1}:t:0")).text
            assert (await tg.tap_data(player.user, board, "zz:forged")).text
        await play_turn(tg, fake, board, player, private=False)
    assert current_game(rig, group.id).status == "finished"
    # every kind of key was tapped: lobby, hand popup, compose, [T!], claim and discard, refusals
    for kind in ("lj", "ls", "h", "k:h", "k:t", "k:c", "k:d", "t", "zz"):
        assert watch.taps[kind] > 0, watch.taps
    assert watch.compose_writes[0] > 100 and set(watch.compose_writes) == {0}
    assert not tg.errors
    # the senders: at most two transactions per write (one takes the chat with its first row,
    # one per write records it and reads the next row, or lets the chat go)
    writes = sum(1 for c in fake.calls if c.method in MESSAGE_METHODS)
    senders = watch.transactions.count(SENDERS)
    assert senders <= 2 * writes, (senders, writes)


def senders_in_background(rig: BotRig) -> None:
    """Taps return without waiting for the chats' senders: they arrive at a person's pace."""
    rig.tg.ignore_tasks = lambda task: task.get_name().startswith("send:")


def board_edits(rig: BotRig, chat_id: int, message_id: int, since: int) -> list[str]:
    """The texts of the edits of one message since call number `since`."""
    return [
        str(c.params.get("text"))
        for c in rig.fake.calls[since:]
        if c.method == "editMessageText"
        and c.chat_id == chat_id
        and c.params.get("message_id") == message_id
        and c.ok
    ]


async def test_a_burst_of_compose_taps_costs_the_group_nothing_and_the_move_one_message(rig: BotRig) -> None:
    """Thirty taps in three seconds are each answered at once with the draft as it is now, and
    the group gets no write for them; the move then costs the group one message, the next board
    under its report, and the old board keeps its text and loses its keys, last of all."""
    fake, tg = rig.fake, rig.tg
    ana, ben = fake.user(1, "Ana"), fake.user(2, "Ben")
    group = fake.group("Busy")
    game, board = await start_game(rig, group, ana, [ben])
    gid, version = game.id, game.version
    state = state_of(game)
    mover = (ana, ben)[state.current]
    senders_in_background(rig)
    await tg.advance(61)  # the set-up's writes are out of the window
    watch_from = len(fake.calls)
    old_text = board.text

    answers = []
    for _ in range(30):
        answers.append(await tg.tap_data(mover, board, f"k:{gid}:{version}:t:0"))
        await tg.advance(0.1)
    answers.append(await tg.tap_data(mover, board, f"k:{gid}:{version}:h:0"))
    assert all(a.answered and a.answered_at == a.created_at for a in answers)
    assert answers[0].text != answers[1].text  # selected, then unselected
    assert answers[-1].text and answers[-1].text.startswith(card_label(state.hands[state.current][0]))
    await drain(rig)
    assert group_writes(fake, group.id, watch_from) == [] and len(waiting_rows(rig)) == 0

    done = await tg.tap_data(mover, board, f"k:{gid}:{version}:d")
    assert done.text == "Done!" and done.answered_at == done.created_at
    await drain(rig)
    after = current_game(rig, group.id)
    assert after.version == version + 1 and board_id(rig, after) != board.message_id
    writes = group_writes(fake, group.id, watch_from)
    assert writes == ["sendMessage", "editMessageReplyMarkup"], writes
    assert board_of(rig, after).text.startswith(f"{mover.first_name} discards")
    assert board.text == old_text and board.buttons == []


def test_rendered_keys_reach_telegram_unchanged() -> None:
    """Keys are plain JSON in the outbox; the sender turns them into PTB's markup for the call:
    nothing may be lost or changed on the way."""
    checked = 0
    for seed in range(12):
        settings = GameSettings(face_down=seed % 3 == 0)
        state = engine.new_game(settings.engine_config(2 + seed % 4), seed)
        players = tuple(board_render.Player(f"P{i}", 100 + i, None) for i in range(state.players))
        for step in range(40):
            if state.is_over:
                break
            for viewer in (None, state.current):
                view = public_view(state) if viewer is None else seat_view(state, viewer)
                visible = viewer is not None or not settings.face_down
                table = board_render.Table(
                    game_id=4242,
                    version=17 + step,
                    players=players,
                    face_down=settings.face_down,
                    bot_username="tweak_test_bot",
                    inline=seed % 2 == 0,
                    t_choices=tuple(encode(a) for a in t_actions(state, state.current)) if visible else (),
                )
                drafts = (
                    board_render.Draft(),
                    board_render.Draft(0, 1),
                    board_render.Draft(None, 3),
                    board_render.Draft(0, 1, t_code="J+"),
                    board_render.Draft(t_code="T1"),
                )
                for draft in drafts:
                    keys = board_render.keyboard("en", view, table, draft)
                    markup = io.keyboard(keys, None)  # type: ignore[arg-type]
                    assert markup is not None
                    assert markup.to_dict()["inline_keyboard"] == keys
                    checked += 1
            action = choose_action(state, state.current, "normal", seed=step)
            state, _events = engine.apply(state, state.current, action)
    assert checked > 1000
