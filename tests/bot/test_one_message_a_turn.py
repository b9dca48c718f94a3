"""One bot message a turn (DESIGN §6): what a turn costs the group, and that the group chat stays
the game's record under Telegram's budget.

* The next board goes ahead of everything; cosmetic writes (lobby edits, keys taken off old
  boards) only use spare budget, so the first board comes within seconds of *Start*.
* No clock runs on a turn its player cannot see: it starts when its board reaches the group.
* A tap on the last board shown while the next one waits says the board is on its way.
* An old board's keys are taken off once, however many stale taps it gets, and every board of a
  game loses its keys when the game ends.
* [T!] choices are answered by popups, at once: nothing a player waits for queues behind the budget.
"""

from __future__ import annotations

import random

from sqlalchemy import text as sql
from sqlmodel import Session, select

from engine.cards import TKind
from engine.events import Skipped, Summed
from tests.bot.conftest import BotRig
from tests.bot.helpers import (
    BOT,
    board_again,
    board_id,
    board_of,
    current_game,
    drain,
    game_row,
    group_writes,
    live_panel,
    moves_of,
    set_state,
    start_game,
    state_of,
)
from tests.bot.players import Player, play_turn, to_move
from tests.bot.test_computers import solo_lobby, tap_settings
from tests.fakes.telegram import FakeChat, FakeUser, StoredMessage
from tgbot.pacing import PACES
from tgbot.render.results import move_lines
from tgbot.store import outbox
from tgbot.store.models import DeliveryChat

ON_ITS_WAY = "⏳ The next board is on its way: it shows up at the bottom in a moment."


def senders_in_background(rig: BotRig) -> None:
    """Taps come at a person's pace, whatever the senders are doing."""
    rig.tg.ignore_tasks = lambda task: task.get_name().startswith("send:")


async def spend_the_budget(rig: BotRig, group: FakeChat, user: FakeUser) -> StoredMessage:
    """/board until the group has spent the 18 writes a minute the bot allows itself, the last
    board shown; the next board will have to wait. Returns that board."""
    for _ in range(30):
        await board_again(rig, group, user)
        await rig.tg.advance(0.1)
        now = rig.timer.monotonic()
        recent = [t for t in rig.fake.write_times(group.id) if t > now - 60]
        live = board_id(rig, current_game(rig, group.id))
        if len(recent) >= 18 and live is not None:
            return rig.fake.message(group.id, live)
    raise AssertionError("the budget was never spent")


def keyed(rig: BotRig, group: FakeChat) -> list[StoredMessage]:
    """The group's messages that still show keys of a game."""
    return [
        m
        for m in rig.fake.messages(group.id)
        if any(d and d.split(":")[0] in ("k", "t", "h") for _t, d in rig.fake.buttons(m))
    ]


# --- the clock of a turn starts when its board is seen -----------------------------------------------


async def test_no_clock_runs_on_a_turn_whose_board_waits_for_the_budget(rig: BotRig) -> None:
    fake, tg = rig.fake, rig.tg
    ana, ben = fake.user(1, "Ana"), fake.user(2, "Ben")
    group = fake.group("Busy")
    await tg.send(group, ana, f"/newgame{BOT}")
    lobby = fake.last_message(group.id)
    await tg.tap(ben, lobby, "✋ Join")
    await tap_settings(rig, ana, lobby, "live")  # reminder after 1 min, auto-play after 3 min
    await tg.tap(ana, lobby, "↩️ Back")
    await tg.tap(ana, lobby, "▶️ Start")
    senders_in_background(rig)
    await tg.advance(61)
    game = current_game(rig, group.id)
    board = board_of(rig, game)
    shown = rig.clock.now()
    assert game.turn_started_at is not None, "the first board was seen: its turn's clock runs"
    mover = (ana, ben)[state_of(game).current]
    waiter = ben if mover is ana else ana
    board = await spend_the_budget(rig, group, waiter)
    # The move: the next board has to wait for the group's budget.
    await tg.tap(mover, board, "🂠1")
    assert (await tg.tap(mover, board, "🗑 Discard")).text == "Done!"
    game = current_game(rig, group.id)
    assert board_id(rig, game) is None, "the next board waits"
    assert (game.turn_started_at, game.next_nudge_at, game.deadline_at, game.wake_at) == (None,) * 4
    # A tap on the last board shown says the next one is coming (and takes no keys off).
    answer = await tg.tap(waiter, board, "👀 My hand")
    assert answer.show_alert  # a hand popup still works there
    early = await tg.tap_data(waiter, board, f"k:{game.id}:{game.version - 1}:h:0")
    assert early.text == ON_ITS_WAY
    # Far past the live pace's deadline, the sweep plays nothing for a turn nobody could see.
    rig.clock.advance(PACES["live"].deadline * 3)  # type: ignore[operator]
    await tg.run_job("sweep")
    assert current_game(rig, group.id).version == game.version
    assert not [m for m in moves_of(rig, game.id or 0) if m.source == "idle"]
    # The board reaches the group: the turn's clock starts then.
    seen = rig.clock.now()
    await drain(rig)
    game = current_game(rig, group.id)
    live = PACES["live"]
    assert board_id(rig, game) is not None and game.turn_started_at == seen
    assert game.next_nudge_at == seen + live.nudge and game.deadline_at == seen + live.deadline  # type: ignore[operator]
    assert seen > shown


async def test_the_clock_starts_with_the_movers_panel_when_it_comes_first(rig: BotRig) -> None:
    """A player who uses the private panel sees the turn there before the group's board arrives."""
    fake, tg = rig.fake, rig.tg
    ana, ben = fake.user(1, "Ana"), fake.user(2, "Ben")
    group = fake.group("Busy")
    game, board = await start_game(rig, group, ana, [ben])
    senders_in_background(rig)
    await tg.advance(61)
    mover = (ana, ben)[state_of(game).current]
    waiter = ben if mover is ana else ana
    await tg.send(fake.private(waiter), waiter, f"/start g{game.id}")  # the next player's panel
    board = await spend_the_budget(rig, group, mover)
    await tg.tap(mover, board, "🂠1")
    await tg.tap(mover, board, "🗑 Discard")
    await tg.advance(2.0)  # private chats have their own budget: the panel is there at once
    game = current_game(rig, group.id)
    assert board_id(rig, game) is None, "the group's board still waits"
    assert game.turn_started_at is not None and game.deadline_at is not None


# --- turn-critical first ---------------------------------------------------------------------------


async def test_the_first_board_comes_within_2_s_of_start_after_a_burst_of_lobby_taps(rig: BotRig) -> None:
    fake, tg = rig.fake, rig.tg
    users = [fake.user(i + 1, name) for i, name in enumerate(("Ana", "Ben", "Cai", "Dee"))]
    group = fake.group("Fresh")
    senders_in_background(rig)
    await tg.send(group, users[0], f"/newgame{BOT}")
    lobby = fake.last_message(group.id)
    for user in users[1:]:
        await tg.tap(user, lobby, "✋ Join")
        await tg.advance(0.3)
    for i in range(30):  # an indecisive table: settings back and forth, every tap an edit wanted
        data = f"ln:{current_game(rig, group.id).id}:e:{'cx'[i % 2]}"
        await tg.tap_data(users[0], lobby, data)
        await tg.advance(0.3)
    started = rig.timer.monotonic()
    await tg.tap_data(users[0], lobby, f"ls:{current_game(rig, group.id).id}")
    for _ in range(20):
        await tg.advance(0.1)
        if board_id(rig, current_game(rig, group.id)) is not None:
            break
    game = current_game(rig, group.id)
    assert board_id(rig, game) is not None, "no board within 2 s of Start"
    assert rig.timer.monotonic() - started <= 2.0
    await drain(rig)
    assert "has started" in lobby.content  # the lobby's own last words came after, when budget allowed
    assert fake.max_writes_in_window(group.id, 60) <= 20


async def test_stale_taps_take_an_old_boards_keys_off_once(rig: BotRig) -> None:
    fake, tg = rig.fake, rig.tg
    ana, ben = fake.user(1, "Ana"), fake.user(2, "Ben")
    group = fake.group("Friends")
    game, old = await start_game(rig, group, ana, [ben])
    mover = (ana, ben)[state_of(game).current]
    keys_before = [d for _t, d in fake.buttons(old) if d]
    await tg.tap(mover, old, "🂠1")
    await tg.tap(mover, old, "🗑 Discard")
    # an old client still shows the keys; sixty taps on them
    old.reply_markup = {"inline_keyboard": [[{"text": "🂠1", "callback_data": keys_before[0]}]]}
    first = len(fake.calls)
    for _ in range(60):
        await tg.tap_data(ana, old, keys_before[0])
    edits = [c for c in fake.calls[first:] if c.method == "editMessageReplyMarkup"]
    assert edits == [], "its keys were taken off already, once: nothing to do again"
    with Session(rig.deps.db.engine) as session:
        # (the column's text, as every version wrote it)
        found = session.execute(sql("SELECT count(*) FROM shown_messages WHERE surface LIKE 'keys:%'"))
        count = found.one()[0]
    assert count == 1


async def test_every_board_of_a_game_loses_its_keys_when_it_ends(rig: BotRig) -> None:
    fake, tg = rig.fake, rig.tg
    ana = fake.user(1, "Ana")
    group = fake.group("Practice")
    lobby = await solo_lobby(rig, group, ana, goal_steps=3)
    await tg.tap(ana, lobby, "▶️ Start")
    player = Player(ana, random.Random(5))
    senders_in_background(rig)
    for _turn in range(400):
        game = current_game(rig, group.id)
        if game.status != "playing":
            break
        await drain(rig)
        await play_turn(tg, fake, board_of(rig, game), player, private=False)
        await tg.send(group, ana, f"/board{BOT}")  # more old boards
    assert current_game(rig, group.id).status == "finished"
    await drain(rig)
    assert keyed(rig, group) == []


async def test_t_choices_are_popups_at_once_and_cost_the_group_nothing(rig: BotRig) -> None:
    """Every [T!] key answers at once with the choice it made; the group gets no write until the
    card is played; a Joker is played with its sum by one Claim, in one report line each."""
    fake, tg = rig.fake, rig.tg
    ana, ben, cai = fake.user(1, "Ana"), fake.user(2, "Ben"), fake.user(3, "Cai")
    group = fake.group("Friends")
    game, board = await start_game(rig, group, ana, [ben, cai])
    state = state_of(game)
    # the second seat moves, whoever the deal picked: its victims round the table (the third
    # seat, then the first) are not in seat order
    state.current, state.dealer = 1, (1 - state.turn) % 3
    kinds = [TKind.THIEF.value, TKind.JOKER.value]
    for kind in kinds:  # the player to move holds a Thief and a Joker (test set-up)
        holder = next((h for h in state.holdings if kind in h), None)
        (state.tdeck if holder is None else holder).remove(kind)
        state.holdings[state.current].append(kind)
    set_state(rig, game.id or 0, state)
    await tg.send(group, ana, f"/board{BOT}")
    board = board_of(rig, current_game(rig, group.id))
    users = {0: ana, 1: ben, 2: cai}
    mover = users[state.current]
    senders_in_background(rig)
    await tg.advance(61)
    first = len(fake.calls)
    thief = [await tg.tap(mover, board, "🥷 Thief") for _ in range(3)]
    assert all(a.answered and a.answered_at == a.created_at for a in thief)
    victims = [users[(state.current + k) % 3].first_name for k in (1, 2)]
    assert [a.text.split(" chosen")[0] for a in thief[:2]] == [f"🥷 Thief → {v}" for v in victims]  # type: ignore[union-attr]
    assert thief[2].text == "No [T!] card chosen."
    joker = await tg.tap(mover, board, "🃏 Joker")
    assert joker.text and f"the target becomes {state.target + 1}" in joker.text
    await tg.advance(5)
    assert group_writes(fake, group.id, first) == [], "choosing costs the group nothing"
    assert current_game(rig, group.id).version == game.version + 0


async def test_a_computers_opening_move_stays_on_the_first_board(rig: BotRig) -> None:
    """The first board opens with the computers' moves before the person's turn; composing on it
    never changes its text."""
    fake, tg = rig.fake, rig.tg
    ana = fake.user(1, "Ana")
    for attempt in range(30):
        group = fake.group(f"Practice {attempt}")
        lobby = await solo_lobby(rig, group, ana, goal_steps=0)
        await tg.tap(ana, lobby, "▶️ Start")
        game = current_game(rig, group.id)
        if len(moves_of(rig, game.id or 0)) > 1:  # a computer moved first
            break
        await tg.send(group, ana, f"/cancel{BOT}")
    else:
        raise AssertionError("no deal had a computer first")
    board = board_of(rig, game)
    first_lines = board.text.split("\n\n")[0].splitlines()
    assert first_lines and all(line.startswith("🤖 ") for line in first_lines), board.text
    text = board.text
    state = state_of(game)
    for i in range(len(state.hands[0])):
        await tg.tap(ana, board, f"🂠{i + 1}")
    for i in range(len(state.table)):
        await tg.tap_data(ana, board, f"k:{game.id}:{game.version}:t:{i}")
    assert board.text == text and not board.history


async def test_a_forged_pace_key_on_the_board_leaves_its_keys(rig: BotRig) -> None:
    fake, tg = rig.fake, rig.tg
    ana, ben = fake.user(1, "Ana"), fake.user(2, "Ben")
    group = fake.group("Friends")
    game, board = await start_game(rig, group, ana, [ben])
    keys = list(fake.buttons(board))
    answer = await tg.tap_data(ana, board, f"ln:{game.id}:p:live")  # the creator, any client
    assert answer.text == "Pace: live"
    assert list(fake.buttons(board)) == keys


async def test_cancelling_a_running_game_says_so_once_and_the_board_keeps_its_text(rig: BotRig) -> None:
    fake, tg = rig.fake, rig.tg
    ana, ben = fake.user(1, "Ana"), fake.user(2, "Ben")
    group = fake.group("Friends")
    _game, board = await start_game(rig, group, ana, [ben])
    text = board.text
    await tg.send(group, ana, f"/cancel{BOT}")
    said = [m for m in fake.messages(group.id) if "✖️ The game was cancelled." in m.content]
    assert len(said) == 1 and said[0] is not board
    assert board.text == text and board.buttons == []


# --- texts -------------------------------------------------------------------------------------------


def test_the_computer_tag_marks_only_the_computers_own_lines() -> None:
    """A computer's move may report that the next player, a person, sits out: no 🤖 on that line."""

    class Seat:
        def __init__(self, name: str) -> None:
            self.name = name

    seats = [Seat("Bot Hard"), Seat("Ana")]
    events = [Summed(0, "R5a", ("O3a",), 8, False, None), Skipped(1)]
    lines = move_lines("en", seats, "ai", 0, events, False)
    assert lines == ["🤖 Bot Hard: 🟥5 + 🟧3 = 8 · +6", "Ana has no cards and sits out the round"]


async def test_the_lobby_goal_follows_the_seats_that_play(rig: BotRig) -> None:
    """*Goal −20* tapped by the creator alone moves the goal of the count that starts the game."""
    fake, tg = rig.fake, rig.tg
    users = [fake.user(i + 1, name) for i, name in enumerate(("Ana", "Ben", "Cai", "Dee"))]
    group = fake.group("Friends")
    await tg.send(group, users[0], f"/newgame{BOT}")
    lobby = fake.last_message(group.id)
    await tap_settings(rig, users[0], lobby, "Goal −20")
    assert "goal: 120 (by player count -20)" in lobby.content  # two seats at least: 140 − 20
    await tg.tap(users[0], lobby, "↩️ Back")
    for user in users[1:]:
        await tg.tap(user, lobby, "✋ Join")
    assert "goal: 80 (by player count -20)" in lobby.content  # four seats: 100 − 20
    await tg.tap(users[0], lobby, "▶️ Start")
    game = current_game(rig, group.id)
    assert state_of(game).config.target_score == 80
    assert "Goal: 80 points" in board_of(rig, game).text
    assert game_row(rig, game.id or 0).status == "playing"


async def test_one_turn_is_one_message_for_each_way_of_playing(rig: BotRig) -> None:
    """A board turn (no [T!] card) and a panel turn each cost the group one sendMessage; the old
    board's keys come off after, last of all."""
    fake, tg = rig.fake, rig.tg
    ana, ben = fake.user(1, "Ana"), fake.user(2, "Ben")
    group = fake.group("Friends")
    game, board = await start_game(rig, group, ana, [ben])
    players = [Player(u, random.Random(i), use_t_cards=False) for i, u in enumerate((ana, ben))]
    await tg.send(fake.private(ben), ben, f"/start g{game.id}")  # Ben plays in his panel
    for _turn in range(12):
        game = current_game(rig, group.id)
        board = board_of(rig, game)
        player = to_move(board.text, players)
        assert player is not None
        first = len(fake.calls)
        if player.user is ben:
            await play_turn(tg, fake, live_panel(rig, game.id or 0, ben), player, private=True)
        else:
            await play_turn(tg, fake, board, player, private=False)
        after = current_game(rig, group.id)
        if state_of(after).round != state_of(game).round:
            continue
        writes = group_writes(fake, group.id, first)
        assert writes.count("sendMessage") == 1 and writes.count("editMessageText") == 0, writes
        assert set(writes) <= {"sendMessage", "editMessageReplyMarkup"}


async def test_a_stop_hands_the_chats_leases_back(rig: BotRig) -> None:
    """An instance that stops lets go of the chats it was sending to, so the next start (or
    another instance) sends their waiting messages at once instead of after the lease runs out."""
    delivery = rig.deps.delivery
    with Session(rig.deps.db.engine) as session:
        for chat_id in (-555, -556):
            assert outbox.claim(session, chat_id, delivery.holder, rig.timer.time(), 15.0) is not None
        assert outbox.claim(session, -557, "another instance", rig.timer.time(), 15.0) is not None
        session.commit()
    await delivery.stop()
    with Session(rig.deps.db.engine) as session:
        holders = {c.chat_id: c.holder for c in session.exec(select(DeliveryChat)).all()}
    assert holders[-555] is None and holders[-556] is None
    assert holders[-557] == "another instance"  # not ours to give back
