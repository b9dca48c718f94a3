"""Scripted players that only use what the bot showed them: keys, popups and texts."""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from itertools import combinations

from tests.fakes import FakeTelegram, TelegramTestClient
from tests.fakes.telegram import FakeUser, StoredMessage

EMOJI_VALUE = re.compile(r"(🟥|🟧|🟨|🟩|🟦|🟪)([1-6])")
HAND_SLOT = re.compile(r"(\d):(🟥|🟧|🟨|🟩|🟦|🟪)([1-6])")


def card_labels(text: str) -> list[str]:
    return [m.group(0) for m in EMOJI_VALUE.finditer(text)]


def is_table_key(data: str) -> bool:
    """A compose key that toggles a table card (k:<game>:<version>:t:<position>)."""
    return data.startswith("k:") and data.split(":")[3] == "t"


def buttons(fake: FakeTelegram, message: StoredMessage) -> list[tuple[str, str]]:
    return [(t, d) for t, d in fake.buttons(message) if d is not None]


@dataclass
class Player:
    user: FakeUser
    rng: random.Random
    use_t_cards: bool = True

    @property
    def name(self) -> str:
        return self.user.first_name


def to_move(board_text: str, players: list[Player]) -> Player | None:
    for p in players:
        if f"👉 {p.name}, your move!" in board_text:
            return p
    return None


def choose_sum(
    hand: list[int], table: list[int], target: int, rng: random.Random
) -> tuple[int, tuple[int, ...]] | None:
    """A random legal sum among those found by brute force over small subsets."""
    found: list[tuple[int, tuple[int, ...]]] = []
    n = len(table)
    for size in range(1, min(n, 6) + 1):
        for subset in combinations(range(n), size):
            total = sum(table[i] for i in subset)
            for h, value in enumerate(hand):
                if value + total == target:
                    found.append((h, subset))
        if len(found) > 50:
            break
    if not found:
        return None
    # prefer the biggest (TWEAKs first), with a little randomness
    found.sort(key=lambda f: -len(f[1]))
    return found[0] if rng.random() < 0.7 else rng.choice(found)


def panel_hand(panel: StoredMessage) -> list[int]:
    """The values of the hand a private panel shows."""
    line = (panel.text or "").split("Your hand:")[1].split("\n")[0]
    return [int(v) for _, v in EMOJI_VALUE.findall(line)]


def data_is(want: str) -> Callable[[str, str | None], bool]:
    """Picks the key whose callback data is `want`."""
    return lambda _text, data: data == want


def newest_keyed(fake: FakeTelegram, chat_id: int) -> StoredMessage | None:
    """The newest message of a chat with compose keys: the live board (or panel)."""
    for message in reversed(fake.messages(chat_id)):
        if any(d is not None and d.startswith("k:") for _t, d in fake.buttons(message)):
            return message
    return None


def board_part(text: str) -> str:
    """A board's text without the report it opens with (from its status line on, in English)."""
    at = text.find("TWEAK! · round")
    return text[at:] if at >= 0 else text


def target_of(text: str) -> int:
    text = board_part(text)
    m = re.search(r"target (\d+) this turn", text)
    if m:
        return int(m.group(1))
    m = re.search(r"Target (\d+)", text)
    assert m, text
    return int(m.group(1))


async def play_turn(
    tg: TelegramTestClient, fake: FakeTelegram, surface: StoredMessage, player: Player, private: bool
) -> str:
    """Compose and play one turn on `surface` (the group board or a private panel)."""
    if private:
        hand = panel_hand(surface)
    else:
        popup = await tg.tap(player.user, surface, "👀 My hand")
        assert popup.show_alert
        hand = [int(m.group(3)) for m in HAND_SLOT.finditer(popup.text or "")]
    assert hand, surface.text
    keys = buttons(fake, surface)
    hand_keys = keys[: len(hand)]
    target = target_of(surface.text or "")
    # [T!] first, sometimes: its key chooses (again: the next choice), Claim plays it; a Joker is
    # played by Claim together with the sum composed after it
    t_keys = [(t, d) for t, d in keys if d.startswith("t:")]
    if t_keys and player.use_t_cards and player.rng.random() < 0.5:
        _label, data = player.rng.choice(t_keys)
        popup = await tg.tap(player.user, surface, data_is(data))
        while "again" in (popup.text or "") and player.rng.random() < 0.3:
            popup = await tg.tap(player.user, surface, data_is(data))
        joker = re.search(r"the target becomes (\d+)", popup.text or "")
        if joker:
            target = int(joker.group(1))
        elif "chosen" in (popup.text or ""):
            await tg.tap(player.user, surface, "✅ Claim")
            surface = newest_keyed(fake, surface.chat_id) or surface  # a new board after the card
            keys = buttons(fake, surface)
            if not any(d.startswith("k:") for _, d in keys):
                return "t-then-gone"
            if private:
                hand = panel_hand(surface)
            hand_keys = keys[: len(hand)]
            target = target_of(surface.text or "")
    table = [(t, d) for t, d in keys[len(hand) :] if is_table_key(d) and EMOJI_VALUE.search(t)]
    table_values = [int(EMOJI_VALUE.search(t).group(2)) for t, _ in table]  # type: ignore[union-attr]
    choice = choose_sum(hand, table_values, target, player.rng)
    if choice is None:
        h = player.rng.randrange(len(hand))
        await tg.tap(player.user, surface, data_is(hand_keys[h][1]))
        await tg.tap(player.user, surface, "🗑 Discard")
        return "discard"
    h, subset = choice
    await tg.tap(player.user, surface, data_is(hand_keys[h][1]))
    for position in subset:
        # the keys change after every tap: find the key of this table position again
        current = buttons(fake, surface)
        table_now = [(t, d) for t, d in current[len(hand) :] if is_table_key(d) and EMOJI_VALUE.search(t)]
        await tg.tap(player.user, surface, data_is(table_now[position][1]))
    await tg.tap(player.user, surface, "✅ Claim")
    return "sum"
