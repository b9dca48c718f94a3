"""The player to move always sees what they play against (issue "Blind after a [T!] card").

A table plays without sum hints (the default). Ana plays her turns through inline mode: a Thief,
a Shifter and a Bomb picked from the 🎯 Play list, and a Joker played alone on the group board.
None of them brings a new group board (one group message a turn), so after each she reads the
table and the target from the 👀 My hand popup and from the first line of the 🎯 Play list only,
never from the board. What she reads is checked against the game in the database (the texts
expected are built here from its cards, not by the renderer), then she works out a sum from what
she read, types its values and plays it.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from itertools import combinations

from engine import GameState, sum_options
from engine.actions import Sum, decode
from engine.cards import BALANCED_BACK, COLOUR_OF, VALUE
from engine.events import TPlayed, load_events
from tests.bot.conftest import BotRig
from tests.bot.helpers import (
    board_of,
    current_game,
    live_panel,
    moves_of,
    open_panel,
    players_of,
    set_state,
    stored_state,
)
from tests.bot.players import EMOJI_VALUE, HAND_SLOT, card_labels
from tests.bot.test_inline import PLAY, inline_rig  # noqa: F401
from tests.fakes.telegram import FakeChat, FakeUser, InlineAnswer

EMOJI = {"R": "🟥", "O": "🟧", "Y": "🟨", "G": "🟩", "B": "🟦", "P": "🟪"}
#: Ana's hand and the table at the start of each of her turns, by value: no sum of 9 or 10 (the
#: targets below) until a [T!] card brings a card; 6 + 1 + 1 makes 8, the target after a Joker −1.
HAND = [5, 6, 6]
TABLE = [1, 1]


def label(card: str) -> str:
    """A card as every surface writes it: its colour's square and its value."""
    return f"{EMOJI[COLOUR_OF[card]]}{VALUE[card]}"


def labels(cards: Iterable[str]) -> str:
    return " ".join(label(c) for c in cards)


async def three_players(rig: BotRig) -> tuple[FakeChat, int, list[FakeUser]]:
    """Ana, Ben and Cai at a table without sum hints (the default: nobody changes it)."""
    users = [rig.fake.user(i + 1, name) for i, name in enumerate(("Ana", "Ben", "Cai"))]
    group = rig.fake.group("Friends")
    await rig.tg.send(group, users[0], "/newgame@tweak_test_bot")
    lobby = rig.fake.last_message(group.id)
    gid = int(next(d for _t, d in lobby.buttons if d and d.startswith("lj:")).split(":")[1])
    for user in users[1:]:
        await rig.tg.tap_data(user, lobby, f"lj:{gid}")
    await rig.tg.tap_data(users[0], lobby, f"ls:{gid}")
    assert "🧠 hints off" in board_of(rig, current_game(rig, group.id)).content
    assert [p.user_id for p in players_of(rig, gid)] == [u.id for u in users]  # seats in join order
    return group, gid, users


def arrange(
    rig: BotRig,
    gid: int,
    *,
    hands: dict[int, list[int]],
    table: list[int],
    tops: list[tuple[int | None, int]],
    t_card: str,
) -> GameState:
    """Test set-up for the turn of the seat to move: each seat's hand and the table by value, the
    top cards of the deck (value or any, back), and the one [T!] card the mover holds. Every card
    is kept once: all number cards go back to one pool (score piles too) and are dealt again, the
    deck's top cards first (they are the most constrained)."""
    state = stored_state(rig, gid)
    pool = [
        *state.deck,
        *state.table,
        *(c for h in state.hands for c in h),
        *(c for p in state.piles for c in p),
    ]
    state.piles = [[] for _ in range(state.players)]

    def take(value: int | None, back: int | None = None) -> str:
        found = next(
            c
            for c in pool
            if (value is None or VALUE[c] == value) and (back is None or BALANCED_BACK[c] == back)
        )
        pool.remove(found)
        return found

    top = [take(value, back) for value, back in tops]  # the top card first
    for seat in range(state.players):
        state.hands[seat] = [take(v) for v in hands[seat]]
    state.table = [take(v) for v in table]
    state.deck = [*pool, *reversed(top)]
    for seat in range(state.players):  # [T!] cards back to their deck, then the mover's one
        state.tdeck.extend(state.holdings[seat])
        state.holdings[seat] = []
    state.tdeck.remove(t_card)
    state.holdings[state.current] = [t_card]
    set_state(rig, gid, state)
    return state


async def others_discard(rig: BotRig, group: FakeChat, users: list[FakeUser], mover: FakeUser) -> None:
    """Ben and Cai discard their first card on the group board until it is Ana's turn."""
    while (state := stored_state(rig, current_game(rig, group.id).id or 0)).current != users.index(mover):
        player = users[state.current]
        board = board_of(rig, current_game(rig, group.id))
        await rig.tg.tap(player, board, "🂠1")
        assert (await rig.tg.tap(player, board, "🗑 Discard")).text == "Done!"


def last_t_card(rig: BotRig, gid: int) -> TPlayed:
    events = moves_of(rig, gid)[-1].events
    assert events is not None
    played = [e for e in load_events(events) if isinstance(e, TPlayed)]
    assert len(played) == 1
    return played[0]


def news_of(event: TPlayed) -> str | None:
    """What the [T!] card of the turn did, written from its stored event."""
    if event.kind == "thief":
        assert event.card is not None
        return f"🥷 Thief: {label(event.card)} stolen"
    if event.kind == "shifter":
        assert event.card is not None
        return f"🔀 Shifter: {label(event.card)} from the deck"
    if event.kind == "bomb":
        return "💣 Bomb: a card from each opponent"
    return None


def expected_popup(state: GameState, news: str | None) -> str:
    seat = state.current
    slots = "  ".join(f"{i + 1}:{label(c)}" for i, c in enumerate(state.hands[seat]))
    if state.joker:
        call = f"Target {state.target} (🃏 Joker {state.joker:+d}). Your move!"
    else:
        call = f"Target {state.target}. Your move!"
    lines = [f"Your hand: {slots}", f"Table: {labels(state.table)}", *([news] if news else []), call]
    return "\n".join(lines)


def expected_first_line(state: GameState, news: str | None) -> tuple[str, str]:
    joker = f" (🃏{state.joker:+d})" if state.joker else ""
    title = f"🎯 Target {state.target}{joker} · 🧮 type your sum, e.g. 5 3 1"
    return title, " · ".join([f"Table: {labels(state.table)}", *([news] if news else [])])


def read_popup(text: str) -> tuple[list[int], list[int], int]:
    """Hand values, table values and target, as a player reads them off the popup."""
    lines = text.splitlines()
    hand = [int(m.group(3)) for m in HAND_SLOT.finditer(lines[0])]
    table_line = next(line for line in lines if line.startswith("Table: "))
    target = re.search(r"^Target (\d+)", lines[-1], re.MULTILINE)
    assert target, text
    return hand, [int(v) for _c, v in EMOJI_VALUE.findall(table_line)], int(target.group(1))


def read_first_line(answer: InlineAnswer) -> tuple[list[int], int]:
    """Table values and target, as a player reads them off the list's first line."""
    first = answer.results[0]
    target = re.match(r"🎯 Target (\d+)", first["title"])
    assert target, first
    table = first["description"].split(" · ")[0]
    assert table.startswith("Table: "), first
    return [int(v) for _c, v in EMOJI_VALUE.findall(table)], int(target.group(1))


def find_sum(hand: list[int], table: list[int], target: int) -> list[int]:
    """A sum a player finds: a hand value and table values adding up to the target."""
    for size in range(1, len(table) + 1):
        for chosen in combinations(table, size):
            for value in hand:
                if value + sum(chosen) == target:
                    return [value, *chosen]
    raise AssertionError(f"no sum of {target} with {hand} and {table}")


async def look_and_play(rig: BotRig, group: FakeChat, gid: int, ana: FakeUser, news: str | None) -> None:
    """Ana reads the popup and the list's first line (never the board), checks what she read
    against the game, types the sum she found in it, and plays it."""
    game = current_game(rig, group.id)
    state = stored_state(rig, gid)
    board = board_of(rig, game)
    popup = await rig.tg.tap(ana, board, "👀 My hand")
    assert popup.show_alert and popup.text == expected_popup(state, news)
    assert set(card_labels(popup.text)) <= {label(c) for c in [*state.hands[0], *state.table]}
    listed = await rig.tg.tap_switch_inline(ana, board, PLAY)
    first = listed.results[0]
    assert (first["title"], first["description"]) == expected_first_line(state, news)
    hand, table, target = read_popup(popup.text or "")
    listed_table, listed_target = read_first_line(listed)
    assert (sorted(listed_table), listed_target) == (sorted(table), target)
    values = find_sum(hand, table, target)
    typed = await rig.tg.inline_query(ana, f"g{gid} {' '.join(map(str, values))}", chat=group)
    assert typed.results and all(f" = {target} · " in r["title"] for r in typed.results)
    pick = typed.results[0]
    await rig.tg.pick(ana, group, typed, pick["id"])
    played = moves_of(rig, gid)[-1]
    action = decode(played.code)
    assert isinstance(action, Sum) and played.seat == 0
    cards = [state.hands[0][action.hand], *(state.table[p] for p in action.table)]
    assert sorted(VALUE[c] for c in cards) == sorted(values)


async def test_the_mover_reads_the_live_table_and_target_after_every_t_card(
    inline_rig: BotRig,  # noqa: F811
) -> None:
    rig = inline_rig
    group, gid, users = await three_players(rig)
    ana, _ben, _cai = users
    targets = {"thief": 9, "shifter": 10, "bomb": 9, "joker": 9}
    for kind in ("thief", "shifter", "bomb", "joker"):
        await others_discard(rig, group, users, ana)
        victims = {"thief": [4, 4, 4], "bomb": [3, 3, 3]}.get(kind, [2, 2, 2])
        tops = [(3, 10), (None, 8)] if kind == "shifter" else [(None, targets[kind])]
        state = arrange(
            rig,
            gid,
            hands={0: HAND, 1: victims, 2: [4, 4, 4] if kind == "bomb" else [2, 2, 2]},
            table=TABLE,
            tops=tops,
            t_card=kind,
        )
        assert state.target == targets[kind]
        assert not sum_options(state.hands[0], state.table, state.target), "no sum before the card"
        game = current_game(rig, group.id)
        board = board_of(rig, game)
        before = board.content
        if kind == "joker":  # chosen with its key, -1 at the second tap, claimed alone
            # (the key's data: the board was drawn before the set-up gave her the card)
            joker_key = f"t:{gid}:{game.version}:joker"
            await rig.tg.tap_data(ana, board, joker_key)
            chosen = await rig.tg.tap_data(ana, board, joker_key)
            assert "the target becomes 8" in (chosen.text or "")
            await rig.tg.tap(ana, board, "✅ Claim")
        else:
            listed = await rig.tg.tap_switch_inline(ana, board, PLAY)
            card = next(r for r in listed.results if r["title"].startswith(("🥷 Thief → Ben", "🔀", "💣")))
            await rig.tg.pick(ana, group, listed, card["id"])
        assert current_game(rig, group.id).version == game.version + 1, "the card alone is played"
        # the group board is the one from before the card, unchanged: it cannot tell the new table
        assert board_of(rig, current_game(rig, group.id)).message_id == board.message_id
        assert rig.fake.message(group.id, board.message_id).content == before
        event = last_t_card(rig, gid)
        assert event.kind == kind
        await look_and_play(rig, group, gid, ana, news_of(event))
    sums = [m for m in moves_of(rig, gid) if m.seat == 0 and isinstance(decode(m.code), Sum)]
    assert len(sums) == 4
    assert not rig.tg.errors


async def test_a_wrong_sum_after_a_thief_shows_the_table_and_target(
    inline_rig: BotRig,  # noqa: F811
) -> None:
    rig = inline_rig
    group, gid, users = await three_players(rig)
    ana = users[0]
    await others_discard(rig, group, users, ana)
    arrange(
        rig, gid, hands={0: HAND, 1: [4, 4, 4], 2: [2, 2, 2]}, table=TABLE, tops=[(None, 9)], t_card="thief"
    )
    board = board_of(rig, current_game(rig, group.id))
    listed = await rig.tg.tap_switch_inline(ana, board, PLAY)
    thief = next(r for r in listed.results if r["title"] == "🥷 Thief → Ben")
    await rig.tg.pick(ana, group, listed, thief["id"])
    state = stored_state(rig, gid)
    stolen = last_t_card(rig, gid).card
    assert stolen is not None and VALUE[stolen] == 4 and state.table[-1] == stolen
    table = f"Table: {labels(state.table)}"
    news = f"🥷 Thief: {label(stolen)} stolen"
    for typed, title in (
        ("6 1 1", "6 + 1 + 1 = 8 · the target is 9"),
        ("5 2 2", "5 + 2 + 2: you need one of these in your hand and the others on the table"),
        ("7 2", "Card values go from 1 to 6."),
    ):
        why = await rig.tg.inline_query(ana, f"g{gid} {typed}", chat=group)
        assert [(r["title"], r["description"]) for r in why.results] == [
            (title, f"🎯 Target 9 · {table} · {news}")
        ]


async def test_a_long_table_is_told_by_value(inline_rig: BotRig) -> None:  # noqa: F811
    """After a Shifter on a table of 20 cards the list's first line counts every card by value:
    too many to list one by one in two lines of a list."""
    rig = inline_rig
    group, gid, users = await three_players(rig)
    ana = users[0]
    await others_discard(rig, group, users, ana)
    long_table = [1] * 6 + [2] * 6 + [3] * 5 + [4] * 2 + [6]
    # a 5 goes to the table, and the target becomes 7
    tops = [(5, 9), (5, 7)]
    arrange(
        rig, gid, hands={0: HAND, 1: [3, 3, 3], 2: [4, 4, 1]}, table=long_table, tops=tops, t_card="shifter"
    )
    board = board_of(rig, current_game(rig, group.id))
    listed = await rig.tg.tap_switch_inline(ana, board, PLAY)
    shifter = next(r for r in listed.results if r["title"].startswith("🔀"))
    await rig.tg.pick(ana, group, listed, shifter["id"])
    state = stored_state(rig, gid)
    assert len(state.table) == 21 and VALUE[state.table[-1]] == 5 and state.target == 7
    counts = Counter(VALUE[c] for c in state.table)
    by_value = "Table (21 cards by value): " + " ".join(f"{v}×{n}" for v, n in sorted(counts.items()))
    assert by_value == "Table (21 cards by value): 1×6 2×6 3×5 4×2 5×1 6×1"
    # the popup has room for them card by card...
    popup = await rig.tg.tap(ana, board, "👀 My hand")
    assert (popup.text or "").splitlines()[1:] == [
        f"Table: {labels(state.table)}",
        f"🔀 Shifter: {label(state.table[-1])} from the deck",
        "Target 7. Your move!",
    ]
    # ...two lines of the list have not: it counts them by value
    listed = await rig.tg.tap_switch_inline(ana, board, PLAY)
    first = listed.results[0]
    assert first["title"] == "🎯 Target 7 · 🧮 type your sum, e.g. 5 3 1"
    assert first["description"] == by_value  # (the Shifter's line has no room left beside it)
    # a sum found in what the list says: the values and how many of each
    read = [int(v) for v, n in re.findall(r"(\d)×(\d+)", first["description"]) for _ in range(int(n))]
    values = find_sum(HAND, read, 7)
    typed = await rig.tg.inline_query(ana, f"g{gid} {' '.join(map(str, values))}", chat=group)
    await rig.tg.pick(ana, group, typed, typed.results[0]["id"])
    assert isinstance(decode(moves_of(rig, gid)[-1].code), Sum)


async def test_a_private_panel_shows_the_live_table_and_target_after_a_t_card(
    inline_rig: BotRig,  # noqa: F811
) -> None:
    """The private panel is drawn again after a [T!] card played on it: its table, its target and
    the card's line are the game's as they are now."""
    rig = inline_rig
    group, gid, users = await three_players(rig)
    ana = users[0]
    await others_discard(rig, group, users, ana)
    await rig.tg.send(rig.fake.private(ana), ana, "/start")
    await open_panel(rig, ana, board_of(rig, current_game(rig, group.id)))
    tops = [(3, 10), (None, 8)]
    arrange(rig, gid, hands={0: HAND, 1: [2, 2, 2], 2: [2, 2, 2]}, table=TABLE, tops=tops, t_card="shifter")
    game = current_game(rig, group.id)
    panel = live_panel(rig, gid, ana)
    await rig.tg.tap_data(ana, panel, f"t:{gid}:{game.version}:shifter")
    await rig.tg.tap(ana, panel, "✅ Claim")
    state = stored_state(rig, gid)
    moved = last_t_card(rig, gid).card
    assert moved is not None and state.table[-1] == moved and state.target == 8
    lines = live_panel(rig, gid, ana).content.splitlines()
    assert "🎯 Target 8 · deck" in "\n".join(lines)
    table_at = lines.index(f"Table: {labels(state.table)}")
    assert lines[table_at + 1] == f"🔀 Shifter: {label(moved)} from the deck"
