"""🔁 Rematch under the final standings, through the real bot and the fake Telegram (issue 19)."""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from datetime import timedelta

import pytest
from sqlmodel import Session, col, select

from tests.bot.conftest import BotRig, running_bot
from tests.bot.helpers import BOT, board_of, current_game, drain, game_row, inline_fake, lobby_id, players_of
from tests.bot.pacing_support import sweep_after
from tests.bot.players import Player, play_turn, to_move
from tests.bot.test_inline_table import Table, games, via_bot
from tests.bot.test_inline_table import play_out as play_inline
from tests.fakes.telegram import FakeChat, StoredMessage
from tgbot import callbacks as cb
from tgbot.errors import Refusal, ServiceError
from tgbot.game_settings import Colours, Edition, GameSettings
from tgbot.i18n import LANGUAGES
from tgbot.i18n import _ as translate
from tgbot.pacing import PaceName
from tgbot.render.refusals import refusal
from tgbot.render.results import standings_keys
from tgbot.store.models import Game

MAX_TURNS = 400
OPENED = "🔁 The new lobby is open and you're in. The others join with ✋ Join."
NOT_A_PLAYER = "🔁 Rematch is for the players of this game. Start a new one with /newgame."
LOBBY_OPEN = "A lobby is already open here: tap ✋ Join on it."
RUNNING = "A game is already running here."
OLD = "A newer game has been played here since. Start a new one with /newgame."
INVALID = "That key is not valid any more."
#: A line of the standings: a medal or a place, a name, a total.
STANDING_LINE = re.compile(r"^(🥇|🥈|🥉|\d\.) .+ — \d+$")
#: The key in each language names a rematch (the same table again), in words of its own: not the
#: words the bot uses for a new game or for playing again.
REMATCH_KEYS = {
    "en": "🔁 Rematch",
    "es": "🔁 Revancha",
    "id": "🔁 Tanding ulang",
    "ja": "🔁 再戦",
    "vi": "🔁 Đấu lại",
    "hi": "🔁 रीमैच",
}


async def finished_game(
    rig: BotRig,
    group: FakeChat,
    players: Sequence[Player],
    computers: Sequence[str] = ("Easy",),
    settings: Sequence[str] = (),
    thread: int | None = None,
) -> tuple[int, StoredMessage]:
    """A game to the lowest goal, with these computers and settings keys; its id and standings."""
    fake, tg = rig.fake, rig.tg
    creator = players[0].user
    await tg.send(group, creator, f"/newgame{BOT}", thread_id=thread)
    lobby = fake.last_message(group.id)
    for player in players[1:]:
        await tg.tap(player.user, lobby, "✋ Join")
    await tg.tap(creator, lobby, "⚙️ Settings")
    for level in computers:
        await tg.tap(creator, lobby, f"🤖 {level}")
    game_id = current_game(rig, group.id).id
    for key in settings:
        await tg.tap(creator, lobby, lambda _text, data, key=key: data == f"ln:{game_id}:{key}")
    for _ in range(7):  # down to the lowest goal whatever the player count
        await tg.tap(creator, lobby, "Goal −20")
    await tg.tap(creator, lobby, "↩️ Back")
    await tg.tap(creator, lobby, "▶️ Start")
    for _turn in range(MAX_TURNS):
        game = current_game(rig, group.id)
        if game.status != "playing":
            break
        board = board_of(rig, game)
        player = to_move(board.text or "", list(players))
        assert player is not None, board.text
        await play_turn(tg, fake, board, player, private=False)
    game = current_game(rig, group.id)
    assert game.status == "finished" and game.id == game_id
    standings = [m for m in fake.messages(group.id) if "Game over" in m.content]
    assert len(standings) == 1
    return game_id, standings[0]


def games_in(rig: BotRig, chat_id: int) -> list[Game]:
    with Session(rig.deps.db.engine) as session:
        query = select(Game).where(Game.chat_id == chat_id).order_by(col(Game.id))
        return list(session.exec(query).all())


async def test_a_rematch_opens_a_lobby_for_the_same_table(rig: BotRig) -> None:
    fake, tg = rig.fake, rig.tg
    ana, ben, cai = fake.user(1, "Ana"), fake.user(2, "Ben"), fake.user(3, "Cai")
    group = fake.group("Friends")
    players = [Player(ana, random.Random(3)), Player(ben, random.Random(4))]
    # every setting away from its default: extended, 5 colours, [T!] face down, quick, goal 20
    game_id, standings = await finished_game(
        rig, group, players, ("Easy", "Normal"), ("e:x", "c:5", "f:1", "p:quick")
    )
    finished = game_row(rig, game_id)
    # (4 seats: the automatic goal 100, moved down to the lowest, 20)
    expected = GameSettings(Edition.EXTENDED, Colours.FIVE, None, True, PaceName.QUICK, goal_offset=-80)
    assert GameSettings.from_json(finished.settings) == expected
    # One way to play again under the standings: the key, and no /newgame line beside it.
    assert standings.buttons == [("🔁 Rematch", f"rm:{game_id}")]
    assert "/newgame" not in standings.content
    assert STANDING_LINE.match(standings.content.splitlines()[-1]), standings.content

    # Someone who did not play: refused, nothing opened (decision B15), and told of /newgame in
    # their own language.
    answer = await tg.tap(cai, standings, "🔁 Rematch")
    assert answer.text == NOT_A_PLAYER and not answer.show_alert
    dev = fake.user(4, "Dev", language_code="hi")
    answer = await tg.tap(dev, standings, "🔁 Rematch")
    assert "/newgame" in (answer.text or "") and "रीमैच" in (answer.text or ""), answer.text
    assert len(games_in(rig, group.id)) == 1

    # Ben taps twice at once: one lobby, with him in it.
    updates = [fake.callback_update(ben, standings, f"rm:{game_id}") for _ in "12"]
    await tg.process_many(updates)
    answers = sorted(fake.answers[u["callback_query"]["id"]].text or "" for u in updates)
    assert answers == sorted([OPENED, "You're already in."])
    games = games_in(rig, group.id)
    assert len(games) == 2
    rematch = games[1]
    assert rematch.id is not None and rematch.status == "lobby" and rematch.creator_id == ben.id
    assert rematch.thread_id == finished.thread_id
    assert GameSettings.from_json(rematch.settings) == GameSettings.from_json(finished.settings)
    seats = [(p.seat, p.user_id, p.ai_level) for p in players_of(rig, rematch.id)]
    assert seats == [(0, ben.id, None), (1, None, "easy"), (2, None, "normal")]  # Ana is not seated
    lobby_message = fake.message(group.id, lobby_id(rig, rematch) or 0)
    assert lobby_message.message_id > standings.message_id  # posted at the bottom
    text = lobby_message.content
    assert "• Ben" in text and "• Bot Easy 🤖 Easy" in text and "• Bot Normal 🤖 Normal" in text
    assert "Ana" not in text
    # the goal moved down from the automatic one follows the seats: 3 now (120 − 80), 4 once Ana joins
    assert "Edition: extended · colours: 🟥🟧🟨🟩🟦 · goal: 40 (by player count -80) · pace: quick" in text
    assert "Won [T!] cards are kept face down." in text

    # Ana: the lobby is open, she joins it with one tap.
    assert (await tg.tap(ana, standings, "🔁 Rematch")).text == LOBBY_OPEN
    assert (await tg.tap(ana, lobby_message, "✋ Join")).text.startswith("You're in!")
    assert [p.user_id for p in players_of(rig, rematch.id)] == [ben.id, None, None, ana.id]
    assert "goal: 20 (by player count -80)" in lobby_message.content

    # Started, it is a game like any other, and the old standings are history: they lose the key
    # at once (their rematch is refused from now on, decision B15), keeping their text.
    shown = standings.text
    await tg.tap(ben, lobby_message, "▶️ Start")
    assert game_row(rig, rematch.id).status == "playing"
    assert standings.buttons == [] and standings.text == shown
    # The key from an app that still shows it is refused while the game runs, and once it is over.
    assert (await tg.tap_data(ana, standings, f"rm:{game_id}")).text == RUNNING
    await tg.send(group, ben, f"/cancel{BOT}")
    assert game_row(rig, rematch.id).status == "cancelled"
    assert (await tg.tap_data(ana, standings, f"rm:{game_id}")).text == OLD
    assert len(games_in(rig, group.id)) == 2
    assert not tg.errors


async def test_a_rematch_lobby_expires_like_any_lobby_and_stays_in_its_topic(rig: BotRig) -> None:
    fake, tg = rig.fake, rig.tg
    ana, ben, cai = fake.user(1, "Ana"), fake.user(2, "Ben"), fake.user(3, "Cai")
    forum = fake.forum("Club", topics={11: "Table one", 12: "Table two"})
    game_id, standings = await finished_game(rig, forum, [Player(ana, random.Random(5))], thread=11)
    # a game running in the other topic is no obstacle
    await tg.send(forum, ben, f"/newgame{BOT}", thread_id=12)
    other_lobby = fake.last_message(forum.id)
    await tg.tap(cai, other_lobby, "✋ Join")
    await tg.tap(ben, other_lobby, "▶️ Start")
    elsewhere = current_game(rig, forum.id)
    assert elsewhere.thread_id == 12 and elsewhere.status == "playing"

    assert (await tg.tap(ana, standings, "🔁 Rematch")).text == OPENED
    rematch = current_game(rig, forum.id)
    assert rematch.id not in (game_id, elsewhere.id) and rematch.status == "lobby"
    assert rematch.thread_id == 11
    lobby_message = fake.message(forum.id, lobby_id(rig, rematch) or 0)
    assert lobby_message.message_thread_id == 11
    await sweep_after(rig, timedelta(hours=24))
    assert game_row(rig, rematch.id or 0).status == "expired"
    assert lobby_message.text == (
        "⌛ This lobby closed: nobody started the game in time. Send /newgame to try again."
    )
    assert not lobby_message.buttons
    # Nothing was played in that topic since: the standings' key opens a lobby again.
    assert (await tg.tap(ana, standings, "🔁 Rematch")).text == OPENED
    again = current_game(rig, forum.id)
    assert again.id not in (game_id, rematch.id, elsewhere.id) and again.status == "lobby"
    assert [p.ai_level for p in players_of(rig, again.id or 0)] == [None, "easy"]
    # Forged into another group, the key opens nothing there.
    group = fake.group("Elsewhere")
    await tg.send(group, ana, f"/rules{BOT}")
    answer = await tg.tap_data(ana, fake.last_message(group.id), f"rm:{game_id}")
    assert answer.text == INVALID
    assert games_in(rig, group.id) == []
    assert not tg.errors


async def test_forged_rematch_keys_are_refused(rig: BotRig) -> None:
    fake, tg = rig.fake, rig.tg
    ana, ben = fake.user(1, "Ana"), fake.user(2, "Ben")
    group = fake.group("Friends")
    await tg.send(group, ana, f"/newgame{BOT}")
    lobby_message = fake.last_message(group.id)
    await tg.tap(ben, lobby_message, "✋ Join")
    lobby_game = current_game(rig, group.id)
    # a lobby is no finished game
    assert (await tg.tap_data(ana, lobby_message, f"rm:{lobby_game.id}")).text == INVALID
    await tg.tap(ana, lobby_message, "▶️ Start")
    game = current_game(rig, group.id)
    board = board_of(rig, game)
    # a running game neither, nor a game that does not exist, nor data no key has
    assert (await tg.tap_data(ana, board, f"rm:{game.id}")).text == INVALID
    gone = await tg.tap_data(ben, board, f"rm:{(game.id or 0) + 1000}")
    assert gone.text == "This game no longer exists."
    for data in ("rm:0", "rm:-1", "rm:x", f"rm:{cb.MAX_GAME_ID + 1}", "rm:99999999999", f"rm:{game.id}:1"):
        assert (await tg.tap_data(ana, board, data)).text == INVALID, data
    assert [g.id for g in games_in(rig, group.id)] == [game.id]
    assert game_row(rig, game.id or 0).status == "playing"
    assert not tg.errors


def test_rematch_callback_data_is_strict() -> None:
    assert cb.Rematch(12345).data == "rm:12345"
    assert cb.Rematch.parse("rm:12345") == cb.Rematch(12345)
    assert cb.Rematch.parse(f"rm:{cb.MAX_GAME_ID}") == cb.Rematch(cb.MAX_GAME_ID)
    for forged in ("rm:", "rm:x1", "rm:1:2", "rm:-1", "rm:0", f"rm:{cb.MAX_GAME_ID + 1}", "rm:" + "9" * 13):
        with pytest.raises(cb.BadCallback):
            cb.Rematch.parse(forged)


def test_the_rematch_key_is_named_as_a_rematch_in_every_language() -> None:
    assert sorted(REMATCH_KEYS) == sorted(LANGUAGES)
    for lang, label in REMATCH_KEYS.items():
        assert [[key["text"] for key in row] for row in standings_keys(lang, 1)] == [[label]], lang
        words = label.removeprefix("🔁 ").casefold()
        # the texts that offer a new game never use the key's words
        for english in NEW_GAME_TEXTS:
            assert words not in translate(lang, english).casefold(), (lang, translate(lang, english))


def test_the_refusal_to_someone_who_did_not_play_names_the_key_and_offers_newgame() -> None:
    for lang, label in REMATCH_KEYS.items():
        text = refusal(lang, ServiceError(Refusal.REMATCH_NOT_PLAYER))
        assert "/newgame" in text, (lang, text)
        assert label.removeprefix("🔁 ").casefold() in text.casefold(), (lang, text)


#: Texts that send people to /newgame for a new game.
NEW_GAME_TEXTS = [
    "There is no game here. Start one with /newgame.",
    "You're not in this game. Start your own with /newgame!",
    "A newer game has been played here since. Start a new one with /newgame.",
    "👀 Start a game with /newgame.",
    "⌛ This lobby closed: nobody started the game in time. Send /newgame to try again.",
    "Start a new game in this group",
]


async def test_the_old_standings_lose_the_rematch_key_in_a_chat_without_the_bot(
    db_url: str, seeds: Callable[[], int]
) -> None:
    """Two friends in their own chat, the bot not in it: the standings are their last post, with
    🔁 Rematch (it types the rematch's query). Once the rematch they posted starts, that post
    keeps its standings and loses the key."""
    async with running_bot(db_url, seeds, fake=inline_fake()) as rig:
        fake, tg = rig.fake, rig.tg
        ana, ben = fake.user(1, "Ana"), fake.user(2, "Ben")
        chat = fake.private_between(ana, ben)
        table = Table(rig, chat, [ana, ben])
        await table.post_lobby(ana)
        game = await table.lobby_to_start(ana)
        await play_inline(table, game.id or 0)
        standings = table.live()
        shown = standings.content
        assert [t for t, _d in standings.buttons] == ["🔁 Rematch"]
        listed = await tg.tap_switch_inline(ben, standings, "🔁 Rematch")
        await tg.pick(ben, chat, listed, listed.result_ids[0])
        await drain(rig)
        lobby = table.live()
        await tg.tap(ana, lobby, "✋ Join")
        await drain(rig)
        assert [t for t, _d in standings.buttons] == ["🔁 Rematch"]  # the lobby may still expire
        await tg.tap(ben, lobby, "▶️ Start")
        await drain(rig)
        assert [g.status for g in games(rig)] == ["finished", "playing"]  # (each with a chat id of its own)
        assert standings.buttons == [] and standings.content == shown
        assert [m for m in via_bot(fake, chat) if m.buttons] == [table.live()]
        assert not tg.errors
