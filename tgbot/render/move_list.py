"""Inline mode: a player's legal moves as a list only they see, and what a pick posts.

Titles read like the move report ("🟦3 + 🟧2 + 🟩4 = 9 · TWEAK! · +6"), so a move looks the
same whether it was picked here, composed on the board or in a private panel.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine import View
from engine.actions import Action
from engine.cards import POINTS, T_POINTS, VALUE, TKind

from ..i18n import _, _p
from .cards import card, name, t_label
from .glance import target_text

MARK = "🎯"


@dataclass(frozen=True)
class Offer:
    """One legal move (or a [T!] card to play first), as the inline list shows it."""

    moves: tuple[Action, ...]  # played in this order
    hand_card: str | None = None  # a sum's or a discard's hand card
    table_cards: tuple[str, ...] = ()
    tweak: bool = False
    joker: int = 0  # a sum made with the Joker: its +1 or -1
    wins_t: bool = False  # a TWEAK while [T!] cards are left: it wins one (which, nobody knows yet)
    t_kind: TKind | None = None  # a [T!] card played on its own (Thief, Shifter, Bomb)
    victim: str | None = None  # the Thief's victim, by name

    @property
    def card_points(self) -> int:
        cards = [self.hand_card, *self.table_cards] if self.table_cards else []
        return sum(POINTS[c] for c in cards if c is not None)

    @property
    def points(self) -> int:
        """What the move adds to the round: the cards, and the [T!] card a TWEAK wins."""
        return self.card_points + (T_POINTS if self.wins_t else 0)

    @property
    def is_sum(self) -> bool:
        return bool(self.table_cards)


def title(lang: str, offer: Offer) -> str:
    if offer.is_sum:
        assert offer.hand_card is not None
        cards = [offer.hand_card, *offer.table_cards]
        text = " + ".join(card(c) for c in cards) + f" = {sum(VALUE[c] for c in cards)}"
        if offer.tweak:
            text += " · TWEAK!"
            if offer.wins_t:
                # NOTE: a move offered in the inline list, not played yet
                # (the same title is what the player's pick posts): this
                # TWEAK will win the top card of the [T!] pile.
                text += " · " + _p(lang, "move offered", "wins a [T!] card")
        text += f" · +{offer.points}"
        if offer.joker:
            text = f"🃏 {offer.joker:+d} · " + text
        return text
    if offer.t_kind is not None:
        label = t_label(lang, offer.t_kind)
        return f"{label} → {offer.victim}" if offer.victim else label
    assert offer.hand_card is not None
    return _(lang, "🗑 Discard {card}", card=card(offer.hand_card))


def description(lang: str, offer: Offer) -> str:
    if offer.is_sum:
        won = len(offer.table_cards) + 1
        text = _(lang, "Takes {n} cards worth {points} points", n=won, points=offer.card_points)
        if offer.wins_t:
            text += " · " + _(lang, "and a [T!] card: +{points}", points=T_POINTS)
        return text
    if offer.t_kind is not None:
        return _(lang, "Play it first; then open this list again for your sum.")
    assert offer.hand_card is not None
    return _(lang, "Your turn ends; the card goes to the table.")


def announcement(lang: str, player: str, offer: Offer, link: str) -> str:
    """The message a pick posts in the group (as the player's own, "via" the bot)."""
    return f'<a href="{link}">{MARK}</a> <b>{name(player)}</b>: {title(lang, offer)}'


def not_your_turn(lang: str, mover: str) -> tuple[str, str]:
    """The one result everyone but the player to move gets: title and message."""
    return (
        _(lang, "It's {name}'s turn", name=mover),
        _(lang, "👀 It's {name}'s turn.", name=name(mover)),
    )


def how_to_type(lang: str, v: View) -> str:
    """The title of the list's first line when the table plays without sum hints: the live target
    first (a phone shows one line of a title and cuts the rest short), then what to do. The table
    goes in its description (`glance.description`)."""
    return target_text(lang, v) + " · " + _(lang, "🧮 type your sum, e.g. 5 3 1")


def thinking(lang: str, player: str) -> str:
    """What an information line posts if it is picked anyway: nothing is played."""
    return _(lang, "🤔 {name} is thinking…", name=name(player))


def not_a_sum(lang: str, values: list[int], target: int) -> str:
    """Why the typed values are no sum: '5 + 3 + 1 = 9 · the target is 10'."""
    expr = " + ".join(str(v) for v in values)
    if len(values) < 2:
        text = _(lang, "{expr}: a sum takes a hand card and table cards", expr=expr)
        return text + " · " + _(lang, "the target is {target}", target=target)
    return _(lang, "{expr} = {total} · the target is {target}", expr=expr, total=sum(values), target=target)


def cards_missing(lang: str, values: list[int]) -> str:
    expr = " + ".join(str(v) for v in values)
    return _(lang, "{expr}: you need one of these in your hand and the others on the table", expr=expr)


def not_card_values(lang: str) -> str:
    return _(lang, "Card values go from 1 to 6.")


def stale_pick(lang: str, player: str) -> str:
    return _(
        lang,
        "⚠️ {name}, that pick came from an old list: nothing was played. Tap 🎯 Play again.",
        name=name(player),
    )
