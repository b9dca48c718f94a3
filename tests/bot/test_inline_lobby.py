"""The lobby of a game in a chat the bot is not in (inline mode): whose it is, and who will be
told of their turns.

There every game message is an edit of a person's post, and an edit notifies nobody: a player is
told of their turn only in private, so only once they started the bot. Joining such a table
opens the bot's chat with the lobby's ``/start p<game>`` link (the Join's answer carries it: the
one link answerCallbackQuery may open, and only when the answer has no text), and the lobby says
plainly that the others are told nothing.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable

import pytest

from tests.bot.conftest import BotRig, running_bot
from tests.bot.helpers import drain, game_row, inline_fake, open_private_chats, players_of, state_of
from tests.bot.test_inline_table import Table, _user_of, games

INLINE_LINE = (
    "🔔 = told of their turns in private. Nobody else is told of their turns: here the bot can only "
    "edit the board, and an edit notifies nobody."
)
GROUP_CLAIM = "notifies everyone in the chat"


@pytest.fixture
async def rig(db_url: str, seeds: Callable[[], int]) -> AsyncIterator[BotRig]:
    async with running_bot(db_url, seeds, fake=inline_fake()) as bot:
        yield bot


def seated(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("• ")]


async def test_joining_opens_the_bot_and_brings_the_players_turns_to_them_in_private(rig: BotRig) -> None:
    fake, tg = rig.fake, rig.tg
    ana, bea, cy, dee = fake.user(1, "Ana"), fake.user(2, "Bea"), fake.user(3, "Cy"), fake.user(4, "Dee")
    await open_private_chats(rig, [ana, dee])  # Bea and Cy never started the bot
    club = fake.group("Club", with_bot=False)
    table = Table(rig, club, [ana, bea, cy, dee])
    lobby = await table.post_lobby(ana)
    gid = games(rig)[-1].id

    # Bea's Join seats her and opens her chat with the bot at the lobby's link: no text, which
    # would show instead of the link.
    joined = await tg.tap(bea, lobby, "✋ Join")
    assert (joined.url, joined.text) == (f"https://t.me/tweak_test_bot?start=p{gid}", None)
    await drain(rig)
    assert seated(lobby.content) == ["• Ana 🔔", "• Bea"]
    # The lobby says what the others get: nothing, not a board that rings the chat.
    assert INLINE_LINE in lobby.content.splitlines() and GROUP_CLAIM not in lobby.content

    await tg.follow(bea, joined)  # she presses Start in the bot's chat
    await drain(rig)
    assert [m.text for m in fake.messages(bea.id)] == [
        f"🔔 Done! Your turns in game #{gid} in TWEAK! with Ana, Bea will come here, in private, and the "
        "chat stays quiet for them."
    ]
    assert seated(lobby.content) == ["• Ana 🔔", "• Bea 🔔"]

    # Dee, who started the bot, is simply in; Cy is given the link and does not open it.
    dee_joined = await tg.tap(dee, lobby, "✋ Join")
    assert (dee_joined.text, dee_joined.url) == ("You're in!", None)
    cy_joined = await tg.tap(cy, lobby, "✋ Join")
    assert cy_joined.url == f"https://t.me/tweak_test_bot?start=p{gid}"
    await drain(rig)
    assert seated(lobby.content) == ["• Ana 🔔", "• Bea 🔔", "• Dee 🔔", "• Cy"]
    assert INLINE_LINE in lobby.content.splitlines()

    # In the game Bea is told of her turns in private; Cy, who never opened the bot, is not.
    game_id = (await table.lobby_to_start(ana)).id or 0
    movers: set[str] = set()
    for _turn in range(12):
        mover = _user_of(rig, game_id, state_of(game_row(rig, game_id)).current)
        movers.add(next(p.first_name for p in table.people if p.id == mover))
        if {"Bea", "Cy"} <= movers:
            break
        await table.play_turn(game_id)
    assert {"Bea", "Cy"} <= movers
    assert "🔔 Your move in TWEAK! with Ana, Bea, Dee, Cy." in [m.text for m in fake.notifications(bea.id)]
    assert fake.messages(cy.id) == [] and not tg.errors


async def test_a_lobby_forwarded_before_its_first_tap_stays_the_lobby_of_its_chat(rig: BotRig) -> None:
    """Telegram drops callback keys from a forward (TDLib's ``fix_forwarded_message`` keeps a
    forward's keyboard only when every key is a link, a login link, or on a message via a bot a
    switch to inline mode; its server adds none), so a copy of the lobby elsewhere has nothing to
    tap. The lobby stays its chat's: every key there works, ▶️ Start included."""
    fake, tg = rig.fake, rig.tg
    ana, ben, eve = fake.user(1, "Ana"), fake.user(2, "Ben"), fake.user(5, "Eve")
    chat = fake.private_between(ana, ben)
    other = fake.private_between(ana, eve)
    table = Table(rig, chat, [ana, ben])
    lobby = await table.post_lobby(ana)

    copy = await tg.forward(ana, lobby, other)  # shared before anyone tapped it

    assert (copy.buttons, copy.inline_message_id) == ([], None)
    with pytest.raises(AssertionError, match="neither the bot's nor an inline message"):
        fake.callback_update(eve, copy, lobby.buttons[0][1])
    game = await table.lobby_to_start(ana)
    assert game.status == "playing" and game.chat_instance == fake.chat_instance(chat.id)
    assert [p.user_id for p in players_of(rig, game.id or 0)] == [ana.id, ben.id]
