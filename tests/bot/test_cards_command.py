"""/cards (issue 61): declared ephemeral in every language's menu, so a person sends it unseen by
the group. Its answer is their own view, ephemeral (`test_typed_in_view.py`); where Telegram
refuses that, the 👀 My hand text goes where only that person reads it, never into the group."""

from __future__ import annotations

import re
from collections import Counter

from tests.bot.conftest import BotRig
from tests.bot.helpers import open_private_chats, players_of, start_game, stored_state
from tgbot.command_menu import EPHEMERAL_COMMANDS, MENU_COMMANDS
from tgbot.i18n import LANGUAGES
from tgbot.render.cards import COLOUR_EMOJI, card

FACE = re.compile("(?:" + "|".join(COLOUR_EMOJI.values()) + ")[1-6]")


def test_cards_is_in_the_menu() -> None:
    assert "cards" in MENU_COMMANDS and set(EPHEMERAL_COMMANDS) == {"cards"}


async def test_the_menu_declares_cards_ephemeral_in_every_language(rig: BotRig) -> None:
    fake = rig.fake
    for code in (None, *LANGUAGES):
        menu = fake.commands(language_code=code)
        ephemeral = {c["command"] for c in menu if c.get("is_ephemeral") is True}
        assert ephemeral == {"cards"}, code


async def test_cards_sent_unseen_where_views_are_refused_answers_in_private_only(rig: BotRig) -> None:
    fake, tg = rig.fake, rig.tg
    ana, ben = fake.user(1, "Ana"), fake.user(2, "Ben")
    group = fake.group("Friends")
    await open_private_chats(rig, [ana])
    game, _board = await start_game(rig, group, ana, [ben])
    assert game.id is not None
    state = stored_state(rig, game.id)
    seat = next(p.seat for p in players_of(rig, game.id) if p.user_id == ana.id)
    group_before = fake.read_chat(group)
    private = fake.private(ana)
    private_before = len(fake.messages(private.id))
    fake.refuse_ephemeral(group)

    await tg.process(fake.ephemeral_command_update(group, ana, "/cards"))

    assert fake.read_chat(group) == group_before  # nothing for the group to see
    assert fake.read_chat(group, ben) == group_before
    answers = fake.messages(private.id)[private_before:]
    assert len(answers) == 1
    text = answers[0].text or ""
    first = text.splitlines()[0]
    assert Counter(FACE.findall(first)) == Counter(card(c) for c in state.hands[seat])
    allowed = {card(c) for c in (*state.hands[seat], *state.table)}
    others = {card(c) for s, hand in enumerate(state.hands) if s != seat for c in hand} - allowed
    assert set(FACE.findall(text)) <= allowed and others.isdisjoint(FACE.findall(text))
    assert not tg.errors


async def test_cards_refused_without_a_private_chat_shows_no_card_in_the_group(rig: BotRig) -> None:
    fake, tg = rig.fake, rig.tg
    ana, ben = fake.user(1, "Ana"), fake.user(2, "Ben")
    group = fake.group("Friends")
    game, _board = await start_game(rig, group, ana, [ben])
    assert game.id is not None
    fake.refuse_ephemeral(group)

    await tg.process(fake.ephemeral_command_update(group, ben, "/cards"))

    said = fake.last_message(group.id).text or ""
    assert "My hand" in said
    assert FACE.findall(said) == []  # no card at all, not even the table's
    assert not tg.errors
