"""Every message in every language.

* the template (messages.pot) holds every string marked in tgbot/, and every catalog holds the
  template, translated (no empty or fuzzy entries, every plural form);
* translations keep the {placeholders} (with their format specs), the HTML tags and the emoji;
* the names of the keys are the ones /help, the lobby and the popups tell people to tap;
* with worst-case names and numbers, no popup exceeds 200 characters and no message 4,096 in any
  language (counted in UTF-16 code units, like Telegram), rendering the real functions;
* an unknown language code falls back to English.

Refresh the catalogs with scripts/i18n.sh, then translate what it added.
"""

from __future__ import annotations

import ast
import re
import unicodedata
from collections import Counter
from collections.abc import Iterator
from dataclasses import replace
from datetime import datetime, timedelta
from functools import cache
from itertools import chain, product
from pathlib import Path
from string import Formatter
from typing import Any

import pytest
from babel.messages.catalog import Catalog, Message
from babel.messages.pofile import read_po

from engine import GameConfig, GameState, new_game, public_view, seat_view
from engine.actions import encode
from engine.cards import ALL_CARDS
from engine.events import (
    Discarded,
    Event,
    GameEnded,
    LostTurn,
    RoundEnded,
    Skipped,
    Summed,
    TPlayed,
)
from engine.game import t_actions
from tgbot.callbacks import MAX_BYTES, MAX_GAME_ID
from tgbot.errors import Refusal, ServiceError
from tgbot.game_settings import Colours, Edition, GameSettings
from tgbot.i18n import DEFAULT_LANGUAGE, DOMAIN, LANGUAGES, LOCALES_DIR, _, _n, _p, normalize
from tgbot.pacing import Pace, PaceName, custom_pace, pace_keys
from tgbot.render import board, glance, hand_view, info, lobby, results, stats
from tgbot.render.cards import COLOUR_NAMES, T_NAMES
from tgbot.render.keys import Keyboard
from tgbot.render.refusals import ILLEGAL_TEXT, refusal
from tgbot.render.stats import HistoryEntry, HistorySeat
from tgbot.services.context import SeatInfo
from tgbot.texts import HELP_TEXT, RULES_PAGES, WELCOME_TEXT

ALL_LANGUAGES = list(LANGUAGES)
TRANSLATED = [lang for lang in LANGUAGES if lang != DEFAULT_LANGUAGE]
SOURCE = Path(__file__).resolve().parents[1] / "tgbot"

POPUP_LIMIT = 200
MESSAGE_LIMIT = 4096

PLACEHOLDER = re.compile(r"\{[^{}]*\}")
HTML_TAG = re.compile(r"</?[a-zA-Z][^>]*>")
ENTITY = re.compile(r"&(?:lt|gt|amp|quot|#\d+);")


# --- catalogs ---------------------------------------------------------------------------------


@cache
def template() -> Catalog:
    with (LOCALES_DIR / f"{DOMAIN}.pot").open("rb") as fh:
        return read_po(fh)


@cache
def catalog(lang: str) -> Catalog:
    with (LOCALES_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.po").open("rb") as fh:
        return read_po(fh, locale=lang)


def template_messages() -> Iterator[Message]:
    return (m for m in template() if m.id)


def forms(message: Message) -> tuple[str, ...]:
    raw = message.string
    return tuple(str(f or "") for f in raw) if isinstance(raw, (tuple, list)) else (str(raw or ""),)


def source_text(message: Message) -> str:
    """The English text a translation is compared with (the plural form for plural messages)."""
    return str(message.id[1]) if isinstance(message.id, (tuple, list)) else str(message.id)


def label(message: Message) -> str:
    return repr(message.id[0] if isinstance(message.id, (tuple, list)) else message.id)[:90]


def placeholders(text: str) -> Counter[str]:
    return Counter(PLACEHOLDER.findall(text))


def html_tags(text: str) -> Counter[str]:
    return Counter(HTML_TAG.findall(text))


def emoji(text: str) -> Counter[str]:
    return Counter(ch for ch in text if unicodedata.category(ch) == "So")


def marked_strings() -> set[str]:
    """Literal strings of every _(lang, "..."), _n(lang, "...", "...", n), _p(lang, "context",
    "...") and M_("...") in tgbot/."""
    positions = {"_": (1,), "_n": (1, 2), "_p": (2,), "M_": (0,)}
    found: set[str] = set()
    for path in sorted(SOURCE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in positions:
                for index in positions[node.func.id]:
                    if index < len(node.args):
                        arg = node.args[index]
                        if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                            found.add(arg.value)
    return found


def test_template_has_every_marked_string() -> None:
    known = {part for m in template_messages() for part in (m.id if isinstance(m.id, tuple) else (m.id,))}
    missing = sorted(marked_strings() - known)
    assert not missing, f"not in messages.pot (run scripts/i18n.sh): {missing[:10]}"


@pytest.mark.parametrize("lang", TRANSLATED)
def test_catalog_holds_the_template(lang: str) -> None:
    missing = [label(m) for m in template_messages() if catalog(lang).get(m.id, m.context) is None]
    assert not missing, f"{lang} catalog lacks {len(missing)} messages (run scripts/i18n.sh): {missing[:5]}"


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_message_is_translated(lang: str) -> None:
    cat = catalog(lang)
    problems = []
    for message in template_messages():
        translated = cat.get(message.id, message.context)
        if translated is None:
            continue  # reported by test_catalog_holds_the_template
        texts = forms(translated)
        if translated.fuzzy:
            problems.append(f"fuzzy: {label(message)}")
        elif not all(texts):
            problems.append(f"untranslated: {label(message)}")
        elif isinstance(message.id, (tuple, list)) and len(texts) != cat.num_plurals:
            problems.append(f"{len(texts)} plural forms instead of {cat.num_plurals}: {label(message)}")
    assert not problems, f"{len(problems)} problems in {lang}:\n" + "\n".join(problems[:20])


@pytest.mark.parametrize("lang", TRANSLATED)
def test_placeholders_tags_and_emoji_are_kept(lang: str) -> None:
    cat = catalog(lang)
    problems = []
    for message in template_messages():
        translated = cat.get(message.id, message.context)
        if translated is None or translated.fuzzy:
            continue
        english = source_text(message)
        for text in forms(translated):
            if not text:
                continue
            for what, count in (("placeholders", placeholders), ("tags", html_tags), ("emoji", emoji)):
                if count(text) != count(english):
                    problems.append(f"{what} {dict(count(text))} != {dict(count(english))}: {label(message)}")
    assert not problems, f"{len(problems)} problems in {lang}:\n" + "\n".join(problems[:20])


def sample_value(spec: str) -> Any:
    return 7 if spec.endswith("d") else "x"


@pytest.mark.parametrize("lang", ALL_LANGUAGES)
def test_every_translation_formats(lang: str) -> None:
    for message in template_messages():
        texts = [source_text(message)]
        translated = catalog(lang).get(message.id, message.context) if lang != DEFAULT_LANGUAGE else None
        if translated is not None:
            texts += [t for t in forms(translated) if t]
        for text in texts:
            fields = {
                name: sample_value(spec or "") for _l, name, spec, _c in Formatter().parse(text) if name
            }
            text.format(**fields)  # raises on a broken brace or format spec


# --- fallback ---------------------------------------------------------------------------------


@pytest.mark.parametrize("code", ["xx", "pt-BR", "pt", "zz-ZZ", "", None, "EN"])
def test_unknown_language_falls_back_to_english(code: str | None) -> None:
    assert normalize(code) == "en"
    assert _(code or "", "👀 My hand") == "👀 My hand"
    assert _(code or "", "Language: {name}", name="X") == "Language: X"
    assert _n(
        code or "", "🏆 <b>Game over</b> after {n} round", "🏆 <b>Game over</b> after {n} rounds", 3
    ) == ("🏆 <b>Game over</b> after 3 rounds")


@pytest.mark.parametrize(("code", "lang"), [("es-419", "es"), ("ja-JP", "ja"), ("HI", "hi"), ("id_ID", "id")])
def test_regional_codes_use_their_language(code: str, lang: str) -> None:
    assert normalize(code) == lang
    assert _(code, "👀 My hand") == _(lang, "👀 My hand") != "👀 My hand"


def test_a_message_missing_from_a_catalog_is_english() -> None:
    assert _("ja", "Not in any catalog {x}", x=1) == "Not in any catalog 1"


@pytest.mark.parametrize("lang", TRANSLATED)
def test_plural_forms_follow_the_language(lang: str) -> None:
    one = _n(lang, "🏆 <b>Game over</b> after {n} round", "🏆 <b>Game over</b> after {n} rounds", 1)
    many = _n(lang, "🏆 <b>Game over</b> after {n} round", "🏆 <b>Game over</b> after {n} rounds", 5)
    assert "1" in one and "5" in many and "round" not in many


# --- the same names everywhere ----------------------------------------------------------------

#: The practice table's texts that name its keys.
PRACTICE_HOW = (
    "You against the computer: add {low} to {high} computer players with 🤖 Add computer "
    "(Easy, Normal or Hard in ⚙️ Settings), then tap ▶️ Start."
)
PRACTICE_REMATCH = "🔁 A new practice game with the same computers: tap ▶️ Start."
NO_COMPUTER = "Add a computer player first: 🤖 Add computer, or Easy, Normal or Hard in ⚙️ Settings."

#: Key label -> the texts that tell people to tap it (they must use the key's translated name).
KEY_MENTIONS: dict[str, list[str]] = {
    "✋ Join": [
        HELP_TEXT,
        "Tap Join to play ({low}–{high} players).",
        "A lobby is already open here: tap ✋ Join on it.",
        "🔁 The new lobby is open and you're in. The others join with ✋ Join.",
    ],
    "🚪 Leave": [HELP_TEXT],
    "▶️ Start": [HELP_TEXT, PRACTICE_HOW, PRACTICE_REMATCH],
    "⚙️ Settings": [
        HELP_TEXT,
        "Use the ⚙️ Settings key of the lobby.",
        "Not enough cards for this many players: pick more colours in Settings.",
        PRACTICE_HOW,
        NO_COMPUTER,
    ],
    "🤖 Add computer": [HELP_TEXT, PRACTICE_HOW, NO_COMPUTER],
    "👀 My hand": [HELP_TEXT, "👀 Tap My hand on the board: your cards show to you alone."],
    "🎯 Play": ["⚠️ {name}, that pick came from an old list: nothing was played. Tap 🎯 Play again."],
    "📱 Panel": [HELP_TEXT, WELCOME_TEXT],
    "✅ Claim": [HELP_TEXT, "{expr} = {total} ✅ Tap Claim!"],
    "🗑 Discard": [HELP_TEXT],
    "↩️ Clear": [HELP_TEXT],
    "➕ Add to a group": [WELCOME_TEXT],
    "🔔 Get my turns in private": [
        "You're in! Tap 🔔 Get my turns in private: your turns then come to you in private and "
        "the chat stays quiet."
    ],
}


def key_name(text: str) -> str:
    """'✅ Claim' -> 'Claim': the key's words without its emoji."""
    return re.sub(r"^\W+", "", text).strip()


@pytest.mark.parametrize("lang", ALL_LANGUAGES)
@pytest.mark.parametrize("key", list(KEY_MENTIONS))
def test_key_names_match_the_texts_that_mention_them(lang: str, key: str) -> None:
    name = key_name(_(lang, key))
    assert name
    for text in KEY_MENTIONS[key]:
        assert name in _(lang, text), f"{lang}: {name!r} is not in {_(lang, text)[:80]!r}…"


@pytest.mark.parametrize("lang", ALL_LANGUAGES)
def test_card_names_match_the_rules(lang: str) -> None:
    rules = "\n".join(_(lang, page) for page in RULES_PAGES)
    for kind, english in T_NAMES.items():
        assert _(lang, english) in rules, f"{lang}: [T!] {kind} is {_(lang, english)!r}, not in the rules"
    for colour, english in COLOUR_NAMES.items():
        assert _(lang, english) in rules, f"{lang}: colour {colour} is {_(lang, english)!r}, not in the rules"


@pytest.mark.parametrize("lang", ALL_LANGUAGES)
def test_help_names_the_t_cards_as_their_keys_do(lang: str) -> None:
    """The help tells how to play a [T!] card by its key, which carries the card's name."""
    for kind, english in T_NAMES.items():
        assert _(lang, english) in _(lang, HELP_TEXT), f"{lang}: the help does not name the {kind}"


@pytest.mark.parametrize("lang", TRANSLATED)
def test_board_keys_are_translated(lang: str) -> None:
    for key in ("✅ Claim", "🗑 Discard", "↩️ Clear", "👀 My hand", "✋ Join", "▶️ Start", "🔁 Rematch"):
        assert _(lang, key) != key
        assert emoji(_(lang, key)) == emoji(key)


# --- worst-case sizes -------------------------------------------------------------------------

#: Six names Telegram allows (64 characters): wide, astral (2 UTF-16 units each), long Hindi,
#: HTML-escaped, emoji and plain.
NAMES = [
    "Ｗ" * 64,
    "𝕎" * 64,
    ("अनन्तपद्मनाभस्वामी " * 4)[:64],
    "<&>" * 21 + "x",
    "😀" * 64,
    "W" * 64,
]
HOLDING = ["thief"] * 5 + ["joker"] * 5 + ["shifter"] * 5 + ["bomb"] * 2
NOW = datetime(2030, 1, 1)


def utf16(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def visible(html: str) -> int:
    """What Telegram counts of an HTML message: tags removed, each entity one character."""
    return utf16(ENTITY.sub("&", HTML_TAG.sub("", html)))


def worst_state(current: int = 0) -> GameState:
    state = new_game(GameConfig(players=6, edition="extended"), seed=7)
    cards = list(ALL_CARDS)
    state.table = cards[:30]
    state.hands = [cards[30 + 3 * s : 33 + 3 * s] for s in range(6)]
    state.deck = cards[48:]
    state.piles = [cards[:40] for _s in range(6)]
    state.holdings = [list(HOLDING) for _s in range(6)]
    state.used_t = [list(HOLDING) for _s in range(6)]
    state.totals = [987 - 11 * s for s in range(6)]
    state.round, state.turn, state.current, state.joker = 99, 9999, current, -1
    return state


def worst_seats(lang: str) -> list[SeatInfo]:
    return [
        SeatInfo(
            seat=s,
            user_id=None if s == 1 else 9_000_000_000 + s,
            name=NAMES[s],
            ai_level="hard" if s == 1 else None,
            away=s == 3,
            left=s == 2,
            can_dm=True,
            language=lang,
        )
        for s in range(6)
    ]


def worst_players() -> tuple[board.Player, ...]:
    return tuple(
        board.Player(s.name, s.user_id, s.ai_level, s.left, s.away) for s in worst_seats(DEFAULT_LANGUAGE)
    )


def worst_settings(face_down: bool = False) -> GameSettings:
    return GameSettings(Edition.EXTENDED, Colours.SIX, 300, face_down=face_down, pace=PaceName.RELAXED)


def worst_table(state: GameState, viewer: int | None, face_down: bool = False) -> board.Table:
    """The biggest ids a key can carry, the longest chat title; the mover's [T!] plays on view."""
    visible = viewer == state.current or (viewer is None and not face_down)
    return board.Table(
        game_id=MAX_GAME_ID,
        version=9_999_999_999,
        players=worst_players(),
        face_down=face_down,
        chat_title="Ｗ" * 128,
        bot_username="tweak_test_bot",
        inline=True,
        t_choices=tuple(encode(a) for a in t_actions(state, state.current)) if visible else (),
    )


def worst_lobby(face_down: bool = False) -> lobby.LobbyView:
    return lobby.LobbyView(MAX_GAME_ID, worst_players(), worst_settings(face_down))


def all_table(state: GameState) -> int:
    return (1 << len(state.table)) - 1


def worst_events(seats: int = 6) -> list[Event]:
    cards = list(ALL_CARDS)
    events: list[Event] = []
    for s in range(seats):
        events += [
            TPlayed(seat=s, kind="thief", victim=(s + 1) % seats, card=cards[s]),
            TPlayed(seat=s, kind="joker", delta=-1),
            TPlayed(seat=s, kind="shifter", card=cards[s], new_target=10),
            TPlayed(seat=s, kind="bomb", dropped={v: cards[v] for v in range(seats) if v != s}),
            Summed(
                seat=s,
                hand_card=cards[s],
                table_cards=tuple(cards[10:20]),
                target=11,
                tweak=True,
                won_t="shifter",
            ),
            Discarded(seat=s, card=cards[s]),
            LostTurn(seat=s, hand_cards=tuple(cards[:3])),
            Skipped(seat=s),
        ]
    return events


def keyboard_labels(keys: Keyboard) -> list[str]:
    return [key["text"] for row in keys for key in row]


def keyboard_data(keys: Keyboard) -> list[str]:
    return [key["callback_data"] for row in keys for key in row if "callback_data" in key]


@pytest.mark.parametrize("lang", ALL_LANGUAGES)
def test_popups_fit_in_every_language(lang: str) -> None:
    state = worst_state()
    mine = seat_view(state, 0)
    everything = all_table(state)
    popups = {
        "hand": glance.hand_popup(lang, mine),
        "hint table only": board.sum_hint(lang, mine, board.Draft(None, everything), False),
        "hint hand only": board.sum_hint(lang, mine, board.Draft(0, 0), True),
        "hint hand no sum": board.sum_hint(lang, mine, board.Draft(0, 0), False),
        "hint everything": board.sum_hint(lang, mine, board.Draft(0, everything), True),
    }
    for reason in Refusal:  # every refusal has its words (a missing one raises KeyError here)
        popups[reason] = refusal(lang, ServiceError(reason, name=NAMES[1]))
    for rule in ILLEGAL_TEXT:
        popups[rule] = refusal(lang, ServiceError(Refusal.ILLEGAL, rule=rule, total=99, target=11))
    for text in (
        "That key is not valid any more.",
        "A computer player joined.",
        "You're in!",
        "You're in! Tap 🔔 Get my turns in private: your turns then come to you in private and "
        "the chat stays quiet.",
        "You left the lobby.",
        "🔁 The new lobby is open and you're in. The others join with ✋ Join.",
        PRACTICE_REMATCH,
        "Done!",
    ):
        popups[text] = _(lang, text)
    popups["language"] = _(lang, "Language: {name}", name=max(LANGUAGES.values(), key=utf16))
    popups["pace"] = _(lang, "Pace: {pace}", pace=_(lang, "relaxed"))
    for what, text in popups.items():
        assert 0 < utf16(text) <= POPUP_LIMIT, f"{lang} popup {what} is {utf16(text)} long: {text!r}"
    # the hand popup is complete, not cut: it still ends with the call to move
    joker = f"🃏 {_(lang, 'Joker')} {state.joker:+d}"
    assert popups["hand"].endswith(
        _(lang, "Target {target} ({joker}). Your move!", target=state.target, joker=joker)
    )
    assert str(state.target) in popups["hint everything"]


@pytest.mark.parametrize("face_down", [False, True])
@pytest.mark.parametrize("lang", ALL_LANGUAGES)
def test_messages_fit_in_every_language(lang: str, face_down: bool) -> None:
    from tgbot.render.limits import chunks

    state = worst_state()
    seats = worst_seats(lang)
    everything = all_table(state)
    report = [
        line
        for event in worst_events()
        if (line := results.event_line(lang, seats, event, face_down)) is not None
    ]
    assert len(report) == 8 * 6
    # the longest run of report lines above a board (a longer report goes first in its own messages)
    header = "\n".join(chunks([f"{results.AUTO_TAGS['ai']} {line}" for line in report])[0])
    messages: dict[str, str] = {
        "report": header,
        "lobby": lobby.lobby_text(lang, worst_lobby(face_down)),
        "practice lobby": lobby.lobby_text(lang, replace(worst_lobby(face_down), practice=True)),
        "round": results.round_summary(
            lang,
            seats,
            RoundEnded(
                round=99,
                points=tuple(range(900, 906)),
                totals=tuple(range(990, 996)),
                leftover_table=tuple(state.table),
            ),
            [54] * 6,
            300,
        ),
        "final": results.final_standings(
            lang, seats, GameEnded(winners=tuple(range(6)), totals=(999,) * 6), 99
        ),
        "final one": results.final_standings(lang, seats, GameEnded(winners=(0,), totals=(999,) * 6), 1),
        # a closed panel takes the move report as the services cut it (record.report_lines)
        "closed panel": board.closed_panel_text(lang, "Ｗ" * 128, chunks(report)[0]),
    }
    drafts = (board.Draft(), board.Draft(0, everything), board.Draft(None, everything), board.Draft(0, 0))
    for viewer in (None, 0):  # the group board, and seat 0's private panel
        for current in (0, 1):  # a human to move, and a computer seat
            state = worst_state(current)
            view = public_view(state) if viewer is None else seat_view(state, viewer)
            table = worst_table(state, viewer, face_down)
            for draft in drafts:
                text = board.board_text(lang, view, table, draft, header)
                messages[f"board {viewer} {current} {draft}"] = text
    for what, text in messages.items():
        assert visible(text) <= MESSAGE_LIMIT, f"{lang} {what} is {visible(text)} long"
    assert all(
        NAMES[5][:10] in text for what, text in messages.items() if what not in ("report", "closed panel")
    )


@pytest.mark.parametrize("lang", ALL_LANGUAGES)
def test_keyboards_in_every_language(lang: str) -> None:
    labels: list[str] = []
    data: list[str] = []
    for viewer in (None, 0):
        state = worst_state()
        view = public_view(state) if viewer is None else seat_view(state, viewer)
        table = worst_table(state, viewer)
        keyboards = [board.keyboard(lang, view, table, board.Draft(0, 0b11))]
        for code in ("T1", "J+", "J-", "F", "B"):
            keyboards.append(board.keyboard(lang, view, table, board.Draft(0, 0b11, t_code=code)))
        for keys in keyboards:
            labels += keyboard_labels(keys)
            data += keyboard_data(keys)
    practice = replace(worst_lobby(), practice=True)
    for keys in (
        lobby.lobby_keyboard(lang, worst_lobby()),
        lobby.lobby_keyboard(lang, practice),
        lobby.settings_keyboard(lang, worst_lobby()),
    ):
        labels += keyboard_labels(keys)
        data += keyboard_data(keys)
    assert all(0 < utf16(text) <= 64 for text in labels), labels
    assert all(0 < len(d.encode()) <= MAX_BYTES for d in data), data
    for key in (
        "✅ Claim",
        "🗑 Discard",
        "↩️ Clear",
        "👀 My hand",
        "📱 Panel",
        "🎯 Play",
        "🃏 " + _(lang, "Joker"),
        "✋ Join",
        "🤖 Hard",
        "🔔 Get my turns in private",
    ):
        assert _(lang, key) in labels, f"{key} is missing in {lang}"


# --- keys that fit a phone --------------------------------------------------------------------

#: What a row of keys and a single key may take on a phone, in display columns (display_width):
#: past that, Telegram cuts labels short with "…" and the row is crowded (issue "Keys too long for
#: a phone").
ROW_WIDTH = 34
KEY_WIDTH = 28
#: Parts of an emoji that take no column of their own: variation selectors and the zero-width joiner.
NO_WIDTH = {chr(c) for c in range(0xFE00, 0xFE10)} | {"\u200d"}
#: Names of a real group: the board's keys carry no name but the Thief's victims.
USUAL_NAMES = ["Ana", "Benedetta", "Carlos", "Dmitri", "Esperanza", "Fatima"]
#: The operator's custom pace as a deployment would set it: a reminder after 30 min, auto-play after 2 h.
USUAL_CUSTOM = custom_pace(timedelta(minutes=30), timedelta(hours=2))


def display_width(text: str) -> int:
    """A label's width on a phone: an emoji or an East Asian wide character 2, any other character 1.

    Counted on the NFC form, so a Vietnamese letter with its marks is one character however it is
    stored; every other code point counts, a Devanagari vowel sign too (Devanagari sets wide).
    """
    width = 0
    for ch in unicodedata.normalize("NFC", text):
        if ch in NO_WIDTH:
            continue
        wide = unicodedata.category(ch) == "So" or unicodedata.east_asian_width(ch) in ("W", "F")
        width += 2 if wide else 1
    return width


def test_display_width() -> None:
    assert display_width("✅ Claim") == 8
    assert display_width("↩️ Clear") == 8  # ↩ + VS16 is one emoji
    assert display_width("⚙️ 設定") == 7
    assert display_width("🟦3") == 3
    assert display_width("Tiếng Việt") == display_width(unicodedata.normalize("NFD", "Tiếng Việt")) == 10
    assert display_width("हिन्दी") == 6
    assert display_width("Ｗ𝕎W") == 4


def board_keyboards(lang: str, names: list[str]) -> Iterator[tuple[str, Keyboard]]:
    """Every keyboard of a board: the group board (face up and face down) and seat 0's private
    panel, with no draft, a hand card, a hand card and the whole table, and each [T!] play chosen."""
    for viewer, face_down in ((None, False), (None, True), (0, False)):
        state = worst_state()
        state.config = replace(state.config, won_t_face_down=face_down)
        view = public_view(state) if viewer is None else seat_view(state, viewer)
        table = worst_table(state, viewer, face_down)
        table = replace(
            table, players=tuple(replace(p, name=n) for p, n in zip(table.players, names, strict=True))
        )
        where = ("group board" if viewer is None else "private panel") + (" face down" if face_down else "")
        drafts = {
            "no draft": board.Draft(),
            "a hand card": board.Draft(0, 0),
            "the whole table": board.Draft(2, all_table(state)),
            **{f"{c} chosen": board.Draft(2, all_table(state), t_code=c) for c in ("T1", "J-", "F", "B")},
        }
        for what, draft in drafts.items():
            yield f"{where}, {what}", board.keyboard(lang, view, table, draft)


def hand_view_keyboards(lang: str, names: list[str]) -> Iterator[tuple[str, Keyboard]]:
    """Every keyboard of a person's own view (issue 61): off turn; on turn with no draft, a hand
    card, the whole table, each [T!] play chosen (every Thief's victim by name), with sum hints
    and with typed values."""
    state = worst_state()
    players = tuple(replace(p, name=n) for p, n in zip(worst_players(), names, strict=True))
    yield (
        "hand view off turn",
        hand_view.hand_view(lang, seat_view(state, 1), board.Table(MAX_GAME_ID, 1, players, False)).keys,
    )
    table = replace(worst_table(state, 0), players=players)
    drafts = {
        "no draft": board.Draft(),
        "a hand card": board.Draft(0, 0),
        "the whole table": board.Draft(2, all_table(state)),
        **{f"{c} chosen": board.Draft(2, all_table(state), t_code=c) for c in table.t_choices},
    }
    for hints, typed in ((False, None), (False, (1, 2, 3)), (True, None)):
        for what, draft in drafts.items():
            composing = hand_view.Composing(draft, typed)
            keys = hand_view.hand_view(lang, seat_view(state, 0), replace(table, hints=hints), composing).keys
            yield f"hand view, {what}, hints {hints}, typed {typed}", keys


def lobby_keyboards(lang: str, custom: Pace | None = None) -> Iterator[tuple[str, Keyboard]]:
    """The lobby; its settings screen with every choice ticked (✅) in turn; /settings' pace keys."""
    yield "lobby", lobby.lobby_keyboard(lang, worst_lobby())
    for edition, colours, target, face_down, pace in product(
        tuple(Edition),
        (Colours.AUTO, Colours.THREE, Colours.SIX),
        (None, 300),
        (False, True),
        pace_keys(custom),
    ):
        settings = GameSettings(edition, colours, target, face_down, pace)
        view = lobby.LobbyView(MAX_GAME_ID, worst_players(), settings)
        yield f"settings {settings}", lobby.settings_keyboard(lang, view, custom)
    for pace in pace_keys(custom):
        yield f"/settings, {pace}", lobby.pace_rows(lang, MAX_GAME_ID, pace, custom)


def history_keyboard(lang: str, first_id: int) -> Iterator[tuple[str, Keyboard]]:
    entries = [
        HistoryEntry(game_id, NOW, True, [HistorySeat(NAMES[5], False, 140)], [0], 9)
        for game_id in range(first_id, first_id + 10)
    ]
    yield f"/history from #{first_id}", stats.history_keyboard(lang, entries) or []


def other_keyboards(lang: str) -> Iterator[tuple[str, Keyboard]]:
    """The rules pages, the language picker, the welcome's key and /history's download keys."""
    for page in range(len(RULES_PAGES)):
        yield f"rules page {page + 1}", info.rules_page(lang, page)[1] or []
    yield "language picker", info.language_keyboard()
    yield "welcome", info.welcome_keys(lang, "tweak_test_bot")
    yield "final standings", results.standings_keys(lang, MAX_GAME_ID)
    yield from history_keyboard(lang, 9_999_990)  # 7-digit game numbers


def too_wide(keyboards: Iterator[tuple[str, Keyboard]]) -> list[str]:
    """The rows of these keyboards that do not fit a phone (each row once), and their widths."""
    problems: dict[tuple[str, ...], str] = {}
    for what, keys in keyboards:
        assert keys, f"{what}: no keys"
        for row in keys:
            labels = tuple(key["text"] for key in row)
            widths = [display_width(text) for text in labels]
            if (sum(widths) > ROW_WIDTH or max(widths) > KEY_WIDTH) and labels not in problems:
                problems[labels] = f"{what}: {list(labels)} is {widths} = {sum(widths)}"
    return list(problems.values())


@pytest.mark.parametrize("lang", ALL_LANGUAGES)
def test_keys_fit_a_phone(lang: str) -> None:
    """Every row of every keyboard the bot shows, rendered by the real functions in every language
    with the longest values (six players, the whole table chosen, every setting ticked): at most
    ROW_WIDTH columns a row and KEY_WIDTH a key. The cases that cannot fit yet whatever the
    wording (long names, big game numbers, the custom pace) have their own tests below."""
    problems = too_wide(
        chain(
            board_keyboards(lang, USUAL_NAMES),
            hand_view_keyboards(lang, USUAL_NAMES),
            lobby_keyboards(lang),
            other_keyboards(lang),
        )
    )
    assert not problems, f"{len(problems)} rows too wide in {lang}:\n" + "\n".join(problems[:20])


def all_languages_too_wide(keyboards: Any) -> list[str]:
    return [f"{lang} {problem}" for lang in ALL_LANGUAGES for problem in too_wide(keyboards(lang))]


def test_the_custom_pace_fits_a_phone() -> None:
    problems = all_languages_too_wide(lambda lang: lobby_keyboards(lang, USUAL_CUSTOM))
    assert not problems, "\n".join(problems[:20])


def test_thief_keys_fit_with_any_name() -> None:
    problems = all_languages_too_wide(
        lambda lang: chain(board_keyboards(lang, NAMES), hand_view_keyboards(lang, NAMES))
    )
    assert not problems, "\n".join(problems[:20])


def test_history_keys_fit_with_the_biggest_game_numbers() -> None:
    problems = all_languages_too_wide(lambda lang: history_keyboard(lang, MAX_GAME_ID - 9))
    assert not problems, "\n".join(problems[:20])


@pytest.mark.parametrize("lang", ALL_LANGUAGES)
def test_every_message_fits_with_long_values(lang: str) -> None:
    """Any catalog message, its fields filled with 64-character names and big numbers."""
    for message in template_messages():
        if isinstance(message.id, (tuple, list)):
            fields = long_fields(str(message.id[1]))
            fields.pop("n", None)
            text = _n(lang, str(message.id[0]), str(message.id[1]), 999999, **fields)
        elif message.context:
            text = _p(lang, message.context, str(message.id), **long_fields(str(message.id)))
        else:
            text = _(lang, str(message.id), **long_fields(str(message.id)))
        assert visible(text) <= MESSAGE_LIMIT


def long_fields(text: str) -> dict[str, Any]:
    return {
        name: 999999 if (spec or "").endswith("d") else "𝕎" * 64
        for _l, name, spec, _c in Formatter().parse(text)
        if name
    }
