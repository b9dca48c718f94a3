"""Practice in the bot's private chat: one person against computers (`TableKind.PRACTICE`).

/newgame in that chat opens a lobby there (no Join or Leave; ▶️ Start needs a computer). The board
in that chat shows the person's real cards on its keys and is redrawn as they compose; the rest
is the game as a group plays it, in that chat: the report of each move, round summaries, the
standings and the chart, 🔁 Rematch, 🎯 Play. The chat is the game's record and re-adds like a
group's (`test_record_readds`). Everything runs through the fake Telegram with its flood limits
on (a private chat: one write a second).
"""

from __future__ import annotations

from collections.abc import Callable

from engine.actions import Discard, PlayBomb, PlayJoker, PlayShifter, PlayThief, Sum, decode, encode, t_kind
from engine.game import t_actions
from tests.bot.conftest import BotRig, running_bot
from tests.bot.helpers import current_game, moves_of, panel_id, players_of, state_of
from tests.bot.pacing_support import reminders, sweep_after, sweep_at
from tests.bot.players import data_is
from tests.bot.practice_support import (
    live_board,
    play_main,
    play_out,
    practice_game,
    practice_lobby,
    transcript,
)
from tests.bot.test_inline import inline_fake
from tests.bot.test_outbox import drain, senders_in_background
from tests.bot.test_pacing import DAY, SECOND, idle_default_label
from tests.bot.test_record_readds import best_main, reading, reading_with_picks, reported_events
from tgbot import callbacks as cb
from tgbot.game_settings import GoalStep
from tgbot.pacing import PACES, PaceName, format_duration
from tgbot.render.cards import card as card_label
from tgbot.store.models import ABANDONED, FINISHED
from tgbot.tables import TableKind

MAX_TURNS = 200
T_KIND = {"T": "🥷 Thief", "F": "🔀 Shifter", "B": "💣 Bomb"}


async def test_a_whole_practice_game_is_played_in_the_private_chat_and_re_adds(
    db_url: str, seeds: Callable[[], int]
) -> None:
    """Ana practises against an easy and a hard computer, sum hints on: on the board (a [T!] card
    first when she holds one), and every third turn with 🎯 Play. Each board's keys are her real
    cards; her private chat, read as she reads it, re-adds to every summary and the standings."""
    fake = inline_fake()
    async with running_bot(db_url, seeds, fake=fake) as rig:
        tg = rig.tg
        ana = fake.user(1, "Ana")
        chat = fake.private(ana)
        await tg.send(chat, ana, "/start")  # the bot may write to her: still no panel, no note
        await tg.send(chat, ana, "/newgame")
        lobby = fake.last_message(chat.id)
        assert lobby.text.startswith("🃏 Practice game of TWEAK!")
        labels = [t for t, _d in lobby.buttons]
        assert "✋ Join" not in labels and "🚪 Leave" not in labels
        await tg.tap(ana, lobby, "⚙️ Settings")
        for key in ("🤖 Easy", "🤖 Hard", "💡 Hints on", "Goal −20", "Goal −20"):
            assert not (await tg.tap(ana, lobby, key)).show_alert
        await tg.tap(ana, lobby, "↩️ Back")
        await tg.tap(ana, lobby, "▶️ Start")
        game = current_game(rig, chat.id)
        assert game.id is not None and game.status == "playing"
        gid = game.id
        assert TableKind.of_chat(game.chat_id) is TableKind.PRACTICE and game.chat_id == ana.id
        assert [(p.user_id, p.ai_level) for p in players_of(rig, gid)] == [
            (ana.id, None),
            (None, "easy"),
            (None, "hard"),
        ]

        t_cards = picks = composed = 0
        for turn in range(MAX_TURNS):
            if current_game(rig, chat.id).status != "playing":
                break
            game, board = live_board(rig, chat.id)
            state = state_of(game)
            assert state.current == 0, "the bot waits for a computer"
            # the board is Ana's own: her real cards on the keys, no 👀 My hand, no 📱 Panel
            hand = [card_label(c) for c in state.hands[0]]
            hand_keys = [t for t, d in board.buttons if d and d.startswith(f"k:{gid}:{game.version}:h:")]
            assert hand_keys == hand, (hand_keys, hand)
            assert "Your hand: " + " ".join(hand) in board.text
            keys = [t for t, _d in board.buttons]
            assert "👀 My hand" not in keys and "📱 Panel" not in keys and "🎯 Play" in keys
            assert "Your game in" not in board.text and "👉 Your move!" in board.text
            first_call = len(fake.calls)
            before = state
            held = [encode(a) for a in t_actions(state, 0) if not isinstance(a, PlayJoker)]
            if held:
                # a Thief, Shifter or Bomb first: the board is redrawn in place with what it moved
                code = held[0]
                version, message_id, text = game.version, board.message_id, board.text
                for _ in range(8):
                    kind = cb.TChoiceKind.of(t_kind(code))
                    popup = await tg.tap(ana, board, data_is(cb.TChoice(gid, version, kind).data))
                    if "chosen" in (popup.text or ""):
                        break
                popup = await tg.tap(ana, board, data_is(f"k:{gid}:{version}:c"))
                assert f"Ana plays {T_KIND[code[0]]}" in (popup.text or ""), popup.text
                game, board = live_board(rig, chat.id)
                assert board.message_id == message_id and board.text != text
                assert any(d == f"k:{gid}:{version + 1}:c" for _t, d in board.buttons)
                t_cards += 1
                state = state_of(game)
            if turn % 3 == 2:
                answer = await tg.tap_switch_inline(ana, board, "🎯 Play")
                plays = [
                    r
                    for r in answer.result_ids
                    if r.startswith(f"g{gid}v")
                    and all(
                        isinstance(decode(c), (Sum, Discard, PlayJoker))
                        for c in r.split(":", 1)[1].split(" ")
                    )
                ]
                await tg.pick(ana, chat, answer, plays[0])
                picks += 1
            else:
                main = best_main(state, 0)
                v = game.version
                await tg.tap(ana, board, data_is(f"k:{gid}:{v}:h:{main.hand}"))
                if isinstance(main, Sum):
                    for position in main.table:
                        await tg.tap(ana, board, data_is(f"k:{gid}:{v}:t:{position}"))
                    # composing redraws her board: the cards she chose are marked on their keys
                    chosen = [
                        t
                        for t, d in board.buttons
                        if d and d.startswith(f"k:{gid}:{v}:t:") and t.startswith("✅")
                    ]
                    assert len(chosen) == len(main.table) and "✏️" in board.text
                    composed += 1
                key = "c" if isinstance(main, Sum) else "d"
                assert (await tg.tap(ana, board, data_is(f"k:{gid}:{v}:{key}"))).text == "Done!"
            after = current_game(rig, chat.id)
            final = state_of(after)
            rounds_ended = len(final.round_points) - len(before.round_points)
            over = after.status != "playing"
            sends = [c for c in fake.calls[first_call:] if c.method == "sendMessage" and c.ok]
            assert all(c.chat_id == ana.id for c in fake.calls[first_call:] if c.chat_id is not None)
            # one message a turn, the next board (a round's summary and the standings besides);
            # the board is the turn's notification
            if not over:
                assert live_board(rig, chat.id)[1].notified
            assert len(sends) == (0 if over else 1) + rounds_ended + int(over), [
                c.params.get("text") for c in sends
            ]
        else:
            raise AssertionError("the game did not end")

        game = current_game(rig, chat.id)
        assert game.status == FINISHED and t_cards and picks and composed
        final = state_of(game)
        assert panel_id(rig, gid, 0, ana.id) is None  # no panel: the board is hers already
        standings = [m for m in fake.messages(chat.id) if "Game over" in m.content]
        assert len(standings) == 1 and [t for t, _d in standings[0].buttons] == ["🔁 Rematch"]
        assert [m.kind for m in fake.messages(chat.id)].count("photo") == 1  # the chart
        # the chat is the record: read as Ana reads it, it re-adds to every summary and the standings
        lines = transcript(fake, chat)
        record, problems = reading(lines)
        assert problems == [], "\n".join(problems)
        _again, problems, matched = reading_with_picks(lines)
        assert problems == [], "\n".join(problems)
        assert len(matched) >= picks
        names = {p.seat: p.name for p in players_of(rig, gid)}
        assert len(record.summaries) == len(final.round_points)
        for summary, points in zip(record.summaries, final.round_points, strict=True):
            assert {who: p for who, (p, _t) in summary.rows.items()} == {names[s]: points[s] for s in names}
        assert record.standings is not None
        assert record.standings.totals == {names[s]: t for s, t in enumerate(final.totals)}
        assert len(record.moves) == reported_events(moves_of(rig, gid))
        # a private chat's budget, not a group's: more writes in a minute than a group may have
        assert fake.max_writes_in_window(ana.id, 60) > 20
        assert not tg.errors


# --- the lobby, and what nobody else can do there ----------------------------------------------------


async def test_a_practice_lobby_has_no_join_and_starts_with_a_computer(rig: BotRig) -> None:
    fake, tg = rig.fake, rig.tg
    ana = fake.user(1, "Ana")
    chat, lobby, gid = await practice_lobby(rig, ana)
    assert [[t for t, _d in row] for row in [[(b["text"], None) for b in r] for r in lobby.keyboard]] == [
        ["▶️ Start", "⚙️ Settings"],
        ["🤖 Add computer", "✖️ Cancel"],
    ]
    assert "You against the computer: add 1 to 5 computer players" in lobby.text
    assert "group admin" not in lobby.text and "Players (1/6):\n• Ana" in lobby.text
    # ▶️ Start needs a computer at the table
    refused = await tg.tap(ana, lobby, "▶️ Start")
    assert (
        refused.text == "Add a computer player first: 🤖 Add computer, or Easy, Normal or Hard in ⚙️ Settings."
    )
    assert current_game(rig, chat.id).status == "lobby"
    # a Join key forged onto the practice lobby: nobody else can be in this chat
    ben = fake.user(2, "Ben")
    for forged in (cb.Join(gid).data, cb.Leave(gid).data):
        answer = await tg.tap_data(ana, lobby, forged)
        assert answer.show_alert and answer.text == "That key is not valid any more."
    assert [p.user_id for p in players_of(rig, gid)] == [ana.id]
    # a practice lobby's keys forged into somebody else's chat with the bot change nothing
    await tg.send(fake.private(ben), ben, "/start")
    elsewhere = fake.last_message(ben.id)
    for forged in (
        cb.AddComputer(gid, "hard").data,
        cb.Start(gid).data,
        cb.SetHints(gid, True).data,
    ):
        answer = await tg.tap_data(ben, elsewhere, forged)
        assert answer.show_alert and answer.text == "That key is not valid any more.", forged
    assert len(players_of(rig, gid)) == 1 and not current_game(rig, chat.id).settings.count('"hints": true')
    # /newgame again in the same chat points at the lobby: one table per chat
    await tg.send(chat, ana, "/newgame")
    assert fake.last_message(chat.id).text == (
        "A game is already running here. Scroll up to its board, or send /board."
    )
    assert current_game(rig, chat.id).id == gid
    await tg.tap(ana, lobby, "🤖 Add computer")
    assert "• Bot Normal 🤖 Normal" in lobby.text
    await tg.tap(ana, lobby, "▶️ Start")
    game = current_game(rig, chat.id)
    assert game.status == "playing" and game.id == gid
    assert lobby.text == "🃏 TWEAK! has started: Ana, Bot Normal" and lobby.buttons == []
    assert not tg.errors


async def test_a_practice_board_answers_its_person_only_in_their_own_chat(rig: BotRig) -> None:
    fake, tg = rig.fake, rig.tg
    ana, ben = fake.user(1, "Ana"), fake.user(2, "Ben")
    chat, gid = await practice_game(rig, ana)
    game, board = live_board(rig, chat.id)
    before = (game.version, game.state)
    claim = cb.Claim(gid, game.version).data
    hand = cb.PickHand(gid, game.version, 0).data
    # Ben forges Ana's keys onto a message of his own chat with the bot, and into a group
    await tg.send(fake.private(ben), ben, "/start")
    group = fake.group("Friends")
    await tg.send(group, ben, "/help@tweak_test_bot")
    for where in (fake.last_message(ben.id), fake.last_message(group.id)):
        for data in (hand, claim, cb.Hand(gid).data):
            answer = await tg.tap_data(ben, where, data)
            assert answer.show_alert and answer.text == "That key is not valid any more.", data
    # Ana's own keys forged into a group are no better
    answer = await tg.tap_data(ana, fake.last_message(group.id), hand)
    assert answer.text == "That key is not valid any more."
    game = current_game(rig, chat.id)
    assert (game.version, game.state) == before
    # a key of an older turn forged onto her live board is stale: the live board keeps its keys
    stale = await tg.tap_data(ana, board, cb.PickHand(gid, game.version - 1, 0).data)
    assert stale.text == "This board is out of date: the live one is at the bottom of the chat."
    assert any(d == claim for _t, d in board.buttons)
    # Ana's tap on her board still works
    assert (await tg.tap(ana, board, data_is(hand))).text.startswith(card_label(state_of(game).hands[0][0]))
    assert not tg.errors


async def test_a_draft_still_waiting_when_the_turn_ends_is_never_shown(rig: BotRig) -> None:
    """The board shows the move being composed. If that redraw still waits to be sent (Telegram
    paused the chat) when the move is played, it is dropped: the board the game leaves only loses
    its keys, and never comes back with the keys of a turn that is over."""
    fake, tg = rig.fake, rig.tg
    ana = fake.user(1, "Ana")
    chat, gid = await practice_game(rig, ana)
    game, board = live_board(rig, chat.id)
    senders_in_background(rig)
    await tg.advance(2.0)
    first = len(fake.calls)
    fake.fail_next("*", 429, retry_after=7, chat_id=ana.id)
    await tg.tap_data(ana, board, cb.PickHand(gid, game.version, 0).data)  # its redraw meets the 429
    assert (await tg.tap_data(ana, board, cb.Discard(gid, game.version).data)).text == "Done!"
    await drain(rig)
    edits = [c.method for c in fake.calls[first:] if c.ok and c.params.get("message_id") == board.message_id]
    assert edits == ["editMessageReplyMarkup"]
    assert board.buttons == [] and "✏️" not in board.text
    assert live_board(rig, chat.id)[1].message_id > board.message_id
    assert fake.count_429(ana.id) == 1 and not tg.errors


# --- the pace, in the practice chat -------------------------------------------------------------------


async def test_reminders_the_idle_default_pause_and_resume_come_to_the_practice_chat(rig: BotRig) -> None:
    fake, tg = rig.fake, rig.tg
    ana = fake.user(1, "Ana")
    chat, gid = await practice_game(rig, ana, ("normal",), [lambda gid: cb.SetPace(gid, PaceName.LIVE)])
    live = PACES["live"]
    assert live.deadline is not None
    start = rig.clock.now()
    game, board = live_board(rig, chat.id)
    assert (game.next_nudge_at, game.deadline_at) == (start + live.nudge, start + live.deadline)
    first = len(fake.calls)

    assert reminders(await sweep_at(rig, start + live.nudge - SECOND)) == []
    await sweep_at(rig, start + live.nudge)
    reminder = fake.last_message(chat.id)
    assert reminder.text == "⏳ Reminder: it's your turn!" and reminder.reply_to is board
    await sweep_at(rig, start + live.deadline * 0.8)
    last_call = fake.last_message(chat.id)
    left = format_duration(live.deadline * 0.2)
    assert last_call.text == f"⏰ Last call: your turn will be played for you in {left}."
    assert last_call.reply_to is board
    idle = idle_default_label(rig, gid)
    await sweep_at(rig, start + live.deadline)
    game, board = live_board(rig, chat.id)
    assert board.text.split("\n")[0] == f"⏰ Ana was idle: {idle} was discarded for them"
    assert [m.source for m in moves_of(rig, gid)].count("idle") == 1 and state_of(game).current == 0
    # everything went to Ana's chat with the bot, nowhere else
    assert {c.chat_id for c in fake.calls[first:] if c.chat_id is not None} == {ana.id}

    # /pause: no reminder, no deadline; /resume: a fresh clock under a new board
    await tg.send(chat, ana, "/pause")
    assert fake.last_message(chat.id).text.startswith("⏸ Game paused")
    assert board.buttons == []
    version = game.version
    await sweep_after(rig, DAY)
    assert current_game(rig, chat.id).version == version and current_game(rig, chat.id).status == "paused"
    await tg.send(chat, ana, "/resume")
    game, resumed = live_board(rig, chat.id)
    assert resumed.text.startswith("▶️ The game goes on!") and resumed.message_id != board.message_id
    assert game.status == "playing" and game.next_nudge_at == rig.clock.now() + live.nudge
    # /board: the board again at the bottom; the one before it loses its keys
    await tg.send(chat, ana, "/board")
    game, again = live_board(rig, chat.id)
    assert again.message_id > resumed.message_id and resumed.buttons == [] and again.buttons
    # /settings: the pace, changed with its keys
    await tg.send(chat, ana, "/settings")
    settings = fake.last_message(chat.id)
    assert settings.text.startswith("⚙️ Pace of this game: live")
    assert (await tg.tap(ana, settings, "quick")).text == "Pace: quick"
    assert "⚙️ The pace of this game is now quick" in fake.last_message(chat.id).text
    quick = PACES["quick"]
    assert quick.deadline is not None
    game = current_game(rig, chat.id)
    assert game.deadline_at == rig.clock.now() + quick.deadline
    # a second turn missed in a row: Ana is away, and with nobody left to play the game ends
    await sweep_at(rig, game.deadline_at)
    game = current_game(rig, chat.id)
    assert game.status == ABANDONED
    assert "🛑 Every player has left or is away" in fake.last_message(chat.id).text
    assert not tg.errors


# --- after the game ---------------------------------------------------------------------------------


async def test_rematch_in_private_opens_a_practice_table_with_the_same_computers(rig: BotRig) -> None:
    fake, tg = rig.fake, rig.tg
    ana = fake.user(1, "Ana")
    goal = [lambda gid: cb.SetGoal(gid, GoalStep.DOWN)] * 4
    chat, gid = await practice_game(rig, ana, ("easy", "hard"), goal)
    finished = await play_out(rig, chat.id, {ana.id: ana})
    assert finished.status == FINISHED
    standings = next(m for m in fake.messages(chat.id) if "Game over" in m.content)
    answer = await tg.tap(ana, standings, "🔁 Rematch")
    assert answer.text == "🔁 A new practice game with the same computers: tap ▶️ Start."
    rematch = current_game(rig, chat.id)
    assert rematch.id != gid and rematch.status == "lobby" and rematch.settings == finished.settings
    assert [(p.user_id, p.ai_level) for p in players_of(rig, rematch.id or 0)] == [
        (ana.id, None),
        (None, "easy"),
        (None, "hard"),
    ]
    lobby = fake.last_message(chat.id)
    assert lobby.text.startswith("🃏 Practice game of TWEAK!") and "• Bot Hard 🤖 Hard" in lobby.text
    # tapped twice: one table
    assert (await tg.tap(ana, standings, "🔁 Rematch")).text == "You're already in."
    assert standings.buttons  # (until the new game starts, the key opens it again if it expires)
    await tg.tap(ana, lobby, "▶️ Start")
    assert current_game(rig, chat.id).status == "playing"
    assert standings.buttons == []  # a newer game is played here: those standings are history
    assert not tg.errors


def practice_row(level: str, won: bool) -> str:
    """A line of the Practice part of /stats, worked out from one game against `level`."""
    wins = "1 win" if won else "0 wins"
    return f"🤖 {level}: {wins} / 1 game ({100 if won else 0}%)"


async def test_practice_counts_apart_and_never_in_a_groups_top(rig: BotRig) -> None:
    """Ana plays one game in a group (with Ben and a hard computer), one practice game against an
    easy and a hard computer to its end, and leaves a practice game against two normal ones."""
    fake, tg = rig.fake, rig.tg
    ana, ben = fake.user(1, "Ana"), fake.user(2, "Ben")
    group = fake.group("Friends")
    await tg.send(group, ana, "/newgame@tweak_test_bot")
    lobby = fake.last_message(group.id)
    await tg.tap(ben, lobby, "✋ Join")
    group_gid = current_game(rig, group.id).id or 0
    for data in (
        cb.AddComputer(group_gid, "hard").data,
        *[cb.SetGoal(group_gid, GoalStep.DOWN).data] * 4,
    ):
        await tg.tap_data(ana, lobby, data)
    await tg.tap(ana, lobby, "↩️ Back")
    await tg.tap(ana, lobby, "▶️ Start")
    in_group = state_of(await play_out(rig, group.id, {ana.id: ana, ben.id: ben}))
    goal_down = [lambda gid: cb.SetGoal(gid, GoalStep.DOWN)] * 4
    chat, _gid = await practice_game(rig, ana, ("easy", "hard"), goal_down)
    practised = state_of(await play_out(rig, chat.id, {ana.id: ana}))
    await practice_game(rig, ana, ("normal", "normal"))  # two of a level: one game against it
    await tg.send(chat, ana, "/leave")
    assert current_game(rig, chat.id).status == ABANDONED

    # the group's /top: one game for Ana, and only the group's computer
    await tg.send(group, ana, "/top@tweak_test_bot")
    top = fake.last_message(group.id).text
    ana_line = next(line for line in top.split("\n") if " Ana — " in line)
    assert "/ 1 game (" in ana_line
    assert "Hard: " in top and "Easy" not in top and "Normal" not in top
    # /stats in private: her groups (the one game), then her practice, per computer level
    await tg.send(chat, ana, "/stats")
    stats = fake.last_message(chat.id).text
    won_in_group = 0 in in_group.winners
    won = 0 in practised.winners
    assert stats.split("\n")[:2] == [
        "📊 Ana in all groups",
        f"Games: 1 · wins: {int(won_in_group)} ({100 * int(won_in_group)}%)",
    ]
    assert stats.split("\n\n")[-1].split("\n") == [
        "🎯 Practice against the computer (not counted in any group)",
        practice_row("Easy", won),
        practice_row("Normal", False),
        practice_row("Hard", won),
    ]
    # in the group, /stats is the group's alone
    await tg.send(group, ana, "/stats@tweak_test_bot")
    assert "Practice" not in fake.last_message(group.id).text
    assert not tg.errors


# --- no panel, 🎯 Play in its own chat only, a chat that refuses the bot ----------------------------------


async def test_a_practice_table_has_no_panel_and_is_played_inline_only_in_its_chat(
    db_url: str, seeds: Callable[[], int]
) -> None:
    async with running_bot(db_url, seeds, fake=inline_fake()) as rig:
        fake, tg = rig.fake, rig.tg
        ana = fake.user(1, "Ana")
        chat, gid = await practice_game(rig, ana)
        game, board = live_board(rig, chat.id)
        # the link a pick posts (and any /start g<game>) shows the board again, never a panel
        await tg.send(chat, ana, f"/start g{gid}")
        again = live_board(rig, chat.id)[1]
        assert again.message_id > board.message_id and board.buttons == []
        assert panel_id(rig, gid, 0, ana.id) is None
        # 🎯 Play lists Ana's moves in her chat with the bot ("sender"), not in any other chat
        mine = await tg.inline_query(ana, f"g{gid}", chat=chat)
        assert any(r.startswith(f"g{gid}v{game.version}:") for r in mine.result_ids)
        group = fake.group("Friends")
        elsewhere = await tg.inline_query(ana, f"g{gid}", chat=group)
        assert not any(r.startswith(f"g{gid}v") for r in elsewhere.result_ids), elsewhere.titles
        assert not tg.errors


async def test_a_practice_chat_that_refuses_the_bot_holds_its_game_until_it_is_back(rig: BotRig) -> None:
    fake, tg = rig.fake, rig.tg
    ana = fake.user(1, "Ana")
    chat, gid = await practice_game(rig, ana)
    fake.block_user(ana.id)
    game, board = live_board(rig, chat.id)
    await tg.tap(ana, board, data_is(cb.PickHand(gid, game.version, 0).data))
    await tg.tap(ana, board, data_is(cb.Discard(gid, game.version).data))  # the next board is refused
    game = current_game(rig, chat.id)
    assert game.status == "paused" and game.paused_until is None and game.wake_at is None
    await sweep_after(rig, DAY)  # held: nothing is due, however long it waits
    assert current_game(rig, chat.id).version == game.version
    fake.unblock_user(ana.id)
    await tg.process(fake.my_chat_member_update(chat, ana, "member", old_status="kicked"))
    assert fake.last_message(chat.id).text == "👋 I'm back! The game is paused: send /board to go on."
    await tg.send(chat, ana, "/board")
    game, board = live_board(rig, chat.id)
    assert game.status == "playing" and board.text.startswith("▶️ The game goes on!")
    assert "👉 Your move!" in board.text
    # Telegram says she blocked the bot (before any message failed): held the same way
    await tg.process(fake.my_chat_member_update(chat, ana, "kicked", old_status="member"))
    game = current_game(rig, chat.id)
    assert game.status == "paused" and game.paused_until is None
    assert not tg.errors


async def test_a_practice_table_speaks_its_persons_language(rig: BotRig) -> None:
    """A practice table speaks its person's language, and /language in private changes it too."""
    fake, tg = rig.fake, rig.tg
    ana = fake.user(1, "Ana", language_code="ja")
    chat, lobby, _gid = await practice_lobby(rig, ana)
    assert lobby.text.startswith("🃏 TWEAK!の練習ゲーム")
    await tg.send(chat, ana, "/language")
    await tg.tap(ana, fake.last_message(chat.id), "Español")
    assert current_game(rig, chat.id).language == "es"
    assert lobby.text.startswith("🃏 Práctica de TWEAK!")
    # the next practice table speaks it from the start
    await tg.send(chat, ana, "/cancel")
    await tg.send(chat, ana, "/newgame")
    assert fake.last_message(chat.id).text.startswith("🃏 Práctica de TWEAK!")
    assert not tg.errors


async def test_the_welcome_and_the_help_say_how_to_practise(rig: BotRig) -> None:
    fake, tg = rig.fake, rig.tg
    ana = fake.user(1, "Ana")
    chat = fake.private(ana)
    await tg.send(chat, ana, "/start")
    assert (
        "To practise alone against the computer, send /newgame right here." in fake.last_message(chat.id).text
    )
    await tg.send(chat, ana, "/help")
    assert "Practise alone\nSend /newgame in our private chat" in fake.last_message(chat.id).text
    await tg.send(chat, ana, "hello")
    assert fake.last_message(chat.id).text.endswith("/newgame here starts a practice game.")


async def test_a_card_picked_from_the_list_shows_on_the_practice_board_at_once(
    db_url: str, seeds: Callable[[], int]
) -> None:
    """Ana picks a Thief, Shifter or Bomb from 🎯 Play: her practice board, the message she
    picks her sum from next, shows the table and target the card left, before any other tap."""
    async with running_bot(db_url, seeds, fake=inline_fake()) as rig:
        fake, tg = rig.fake, rig.tg
        ana = fake.user(1, "Ana")
        chat, gid = await practice_game(rig, ana, ("easy",))
        for _turn in range(300):
            game, board = live_board(rig, chat.id)
            assert game.status == "playing", "no Thief, Shifter or Bomb came to Ana"
            listed = await tg.inline_query(ana, f"g{gid}", chat=chat)
            cards = [r for r in listed.result_ids if _t_card(r, gid, game.version)]
            if not cards:
                await play_main(rig, ana, chat.id)
                continue
            text, version = board.text, game.version
            await tg.pick(ana, chat, listed, cards[0])
            game, after = live_board(rig, chat.id)
            assert game.version == version + 1 and after.message_id == board.message_id
            assert after.text != text  # the table and target the card left
            assert any(d and d.startswith(f"k:{gid}:{version + 1}:") for _t, d in after.buttons)
            assert not tg.errors
            return
        raise AssertionError("no Thief, Shifter or Bomb came to Ana")


def _t_card(result_id: str, game_id: int, version: int) -> bool:
    """A 🎯 Play line that plays a Thief, Shifter or Bomb alone (the turn goes on)."""
    if not result_id.startswith(f"g{game_id}v{version}:"):
        return False
    codes = result_id.split(":", 1)[1].split(" ")
    return len(codes) == 1 and isinstance(decode(codes[0]), (PlayThief, PlayShifter, PlayBomb))
