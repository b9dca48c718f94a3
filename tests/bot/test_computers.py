"""Computer players through the real bot: one person practising against three computers, to the end."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest
from sqlmodel import Session, select

from engine.events import Discarded, LostTurn, RoundEnded, Skipped, Summed, TPlayed, load_events
from tests.bot.conftest import BotRig, make_settings
from tests.bot.helpers import BOT, board_of, current_game, moves_of, state_of
from tests.bot.players import Player, play_turn, to_move
from tests.fakes.telegram import FakeChat, FakeTelegram, FakeUser, StoredMessage
from tgbot.app import build_application
from tgbot.store.models import ComputerStats, GamePlayer, Move, PlayerStats

PNG = b"\x89PNG\r\n\x1a\n"
T_CODES = ("T", "J", "F", "B")
MAX_TURNS = 400


async def tap_settings(rig: BotRig, user: FakeUser, lobby: StoredMessage, key: str) -> None:
    """Tap a key of the lobby's Settings screen (opening it first when the main screen shows)."""
    if not any(text == key for text, _data in lobby.buttons):
        await rig.tg.tap(user, lobby, "⚙️ Settings")
    answer = await rig.tg.tap(user, lobby, key)
    assert not answer.show_alert, answer.text


async def solo_lobby(rig: BotRig, group: FakeChat, ana: FakeUser, goal_steps: int) -> StoredMessage:
    """Ana alone with Easy, Normal and Hard computers, the goal lowered by `goal_steps` × 20."""
    await rig.tg.send(group, ana, f"/newgame{BOT}")
    lobby = rig.fake.last_message(group.id)
    for level in ("Easy", "Normal", "Hard"):
        await tap_settings(rig, ana, lobby, f"🤖 {level}")
    for _ in range(goal_steps):
        await tap_settings(rig, ana, lobby, "Goal −20")
    # each computer is listed with the level it plays at
    assert all(f"• Bot {level} 🤖 {level}" in lobby.content for level in ("Easy", "Normal", "Hard"))
    if any(text == "↩️ Back" for text, _data in lobby.buttons):
        await rig.tg.tap(ana, lobby, "↩️ Back")
    return lobby


def group_sends(fake: FakeTelegram, group_id: int, first_call: int) -> list[str]:
    """Methods of the new messages the bot posted in the group since `first_call`."""
    return [
        c.method
        for c in fake.calls[first_call:]
        if c.chat_id == group_id and c.method in ("sendMessage", "sendPhoto", "sendDocument") and c.ok
    ]


async def test_one_person_against_three_computers_to_the_final_standings(rig: BotRig) -> None:
    fake, tg = rig.fake, rig.tg
    ana = fake.user(1, "Ana")
    player = Player(ana, random.Random(7))
    group = fake.group("Practice")
    lobby = await solo_lobby(rig, group, ana, goal_steps=2)  # 4 players: goal 100 → 60
    await tg.tap(ana, lobby, "▶️ Start")
    game = current_game(rig, group.id)
    assert game.id is not None and game.status == "playing"
    with Session(rig.deps.db.engine) as session:
        seats = session.exec(select(GamePlayer).where(GamePlayer.game_id == game.id)).all()
        assert sorted(p.ai_level or "-" for p in seats) == ["-", "easy", "hard", "normal"]
    start = state_of(game)
    first_seat = (start.dealer + 1) % 4  # may already have been played by the computers
    moves = moves_of(rig, game.id)
    if first_seat != 0:
        # a computer was first: the computers moved at once after Start, and now it is Ana's turn
        assert [m.source for m in moves[1:]] and all(m.source == "ai" for m in moves[1:])
        assert state_of(game).current == 0

    human_turns = 0
    for _turn in range(MAX_TURNS):
        game = current_game(rig, group.id)
        if game.status != "playing":
            break
        state = state_of(game)
        assert state.current == 0, "the bot waits only for the person"
        board = board_of(rig, game)
        assert to_move(board.text or "", [player]) is player, board.text
        for level in ("Easy", "Normal", "Hard"):  # computers marked on the board, with their level
            assert f"Bot {level} 🤖 {level} · " in (board.text or ""), board.text
        rounds_before = len(state.round_points)
        first_call = len(fake.calls)
        await play_turn(tg, fake, board, player, private=False)
        human_turns += 1
        after = current_game(rig, group.id)
        finished = after.status == "finished"
        rounds_ended = len(state_of(after).round_points) - rounds_before
        sends = group_sends(fake, group.id, first_call)
        # One summary per round end, then the new board (opening with the report) or, at the end,
        # the standings and the chart: never a message per computer move.
        # (a Thief, Shifter or Bomb played from the board brings a board of its own: the player
        # needs its new keys)
        own_t = [m for m in moves_of(rig, game.id or 0) if m.seq > game.version and m.code[0] in "TFB"]
        expected = rounds_ended + 1 + len([m for m in own_t if m.source == "player"])
        assert sends.count("sendMessage") == expected, (sends, rounds_ended, finished)
        assert sends.count("sendPhoto") == (1 if finished else 0)
        if not finished:
            old = fake.message(group.id, board.message_id)
            assert old.reply_markup is None  # the old board lost its keys
            # The computers' moves, tagged, in the report of the messages this turn posted: the
            # new board, and before it the summary of a round that ended.
            posted = [
                fake.message(group.id, c.response["result"]["message_id"]).content
                for c in fake.calls[first_call:]
                if c.chat_id == group.id and c.method == "sendMessage" and c.ok
            ]
            tagged = [line for text in posted for line in report_of(text) if line.startswith("🤖")]
            assert game.id is not None
            burst = [m for m in moves_of(rig, game.id) if m.seq > game.version]
            assert len(tagged) == reported([m for m in burst if m.source == "ai"]) > 0, posted
    game = current_game(rig, group.id)
    assert game.status == "finished" and game.id is not None
    final = state_of(game)
    assert final.is_over and max(final.totals) >= 60
    assert human_turns > 5

    moves = moves_of(rig, game.id)
    by_source = {m.source for m in moves}
    assert by_source == {"system", "player", "ai"}
    ai_seats = {m.seat for m in moves if m.source == "ai"}
    assert ai_seats == {1, 2, 3}, "every computer moved on its own"
    ai_t_plays = [m.code for m in moves if m.source == "ai" and m.code.startswith(T_CODES)]
    assert ai_t_plays, "the computers played [T!] cards"

    texts = [m.content for m in fake.messages(group.id)]
    assert sum("Game over" in t for t in texts) == 1
    photos = [m for m in fake.messages(group.id) if m.kind == "photo"]
    assert len(photos) == 1
    assert photos[0].files and photos[0].files[0].data.startswith(PNG)
    assert "Scores per round" in photos[0].content

    # Stats: the person in player_stats, the three computers apart in computer_stats.
    with Session(rig.deps.db.engine) as session:
        people = session.exec(select(PlayerStats)).all()
        computers = {c.level: c for c in session.exec(select(ComputerStats)).all()}
    assert [(p.user_id, p.games, p.wins) for p in people] == [(1, 1, int(0 in final.winners))]
    assert people[0].rounds == len(final.round_points) and people[0].points == final.totals[0]
    assert sorted(computers) == ["easy", "hard", "normal"]
    assert all(c.games == 1 and c.rounds == len(final.round_points) for c in computers.values())
    assert sum(c.wins for c in computers.values()) + people[0].wins == len(final.winners)
    assert sum(c.t_played for c in computers.values()) == len(ai_t_plays)
    assert not tg.errors


def segments_of(moves: list[Move]) -> list[list[Move]]:
    """A burst of moves cut after each move that ended a round (by the events the log keeps)."""
    segments: list[list[Move]] = [[]]
    for move in moves:
        segments[-1].append(move)
        if any(isinstance(e, RoundEnded) for e in load_events(move.events or "[]")):
            segments.append([])
    return [segment for segment in segments if segment]


def reported(moves: list[Move]) -> int:
    """How many tagged report lines these moves make: one per card played, discard, lost or
    sat-out turn of the mover itself (what a move does to the next player is not its tag's)."""
    kinds = (TPlayed, Summed, Discarded, LostTurn, Skipped)
    return sum(
        isinstance(e, kinds) and getattr(e, "seat", None) == m.seat
        for m in moves
        for e in load_events(m.events or "[]")
    )


def report_of(text: str) -> list[str]:
    """The report lines a message opens with: a board's up to its status line, a summary's up to
    its title."""
    lines: list[str] = []
    for line in text.splitlines():
        if line.startswith(("TWEAK! · round", "🏁", "🏆")):
            break
        if line:
            lines.append(line)
    return lines


async def test_computer_moves_after_a_round_end_are_reported_after_its_summary(rig: BotRig) -> None:
    """A burst that crosses a round end: the round's summary opens with the moves before it, then
    the new board with the moves after it; the old board keeps its text and loses its keys."""
    fake, tg = rig.fake, rig.tg
    rig.deps.seed_source = lambda: 11
    group = fake.group("Order")
    ana = fake.user(1, "Ana")
    player = Player(ana, random.Random(3))
    lobby = await solo_lobby(rig, group, ana, goal_steps=0)
    await tg.tap(ana, lobby, "▶️ Start")
    crossing: list[list[Move]] | None = None
    for _turn in range(MAX_TURNS):
        game = current_game(rig, group.id)
        assert game.status == "playing" and game.id is not None, "no burst went on after a round end"
        board = board_of(rig, game)
        seen = len(moves_of(rig, game.id))
        first_call = len(fake.calls)
        await play_turn(tg, fake, board, player, private=False)
        burst = moves_of(rig, game.id)[seen:]
        segments = segments_of(burst)
        if len(segments) > 1 and current_game(rig, group.id).status == "playing":
            crossing = segments
            break
    assert crossing is not None, "no burst went on after a round end"
    before, after = crossing[0], [m for s in crossing[1:] for m in s]
    assert before[0].source == "player" and all(m.source == "ai" for m in after)
    calls = [
        c
        for c in fake.calls[first_call:]
        if c.chat_id == group.id and c.method in ("sendMessage", "editMessageText") and c.ok
    ]
    assert [c.method for c in calls] == ["sendMessage", "sendMessage"]  # no report edits a board
    old = fake.message(group.id, board.message_id)
    assert old.reply_markup is None and all(r.method == "editMessageReplyMarkup" for r in old.history)
    summary, new_board = (fake.message(group.id, c.response["result"]["message_id"]) for c in calls)
    report = report_of(summary.content)
    assert len([line for line in report if line.startswith("🤖")]) == reported(before[1:])
    assert report[0].startswith(f"{ana.first_name}")  # Ana's own move first, then the computers'
    assert "🏁" in summary.content and "Round" in summary.content
    board_header = report_of(new_board.content)
    assert len([line for line in board_header if line.startswith("🤖")]) == reported(after) > 0
    assert f"{ana.first_name}, your move!" in new_board.content
    assert board_of(rig, current_game(rig, group.id)).message_id == new_board.message_id
    assert not tg.errors


def test_a_computers_search_gives_the_taps_a_turn_every_millisecond(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Hard's search runs in a thread beside the event loop; at CPython's default switch interval
    (5 ms) each hand-off of a tap's handler between the loop and its database thread could wait
    that long behind it (a person's answer p99 24 ms at a table of three Hard computers, against
    8 ms at a table of people: BENCHMARKS.md, *Load*). The interval is the process's: the bot's
    command lowers it where it runs the process, and building an application (as tests do in a
    shared process) leaves it alone."""
    from tests.fakes.telegram import TEST_TOKEN
    from tgbot import __main__, deps, event_loop

    monkeypatch.setattr(sys, "getswitchinterval", lambda: interval[0])
    monkeypatch.setattr(sys, "setswitchinterval", lambda value: interval.__setitem__(0, value))
    interval = [0.005]
    build_application(make_settings(f"sqlite:///{tmp_path / 'bot.sqlite3'}"), deliver=False, sweep=False)
    assert interval == [0.005]

    class StoppedDatabase:
        def close(self) -> None: ...

        def busy(self) -> bool:
            return False

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("WEBHOOK_URL", raising=False)
    monkeypatch.setenv("TELEGRAM_BOT_TOKEN", TEST_TOKEN)
    monkeypatch.setattr(__main__, "migrate_apart", lambda: True)
    monkeypatch.setattr("tgbot.app.build_application", lambda *a, **k: type("App", (), {"bot_data": {}})())
    monkeypatch.setattr(deps, "get_deps", lambda bot_data: type("Deps", (), {"db": StoppedDatabase()})())
    monkeypatch.setattr(event_loop, "run", lambda main, choice: main.close())
    assert __main__.main([]) == 0
    assert interval == [0.001]
