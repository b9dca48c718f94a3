"""Callback data keeps the wire format of the keys already in chats, and refuses anything else.

The expected strings are written out by hand (the layouts in the callbacks module's docstring),
not produced by the classes under test."""

from __future__ import annotations

import pytest

from tgbot import callbacks as cb
from tgbot.game_settings import SettingKey

KEYS: list[tuple[cb.Callback, str]] = [
    (cb.Join(7), "lj:7"),
    (cb.Leave(7), "ll:7"),
    (cb.Start(7), "ls:7"),
    (cb.Cancel(7), "lc:7"),
    (cb.OpenSettings(7), "lo:7"),
    (cb.CloseSettings(7), "lb:7"),
    (cb.Setting(7, SettingKey.GOAL, "-"), "ln:7:t:-"),
    (cb.Setting(7, SettingKey.PACE, "live"), "ln:7:p:live"),
    (cb.AddComputer(7, "easy"), "la:7:easy"),
    (cb.AddComputer(7, "hard", stay=True), "la:7:hard:s"),
    (cb.Hand(7), "h:7"),
    (cb.PickHand(7, 12, 3), "k:7:12:h:3"),
    (cb.PickTable(7, 12, 11), "k:7:12:t:11"),
    (cb.Claim(7, 12), "k:7:12:c"),
    (cb.Discard(7, 12), "k:7:12:d"),
    (cb.Clear(7, 12), "k:7:12:x"),
    (cb.TChoice(7, 12, cb.TChoiceKind.THIEF), "t:7:12:thief"),
    (cb.TChoice(7, 12, cb.TChoiceKind.ANY), "t:7:12:any"),
    (cb.Rules(2), "r:2"),
    (cb.Rules(2, "es"), "r:2:es"),
    (cb.Language("ja"), "lg:ja"),
    (cb.Download(7), "dl:7"),
    (cb.Rematch(cb.MAX_GAME_ID), f"rm:{cb.MAX_GAME_ID}"),
]


@pytest.mark.parametrize(("key", "data"), KEYS, ids=[d for _k, d in KEYS])
def test_each_kind_writes_and_reads_its_old_layout(key: cb.Callback, data: str) -> None:
    assert key.data == data
    assert type(key).parse(data) == key
    others = [type(k) for k, _d in KEYS if type(k) is not type(key)]
    assert not any(kind.PATTERN.fullmatch(data) for kind in others), data  # one route per key


@pytest.mark.parametrize(
    ("kind", "data"),
    [
        (cb.PickHand, "k:7:12:h"),  # a hand key names a position
        (cb.Claim, "k:7:12:c:1"),  # a claim none
        (cb.PickTable, "k:7:12:t:123"),
        (cb.Join, "lj:0"),
        (cb.Join, f"lj:{cb.MAX_GAME_ID + 1}"),
        (cb.Setting, "ln:7:zz:1"),  # no such setting
        (cb.AddComputer, "la:7:genius"),
        (cb.AddComputer, "la:7:easy:x"),
        (cb.TChoice, "t:7:1:wizard"),
        (cb.Rules, "r:1:EN"),
        (cb.Language, "lg:é"),
        (cb.Hand, "h:" + "1" * 70),
        (cb.Hand, None),
    ],
)
def test_forged_data_is_refused(kind: type[cb.Callback], data: str | None) -> None:
    with pytest.raises(cb.BadCallback):
        kind.parse(data)


def test_a_key_longer_than_telegram_allows_is_never_drawn() -> None:
    with pytest.raises(ValueError, match="too long"):
        _ = cb.Setting(7, SettingKey.PACE, "x" * 70).data


def test_every_kind_of_key_has_one_route() -> None:
    from tgbot.handlers.keys import ROUTES

    kinds = [
        kind
        for kind in vars(cb).values()
        if isinstance(kind, type) and issubclass(kind, cb.Callback) and not issubclass(kind, cb.StartLink)
    ]
    patterns = [route.pattern for route in ROUTES]
    for kind in kinds:
        if kind is not cb.Callback:
            assert patterns.count(kind.PATTERN) == 1, kind.__name__
    assert len(patterns) == len(kinds) - 1


# --- deep links: /start <payload> -------------------------------------------------------------

LINKS: list[tuple[cb.StartLink, str]] = [
    (cb.OpenPanel(7), "g7"),
    (cb.PrivateTurns(7), "p7"),
    (cb.PrivateTurns(cb.MAX_GAME_ID), f"p{cb.MAX_GAME_ID}"),
]


@pytest.mark.parametrize(("link", "payload"), LINKS, ids=[p for _l, p in LINKS])
def test_each_deep_link_writes_and_reads_its_payload(link: cb.StartLink, payload: str) -> None:
    assert link.data == payload
    assert cb.start_link(payload) == link
    assert link.url("our_tweak_bot") == f"https://t.me/our_tweak_bot?start={payload}"


@pytest.mark.parametrize(
    "payload",
    [
        "",
        "p",
        "p0",  # no game 0
        f"p{cb.MAX_GAME_ID + 1}",
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
def test_a_forged_deep_link_is_refused(payload: str) -> None:
    with pytest.raises(cb.BadCallback):
        cb.start_link(payload)


def test_a_deep_link_holds_only_what_telegram_takes() -> None:
    with pytest.raises(TypeError, match="letters, digits"):

        class _Colon(cb.StartLink, wire="p:{game_id}"):
            game_id: cb.GameId
