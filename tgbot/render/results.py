"""What the group reads after moves: results, round summaries, final standings.

Events may contain private cards (a card drawn into a hand); only cards that
became public (played, stolen onto the table, dropped by the Bomb) are shown.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from engine.cards import POINTS, T_POINTS, VALUE, TKind
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

from .. import callbacks as cb
from ..i18n import _, _n, _p
from .cards import card, cards, name, t_label, t_name
from .chart import ChartTexts
from .keys import Keyboard, button


class Named(Protocol):
    """A seat as reports need it: its name."""

    @property
    def name(self) -> str: ...


#: Marks on the lines of a move the bot played for a seat (the idle default has a line of its own).
AUTO_TAGS = {"away": "💤", "left": "🚪", "ai": "🤖"}


def move_lines(
    lang: str, seats: Sequence[Named], source: str, mover: int, events: Sequence[Event], face_down: bool
) -> list[str]:
    """The report of one move. Only the mover's own lines carry its tag: a computer's move may
    report that the next player, a person, sits out or loses a turn."""
    lines: list[str] = []
    for event in events:
        idle = idle_line(lang, seats, event) if source == "idle" else None
        if idle:
            lines.append(idle)
            continue
        line = event_line(lang, seats, event, face_down)
        if not line:
            continue
        tag = AUTO_TAGS.get(source, "") if getattr(event, "seat", mover) == mover else ""
        lines.append(f"{tag} {line}" if tag else line)
    return lines


def idle_line(lang: str, seats: Sequence[Named], event: Event) -> str | None:
    """The discard the bot played for an idle player at their deadline (move source "idle")."""
    if isinstance(event, Discarded):
        return _(
            lang,
            "⏰ {who} was idle: {card} was discarded for them",
            who=name(seats[event.seat].name),
            card=card(event.card),
        )
    return None


def event_line(lang: str, seats: Sequence[Named], event: Event, face_down: bool) -> str | None:
    """One line of the group's move report, or None for bookkeeping events."""
    if isinstance(event, TPlayed):
        who = name(seats[event.seat].name)
        kind = TKind(event.kind)
        label = t_label(lang, kind)
        if kind is TKind.THIEF and event.victim is not None and event.card:
            # NOTE: {t} is the Thief, its emoji and name ("🥷 Thief"):
            # one card, so its own article or gender fits. {victim}: the
            # player robbed; {card}: the card taken.
            return _(
                lang,
                "{who} plays {t} on {victim}: {card} goes to the table",
                who=who,
                t=label,
                victim=name(seats[event.victim].name),
                card=card(event.card),
            )
        if kind is TKind.JOKER:
            # NOTE: {t} is the Joker, its emoji and name ("🃏 Joker"):
            # one card, so its own article or gender fits. {delta}: +1
            # or -1.
            return _(
                lang, "{who} plays {t}: target {delta:+d} this turn", who=who, t=label, delta=event.delta
            )
        if kind is TKind.SHIFTER and event.card:
            # NOTE: {t} is the Shifter, its emoji and name ("🔀 Shifter"):
            # one card, so its own article or gender fits. {card}: the
            # deck's top card, now on the table.
            return _(
                lang,
                "{who} plays {t}: {card} goes to the table, new target {target}",
                who=who,
                t=label,
                card=card(event.card),
                target=event.new_target,
            )
        dropped = ", ".join(f"{name(seats[s].name)} {card(c)}" for s, c in sorted(event.dropped.items()))
        # NOTE: {t} is the Bomb, its emoji and name ("💣 Bomb"): one
        # card, so its own article or gender fits. {dropped}: each
        # opponent hit and their card ("Bea 🟥3, Cy 🟦5").
        return _(lang, "{who} plays {t}: {dropped} to the table", who=who, t=label, dropped=dropped)
    if isinstance(event, Summed):
        who = name(seats[event.seat].name)
        parts = [event.hand_card, *event.table_cards]
        expr = " + ".join(card(c) for c in parts)
        total = sum(VALUE[c] for c in parts)
        line = _(lang, "{who}: {expr} = {total}", who=who, expr=expr, total=total)
        if event.tweak:
            line += " · <b>TWEAK!</b>"
            if event.won_t:
                if face_down:
                    # NOTE: the move report, once the move is played: this
                    # TWEAK won the top card of the [T!] pile (face down, so
                    # which one is not said).
                    line += " · " + _p(lang, "move played", "wins a [T!] card")
                else:
                    # NOTE: the move report: this TWEAK won the top card of
                    # the [T!] pile, face up. {t} is its name alone ("Thief",
                    # "Joker", "Shifter" or "Bomb"), any of the four, so no
                    # article or gender of one card fits.
                    line += " · " + _(lang, "wins a {t}", t=t_name(lang, event.won_t))
        # What the move adds to the round's points, so the chat re-adds to the round summary.
        return f"{line} · +{sum_points(parts, event.won_t is not None)}"
    if isinstance(event, Discarded):
        return _(lang, "{who} discards {card}", who=name(seats[event.seat].name), card=card(event.card))
    if isinstance(event, LostTurn):
        return _(
            lang,
            "{who} has no cards left: loses the turn and draws {n}",
            who=name(seats[event.seat].name),
            n=len(event.hand_cards),
        )
    if isinstance(event, Skipped):
        return _(lang, "{who} has no cards and sits out the round", who=name(seats[event.seat].name))
    return None


def sum_points(cards_won: Sequence[str], won_t: bool) -> int:
    """Points a sum adds to its player's round: the cards it takes, and a [T!] card won by a
    TWEAK (worth its points whether played or not)."""
    return sum(POINTS[c] for c in cards_won) + (T_POINTS if won_t else 0)


def round_summary(
    lang: str, seats: Sequence[Named], event: RoundEnded, won: list[int], threshold: int
) -> str:
    """Cards won, points and totals toward the threshold."""
    lines = [_(lang, "🏁 <b>Round {round} is over</b>", round=event.round)]
    if event.leftover_table:
        lines.append(_(lang, "Left on the table (nobody scores): {cards}", cards=cards(event.leftover_table)))
    lines.append("")
    order = sorted(range(len(seats)), key=lambda s: (-event.totals[s], s))
    for s in order:
        lines.append(
            _n(
                lang,
                "{name}: +{points} ({n} card won) → {total} / {threshold}",
                "{name}: +{points} ({n} cards won) → {total} / {threshold}",
                won[s],
                name=name(seats[s].name),
                points=event.points[s],
                total=event.totals[s],
                threshold=threshold,
            )
        )
    return "\n".join(lines)


def final_standings(lang: str, seats: Sequence[Named], event: GameEnded, rounds: int) -> str:
    """The winners and every total, best first. No "new game" line: the standings carry one way
    to play again, 🔁 Rematch (`standings_keys`), and a new game is what its refusal offers."""
    lines = [_n(lang, "🏆 <b>Game over</b> after {n} round", "🏆 <b>Game over</b> after {n} rounds", rounds)]
    winners = [name(seats[s].name) for s in event.winners]
    if len(winners) == 1:
        lines.append(_(lang, "Winner: {name} 🎉", name=winners[0]))
    else:
        lines.append(_(lang, "Shared win: {names} 🎉", names=", ".join(winners)))
    lines.append("")
    order = sorted(range(len(seats)), key=lambda s: (-event.totals[s], s))
    place = 0
    last: int | None = None
    for i, s in enumerate(order):
        if event.totals[s] != last:
            place = i + 1
            last = event.totals[s]
        medal = {1: "🥇", 2: "🥈", 3: "🥉"}.get(place, f"{place}.")
        lines.append(f"{medal} {name(seats[s].name)} — {event.totals[s]}")
    return "\n".join(lines)


def standings_keys(lang: str, game_id: int) -> Keyboard:
    """Under the final standings: one tap opens a lobby for the same table (services/rematch.py).

    It applies whenever standings are drawn: the game has just finished in its chat and topic, so
    no other game is open there and none was played since. Where it stops applying, its refusal
    says /newgame: to someone who did not play, and once a newer game has been played there (those
    standings then lose the key)."""
    return [[button(_(lang, "🔁 Rematch"), cb.Rematch(game_id))]]


def abandoned(lang: str, standings: Sequence[tuple[str, int]]) -> str:
    """The end of a game nobody plays any more, with the scores as they stood (`standings`: each
    name and total, best first; none before the first deal)."""
    text = _(lang, "🛑 Every player has left or is away: the game is over, scores kept.")
    if not standings:
        return text
    return text + "\n\n" + "\n".join(f"{name(player)} — {points}" for player, points in standings)


def chart_caption(lang: str) -> str:
    """The caption of the scores' chart, under the final standings."""
    return _(lang, "📈 Scores per round")


def chart_texts(lang: str, threshold: int) -> ChartTexts:
    """The chart's labels (the chart itself knows no language: it is drawn by the sender)."""
    return ChartTexts(
        title=_(lang, "Scores per round"),
        round_label=_(lang, "Round"),
        points_label=_(lang, "Points"),
        goal_label=_(lang, "Goal {points}", points=threshold),
    )
