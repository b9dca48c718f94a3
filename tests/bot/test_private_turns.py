"""Private turns in one tap (docs/playing.md, *Private turns* and *The lobby*).

The lobby marks 🔔 each player the bot may write to and says what the others get. While someone
seated has no 🔔, the lobby has a **🔔 Get my turns in private** key: a link to the bot that,
opened, sends ``/start p<game>`` in that person's private chat (as Telegram does: the fake's
``tap_url``). The bot then may write to them, says so naming the game and its group, and the
lobby shows their 🔔. From then on their turn is told in private and the board goes silently.
"""

from __future__ import annotations

import random
from collections import Counter
from datetime import timedelta

from sqlmodel import Session

from tests.bot.conftest import BotRig
from tests.bot.helpers import BOT, board_of, current_game, group_writes, lobby_id, open_private_chats
from tests.bot.players import Player, play_turn, to_move
from tests.bot.test_notifications import notifications
from tests.fakes.telegram import FakeChat, FakeUser, StoredMessage
from tgbot.store.models import User

KEY = "🔔 Get my turns in private"
SOME_LINE = (
    "🔔 = told of their turns in private. The others' turns are called on the board, which notifies "
    "everyone in the chat."
)
ALL_LINE = "🔔 Everyone here is told of their turns in private: the chat stays quiet."
JOINED_WITH_HINT = (
    "You're in! Tap 🔔 Get my turns in private: your turns then come to you in private and the chat "
    "stays quiet."
)
NOT_YOURS = (
    "That link is for the players of a game you're not in (or one that is over), so nothing changed. "
    "Join its lobby with ✋ Join first."
)
UNKNOWN = "I don't know that link, so nothing changed. /help lists what I can do."


def can_dm(rig: BotRig, user: FakeUser) -> bool:
    with Session(rig.deps.db.engine) as session:
        row = session.get(User, user.id)
        return row is not None and row.can_dm


def lobby_now(rig: BotRig, group: FakeChat) -> StoredMessage:
    found = lobby_id(rig, current_game(rig, group.id))
    assert found is not None, "the lobby is not on screen"
    return rig.fake.message(group.id, found)


def seated(lobby: StoredMessage) -> list[str]:
    return [line for line in (lobby.text or "").splitlines() if line.startswith("• ")]


def links(lobby: StoredMessage) -> list[tuple[str, str]]:
    return [(key["text"], key["url"]) for row in lobby.keyboard for key in row if "url" in key]


async def lobby_of_three(rig: BotRig) -> tuple[FakeChat, list[FakeUser], list[str]]:
    """Ana started the bot and opens a lobby in Friends; Ben and Cai, who never did, join.
    Returns the group, the three, and Ben's and Cai's Join popups."""
    fake, tg = rig.fake, rig.tg
    ana, ben, cai = fake.user(1, "Ana"), fake.user(2, "Ben"), fake.user(3, "Cai")
    await open_private_chats(rig, [ana])
    group = fake.group("Friends")
    await tg.send(group, ana, f"/newgame{BOT}")
    lobby = fake.last_message(group.id)
    popups = [str((await tg.tap(user, lobby, "✋ Join")).text) for user in (ben, cai)]
    return group, [ana, ben, cai], popups


async def test_the_lobby_marks_who_is_told_in_private_and_gives_the_others_one_key(rig: BotRig) -> None:
    fake, tg = rig.fake, rig.tg
    group, _people, popups = await lobby_of_three(rig)
    lobby = lobby_now(rig, group)
    game_id = current_game(rig, group.id).id
    assert seated(lobby) == ["• Ana 🔔", "• Ben", "• Cai"]
    assert SOME_LINE in (lobby.text or "").splitlines()
    assert links(lobby) == [(KEY, f"https://t.me/tweak_test_bot?start=p{game_id}")]
    assert popups == [JOINED_WITH_HINT, JOINED_WITH_HINT]  # neither can be written to yet
    dee = fake.user(4, "Dee")
    await open_private_chats(rig, [dee])
    assert (await tg.tap(dee, lobby, "✋ Join")).text == "You're in!"  # she can: nothing to add
    assert seated(lobby_now(rig, group))[-1] == "• Dee 🔔"
    assert not tg.errors


async def test_opening_the_key_turns_private_turns_on_and_brings_the_mark_back(rig: BotRig) -> None:
    tg = rig.tg
    group, (_ana, ben, cai), _popups = await lobby_of_three(rig)
    game_id = current_game(rig, group.id).id
    lobby = lobby_now(rig, group)

    calls = await tg.tap_url(ben, lobby, KEY)

    assert [c.params.get("text") for c in calls if c.method == "sendMessage" and c.chat_id == ben.id] == [
        f"🔔 Done! Your turns in game #{game_id} in <b>Friends</b> will come here, in private, and the chat "
        "stays quiet for them."
    ]
    assert can_dm(rig, ben)
    lobby = lobby_now(rig, group)
    assert seated(lobby) == ["• Ana 🔔", "• Ben 🔔", "• Cai"]
    assert links(lobby) == [(KEY, f"https://t.me/tweak_test_bot?start=p{game_id}")]  # Cai still needs it

    await tg.tap_url(cai, lobby, KEY)

    lobby = lobby_now(rig, group)
    assert seated(lobby) == ["• Ana 🔔", "• Ben 🔔", "• Cai 🔔"]
    assert ALL_LINE in (lobby.text or "").splitlines() and SOME_LINE not in (lobby.text or "")
    assert links(lobby) == []  # nobody needs the key any more
    assert not tg.errors


async def test_a_forged_or_unknown_link_is_answered_and_changes_nothing(rig: BotRig) -> None:
    fake, tg = rig.fake, rig.tg
    group, (_ana, ben, _cai), _popups = await lobby_of_three(rig)
    game_id = current_game(rig, group.id).id
    lobby_text = lobby_now(rig, group).text
    zoe = fake.user(9, "Zoe")
    first = len(fake.calls)

    def answer(user: FakeUser) -> str:
        return str(fake.last_message(user.id).text)

    # Zoe is not at the table: the lobby's link does nothing for her, and names no group.
    await tg.open_link(zoe, f"https://t.me/tweak_test_bot?start=p{game_id}")
    assert answer(zoe) == NOT_YOURS
    await tg.open_link(zoe, f"https://t.me/tweak_test_bot?start=g{game_id}")  # nor does a panel's
    assert answer(zoe) == "That game is not running any more."
    # Ben is: links of no game, a game that does not exist, and no link of the bot's at all.
    for payload, expected in (
        (f"p{game_id + 1}", NOT_YOURS),
        ("p0", UNKNOWN),
        (f"p{2**31}", UNKNOWN),
        ("pxyz", UNKNOWN),
        ("hello", UNKNOWN),
        (f"p{game_id}_", UNKNOWN),
    ):
        await tg.open_link(ben, f"https://t.me/tweak_test_bot?start={payload}")
        assert answer(ben) == expected, payload

    assert group_writes(fake, group.id, first) == []  # the lobby was not redrawn
    assert lobby_now(rig, group).text == lobby_text
    assert not can_dm(rig, zoe) and not can_dm(rig, ben)
    assert not tg.errors


async def test_a_game_over_takes_no_link(rig: BotRig) -> None:
    fake, tg = rig.fake, rig.tg
    group, (ana, ben, _cai), _popups = await lobby_of_three(rig)
    game_id = current_game(rig, group.id).id
    url = links(lobby_now(rig, group))[0][1]
    await tg.tap(ana, lobby_now(rig, group), "✖️ Cancel")
    await tg.open_link(ben, url)  # kept from the lobby, opened after it closed
    assert fake.last_message(ben.id).text == NOT_YOURS
    assert not can_dm(rig, ben)
    assert current_game(rig, group.id).id == game_id and not tg.errors


async def test_a_plain_start_or_a_block_redraws_the_mark(rig: BotRig) -> None:
    """The mark follows what the bot knows, however it learns it: /start sent by hand, or
    Telegram's word that the person blocked or unblocked the bot."""
    fake, tg = rig.fake, rig.tg
    group, (_ana, ben, _cai), _popups = await lobby_of_three(rig)
    await open_private_chats(rig, [ben])
    assert seated(lobby_now(rig, group)) == ["• Ana 🔔", "• Ben 🔔", "• Cai"]
    chat = fake.private(ben)
    await tg.process(fake.my_chat_member_update(chat, ben, "kicked", old_status="member"))
    assert seated(lobby_now(rig, group)) == ["• Ana 🔔", "• Ben", "• Cai"]
    await tg.process(fake.my_chat_member_update(chat, ben, "member", old_status="kicked"))
    assert seated(lobby_now(rig, group)) == ["• Ana 🔔", "• Ben 🔔", "• Cai"]
    assert not tg.errors


async def test_then_their_turn_and_its_reminder_come_in_private_and_the_board_goes_silently(
    rig: BotRig,
) -> None:
    """Ben opens the key in the lobby; Cai does not. On Ben's turns he alone is notified, in
    private (the board in the group is silent), and so is his reminder; Cai's still ring the
    group."""
    fake, tg = rig.fake, rig.tg
    group, table, _popups = await lobby_of_three(rig)
    ana, ben, _cai = table
    await tg.tap_url(ben, lobby_now(rig, group), KEY)
    await tg.tap(ana, lobby_now(rig, group), "▶️ Start")
    players = [Player(u, random.Random(i), use_t_cards=False) for i, u in enumerate(table)]
    woken: dict[str, Counter[str]] = {}
    reminded: dict[str, Counter[str]] = {}
    for _turn in range(12):
        game = current_game(rig, group.id)
        mover = to_move(board_of(rig, game).text or "", players)
        assert mover is not None and game.status == "playing"
        if mover.name not in reminded:
            first = len(fake.calls)
            rig.clock.advance(timedelta(hours=2, minutes=1))  # casual: the first reminder after 2 h
            await tg.run_job("sweep")
            reminded[mover.name] = notifications(fake.calls[first:], group, table)
        first = len(fake.calls)
        await play_turn(tg, fake, board_of(rig, game), mover, private=False)
        after = current_game(rig, group.id)
        nxt = to_move(board_of(rig, after).text or "", players)
        if nxt is not None and after.board_no != game.board_no and nxt.name not in woken:
            woken[nxt.name] = notifications(fake.calls[first:], group, table)
        if {"Ben", "Cai"} <= woken.keys() and {"Ben", "Cai"} <= reminded.keys():
            break
    else:
        raise AssertionError(f"Ben and Cai did not both get a turn: {woken}, {reminded}")
    assert woken["Ben"] == Counter({"Ben": 1})  # a note in private; the board went silently
    assert reminded["Ben"] == Counter({"Ben": 1})
    assert woken["Cai"] == Counter({"Ana": 1, "Ben": 1, "Cai": 1})  # the board's mention rings all
    assert reminded["Cai"] == Counter({"Ana": 1, "Ben": 1, "Cai": 1})
    private = [m.text for m in fake.notifications(ben.id)]
    assert "🔔 Your move in Friends." in private
    assert not tg.errors
