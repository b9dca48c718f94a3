"""The game board: the public message in the group, a player's private panel, and the board of a
practice table (in the player's own chat with the bot).

All are drawn from the engine's views (engine/views.py), never from a game state: the group
board from the public view, which holds no hand card, a panel and a practice board from their
player's own view. So a render cannot show a card its reader may not see, by construction.

The keys carry one step each (pick this hand card, toggle that table card, choose a [T!] play,
claim…) with the game version; the draft they build up is kept on the server (`services.drafts`),
so a tap acts on the draft as it is now, whatever keyboard it came from. The group board is never
redrawn while its player composes: the popup after each tap shows the running draft, so nothing
the player waits for spends the group's budget. A private panel (its own budget) shows the draft.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine import View
from engine.actions import PlayJoker, PlayThief, decode, positions_of, t_kind
from engine.cards import VALUE, TKind
from engine.errors import MalformedActionError
from engine.state import PLAYING

from .. import callbacks as cb
from ..i18n import M_, _
from ..inline_data import GameQuery, OpenPanel
from . import turn_notice
from .cards import HIDDEN_CARD, T_EMOJI, card, cards, name, plain_name, t_label, t_list
from .glance import t_news
from .keys import Keyboard, button, link, rows_of, switch_inline

TABLE_ROW = 6
HINT_TABLE_CARDS = 12  # table cards spelled out in the sum popup
#: How the computer levels are called on keys, boards and /top (the levels: `engine.ai.LEVELS`).
COMPUTER_LEVELS = {"easy": M_("Easy"), "normal": M_("Normal"), "hard": M_("Hard")}


@dataclass(frozen=True)
class Draft:
    """The move being composed: a hand card, table cards (bit i = table position i), and the [T!]
    play chosen with its key (an engine action code), which *Claim* plays."""

    hand: int | None = None
    mask: int = 0
    t_code: str | None = None

    def chosen(self, table_size: int) -> tuple[int, ...]:
        return tuple(p for p in positions_of(self.mask) if p < table_size)

    @property
    def joker(self) -> int:
        """The Joker's change of the target, when a Joker is chosen (it is played with the sum)."""
        return _joker_delta(self.t_code)

    @property
    def empty(self) -> bool:
        return self.hand is None and not self.mask and self.t_code is None


def _joker_delta(code: str | None) -> int:
    """A Joker's change of the target (+1 or -1); 0 for any other play."""
    try:
        action = decode(code) if code else None
    except MalformedActionError:
        return 0
    return action.delta if isinstance(action, PlayJoker) else 0


@dataclass(frozen=True)
class Player:
    """What a board shows of a seat."""

    name: str
    user_id: int | None
    computer: str | None  # the computer's level
    left: bool = False
    away: bool = False
    #: The bot may write to them in private (they started it): their turns are told there.
    can_dm: bool = False


@dataclass(frozen=True)
class Table:
    """Everything a board needs besides the view."""

    game_id: int
    version: int
    players: tuple[Player, ...]
    face_down: bool
    chat_title: str = ""
    bot_username: str = "tweakbot"
    inline: bool = False
    #: The current player's legal [T!] plays (engine codes); empty when they may not be shown.
    t_choices: tuple[str, ...] = ()
    #: The table plays with sum hints (a game setting).
    hints: bool = False
    #: A practice table: the board is in the player's own chat with the bot and shows their cards
    #: (no line naming the group, no 👀 My hand key: the board is their hand).
    practice: bool = False
    #: A group the bot is in: its board has 🃏 My cards (a person's own view, an ephemeral message).
    own_views: bool = False


def computer_label(lang: str, level: str) -> str:
    """'🤖 Normal': the level a computer plays at, as the lobby's keys name it."""
    return "🤖 " + _(lang, COMPUTER_LEVELS.get(level, "Normal"))


def _t_key(game_id: int, version: int, kind: TKind) -> str:
    return cb.TChoice(game_id, version, cb.TChoiceKind.of(kind)).data


def _t_summary(lang: str, v: View, seat: int) -> str:
    count = v.holding_counts[seat]
    if not count:
        return ""
    held = v.holdings[seat]
    if held is None:  # face down, and not the reader's
        return f" · {T_EMOJI[TKind.JOKER]}?×{count}"
    return " · " + t_list(lang, held)


def _seat_line(lang: str, v: View, table: Table, seat: int) -> str:
    player = table.players[seat]
    playing = v.status == PLAYING
    marker = "▶️" if seat == v.current and playing else "▫️"
    tags = ""
    if player.computer:
        tags += " " + computer_label(lang, player.computer)
    if player.left:
        tags += " 🚪"
    elif player.away:
        tags += " 💤"
    return _(
        lang,
        "{marker} {name}{tags} · {hand}{hidden} · {round} pts (total {total}){t}",
        marker=marker,
        name=name(player.name),
        tags=tags,
        hand=v.hand_sizes[seat],
        hidden=HIDDEN_CARD,
        round=v.scores_round[seat],
        total=v.totals[seat] + v.scores_round[seat],
        t=_t_summary(lang, v, seat),
    )


def status_lines(lang: str, v: View, table: Table) -> list[str]:
    lines = [
        _(lang, "<b>TWEAK!</b> · round {round} · turn {turn}", round=v.round, turn=v.turn),
        _(
            lang,
            "🎯 Target <b>{target}</b> · deck {deck} · [T!] deck {tdeck}",
            target=v.base_target,
            deck=v.deck_size,
            tdeck=v.tdeck_size,
        ),
    ]
    if v.joker:
        lines.append(
            _(lang, "🃏 Joker {delta:+d}: target {target} this turn", delta=v.joker, target=v.target)
        )
    empty = _(lang, "(empty)")  # not nested in the call below: Babel would not extract it
    lines.append(_(lang, "Table: {cards}", cards=cards(v.table, empty=empty)))
    if v.seat is not None and (news := t_news(lang, v)):  # a panel: what this turn's [T!] card did
        lines.append(news)
    lines.append("")
    lines.extend(_seat_line(lang, v, table, s) for s in range(v.players))
    goal = _(lang, "Goal: {threshold} points", threshold=v.threshold)
    lines.append(goal + " · " + (_(lang, "💡 hints on") if table.hints else _(lang, "🧠 hints off")))
    return lines


def t_play_label(lang: str, code: str, players: tuple[Player, ...]) -> str:
    """A [T!] play as its key and popups name it: '🥷 Thief → Bea', '🃏 Joker +1', '💣 Bomb'."""
    kind = t_kind(code)
    if kind is None:
        return code
    label = t_label(lang, kind)
    match decode(code):
        case PlayThief(victim):
            return f"{label} → {plain_name(players[victim].name, 16)}"
        case PlayJoker(delta):
            return f"{label} {delta:+d}"
    return label


def _draft_lines(lang: str, v: View, table: Table, draft: Draft) -> list[str]:
    """The draft under a private panel: the [T!] play chosen, and the running sum."""
    lines = []
    if draft.t_code:
        play = t_play_label(lang, draft.t_code, table.players)
        lines.append(_(lang, "✏️ {play}: ✅ Claim plays it", play=play))
    chosen = draft.chosen(len(v.table))
    target = v.target + draft.joker
    if v.hand is not None and draft.hand is not None and draft.hand < len(v.hand):
        expr = " + ".join([card(v.hand[draft.hand]), *(card(v.table[p]) for p in chosen)])
        total = VALUE[v.hand[draft.hand]] + sum(VALUE[v.table[p]] for p in chosen)
        lines.append(_(lang, "✏️ {expr} = {total} (target {target})", expr=expr, total=total, target=target))
    elif chosen:
        lines.append(
            _(
                lang,
                "✏️ Table cards {expr} = {total}; no hand card chosen yet (target {target})",
                expr=" + ".join(card(v.table[p]) for p in chosen),
                total=sum(VALUE[v.table[p]] for p in chosen),
                target=target,
            )
        )
    return lines


def board_text(lang: str, v: View, table: Table, draft: Draft | None = None, header: str = "") -> str:
    """The group board (public view), or a private panel or practice board (a seat's view)."""
    lines = status_lines(lang, v, table)
    if v.seat is not None:
        if not table.practice:
            lines.insert(0, _(lang, "🎲 Your game in <b>{chat}</b>", chat=name(table.chat_title, 40)))
        lines.append("")
        lines.append(_(lang, "Your hand: {cards}", cards=cards(v.hand or ())))
        held = v.holdings[v.seat]
        if held:
            lines.append(_(lang, "Your [T!] cards: {cards}", cards=t_list(lang, held)))
    lines.append("")
    current = table.players[v.current]
    if v.seat is not None and v.seat == v.current:
        lines.append(turn_notice.your_move(lang))
    elif current.computer or current.left or current.away:
        lines.append(turn_notice.played_by_bot(lang, current.name))
    else:
        lines.append(turn_notice.call(lang, current.user_id, current.name))
    if draft is not None and v.seat is not None:
        lines.extend(_draft_lines(lang, v, table, draft))
    text = "\n".join(lines)
    return f"{header}\n\n{text}" if header else text


def keyboard(lang: str, v: View, table: Table, draft: Draft | None = None) -> Keyboard:
    """The keys of a board: the mover's cards to compose with, [T!] plays, claim and discard.

    On the group board the hand keys are numbered slots (🂠1…); a panel shows its own cards. A [T!]
    key chooses a play (tapped again: the next choice, e.g. another victim), *Claim* plays it.
    """
    draft = draft or Draft()
    gid, ver = table.game_id, table.version
    rows: Keyboard = []
    own = v.seat is not None and v.seat == v.current and v.hand is not None
    hand_keys = []
    for i in range(v.hand_sizes[v.current]):
        label = card(v.hand[i]) if own and v.hand is not None else f"{HIDDEN_CARD}{i + 1}"
        if draft.hand == i:
            label = f"👉{label}"
        hand_keys.append(button(label, cb.PickHand(gid, ver, i)))
    if hand_keys:
        rows.append(hand_keys)
    chosen = draft.chosen(len(v.table))
    table_keys = [
        button(f"✅{card(c)}" if p in chosen else card(c), cb.PickTable(gid, ver, p))
        for p, c in enumerate(v.table)
    ]
    rows.extend(rows_of(table_keys, TABLE_ROW))
    if v.t_played is None and v.holding_counts[v.current]:
        if v.holdings[v.current] is None:  # face down on the group board: which is the player's
            rows.append([button("🎴 [T!]", cb.TChoice(gid, ver, cb.TChoiceKind.ANY))])
        else:
            picked = t_kind(draft.t_code) if draft.t_code else None
            kinds = list(dict.fromkeys(k for code in table.t_choices if (k := t_kind(code)) is not None))
            keys = [
                button(
                    ("👉" if k == picked else "") + t_label(lang, k),
                    cb.TChoice(gid, ver, cb.TChoiceKind.of(k)),
                )
                for k in kinds
            ]
            rows.extend(rows_of(keys, 2))
    # They act on the draft the bot keeps, not on this keyboard: the player claims as soon as the
    # popup shows the sum.
    rows.append(
        [
            button(_(lang, "✅ Claim"), cb.Claim(gid, ver)),
            button(_(lang, "🗑 Discard"), cb.Discard(gid, ver)),
            button(_(lang, "↩️ Clear"), cb.Clear(gid, ver)),
        ]
    )
    if v.seat is None and table.own_views:  # whoever taps it sees their own view
        rows.append([button(_(lang, "🃏 My cards"), cb.MyCards(gid))])
    utility = [] if table.practice else [button(_(lang, "👀 My hand"), cb.Hand(gid))]
    if table.inline:
        utility.insert(0, switch_inline(_(lang, "🎯 Play"), GameQuery(gid).data))
    if v.seat is None:
        utility.append(link(_(lang, "📱 Panel"), OpenPanel(gid).link(table.bot_username)))
    if utility:
        rows.append(utility)
    return rows


def sum_hint(lang: str, v: View, draft: Draft, can_sum: bool | None) -> str:
    """The toast the composing player sees after each tap: the draft's true running sum (with a
    chosen Joker's target).

    `can_sum`: the chosen hand card makes some sum with the table (worked out by the caller when
    the table plays with sum hints; None: no hint).
    """
    chosen = draft.chosen(len(v.table))
    target = v.target + draft.joker
    if draft.hand is None or v.hand is None or draft.hand >= len(v.hand):
        if chosen:
            return _(
                lang,
                "Table cards: {total}. Now pick a hand card.",
                total=sum(VALUE[v.table[p]] for p in chosen),
            )
        return _(lang, "Nothing chosen.")
    hand_card = v.hand[draft.hand]
    total = VALUE[hand_card] + sum(VALUE[v.table[p]] for p in chosen)
    shown = [card(v.table[p]) for p in chosen[:HINT_TABLE_CARDS]]
    if len(chosen) > HINT_TABLE_CARDS:  # a popup has 200 characters: keep the total readable
        shown.append("…")
    expr = " + ".join([card(hand_card), *shown])
    if not chosen:
        if can_sum is False:
            return _(lang, "{card} selected. It makes no sum here: you can discard it.", card=card(hand_card))
        return _(lang, "{card} selected. Now pick table cards.", card=card(hand_card))
    if total == target:
        return _(lang, "{expr} = {total} ✅ Tap Claim!", expr=expr, total=total)
    return _(lang, "{expr} = {total} (target {target})", expr=expr, total=total, target=target)


def t_choice_popup(lang: str, v: View, table: Table, code: str | None, more: bool) -> str:
    """The popup after a [T!] key: what *Claim* will play now (nothing is played yet)."""
    if code is None:
        return _(lang, "No [T!] card chosen.")
    play = t_play_label(lang, code, table.players)
    if joker := _joker_delta(code):
        text = _(
            lang,
            "{play}: the target becomes {target}. Pick your sum, then ✅ Claim plays both.",
            play=play,
            target=v.target + joker,
        )
    else:
        text = _(lang, "{play} chosen: ✅ Claim plays it.", play=play)
    if more:
        text += " " + _(lang, "Tap the key again for another choice.")
    return text


def done_popup(lang: str) -> str:
    """The popup of a move played (a report of its own says the rest)."""
    return _(lang, "Done!")


def closed_panel_text(lang: str, chat_title: str, lines: list[str]) -> str:
    """A panel whose turn is over: what was played, and no keys."""
    head = _(lang, "✔️ Played in <b>{chat}</b>:", chat=name(chat_title, 40))
    return "\n".join([head, *lines])


def retired_panel_text(lang: str) -> str:
    """A panel whose player went back to the group board: where to play, and no keys."""
    return _(lang, "↪️ You play this game on the group board now. Tap 📱 Panel there to play here again.")
