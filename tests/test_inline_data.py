"""Inline result ids, the 🎯 Play query, the /start payload and a pick's link keep the forms the
bot has always written (ids and links already posted still parse), within Telegram's limits,
and refuse anything else.

The expected texts are written out by hand, not produced by the classes under test."""

from __future__ import annotations

import pytest

from engine.actions import Discard, PlayBomb, PlayJoker, PlayShifter, PlayThief, Sum
from tgbot.inline_data import (
    GameQuery,
    InfoLine,
    InfoTopic,
    LinkedPick,
    OpenPanel,
    PickedMoves,
    PrivateTurns,
    pick_link,
    picked_from_link,
    start_link,
)
from tgbot.wire import MAX_GAME_ID, BadData

PICKS = [
    (PickedMoves(12, 34, (Sum(0, (0, 1)),)), "g12v34:S0.3"),
    (PickedMoves(12, 34, (PlayJoker(1), Sum(2, (0, 2, 5)))), "g12v34:J+ S2.25"),
    (PickedMoves(7, 1, (PlayJoker(-1), Sum(3, (15,)))), "g7v1:J- S3.8000"),
    (PickedMoves(7, 1, (Discard(4),)), "g7v1:D4"),
    (PickedMoves(7, 1, (PlayThief(2),)), "g7v1:T2"),
    (PickedMoves(7, 1, (PlayShifter(),)), "g7v1:F"),
    (PickedMoves(MAX_GAME_ID, 9999999999, (PlayBomb(),)), f"g{MAX_GAME_ID}v9999999999:B"),
]


@pytest.mark.parametrize(("picked", "text"), PICKS, ids=[t for _p, t in PICKS])
def test_a_listed_move_keeps_its_result_id(picked: PickedMoves, text: str) -> None:
    assert picked.data == text
    assert PickedMoves.parse(text) == picked


@pytest.mark.parametrize(
    "text",
    [
        "g12v34:",  # no move
        "g12v34:J+  S0.3",  # two spaces
        "g12v34: S0.3",
        "g12v34:S0.0",  # a sum of no table card
        "g12v34:S0.03",  # a leading zero: not the one code of that sum
        "g12v34:X1",
        "g12v34:J+_S0.3",  # the link's form is not a result id
        "g0v1:D0",
        f"g{MAX_GAME_ID + 1}v1:D0",
        "g12v34:" + " ".join(["S0.ffffffffffffffff"] * 3),  # over 64 bytes
        "info:none",
        "trouble",
        "",
    ],
)
def test_anything_else_is_no_pick(text: str) -> None:
    with pytest.raises(BadData):
        PickedMoves.parse(text)
    assert PickedMoves.read(text) is None


def test_the_lines_that_play_nothing_keep_their_ids() -> None:
    assert InfoLine(InfoTopic.NONE).data == "info:none"
    assert InfoLine(InfoTopic.TURN, 12).data == "info:turn12"
    assert InfoLine(InfoTopic.SUM, 12).data == "info:sum12"
    assert InfoLine(InfoTopic.HOW, 12).data == "info:how12"
    assert InfoLine.parse("info:turn12") == InfoLine(InfoTopic.TURN, 12)
    assert InfoLine.read("info:what12") is None


def test_the_query_names_its_game_and_keeps_what_was_typed() -> None:
    assert GameQuery(12).data == "g12"
    assert GameQuery.of("g12") == GameQuery(12)
    assert GameQuery.of("  g12 5 3 1") == GameQuery(12, " 5 3 1")
    assert GameQuery.of("g12 ५ ३ १") == GameQuery(12, " ५ ३ १")
    for other in ("", "12", "g", "g12x", "gx12", "g12345678901", "g12 " + "1" * 260):
        assert GameQuery.of(other) is None, other
    # a game id no game can have is read, as naming no game
    assert GameQuery.of("g0") == GameQuery(None)
    assert GameQuery.of(f"g{MAX_GAME_ID + 1} 5") == GameQuery(None, " 5")


def test_the_panel_link_is_a_start_payload() -> None:
    assert OpenPanel(12).data == "g12"
    assert OpenPanel(12).link("tweak_test_bot") == "https://t.me/tweak_test_bot?start=g12"
    assert OpenPanel.parse("g12") == OpenPanel(12)
    for other in ("junkpayload", "g", "g99999999999999999999999999", "g²", "g-1", "🃏", "g12 "):
        assert OpenPanel.read(other) is None, other
    # a forged id beyond the id column is no link of the bot's (it answers that it does not know it)
    assert OpenPanel.read("g0") is None
    assert OpenPanel.read("g99999999999") is None


def test_a_picks_link_carries_it_with_underscores() -> None:
    picked = PickedMoves(12, 34, (PlayJoker(1), Sum(0, (0, 1))))
    link = pick_link("tweak_test_bot", picked)
    assert link == "https://t.me/tweak_test_bot?start=g12#pick=g12v34:J+_S0.3"
    assert picked_from_link(link) == picked
    # a link an earlier version posted, and links that carry no pick
    old = "https://t.me/tweak_test_bot?start=g5#pick=g5v9:D2"
    assert picked_from_link(old) == PickedMoves(5, 9, (Discard(2),))
    assert picked_from_link("https://t.me/tweak_test_bot?start=g5") is None
    assert picked_from_link("https://t.me/tweak_test_bot?start=g5#pick=g5v9:J+ S0.3") is None
    assert picked_from_link("https://example.com/#pick=") is None
    assert LinkedPick.read("g5v9:J+ S0.3") is None


# --- deep links: /start <payload> -------------------------------------------------------------

LINKS: list[tuple[OpenPanel | PrivateTurns, str]] = [
    (OpenPanel(7), "g7"),
    (PrivateTurns(7), "p7"),
    (PrivateTurns(MAX_GAME_ID), f"p{MAX_GAME_ID}"),
]


@pytest.mark.parametrize(("link", "payload"), LINKS, ids=[p for _l, p in LINKS])
def test_each_deep_link_writes_and_reads_its_payload(link: OpenPanel | PrivateTurns, payload: str) -> None:
    assert link.data == payload
    assert start_link(payload) == link
    assert link.link("our_tweak_bot") == f"https://t.me/our_tweak_bot?start={payload}"


@pytest.mark.parametrize(
    "payload",
    [
        "",
        "p",
        "p0",  # no game 0
        f"p{MAX_GAME_ID + 1}",
        f"g{MAX_GAME_ID + 1}",
        "p-1",
        "p7x",
        "P7",
        "p07:1",
        "p\u0667",  # an Arabic-Indic 7: a digit to Python, not to Telegram
        "x7",
        "lj:7",  # a key's data is not a link
        "p" + "1" * 70,
    ],
)
def test_a_forged_deep_link_is_no_link_of_the_bots(payload: str) -> None:
    assert start_link(payload) is None
