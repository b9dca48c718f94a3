"""The compiled translation catalogs (.mo) the bot reads, and the build step that makes them.

* every supported language has its messages.mo, not older than its messages.po, saying what the
  .po says (else: `make catalogs` or `scripts/i18n.sh --compile`);
* loading them reads no .po file and needs no Babel;
* plural forms follow each catalog's own rule (Spanish and Hindi differ from English at 0);
* the build step (setup.py, build_catalogs) leaves fuzzy entries out: they, and missing or
  untranslated ones, are English at run time; a catalog marked fuzzy as a whole stops the build.
"""

from __future__ import annotations

import gettext
import logging
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog, Message
from babel.messages.pofile import read_po

from tgbot import i18n
from tgbot.i18n import DEFAULT_LANGUAGE, DOMAIN, LANGUAGES, LOCALES_DIR, _, _n, translations

ROOT = Path(__file__).resolve().parents[1]
TRANSLATED = [lang for lang in LANGUAGES if lang != DEFAULT_LANGUAGE]
COMPILE = "make catalogs (or scripts/i18n.sh --compile, or pybabel compile -d tgbot/locales -D messages)"

#: Which plural form each language uses for n (gettext's Plural-Forms, from CLDR).
PLURAL_INDEX: dict[str, dict[int, int]] = {
    "en": {0: 1, 1: 0, 2: 1, 5: 1},
    "es": {0: 2, 1: 0, 2: 2, 5: 2, 1_000_000: 1},
    "hi": {0: 0, 1: 0, 2: 1, 5: 1},
    "id": {0: 0, 1: 0, 2: 0, 5: 0},
    "ja": {0: 0, 1: 0, 2: 0, 5: 0},
    "vi": {0: 0, 1: 0, 2: 0, 5: 0},
}


def po_path(lang: str, locales: Path = LOCALES_DIR) -> Path:
    return locales / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


@cache
def catalog(lang: str) -> Catalog:
    with po_path(lang).open("rb") as fh:
        return read_po(fh, locale=lang)


def forms(message: Message) -> tuple[str, ...]:
    raw = message.string
    return tuple(str(f or "") for f in raw) if isinstance(raw, (tuple, list)) else (str(raw or ""),)


def compiled_text(compiled: gettext.NullTranslations, message: Message) -> str:
    """What a compiled catalog says for a singular message (in its context, if it has one)."""
    if message.context:
        return compiled.pgettext(message.context, str(message.id))
    return compiled.gettext(str(message.id))


@pytest.fixture(autouse=True)
def fresh_translations() -> Iterator[None]:
    """Tests here load catalogs from elsewhere: forget them before and after."""
    translations.cache_clear()
    yield
    translations.cache_clear()


# --- the catalogs the bot reads -----------------------------------------------------------------


def test_every_language_has_a_catalog() -> None:
    assert sorted(p.parent.parent.name for p in LOCALES_DIR.glob(f"*/LC_MESSAGES/{DOMAIN}.po")) == sorted(
        TRANSLATED
    )


@pytest.mark.parametrize("lang", TRANSLATED)
def test_compiled_catalog_exists_and_is_fresh(lang: str) -> None:
    po = po_path(lang)
    mo = po.with_suffix(".mo")
    assert mo.is_file(), f"{mo} is missing, so {lang} would be English: {COMPILE}"
    if po.exists():  # an installed wheel ships only the .mo files
        assert mo.stat().st_mtime >= po.stat().st_mtime, f"{mo} is older than its .po: {COMPILE}"


@pytest.mark.parametrize("lang", TRANSLATED)
def test_compiled_catalog_says_what_the_po_says(lang: str) -> None:
    compiled = translations(lang)
    assert type(compiled) is not gettext.NullTranslations, f"no compiled catalog for {lang}: {COMPILE}"
    stale = []
    for message in catalog(lang):
        if not message.id or message.fuzzy:
            continue
        if isinstance(message.id, (tuple, list)):
            for index, form in enumerate(forms(message)):
                n = next((n for n, i in PLURAL_INDEX[lang].items() if i == index), None)
                if form and n is not None and compiled.ngettext(message.id[0], message.id[1], n) != form:
                    stale.append(repr(message.id[0])[:60])
        elif message.string and compiled_text(compiled, message) != forms(message)[0]:
            stale.append(repr(message.id)[:60])
    assert not stale, f"{lang}: {len(stale)} messages differ from the .po ({COMPILE}): {stale[:5]}"


def test_loading_reads_no_po_file_and_needs_no_babel() -> None:
    """A fresh interpreter: every open() is audited, Babel's .po reader cannot even be imported."""
    probe = textwrap.dedent(
        """
        import sys
        opened = []
        sys.addaudithook(lambda event, args: event == "open" and opened.append(str(args[0])))
        sys.modules["babel.messages.pofile"] = None  # importing it fails
        from tgbot.i18n import LANGUAGES, _, _n
        for lang in LANGUAGES:
            _(lang, "👀 My hand")
            _n(lang, "{n} round", "{n} rounds", 2)
        assert _("es", "👀 My hand") != "👀 My hand"
        read = [path for path in opened if path.endswith((".po", ".pot"))]
        assert not read, read
        mo = [path for path in opened if path.endswith(".mo")]
        assert len(mo) == len(LANGUAGES) - 1, mo
        """
    )
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_plural_forms_come_from_the_catalog(lang: str) -> None:
    """Every plural message, for 0, 1, 2 and 5: the form the language's own rule picks."""
    checked = 0
    for message in catalog(lang) if lang != DEFAULT_LANGUAGE else catalog(TRANSLATED[0]):
        if not message.pluralizable or message.fuzzy:
            continue
        singular, plural = message.id[0], message.id[1]
        texts = (singular, plural) if lang == DEFAULT_LANGUAGE else forms(message)
        if not all(texts):
            continue
        for n, index in PLURAL_INDEX[lang].items():
            assert translations(lang).ngettext(singular, plural, n) == texts[index], (lang, n, singular)
        checked += 1
    assert checked


@pytest.mark.parametrize("lang", TRANSLATED)
def test_plural_rule_table_matches_the_catalog(lang: str) -> None:
    assert catalog(lang).num_plurals == max(PLURAL_INDEX[lang].values()) + 1


def test_a_missing_compiled_catalog_is_english_and_logged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(i18n, "LOCALES_DIR", tmp_path)
    with caplog.at_level(logging.WARNING, logger="tgbot.i18n"):
        assert _("es", "👀 My hand") == "👀 My hand"
        assert _n("es", "{n} round", "{n} rounds", 0) == "0 rounds"
    assert "no compiled catalog" in caplog.text and "es is English" in caplog.text


# --- the build step -----------------------------------------------------------------------------

HEADER = """\
msgid ""
msgstr ""
"Project-Id-Version: tweakbot test\\n"
"Language: {lang}\\n"
"Plural-Forms: {plural_forms}\\n"
"MIME-Version: 1.0\\n"
"Content-Type: text/plain; charset=utf-8\\n"
"Content-Transfer-Encoding: 8bit\\n"

"""

ENTRIES = """\
msgid "👀 My hand"
msgstr "👀 {word}"

#, fuzzy
msgid "✋ Join"
msgstr "✋ FUZZY"

msgid "▶️ Start"
msgstr ""

msgid "{{n}} round"
msgid_plural "{{n}} rounds"
msgstr[0] "{{n}} A"
msgstr[1] "{{n}} B"
{third}
"""

SYNTHETIC = {
    "es": (
        "nplurals=3; plural=(n == 1 ? 0 : n != 0 && n % 1000000 == 0 ? 1 : 2);",
        "Mano",
        'msgstr[2] "{n} C"',
    ),
    "hi": ("nplurals=2; plural=(n > 1);", "हाथ", ""),
}


def build(project: Path) -> subprocess.CompletedProcess[str]:
    """Run the package's build step (setup.py build_catalogs) on the catalogs under `project`."""
    shutil.copy(ROOT / "setup.py", project)
    return subprocess.run(
        [sys.executable, "setup.py", "-q", "build_catalogs"], cwd=project, capture_output=True, text=True
    )


def write_po(project: Path, lang: str, text: str) -> None:
    po = po_path(lang, project / "tgbot" / "locales")
    po.parent.mkdir(parents=True, exist_ok=True)
    po.write_text(text, encoding="utf-8")


@pytest.fixture(scope="module")
def synthetic_build(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Synthetic es and hi catalogs with a distinct text per plural form, built once."""
    project = tmp_path_factory.mktemp("project")
    for lang, (plural_forms, word, third) in SYNTHETIC.items():
        header = HEADER.format(lang=lang, plural_forms=plural_forms)
        write_po(project, lang, header + ENTRIES.format(word=word, third=third))
    done = build(project)
    assert done.returncode == 0, done.stderr
    return project / "build" / "lib" / "tgbot" / "locales"


@pytest.fixture
def built(synthetic_build: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The bot reads the synthetic build's catalogs."""
    monkeypatch.setattr(i18n, "LOCALES_DIR", synthetic_build)
    return synthetic_build


def test_the_build_compiles_into_the_build_directory(built: Path) -> None:
    assert sorted(p.relative_to(built).as_posix() for p in built.rglob("*") if p.is_file()) == [
        "es/LC_MESSAGES/messages.mo",
        "hi/LC_MESSAGES/messages.mo",
    ]
    assert _("es", "👀 My hand") == "👀 Mano"
    assert _("hi", "👀 My hand") == "👀 हाथ"


@pytest.mark.usefixtures("built")
@pytest.mark.parametrize("lang", list(SYNTHETIC))
def test_fuzzy_untranslated_and_missing_entries_are_english(lang: str) -> None:
    assert _(lang, "✋ Join") == "✋ Join"  # fuzzy
    assert _(lang, "▶️ Start") == "▶️ Start"  # untranslated
    assert _(lang, "Not in the catalog {x}", x=1) == "Not in the catalog 1"
    assert _n(lang, "{n} card", "{n} cards", 0) == "0 cards"


@pytest.mark.usefixtures("built")
@pytest.mark.parametrize(
    ("lang", "n", "text"),
    [
        ("es", 0, "0 C"),
        ("es", 1, "1 A"),
        ("es", 2, "2 C"),
        ("es", 5, "5 C"),
        ("es", 1_000_000, "1000000 B"),
        ("hi", 0, "0 A"),  # English says "0 rounds"
        ("hi", 1, "1 A"),
        ("hi", 2, "2 B"),
        ("hi", 5, "5 B"),
        ("en", 0, "0 rounds"),
        ("en", 1, "1 round"),
    ],
)
def test_plural_forms_follow_the_catalogs_rule(lang: str, n: int, text: str) -> None:
    assert _n(lang, "{n} round", "{n} rounds", n) == text


def test_a_catalog_marked_fuzzy_stops_the_build(tmp_path: Path) -> None:
    header = HEADER.format(lang="hi", plural_forms=SYNTHETIC["hi"][0])
    write_po(tmp_path, "hi", "#, fuzzy\n" + header + ENTRIES.format(word="हाथ", third=""))
    done = build(tmp_path)
    assert done.returncode != 0
    assert "marked fuzzy" in done.stderr
