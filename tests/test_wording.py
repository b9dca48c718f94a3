"""Texts as native speakers read them (issue 19): one word for one thing, two things never one word.

What a machine can check of it: the keys of a screen never read the same, a language calls a tap
by one verb, and the wordings readers found wrong do not come back. The rest (natural phrasing)
is docs/glossary.md's, read by people.
"""

from __future__ import annotations

import re
from collections import Counter
from datetime import timedelta
from pathlib import Path

import pytest

from engine.cards import TKind
from tests.test_i18n import ALL_LANGUAGES, KEY_WIDTH, ROW_WIDTH, TRANSLATED, catalog, forms, template_messages
from tgbot.game_settings import Colours, Edition, GameSettings
from tgbot.i18n import _
from tgbot.pacing import PaceName, custom_pace
from tgbot.render import lobby
from tgbot.render.board import Player
from tgbot.render.cards import t_label

#: The verb each language uses for tapping a key (a pattern, lower case). Spanish "toca" already
#: means "it's your turn" ("te toca"), so a key is "pulsado"; Vietnamese says "bấm", not "chạm".
TAP_VERBS = {"es": r"puls", "id": r"ketuk|mengetuk", "ja": r"タップ", "vi": r"bấm", "hi": r"दबा"}

#: Wordings readers found wrong, which must not come back.
AVOID = {
    "vi": [
        "chạm",  # one verb for a tap: "bấm"
        "trong <b>{chat}</b>",  # a chat by its name is "ở {chat}"
        "nhóm <b>{chat}</b>",  # not always a group: a private chat, or "TWEAK! với Ana, Bea"
        "lại chờ",  # /back: the bot stops playing the turns; turns wait for nobody
    ],
    "ja": [
        # quiet hours hold reminders back until they end; they are not dropped
        "リマインダーを送らず",
        "リマインダーを送らない",
        "ターンを失い",  # a turn lost is 1回休み
    ],
    "es": [
        "esperarme",  # /back: "mis turnos vuelven a esperarme", word for word
        "esperarte",
        "gana la carta",  # a [T!] card won in a move report: "se lleva", not "gana" (the game)
        "sigues este juego",  # "Ahora juegas desde el tablero del grupo"
        "empieza la partida",  # the lobby starts the game ("el juego"); a "partida" is a round
    ],
    "id": ["menungguku", "menunggumu lagi"],  # /back: "giliranku menungguku lagi", word for word
    "hi": [
        "बॉट आसान",  # the adjective first: "आसान बॉट"
        "बॉट सामान्य",
        "बॉट कठिन",
        "{t} जीता",  # reads as the card winning: "{t} कार्ड मिला"
        "टर्न छूटा ·",  # a move report is a sentence with a verb
        "खेल भर चुका",  # the table is full: its seats are
        "कार्ड लिए",  # a count no plural form gives: "{n} कार्ड लेकर हाथ भरा गया" (n may be 1)
        "टर्न लक्ष्य",  # "this turn's target": "इस टर्न का लक्ष्य", "इस टर्न में लक्ष्य"
        "सभी ग्रुप में",  # all groups: "सभी ग्रुपों में"
    ],
}


def words(label: str) -> str:
    """A key's words as a reader tells keys apart: without the ✅ of a ticked choice and the
    emoji in front, case aside ("🤖 Normal" and a pace called "normal" read the same)."""
    return re.sub(r"^(✅ )?[^\w\[]+", "", label).strip().casefold()


@pytest.mark.parametrize("lang", ALL_LANGUAGES)
def test_no_two_keys_of_a_lobby_screen_read_the_same(lang: str) -> None:
    """Every key of the lobby and of its settings does something else, so no two may carry the
    same words: in Japanese the colours' and the goal's "auto" were both 自動."""
    custom = custom_pace(timedelta(minutes=30), timedelta(hours=2))
    everything_auto = GameSettings()
    everything_set = GameSettings(Edition.EXTENDED, Colours.FOUR, 100, True, PaceName.SLOW)
    for settings in (everything_auto, everything_set):
        view = lobby.LobbyView(1, (Player("Ana", 1, None),), settings)
        for screen in (lobby.lobby_keyboard(lang, view), lobby.settings_keyboard(lang, view, custom)):
            labels = [words(key["text"]) for row in screen for key in row]
            twice = [label for label, count in Counter(labels).items() if count > 1]
            assert not twice, f"{lang}: {twice} on one screen ({settings})"


@pytest.mark.parametrize("lang", TRANSLATED)
def test_a_language_calls_a_tap_by_one_verb(lang: str) -> None:
    said = [m for m in template_messages() if isinstance(m.id, str) and re.search(r"\b[Tt]ap\b", m.id)]
    assert len(said) > 5
    for message in said:
        text = _(lang, str(message.id)).casefold()
        assert re.search(TAP_VERBS[lang], text), f"{lang}: {text[:120]!r} does not say {TAP_VERBS[lang]!r}"


@pytest.mark.parametrize("lang", sorted(AVOID))
def test_wordings_found_wrong_stay_gone(lang: str) -> None:
    for message in catalog(lang):
        for text in forms(message):
            found = [word for word in AVOID[lang] if word in text.casefold()]
            assert not found, f"{lang}: {found} in {text[:120]!r}"


@pytest.mark.parametrize("lang", ALL_LANGUAGES)
def test_the_colours_auto_key_says_it_is_about_colours(lang: str) -> None:
    """The key stands alone in its row above 3🎨 4🎨 5🎨 6🎨: a bare "Auto" does not say what it
    sets. It names the colours with the lobby's own word for them."""
    lobby_line = _(lang, "Edition: {edition} · colours: {colours} · goal: {goal} · pace: {pace}")
    found = re.search(r"(\w+)\s*[:：]\s*\{colours\}", lobby_line)
    assert found, lobby_line
    assert found.group(1).casefold() in _(lang, "Auto colours").casefold()


# --- the glossary ----------------------------------------------------------------------------

GLOSSARY = Path(__file__).resolve().parents[1] / "docs" / "glossary.md"
#: A glossary key list's item that names a key: it starts with the key's emoji.
EMOJI_LED = re.compile(r"^[^\w\[(]")


def glossary_keys(lang: str) -> list[str]:
    """The emoji-led labels of a language's "Keys:" list in docs/glossary.md (its section is the
    one whose heading ends "(lang) — sheet …")."""
    text = GLOSSARY.read_text(encoding="utf-8")
    section = re.search(rf"^## .*\({lang}\).*?$(.*?)(?=^## |\Z)", text, re.M | re.S)
    assert section, f"no {lang} section in the glossary"
    listed = re.search(r"^Keys: (.*?)\.\n\n", section.group(1), re.M | re.S)
    assert listed, f"no Keys: list in the glossary's {lang} section"
    items = re.split(r" · | / |; ", " ".join(listed.group(1).split()))
    labels = [re.sub(r"^in the inline list |\s*\(\w+\)$", "", item) for item in items]
    return [label for label in labels if EMOJI_LED.match(label)]


@pytest.mark.parametrize("lang", TRANSLATED)
def test_the_glossary_lists_only_keys_that_exist(lang: str) -> None:
    """Every key the glossary names is a label the bot shows in that language: a translated key
    or a [T!] card's key (its emoji and name); keys gone from the bot leave the glossary too."""
    shown = {text for message in catalog(lang) for text in forms(message)}
    shown |= {t_label(lang, kind) for kind in TKind}
    listed = glossary_keys(lang)
    assert len(listed) > 20
    gone = [label for label in listed if label not in shown]
    assert not gone, f"{lang}: the glossary lists keys the bot does not show: {gone}"


def test_the_glossary_states_the_key_limits_the_tests_check() -> None:
    text = " ".join(GLOSSARY.read_text(encoding="utf-8").split())
    assert f"A row takes at most **{ROW_WIDTH}** columns and one key at most **{KEY_WIDTH}**" in text
