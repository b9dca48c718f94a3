"""The physical components: number cards, [T!] cards, points and back numbers.

Card ids are short strings (`R5a`, `B3b`): colour letter, front value, copy
letter. Everything about a card is looked up in module-level tables so the hot
path never builds objects.
"""

from __future__ import annotations

from enum import StrEnum


class Colour(StrEnum):
    RED = "R"
    ORANGE = "O"
    YELLOW = "Y"
    GREEN = "G"
    BLUE = "B"
    PURPLE = "P"


#: Seed order of the colours (RULES §1.2); also the default order of extra colours (A23).
COLOUR_ORDER: tuple[Colour, ...] = (
    Colour.RED,
    Colour.ORANGE,
    Colour.YELLOW,
    Colour.GREEN,
    Colour.BLUE,
    Colour.PURPLE,
)

#: The nine fronts of one colour, sorted by value (RULES §1.2).
FRONTS: tuple[int, ...] = (1, 1, 2, 2, 3, 3, 4, 5, 6)


class TKind(StrEnum):
    THIEF = "thief"
    JOKER = "joker"
    SHIFTER = "shifter"
    BOMB = "bomb"


T_KINDS: tuple[TKind, ...] = (TKind.THIEF, TKind.JOKER, TKind.SHIFTER, TKind.BOMB)

#: [T!] deck compositions by edition (A24).
EDITIONS: dict[str, dict[TKind, int]] = {
    "classic": {TKind.THIEF: 4, TKind.JOKER: 3, TKind.SHIFTER: 2, TKind.BOMB: 1},
    "extended": {TKind.THIEF: 5, TKind.JOKER: 5, TKind.SHIFTER: 5, TKind.BOMB: 2},
}

T_POINTS = 2
BLUE_CARD_TARGET = 7


def _build_tables() -> tuple[dict[str, int], dict[str, str], dict[str, int], dict[str, int], list[str]]:
    value: dict[str, int] = {}
    colour: dict[str, str] = {}
    points: dict[str, int] = {}
    back: dict[str, int] = {}
    order: list[str] = []
    for c_index, col in enumerate(COLOUR_ORDER):
        seen: dict[int, int] = {}
        for k, front in enumerate(FRONTS):
            copy = seen.get(front, 0)
            seen[front] = copy + 1
            cid = f"{col.value}{front}{'ab'[copy]}"
            value[cid] = front
            colour[cid] = col.value
            if col is Colour.RED and front == 5:
                pts = 5
            elif front == 5:
                pts = 4
            elif col is Colour.RED:
                pts = 3
            else:
                pts = 1
            points[cid] = pts
            back[cid] = 7 + ((k + c_index) % 4)  # A1 balanced default
            order.append(cid)
    return value, colour, points, back, order


VALUE, COLOUR_OF, POINTS, BALANCED_BACK, ALL_CARDS = _build_tables()


def cards_of_colours(colours: tuple[str, ...] | list[str]) -> list[str]:
    wanted = set(colours)
    return [c for c in ALL_CARDS if COLOUR_OF[c] in wanted]


def is_card(card: object) -> bool:
    return isinstance(card, str) and card in VALUE


def t_deck(edition: str) -> list[str]:
    deck: list[str] = []
    for kind in T_KINDS:
        deck.extend([kind.value] * EDITIONS[edition][kind])
    return deck
