"""Helpers for the practice tests: a practice table opened in a person's chat with the bot, and
turns played on the live board (its keys, found by their data), as the person would."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from engine.actions import Discard, Sum
from tests.bot.conftest import BotRig
from tests.bot.helpers import board_of, current_game, players_of, state_of
from tests.bot.players import data_is
from tests.bot.test_record_readds import Entry, best_main
from tests.fakes.telegram import FakeChat, FakeTelegram, FakeUser, StoredMessage
from tgbot import callbacks as cb
from tgbot.store.models import Game


async def practice_lobby(
    rig: BotRig,
    user: FakeUser,
    computers: Iterable[str] = (),
    settings: Iterable[Callable[[int], cb.Setting]] = (),
) -> tuple[FakeChat, StoredMessage, int]:
    """`user` sends /newgame in their chat with the bot, adds a computer of each level in
    `computers` and taps each key of `settings` (a settings key of the game's id)."""
    chat = rig.fake.private(user)
    await rig.tg.send(chat, user, "/newgame")
    lobby = rig.fake.last_message(chat.id)
    game = current_game(rig, chat.id)
    assert game.id is not None and game.status == "lobby"
    for level in computers:
        answer = await rig.tg.tap_data(user, lobby, cb.AddComputer(game.id, level).data)
        assert answer.text == "A computer player joined.", answer.text
    settings = list(settings)
    for key in settings:
        answer = await rig.tg.tap_data(user, lobby, key(game.id).data)
        assert not answer.show_alert, answer.text
    if settings:  # back from the settings screen to the lobby's keys
        await rig.tg.tap(user, lobby, "↩️ Back")
    return chat, lobby, game.id


async def practice_game(
    rig: BotRig,
    user: FakeUser,
    computers: Iterable[str] = ("easy",),
    settings: Iterable[Callable[[int], cb.Setting]] = (),
) -> tuple[FakeChat, int]:
    """A started practice table: `user` and the computers (`practice_lobby`), then ▶️ Start."""
    chat, lobby, game_id = await practice_lobby(rig, user, computers, settings)
    await rig.tg.tap(user, lobby, "▶️ Start")
    assert current_game(rig, chat.id).status == "playing"
    return chat, game_id


def live_board(rig: BotRig, chat_id: int) -> tuple[Game, StoredMessage]:
    game = current_game(rig, chat_id)
    return game, board_of(rig, game)


async def play_main(rig: BotRig, user: FakeUser, chat_id: int) -> str:
    """The person plays their turn's best sum (else the cheapest discard) with the board's keys;
    the popup of the key that played it."""
    game, board = live_board(rig, chat_id)
    state = state_of(game)
    main = best_main(state, state.current)
    prefix = f"k:{game.id}:{game.version}"
    await rig.tg.tap(user, board, data_is(f"{prefix}:h:{main.hand}"))
    if isinstance(main, Discard):
        return (await rig.tg.tap(user, board, data_is(f"{prefix}:d"))).text or ""
    assert isinstance(main, Sum)
    for position in main.table:
        await rig.tg.tap(user, board, data_is(f"{prefix}:t:{position}"))
    return (await rig.tg.tap(user, board, data_is(f"{prefix}:c"))).text or ""


async def play_out(rig: BotRig, chat_id: int, people: dict[int, FakeUser], turns: int = 400) -> Game:
    """Play the chat's game to its end, each person's turn with the board's keys; the game."""
    game = current_game(rig, chat_id)
    assert game.id is not None
    seats = {p.seat: people[p.user_id] for p in players_of(rig, game.id) if p.user_id in people}
    for _ in range(turns):
        game = current_game(rig, chat_id)
        if game.status != "playing":
            return game
        assert await play_main(rig, seats[state_of(game).current], chat_id) == "Done!"
    raise AssertionError("the game did not end")


def transcript(fake: FakeTelegram, chat: FakeChat) -> list[Entry]:
    """The chat as its person scrolls it (`FakeTelegram.transcript`), as the re-add reader takes it."""
    return [
        Entry(
            m.content, by_bot=m.from_bot, via_bot=m.via_bot is not None, sender=m.sender.get("first_name", "")
        )
        for m in fake.transcript(chat)
    ]
