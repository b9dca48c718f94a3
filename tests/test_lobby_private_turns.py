"""The lobby says who is told of their turns in private, in every language: a 🔔 by each person the
bot may write to, a line for the others, and while someone lacks it the key that links to the bot
with ``/start p<game>`` (render/private_turns.py, used by any table's lobby)."""

from __future__ import annotations

import pytest

from tests.test_i18n import ALL_LANGUAGES, TRANSLATED
from tgbot.game_settings import GameSettings
from tgbot.i18n import _
from tgbot.render.board import Player
from tgbot.render.lobby import LobbyView, lobby_keyboard, lobby_text
from tgbot.render.private_turns import private_turns

KEY = "🔔 Get my turns in private"
SOME = (
    "🔔 = told of their turns in private. The others' turns are called on the board, which notifies "
    "everyone in the chat."
)
ALL = "🔔 Everyone here is told of their turns in private: the chat stays quiet."
ANA, BEN = Player("Ana", 1, None, can_dm=True), Player("Ben", 2, None)
COMPUTER = Player("Bot Easy", None, "easy")


def view(*players: Player) -> LobbyView:
    return LobbyView(7, players, GameSettings(), "our_tweak_bot")


def links(lang: str, lobby: LobbyView) -> list[tuple[str, str]]:
    return [(key["text"], key["url"]) for row in lobby_keyboard(lang, lobby) for key in row if "url" in key]


@pytest.mark.parametrize("lang", ALL_LANGUAGES)
def test_a_mark_by_each_person_told_in_private_and_a_line_for_the_others(lang: str) -> None:
    lines = lobby_text(lang, view(ANA, BEN, COMPUTER)).splitlines()
    seated = [line for line in lines if line.startswith("• ")]
    assert seated[0] == "• Ana 🔔" and seated[1] == "• Ben"
    assert "🔔" not in seated[2]  # a computer is told nothing
    assert _(lang, SOME) in lines and _(lang, ALL) not in lines
    assert links(lang, view(ANA, BEN, COMPUTER)) == [(_(lang, KEY), "https://t.me/our_tweak_bot?start=p7")]
    if lang in TRANSLATED:
        assert _(lang, SOME) != SOME and _(lang, KEY) != KEY


@pytest.mark.parametrize("lang", ALL_LANGUAGES)
def test_when_everyone_is_told_in_private_the_lobby_says_so_and_needs_no_key(lang: str) -> None:
    both = view(ANA, Player("Ben", 2, None, can_dm=True), COMPUTER)
    lines = lobby_text(lang, both).splitlines()
    assert _(lang, ALL) in lines and _(lang, SOME) not in lines
    assert "• Ben 🔔" in lines
    assert links(lang, both) == []


def test_a_table_with_no_person_seated_has_neither_line_nor_key() -> None:
    assert private_turns("en", 7, (COMPUTER,), "our_tweak_bot") == private_turns("en", 7, (), "b")
    assert private_turns("en", 7, (), "b").line is None and private_turns("en", 7, (), "b").key is None


INLINE = (
    "🔔 = told of their turns in private. Nobody else is told of their turns: here the bot can only "
    "edit the board, and an edit notifies nobody."
)


@pytest.mark.parametrize("lang", ALL_LANGUAGES)
def test_a_lobby_in_a_chat_without_the_bot_says_the_others_are_told_nothing(lang: str) -> None:
    """There the board is only ever edited, which notifies nobody: no board rings the chat."""
    inline = LobbyView(7, (ANA, BEN), GameSettings(), "our_tweak_bot", inline=True)
    lines = lobby_text(lang, inline).splitlines()
    assert _(lang, INLINE) in lines and _(lang, SOME) not in lines
    assert links(lang, inline) == [(_(lang, KEY), "https://t.me/our_tweak_bot?start=p7")]
    everyone = LobbyView(7, (ANA,), GameSettings(), "our_tweak_bot", inline=True)
    assert _(lang, ALL) in lobby_text(lang, everyone).splitlines()
    if lang in TRANSLATED:
        assert _(lang, INLINE) != INLINE
