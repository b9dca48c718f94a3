"""Stats, the leaderboard, /history and replay files, through the real bot and the fake Telegram."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

from sqlmodel import Session, select

from engine.replay import check_records, record_game
from tests.bot.conftest import BotRig
from tests.bot.helpers import BOT, board_of, current_game, moves_of, state_of
from tests.bot.players import Player, play_turn, to_move
from tests.fakes.telegram import FakeChat, FakeUser, StoredMessage
from tgbot.store.models import ComputerStats, PlayerStats

MAX_TURNS = 400
ROOT = Path(__file__).resolve().parents[2]


async def quick_game(
    rig: BotRig, group: FakeChat, players: list[Player], computer: bool = False
) -> tuple[int, dict[str, Any]]:
    """A game to the lowest goal (20), played by tapping shown keys; its id and expected tallies."""
    fake, tg = rig.fake, rig.tg
    creator = players[0].user
    await tg.send(group, creator, f"/newgame{BOT}")
    lobby = fake.last_message(group.id)
    for p in players[1:]:
        await tg.tap(p.user, lobby, "✋ Join")
    await tg.tap(creator, lobby, "⚙️ Settings")
    if computer:
        # added from the settings screen, which stays open
        await tg.tap(creator, lobby, "🤖 Easy")
        assert "Bot Easy" in (lobby.text or "") and "Goal −20" in [t for t, _d in lobby.buttons]
    for _ in range(7):  # down to the minimum whatever the player count
        await tg.tap(creator, lobby, "Goal −20")
    assert "goal: 20" in (lobby.text or "")
    await tg.tap(creator, lobby, "↩️ Back")
    await tg.tap(creator, lobby, "▶️ Start")
    for _turn in range(MAX_TURNS):
        game = current_game(rig, group.id)
        if game.status != "playing":
            break
        board = board_of(rig, game)
        player = to_move(board.text or "", players)
        assert player is not None, board.text
        await play_turn(tg, fake, board, player, private=False)
    game = current_game(rig, group.id)
    assert game.status == "finished" and game.id is not None
    return game.id, expected_tallies(rig, game.id)


def expected_tallies(rig: BotRig, game_id: int) -> dict[str, Any]:
    """What the game should add to the stats, computed apart from the bot: from the final state and
    the engine's replay records of the move log."""
    game = current_game(rig)
    assert game.id == game_id
    final = state_of(game)
    codes = [m.code for m in moves_of(rig, game_id) if m.seat is not None]
    records = record_game(final.config, game.seed, codes)
    n = final.players
    tweaks, t_played = [0] * n, [0] * n
    for r in records:
        if "action" in r and r["action"] not in ("L", "K"):
            if r["tcard"] is not None:
                t_played[r["seat"]] += 1
            if r["main"]["kind"] == "sum" and r["main"]["tweak"]:
                tweaks[r["seat"]] += 1
    return {
        "winners": list(final.winners),
        "totals": list(final.totals),
        "rounds": len(final.round_points),
        "tweaks": tweaks,
        "t_played": t_played,
    }


def reply_update(rig: BotRig, chat: FakeChat, user: FakeUser, text: str, to: StoredMessage) -> dict[str, Any]:
    """`user` sends the command `text` as a reply to the message `to`."""
    data = rig.fake.command_update(chat, user, text)
    replied: dict[str, Any] = {
        "message_id": to.message_id,
        "date": to.date,
        "chat": chat.to_dict(),
        "from": dict(to.sender),
        "text": to.content or "…",
    }
    data["message"]["reply_to_message"] = replied
    return data


async def test_stats_leaderboard_history_and_replays_after_three_games(rig: BotRig, tmp_path: Path) -> None:
    fake, tg = rig.fake, rig.tg
    ana, ben = fake.user(1, "Ana"), fake.user(2, "Ben")
    players = [Player(ana, random.Random(3)), Player(ben, random.Random(4))]
    group = fake.group("Friends")

    played = [await quick_game(rig, group, players) for _ in range(2)]
    played.append(await quick_game(rig, group, players, computer=True))  # seats: Ana, Ben, Bot Easy

    # The stored stats are exactly the sum of the three games, computer kept apart.
    expected: dict[int, dict[str, int]] = {}
    for seat, user in enumerate((ana, ben)):
        expected[user.id] = {
            "games": 3,
            "wins": sum(seat in t["winners"] for _gid, t in played),
            "rounds": sum(t["rounds"] for _gid, t in played),
            "points": sum(t["totals"][seat] for _gid, t in played),
            "tweaks": sum(t["tweaks"][seat] for _gid, t in played),
            "t_played": sum(t["t_played"][seat] for _gid, t in played),
        }
    with Session(rig.deps.db.engine) as session:
        rows = {r.user_id: r for r in session.exec(select(PlayerStats)).all()}
        bots = session.exec(select(ComputerStats)).all()
    assert set(rows) == {1, 2}
    for user_id, numbers in expected.items():
        row = rows[user_id]
        assert row.chat_id == group.id
        assert {k: getattr(row, k) for k in numbers} == numbers
    assert sum(n["tweaks"] for n in expected.values()) > 0
    last = played[-1][1]
    assert [(b.level, b.games, b.wins, b.points) for b in bots] == [
        ("easy", 1, int(2 in last["winners"]), last["totals"][2])
    ]

    # /top: by wins, then win rate, then points per round, then name; the computer listed apart,
    # never ranked.
    await tg.send(group, ana, f"/top{BOT}")
    top = fake.last_message(group.id).content
    assert top.startswith("🏆 Leaderboard")

    def rank(user: FakeUser) -> tuple[float, float, float, str]:
        mine = expected[user.id]
        return (
            -mine["wins"],
            -mine["wins"] / mine["games"],
            -mine["points"] / mine["rounds"],
            user.first_name,
        )

    first, second = sorted((ana, ben), key=rank)
    assert top.index(first.first_name) < top.index(second.first_name)
    wins = expected[first.id]["wins"]
    won = f"{wins} win" if wins == 1 else f"{wins} wins"
    assert f"{first.first_name} — {won} / 3 games ({round(wins / 3 * 100)}%)" in top
    people, computers = top.split("Computer players")
    assert "Easy: " in computers and "Bot" not in people

    # /stats: your own, then Ana's by replying to her message, then everywhere in private.
    await tg.send(group, ben, f"/stats{BOT}")
    own = fake.last_message(group.id).content
    assert own.startswith("📊 Ben in this group")
    assert f"Games: 3 · wins: {expected[2]['wins']}" in own
    ana_said = next(m for m in fake.messages(group.id, include_incoming=True) if m.sender.get("id") == 1)
    await tg.process(reply_update(rig, group, ben, f"/stats{BOT}", ana_said))
    theirs = fake.last_message(group.id).content
    assert theirs.startswith("📊 Ana in this group"), theirs
    avg = expected[1]["points"] / expected[1]["rounds"]
    assert f"Average per round: {avg:.1f} points ({expected[1]['rounds']} rounds)" in theirs  # 3 games
    assert f"TWEAKs: {expected[1]['tweaks']} · [T!] cards played: {expected[1]['t_played']}" in theirs
    await tg.send(fake.private(ana), ana, "/stats")
    mine = fake.last_message(ana.id).content
    assert mine.startswith("📊 Ana in all groups") and "Games: 3" in mine

    # /history: the three games, newest first, each with a key for its replay file.
    await tg.send(group, ben, f"/history{BOT}")
    listing = fake.last_message(group.id)
    ids = [gid for gid, _t in played]
    positions = [listing.content.index(f"#{gid} ") for gid in ids]
    assert positions == sorted(positions, reverse=True)
    assert "Bot Easy 🤖" in listing.content
    for gid, tally in played:
        rounds = tally["rounds"]
        assert f"· {rounds} round{'' if rounds == 1 else 's'}" in listing.content.split(f"#{gid} ")[1]
    assert [t for t, _d in listing.buttons] == [f"⬇️ #{gid}" for gid in reversed(ids)]

    # Ana never opened a private chat with the bot: her file comes in the group.
    answer = await tg.tap(ana, listing, f"⬇️ #{ids[0]}")
    assert not answer.show_alert
    document = fake.last_message(group.id)
    assert document.kind == "document" and document.files
    upload = document.files[0]
    assert upload.filename == f"tweak-game-{ids[0]}.jsonl"
    path = tmp_path / upload.filename
    path.write_bytes(upload.data)
    checker = subprocess.run(
        [sys.executable, "-m", "engine.replay", str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert checker.returncode == 0 and checker.stdout.strip() == "OK", checker.stdout + checker.stderr
    header = path.read_text().splitlines()[0]
    assert '"names":["Ana","Ben"]' in header

    # Ben did: his file comes privately, and the group gets nothing.
    await tg.send(fake.private(ben), ben, "/start")
    in_group = len(fake.messages(group.id))
    answer = await tg.tap(ben, listing, f"⬇️ #{ids[2]}")
    assert answer.text == "Sent to you in our private chat."
    assert len(fake.messages(group.id)) == in_group
    private_file = fake.last_message(ben.id)
    assert private_file.kind == "document"
    lines = private_file.files[0].data.decode().splitlines()
    records = [json.loads(line) for line in lines]
    assert check_records(records) is None
    assert records[0]["ai"] == [None, None, "easy"]  # the engine's level names (engine.ai.LEVELS)

    # Forged keys: a game of another group, and a game that does not exist.
    other = fake.group("Elsewhere")
    await tg.send(other, ana, f"/newgame{BOT}")
    foreign = current_game(rig, other.id)
    for data in (f"dl:{foreign.id}", "dl:999999"):
        before = len(fake.calls)
        answer = await tg.tap_data(ana, listing, data)
        assert answer.show_alert and "no longer exists" in (answer.text or "")
        assert not [c for c in fake.calls[before:] if c.method == "sendDocument"]
    assert not tg.errors


async def test_history_and_top_when_nothing_was_played(rig: BotRig) -> None:
    fake, tg = rig.fake, rig.tg
    ana = fake.user(1, "Ana")
    group = fake.group("New")
    await tg.send(group, ana, f"/history{BOT}")
    empty = fake.last_message(group.id)
    assert "No finished games here yet" in empty.content and not empty.buttons
    await tg.send(group, ana, f"/top{BOT}")
    assert "No finished games yet" in fake.last_message(group.id).content
    await tg.send(group, ana, f"/stats{BOT}")
    assert "No finished games yet" in fake.last_message(group.id).content
    await tg.send(fake.private(ana), ana, "/top")
    assert "in a group" in fake.last_message(ana.id).content


async def test_stats_by_reply_ignore_bots_and_forum_topic_roots(rig: BotRig) -> None:
    fake, tg = rig.fake, rig.tg
    ana, ben = fake.user(1, "Ana"), fake.user(2, "Ben")
    forum = fake.forum("Club", topics={77: "TWEAK!"})
    # In a topic, Telegram makes every message a reply to the topic's creation message.
    root: dict[str, Any] = {
        "message_id": 77,
        "date": 0,
        "chat": forum.to_dict(),
        "from": ben.to_dict(),
        "forum_topic_created": {"name": "TWEAK!", "icon_color": 0},
    }
    data = fake.command_update(forum, ana, f"/stats{BOT}", thread_id=77)
    data["message"]["reply_to_message"] = root
    await tg.process(data)
    answer = fake.last_message(forum.id)
    assert answer.content.startswith("📊 Ana in this group") and answer.message_thread_id == 77
    # A reply to the bot's own message: your own stats, not the bot's.
    data = fake.command_update(forum, ben, f"/stats{BOT}", thread_id=77)
    bot = {"id": 1000, "is_bot": True, "first_name": "TWEAK!"}
    reply = {"message_id": answer.message_id, "date": 0, "chat": forum.to_dict(), "from": bot, "text": "…"}
    data["message"]["reply_to_message"] = reply
    await tg.process(data)
    assert fake.last_message(forum.id).content.startswith("📊 Ben in this group")


async def test_a_replay_sent_in_the_group_has_its_caption_in_the_groups_language(rig: BotRig) -> None:
    fake, tg = rig.fake, rig.tg
    ana, ben = fake.user(1, "Ana", language_code="en"), fake.user(2, "Ben", language_code="en")
    group = fake.group("Amigos")
    gid, _tally = await quick_game(rig, group, [Player(ana, random.Random(5)), Player(ben, random.Random(6))])
    await tg.send(group, ana, f"/language{BOT}")
    await tg.tap(ana, fake.last_message(group.id), "Español")
    await tg.send(group, ana, f"/history{BOT}")
    answer = await tg.tap(ana, fake.last_message(group.id), f"⬇️ #{gid}")  # Ana has no private chat
    assert not answer.show_alert
    document = fake.last_message(group.id)
    assert document.kind == "document"
    assert document.content.startswith(f"🎞 Repetición del juego #{gid}")  # es: a game is "juego"
    assert not tg.errors


def test_chart_labels_fall_back_to_english_where_the_fonts_cannot_draw_them() -> None:
    """A host without CJK fonts draws English labels rather than boxes."""
    from tgbot.render import chart

    english = chart.ChartTexts("Scores per round", "Round", "Points", "Goal 100")
    mixed = chart.ChartTexts("\U000e0001", "Ronda", "Puntos", "Meta 100")  # a tag character: no font has it
    result = chart.legible(mixed, english)
    assert result == chart.ChartTexts("Scores per round", "Ronda", "Puntos", "Meta 100")
