"""The long texts (rules pages, /help, the private /start welcome) in every language."""

from __future__ import annotations

import re
from collections import Counter
from functools import cache
from string import Formatter

import pytest
from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po

from engine.ai import LEVELS
from tgbot.i18n import DEFAULT_LANGUAGE, DOMAIN, LANGUAGES, LOCALES_DIR, _
from tgbot.render.board import COMPUTER_LEVELS
from tgbot.render.lobby import COMPUTER_NAMES
from tgbot.texts import ANYWHERE_HELP, HELP_TEXT, RULES_PAGES, WELCOME_TEXT

PAGE_LIMIT = 1500
HELP_LIMIT = 3000
THRESHOLDS = (140, 120, 100, 80, 60)
POINTS = (5, 4, 3, 2, 1)
ALLOWED_TAGS = {"b", "i"}

TEXTS: dict[str, str] = {
    **{f"rules-{number}": page for number, page in enumerate(RULES_PAGES, start=1)},
    "help": HELP_TEXT,
    "anywhere": ANYWHERE_HELP,
    "welcome": WELCOME_TEXT,
}
ALL_LANGUAGES = list(LANGUAGES)
TRANSLATED_LANGUAGES = [lang for lang in LANGUAGES if lang != DEFAULT_LANGUAGE]

TAG = re.compile(r"<(/?)([A-Za-z]+)>")
ENTITY = re.compile(r"&(amp|lt|gt|quot);")


@cache
def catalog(lang: str) -> Catalog:
    path = LOCALES_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.po"
    with path.open("rb") as fh:
        return read_po(fh, locale=lang)


def placeholders(text: str) -> list[str]:
    return sorted(field for _literal, field, _spec, _conv in Formatter().parse(text) if field is not None)


def tags(text: str) -> Counter[str]:
    return Counter(match.group(0) for match in TAG.finditer(text))


def standalone(number: int, text: str) -> bool:
    return re.search(rf"(?<!\d){number}(?!\d)", text) is not None


def test_rules_are_paged() -> None:
    assert len(RULES_PAGES) >= 5
    assert len(set(RULES_PAGES)) == len(RULES_PAGES)


def test_texts_are_in_the_template() -> None:
    with (LOCALES_DIR / f"{DOMAIN}.pot").open("rb") as fh:
        template = read_po(fh)
    for key, text in TEXTS.items():
        assert template.get(text) is not None, f"{key} is missing from messages.pot: run pybabel extract"


@pytest.mark.parametrize("lang", TRANSLATED_LANGUAGES)
@pytest.mark.parametrize("key", list(TEXTS))
def test_translated(lang: str, key: str) -> None:
    source = TEXTS[key]
    message = catalog(lang).get(source)
    assert message is not None, f"{key} is not in the {lang} catalog: run pybabel update"
    assert message.string, f"{key} has no {lang} translation"
    assert not message.fuzzy, f"the {lang} translation of {key} is fuzzy"
    translated = _(lang, source)
    assert translated.strip()
    assert translated != source


@pytest.mark.parametrize("lang", ALL_LANGUAGES)
@pytest.mark.parametrize("key", list(TEXTS))
def test_placeholders_and_tags_match_english(lang: str, key: str) -> None:
    source = TEXTS[key]
    translated = _(lang, source)
    assert placeholders(translated) == placeholders(source)
    assert tags(translated) == tags(source)


@pytest.mark.parametrize("lang", ALL_LANGUAGES)
@pytest.mark.parametrize("key", list(TEXTS))
def test_valid_telegram_html(lang: str, key: str) -> None:
    text = _(lang, TEXTS[key], bot_name="@TweakBot") if key == "welcome" else _(lang, TEXTS[key])
    open_tags: list[str] = []
    for match in TAG.finditer(text):
        closing, name = match.group(1), match.group(2)
        assert name in ALLOWED_TAGS, f"<{name}> is not allowed"
        if closing:
            assert open_tags and open_tags[-1] == name, f"unbalanced </{name}>"
            open_tags.pop()
        else:
            assert name not in open_tags, f"nested <{name}>"
            open_tags.append(name)
    assert not open_tags, f"unclosed {open_tags}"
    bare = ENTITY.sub("", TAG.sub("", text))
    for char in "<>&":
        assert char not in bare, f"unescaped {char!r}"


@pytest.mark.parametrize("lang", ALL_LANGUAGES)
def test_lengths(lang: str) -> None:
    for number, page in enumerate(RULES_PAGES, start=1):
        size = len(_(lang, page))
        assert size <= PAGE_LIMIT, f"rules page {number} is {size} characters in {lang}"
    size = len(_(lang, HELP_TEXT)) + 2 + len(_(lang, ANYWHERE_HELP, bot="a" * 32))
    assert size <= HELP_LIMIT, f"the help is {size} characters in {lang}"


@pytest.mark.parametrize("lang", ALL_LANGUAGES)
def test_rules_give_thresholds_and_points(lang: str) -> None:
    pages = [_(lang, page) for page in RULES_PAGES]
    for threshold in THRESHOLDS:
        assert any(standalone(threshold, page) for page in pages), f"{threshold} missing in {lang}"
    # The page with the thresholds also has the points table, each value in bold.
    scoring = next(page for page in pages if all(standalone(t, page) for t in THRESHOLDS))
    for value in POINTS:
        assert f"<b>{value}</b>" in scoring, f"{value} points missing in {lang}"


@pytest.mark.parametrize("lang", ALL_LANGUAGES)
def test_welcome_names_the_bot(lang: str) -> None:
    text = _(lang, WELCOME_TEXT, bot_name="@TweakBot")
    assert "@TweakBot" in text
    assert "/newgame" in text


def test_every_computer_level_has_a_name_in_the_bot() -> None:
    """A level the engine adds must be named on the board, in the stats and in the lobby."""
    assert set(COMPUTER_LEVELS) == set(LEVELS)
    assert set(COMPUTER_NAMES) == set(LEVELS)
    for lang in ALL_LANGUAGES:
        assert all(_(lang, COMPUTER_NAMES[level]) for level in LEVELS)
