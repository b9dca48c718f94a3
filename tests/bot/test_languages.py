"""Who sees which language, through the real Application and the fake Telegram.

Group messages (lobby, boards, move reports, round summaries, standings, reminders in the group)
follow the group's language: /language in the group, else the language of whoever created the
group's first game. Popups and private messages follow the tapping user's own language: /language
in the private chat, else their Telegram language, else English.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import timedelta

from engine import legal_actions
from engine.actions import Discard, Sum
from tests.bot.conftest import BotRig
from tests.bot.helpers import BOT, board_of, current_game, open_panel, panel_of, state_of
from tests.fakes.telegram import FakeTelegram, FakeUser, StoredMessage
from tgbot import callbacks as cb
from tgbot.command_menu import MENU_COMMANDS
from tgbot.handlers.commands import COMMAND_NAMES
from tgbot.i18n import LANGUAGES, _
from tgbot.store.models import Game

MAX_TURNS = 400
DEVANAGARI = re.compile(r"[\u0900-\u097F]")
HAND_SLOT = re.compile(r"\d:(🟥|🟧|🟨|🟩|🟦|🟪)[1-6]")


def lobby_of(fake: FakeTelegram, chat_id: int) -> StoredMessage:
    """The group's live lobby: the last message with a Join key."""
    lobbies = [
        m for m in fake.messages(chat_id) if any((d or "").startswith("lj:") for _t, d in fake.buttons(m))
    ]
    return lobbies[-1]


def data_is(want: str) -> Callable[[str, str | None], bool]:
    return lambda _text, data: data == want


async def play_turn(
    rig: BotRig, surface: StoredMessage, user: FakeUser, game: Game, keys: str, lang: str
) -> None:
    """Build a move with the keys of `surface` (a sum when there is one) and play it.

    The keys are in `keys` (the surface's language); the toasts after each tap in `lang`, the tapper's.
    """
    state = state_of(game)
    assert game.id is not None
    seat = state.current
    actions = legal_actions(state, seat)
    sums = [a for a in actions if isinstance(a, Sum)]
    move: Sum | Discard = (
        max(sums, key=lambda a: len(a.table)) if sums else next(a for a in actions if isinstance(a, Discard))
    )
    gid, version = game.id, game.version
    await rig.tg.tap(user, surface, data_is(cb.PickHand(gid, version, move.hand).data))
    if isinstance(move, Sum):
        for position in move.table:
            toast = await rig.tg.tap(user, surface, data_is(cb.PickTable(gid, version, position).data))
        assert toast.text is not None
        assert _(lang, "{expr} = {total} ✅ Tap Claim!", expr="", total=state.target).strip() in toast.text
        done = await rig.tg.tap(user, surface, _(keys, "✅ Claim"))
    else:
        done = await rig.tg.tap(user, surface, _(keys, "🗑 Discard"))
    assert done.text == _(lang, "Done!")


async def test_japanese_group_with_a_hindi_player(rig: BotRig) -> None:
    fake, tg = rig.fake, rig.tg
    ana = fake.user(1, "Ana", language_code="en")
    kiran = fake.user(2, "Kiran", language_code="hi")
    group = fake.group("Tomodachi")

    # The group picks Japanese with /language (keys in each language's own name).
    await tg.send(group, ana, f"/language{BOT}")
    picker = fake.last_message(group.id)
    assert picker.content == "Choose the language of this group's games:"
    assert [t for t, _d in fake.buttons(picker)] == list(LANGUAGES.values())
    answer = await tg.tap(ana, picker, "日本語")
    assert answer.text == picker.content == "言語：日本語"

    # Kiran opens the private chat: the welcome is Hindi (and his panels will be).
    dm = fake.private(kiran)
    await tg.send(dm, kiran, "/start")
    assert fake.last_message(dm.id).content.startswith("👋 नमस्ते")
    assert [t for t, _d in fake.buttons(fake.last_message(dm.id))] == [_("hi", "➕ Add to a group")]

    # Lobby in Japanese; each tapper's toast in their own language.
    await tg.send(group, ana, f"/newgame{BOT}")
    lobby = fake.last_message(group.id)
    assert lobby.content.startswith("🃏 TWEAK!の新しいゲーム")
    assert (await tg.tap(kiran, lobby, "✋ 参加")).text == "आप जुड़ गए!"
    assert (await tg.tap(ana, lobby, "✋ 参加")).text == "You're already in."
    await tg.tap(ana, lobby, "⚙️ 設定")
    for _step in range(6):  # 140 -> 20 points: a short game
        await tg.tap(ana, lobby, "勝利点 −20")
    await tg.tap(ana, lobby, "↩️ 戻る")
    assert "勝利点：20" in lobby.content
    await tg.tap(ana, lobby, "▶️ 開始")
    assert lobby.content.startswith("🃏 TWEAK! 開始：")

    # Kiran taps the board's "📱 Panel" key: his panel of this game, in Hindi.
    await open_panel(rig, kiran, board_of(rig, current_game(rig, group.id)))

    popups = {"Ana": 0, "Kiran": 0}
    panels = 0
    for _turn in range(MAX_TURNS):
        game = current_game(rig, group.id)
        if game.status != "playing":
            break
        board = board_of(rig, game)
        state = state_of(game)
        mover = (ana, kiran)[state.current]
        other = (ana, kiran)[1 - state.current]
        assert "ラウンド" in board.content and "目標" in board.content
        assert f"👉 {mover.first_name}さん、あなたのターンです！" in board.content
        assert "your move" not in board.content.lower()
        # My hand: a popup in the tapper's language, whoever's turn it is.
        for user, expected in ((mover, mover), (other, other)):
            popup = await tg.tap(user, board, "👀 手札")
            assert popup.show_alert and popup.text is not None
            assert HAND_SLOT.search(popup.text) or user is other
            lang = "hi" if expected is kiran else "en"
            assert popup.text.startswith(_(lang, "Your hand: {slots}", slots=""))
            popups[expected.first_name] += 1
        if mover is kiran:
            panel = panel_of(rig, game, state.current, kiran)
            assert "Tomodachi में आपका खेल" in panel.content and "आपके हाथ में:" in panel.content
            assert "👉 आपकी चाल!" in panel.content
            await play_turn(rig, panel, kiran, game, "hi", "hi")
            assert panel.content.startswith("✔️ Tomodachi में खेला गया:")
            panels += 1
        else:
            seen = len(fake.messages(group.id))
            await play_turn(rig, board, ana, game, "ja", "en")
            # the next message of the record (a board, a summary) opens with her move, in Japanese
            report = fake.messages(group.id)[seen].content
            assert report.startswith(("Ana：", "Anaが")), report
    game = current_game(rig, group.id)
    assert game.status == "finished"
    assert popups["Ana"] > 3 and popups["Kiran"] > 3 and panels > 3

    texts = [m.content for m in fake.messages(group.id)]
    assert any("第1ラウンド終了" in t for t in texts)
    standings = [m for m in fake.messages(group.id) if "ゲーム終了" in m.content]
    assert len(standings) == 1
    assert "勝者：" in standings[0].content or "同点優勝：" in standings[0].content
    # one way to play again: the rematch key, in Japanese, and no /newgame line
    assert standings[0].buttons == [("🔁 再戦", f"rm:{game.id}")]
    assert "/newgame" not in standings[0].content
    for english in ("Round 1 is over", "Game over", "Winner", "your move", "Target", "Scores per round"):
        assert not any(english in t for t in texts), english
    assert not tg.errors


async def test_rules_and_help_follow_the_chat(rig: BotRig) -> None:
    fake, tg = rig.fake, rig.tg
    yuki = fake.user(3, "Yuki", language_code="ja")
    kiran = fake.user(2, "Kiran", language_code="hi")
    group = fake.group("Rules")
    await tg.send(group, yuki, f"/newgame{BOT}")  # the first game's creator sets the group default
    await tg.send(group, kiran, f"/rules{BOT}")
    page = fake.last_message(group.id)
    assert page.content.startswith("🎯 TWEAK! – 目的とカード") and page.content.endswith("1/7")
    await tg.tap(kiran, page, "次へ ➡️")
    assert page.content.startswith("🃏") and page.content.endswith("2/7")
    await tg.tap(kiran, page, "⬅️ 戻る")
    assert page.content.endswith("1/7")
    dm = fake.private(kiran)
    await tg.send(dm, kiran, "/help")
    assert fake.last_message(dm.id).content.startswith("❓ बॉट के साथ TWEAK! कैसे खेलें")
    await tg.send(group, kiran, f"/help{BOT}")
    assert fake.last_message(group.id).content.startswith("❓ ボットでTWEAK!を遊ぶには")


async def test_group_default_is_the_first_creators_language(rig: BotRig) -> None:
    fake, tg = rig.fake, rig.tg
    kiran = fake.user(2, "Kiran", language_code="hi")
    ana = fake.user(1, "Ana", language_code="en")
    group = fake.group("Dost")
    await tg.send(group, kiran, f"/newgame{BOT}")
    lobby = fake.last_message(group.id)
    assert lobby.content.startswith("🃏 TWEAK! का नया खेल")
    assert (await tg.tap(ana, lobby, "✋ जुड़ें")).text.startswith("You're in!")
    await tg.tap(kiran, lobby, "✖️ रद्द करें")
    assert lobby.content == "✖️ खेल रद्द कर दिया गया।"
    # The next game, created by an English speaker, keeps the group's language.
    await tg.send(group, ana, f"/newgame{BOT}")
    assert fake.last_message(group.id).content.startswith("🃏 TWEAK! का नया खेल")
    await tg.send(group, ana, f"/board{BOT}")  # a reply in the group: the group's language
    await tg.send(group, ana, f"/pause{BOT}")
    assert DEVANAGARI.search(fake.last_message(group.id).content)

    # /language in the group redraws the lobby, then the board, in the new language.
    lobby = lobby_of(fake, group.id)
    await tg.send(group, ana, f"/language{BOT}")
    picker = fake.last_message(group.id)
    assert picker.content == "इस ग्रुप के खेलों की भाषा चुनिए:"
    await tg.tap(ana, picker, "English")
    assert lobby.content.startswith("🃏 New game of TWEAK!")
    assert (await tg.tap(kiran, lobby, "✋ Join")).text.startswith("आप जुड़ गए!")
    await tg.tap(ana, lobby, "▶️ Start")
    board = board_of(rig, current_game(rig, group.id))
    assert "your move!" in board.content
    rig.clock.advance(timedelta(seconds=61))  # a second picker within the minute: the first again
    await tg.send(group, kiran, f"/language{BOT}")
    await tg.tap(kiran, fake.last_message(group.id), "Español")
    await tg.advance(61)  # the redraw is cosmetic: it waits for the group's spare budget
    assert "¡te toca!" in board.content and "partida 1" in board.content
    assert "👀 Mi mano" in [t for t, _d in fake.buttons(board)]


async def test_private_language_overrides_telegram_and_unknown_codes_are_english(rig: BotRig) -> None:
    fake, tg = rig.fake, rig.tg
    ana = fake.user(1, "Ana", language_code="ja")
    pedro = fake.user(4, "Pedro", language_code="pt-BR")
    xavi = fake.user(5, "Xavi", language_code="xx")
    nobody = fake.user(6, "Nemo", language_code=None)
    group = fake.group("Mix")
    await tg.send(group, pedro, f"/newgame{BOT}")  # an unknown language: the group is English
    lobby = fake.last_message(group.id)
    assert lobby.content.startswith("🃏 New game of TWEAK!")
    assert (await tg.tap(ana, lobby, "✋ Join")).text.startswith("参加しました！")
    assert (await tg.tap(xavi, lobby, "✋ Join")).text.startswith("You're in!")
    assert (await tg.tap(nobody, lobby, "✋ Join")).text.startswith("You're in!")
    assert (await tg.tap(pedro, lobby, "✋ Join")).text == "You're already in."

    # Ana picks Vietnamese in private: her popups and private messages switch, the group does not.
    dm = fake.private(ana)
    await tg.send(dm, ana, "/language")
    picker = fake.last_message(dm.id)
    assert picker.content == "個人メッセージとポップアップの言語を選んでください："
    assert (await tg.tap(ana, picker, "Tiếng Việt")).text == "Ngôn ngữ: Tiếng Việt"
    assert (await tg.tap(ana, lobby, "🚪 Leave")).text == "Bạn đã rời phòng chờ."
    assert lobby.content.startswith("🃏 New game of TWEAK!")
    await tg.send(dm, ana, "/help")
    assert fake.last_message(dm.id).content.startswith("❓ Chơi TWEAK! với bot")
    forged = await tg.tap_data(ana, lobby, "zz:garbage")
    assert forged.text == "Nút này không còn hiệu lực nữa."
    forged = await tg.tap_data(xavi, lobby, "zz:garbage")
    assert forged.text == "That key is not valid any more."


async def test_command_menu_in_every_language(rig: BotRig) -> None:
    fake = rig.fake
    default = fake.commands()
    assert [c["command"] for c in default] == list(MENU_COMMANDS)
    assert [c["description"] for c in default] == list(MENU_COMMANDS.values())
    for code in LANGUAGES:
        menu = fake.commands(language_code=code)
        assert [c["command"] for c in menu] == list(MENU_COMMANDS), code
        assert [c["description"] for c in menu] == [_(code, d) for d in MENU_COMMANDS.values()], code
    assert fake.commands(language_code="ja")[0]["description"] == "このグループで新しいゲームを始める"


def test_every_command_is_in_the_menu() -> None:
    assert set(COMMAND_NAMES) - {"start"} == set(MENU_COMMANDS)
