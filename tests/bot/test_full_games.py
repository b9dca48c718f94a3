"""Whole games through the real Application and the fake Telegram, by tapping shown keys only."""

from __future__ import annotations

import json
import random
from collections import Counter

from sqlmodel import Session, select

from engine import GameState
from engine.invariants import check_invariants
from tests.bot.conftest import BotRig
from tests.bot.helpers import GroupPrivacyWatch
from tests.bot.players import Player, card_labels, play_turn, to_move
from tests.fakes.telegram import StoredMessage
from tgbot.render.cards import card as card_label
from tgbot.store.models import Game

MAX_TURNS = 3000


def current_game(rig: BotRig) -> Game:
    with Session(rig.deps.db) as session:
        game = session.exec(select(Game).order_by(Game.id.desc())).first()  # type: ignore[union-attr]
        assert game is not None
        return game


def state_of(game: Game) -> GameState:
    assert game.state is not None
    return GameState.from_json(json.loads(game.state))


def assert_board_shows_only_public_cards(board: StoredMessage, state: GameState, rig: BotRig) -> None:
    """A group board shows the table and nothing else: no hand card anywhere, keys included."""
    shown = Counter(card_labels(board.text))
    for text, _data in rig.fake.buttons(board):
        shown.update(card_labels(text))
    table = Counter(card_label(c) for c in state.table)
    # each table card appears once in the text and once on its key
    assert shown == table + table, (board.text, state.table)


async def test_two_player_game_in_the_group_to_the_final_standings(rig: BotRig) -> None:
    fake, tg = rig.fake, rig.tg
    ana, ben = fake.user(1, "Ana"), fake.user(2, "Ben")
    players = [Player(ana, random.Random(1)), Player(ben, random.Random(2))]
    group = fake.group("Friends")
    await tg.send(group, ana, "/newgame@tweak_test_bot")
    lobby = fake.last_message(group.id)
    assert lobby is not None and "Ana" in lobby.text
    await tg.tap(ben, lobby, "✋ Join")
    assert "Ben" in lobby.text
    await tg.tap(ana, lobby, "▶️ Start")
    watch = GroupPrivacyWatch(rig, group)  # each tap: group messages show only public cards

    kinds: Counter[str] = Counter()
    for _turn in range(MAX_TURNS):
        game = current_game(rig)
        if game.status != "playing":
            break
        state = state_of(game)
        assert check_invariants(state) == []
        assert game.board_message_id is not None
        board = fake.message(group.id, game.board_message_id)
        assert_board_shows_only_public_cards(board, state, rig)
        player = to_move(board.text, players)
        assert player is not None, board.text
        kinds[await play_turn(tg, fake, board, player, private=False)] += 1
    game = current_game(rig)
    assert game.status == "finished"
    final = state_of(game)
    assert final.is_over and max(final.totals) >= 140
    texts = [m.content for m in fake.messages(group.id)]
    standings = [t for t in texts if "Game over" in t]
    assert len(standings) == 1
    winner = players[final.winners[0]].name
    assert f"Winner: {winner}" in standings[0] or "Shared win" in standings[0]
    assert any("Round 1 is over" in t for t in texts)
    assert kinds["sum"] > 10 and kinds["discard"] > 0
    assert watch.checked_taps > 50
    assert not tg.errors
