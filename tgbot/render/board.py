"""The game board: the public message in the group and a player's private panel.

Both surfaces are drawn by the same code; the group variant never shows a
hand card (hand slots are hidden 🂠 keys), the private one shows real cards.
The keyboard carries the whole draft (chosen hand card, chosen table cards,
open [T!] menu) in each key, so a tap is idempotent and needs no storage.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from engine import GameState, sum_options
from engine.actions import Discard, PlayThief, Sum, encode, mask_of, positions_of
from engine.cards import VALUE
from engine.game import t_actions

from .. import callbacks as cb
from ..i18n import _
from ..services.context import GameContext, SeatInfo
from .cards import HIDDEN_CARD, T_EMOJI, card, cards, mention, name, plain_name, t_label, t_list

GROUP = "group"
PRIVATE = "private"
ROW_WIDTH = 6
HINT_TABLE_CARDS = 12  # table cards spelled out in the sum popup


@dataclass(frozen=True)
class Draft:
    hand: int | None = None
    mask: int = 0
    menu: str | None = None  # open [T!] sub-menu

    def selected(self, table_size: int) -> tuple[int, ...]:
        return tuple(p for p in positions_of(self.mask) if p < table_size)


def sanitize(draft: Draft, state: GameState, seat: int) -> Draft | None:
    """Reject drafts that point at cards that do not exist (forged or stale)."""
    if draft.hand is not None and not 0 <= draft.hand < len(state.hands[seat]):
        return None
    if draft.mask and draft.mask.bit_length() > len(state.table):
        return None
    return draft


def _t_summary(lang: str, ctx: GameContext, seat: SeatInfo, viewer_seat: int | None) -> str:
    state = ctx.state
    assert state is not None
    held = state.holdings[seat.seat]
    if not held:
        return ""
    if ctx.settings.face_down and viewer_seat != seat.seat:
        return f" · {T_EMOJI['joker']}?×{len(held)}"
    return " · " + t_list(lang, held)


def _seat_line(lang: str, ctx: GameContext, seat: SeatInfo, viewer_seat: int | None) -> str:
    state = ctx.state
    assert state is not None
    marker = "▶️" if seat.seat == state.current and not state.is_over else "▫️"
    tags = ""
    if seat.ai_level:
        tags += " 🤖"
    if seat.left:
        tags += " 🚪"
    elif seat.away:
        tags += " 💤"
    round_points = state.round_score(seat.seat)
    total = state.totals[seat.seat] + round_points
    return _(
        lang,
        "{marker} {name}{tags} · {hand}{hidden} · {round} pts (total {total}){t}",
        marker=marker,
        name=name(seat.name),
        tags=tags,
        hand=len(state.hands[seat.seat]),
        hidden=HIDDEN_CARD,
        round=round_points,
        total=total,
        t=_t_summary(lang, ctx, seat, viewer_seat),
    )


def status_lines(lang: str, ctx: GameContext, viewer_seat: int | None) -> list[str]:
    state = ctx.state
    assert state is not None
    lines = [
        _(lang, "<b>TWEAK!</b> · round {round} · turn {turn}", round=state.round, turn=state.turn),
        _(
            lang,
            "🎯 Target <b>{target}</b> · deck {deck} · [T!] deck {tdeck}",
            target=state.base_target,
            deck=len(state.deck),
            tdeck=len(state.tdeck),
        ),
    ]
    if state.joker:
        lines.append(
            _(lang, "🃏 Joker {delta:+d}: target {target} this turn", delta=state.joker, target=state.target)
        )
    empty = _(lang, "(empty)")  # not nested in the call below: Babel would not extract it
    lines.append(_(lang, "Table: {cards}", cards=cards(state.table, empty=empty)))
    lines.append("")
    lines.extend(_seat_line(lang, ctx, s, viewer_seat) for s in ctx.seats)
    lines.append(_(lang, "Goal: {threshold} points", threshold=state.config.threshold))
    return lines


def _draft_line(lang: str, state: GameState, seat: int, draft: Draft, surface: str) -> str:
    chosen = draft.selected(len(state.table))
    if draft.hand is None and not chosen:
        return ""
    table_part = [card(state.table[p]) for p in chosen]
    table_total = sum(VALUE[state.table[p]] for p in chosen)
    if draft.hand is None:
        hand_part = "❔"
        total = str(table_total)
    elif surface == PRIVATE:
        hand_card = state.hands[seat][draft.hand]
        hand_part = card(hand_card)
        total = str(table_total + VALUE[hand_card])
    else:
        hand_part = f"{HIDDEN_CARD}{draft.hand + 1}"
        total = f"{HIDDEN_CARD}+{table_total}" if chosen else "?"
    expr = " + ".join([hand_part, *table_part])
    return _(lang, "✏️ {expr} = {total} (target {target})", expr=expr, total=total, target=state.target)


def board_text(lang: str, ctx: GameContext, draft: Draft, surface: str, viewer_seat: int | None) -> str:
    state = ctx.state
    assert state is not None
    lines = status_lines(lang, ctx, viewer_seat)
    current = ctx.seats[state.current]
    if surface == PRIVATE and viewer_seat is not None:
        hand = state.hands[viewer_seat]
        lines.insert(0, _(lang, "🎲 Your game in <b>{chat}</b>", chat=name(ctx.chat_title, 40)))
        lines.append("")
        lines.append(_(lang, "Your hand: {cards}", cards=cards(hand)))
        held = state.holdings[viewer_seat]
        if held:
            lines.append(_(lang, "Your [T!] cards: {cards}", cards=t_list(lang, held)))
    lines.append("")
    if surface == PRIVATE and viewer_seat == state.current:
        lines.append(_(lang, "👉 Your move!"))
    elif current.autoplayed:
        lines.append(_(lang, "⏩ {name} is played by the bot.", name=name(current.name)))
    else:
        lines.append(_(lang, "👉 {mention}, your move!", mention=mention(current.user_id, current.name)))
    line = _draft_line(lang, state, state.current, draft, surface)
    if line:
        lines.append(line)
    return "\n".join(lines)


class Keys(InlineKeyboardMarkup):
    """An inline keyboard of plain keys (text with callback data or a URL) that serialises
    itself directly: PTB's generic `to_dict` walks every attribute of every key, which cost
    about as much as building the keyboard. The JSON is the same."""

    __slots__ = ("_plain",)

    def __init__(self, rows: list[list[InlineKeyboardButton]]) -> None:
        super().__init__(rows)
        self._plain = [[_plain(key) for key in row] for row in rows]

    def to_dict(self, recursive: bool = True) -> dict[str, object]:
        return {"inline_keyboard": [[dict(key) for key in row] for row in self._plain]}


def _plain(key: InlineKeyboardButton) -> dict[str, object]:
    if key.callback_data is not None:
        return {"text": key.text, "callback_data": key.callback_data}
    return {"text": key.text, "url": key.url}


@lru_cache(maxsize=8192)
def _button(text: str, data: str) -> InlineKeyboardButton:
    """Keys are immutable, and a board's keys come back tap after tap: build each once."""
    return InlineKeyboardButton(text, callback_data=data)


@lru_cache(maxsize=2048)
def _link(text: str, url: str) -> InlineKeyboardButton:
    return InlineKeyboardButton(text, url=url)


def _rows(buttons: list[InlineKeyboardButton], width: int = ROW_WIDTH) -> list[list[InlineKeyboardButton]]:
    return [buttons[i : i + width] for i in range(0, len(buttons), width)]


def _t_menu_rows(lang: str, ctx: GameContext, draft: Draft, version: int) -> list[list[InlineKeyboardButton]]:
    state = ctx.state
    assert state is not None
    gid = ctx.game_id
    seat = state.current
    back = _button(_(lang, "↩️ Back"), cb.compose(gid, version, None, 0))
    menu = draft.menu
    options = t_actions(state, seat)
    rows: list[list[InlineKeyboardButton]] = []
    if menu == "thief":
        victims = [
            _button(f"🥷 {plain_name(ctx.seats[a.victim].name, 16)}", cb.move(gid, version, encode(a)))
            for a in options
            if isinstance(a, PlayThief)
        ]
        rows.extend(_rows(victims, 2))
    elif menu == "joker":
        rows.append(
            [
                _button(_(lang, "🃏 Target +1"), cb.move(gid, version, "J+")),
                _button(_(lang, "🃏 Target −1"), cb.move(gid, version, "J-")),
            ]
        )
    elif menu == "shifter":
        rows.append([_button(_(lang, "🔀 Play the Shifter"), cb.move(gid, version, "F"))])
    elif menu == "bomb":
        rows.append([_button(_(lang, "💣 Play the Bomb"), cb.move(gid, version, "B"))])
    else:  # "any": face-down holdings in the group, offer every kind
        rows.extend(_rows([_button(t_label(lang, k), cb.tmenu(gid, version, k)) for k in T_EMOJI], 2))
    rows.append([back])
    return rows


def keyboard(
    lang: str, ctx: GameContext, draft: Draft, surface: str, viewer_seat: int | None, bot_username: str
) -> InlineKeyboardMarkup:
    state = ctx.state
    assert state is not None
    gid = ctx.game_id
    version = ctx.game.version
    seat = state.current
    if draft.menu:
        return Keys(_t_menu_rows(lang, ctx, draft, version))
    rows = []
    hand = state.hands[seat]
    chosen = draft.selected(len(state.table))
    # hand keys
    hand_keys = []
    for i, hand_card in enumerate(hand):
        label = card(hand_card) if surface == PRIVATE else f"{HIDDEN_CARD}{i + 1}"
        if draft.hand == i:
            label = f"👉{label}"
            data = cb.compose(gid, version, None, draft.mask)
        else:
            data = cb.compose(gid, version, i, draft.mask)
        hand_keys.append(_button(label, data))
    rows.append(hand_keys)
    # table keys
    table_keys = []
    for p, table_card in enumerate(state.table):
        selected = p in chosen
        label = f"✅{card(table_card)}" if selected else card(table_card)
        table_keys.append(_button(label, cb.compose(gid, version, draft.hand, draft.mask ^ (1 << p))))
    rows.extend(_rows(table_keys, 8))
    # [T!] keys
    if state.t_played is None and state.holdings[seat]:
        if surface == GROUP and ctx.settings.face_down:
            rows.append([_button("🎴 [T!]", cb.tmenu(gid, version, "any"))])
        else:
            playable = {encode(a)[0] for a in t_actions(state, seat)}
            kinds = [
                k
                for k, code in (("thief", "T"), ("joker", "J"), ("shifter", "F"), ("bomb", "B"))
                if k in state.holdings[seat] and code in playable
            ]
            if kinds:
                rows.append([_button(t_label(lang, k), cb.tmenu(gid, version, k)) for k in kinds])
    # actions
    actions = []
    if draft.hand is not None and chosen:
        actions.append(_button(_(lang, "✅ Claim"), cb.move(gid, version, encode(Sum(draft.hand, chosen)))))
    if draft.hand is not None:
        actions.append(_button(_(lang, "🗑 Discard"), cb.move(gid, version, encode(Discard(draft.hand)))))
    if draft.hand is not None or chosen:
        actions.append(_button(_(lang, "↩️ Clear"), cb.compose(gid, version, None, 0)))
    if actions:
        rows.append(actions)
    # utility
    utility = [_button(_(lang, "👀 My hand"), cb.hand(gid))]
    if surface == GROUP:
        utility.append(_link(_(lang, "📱 Private panel"), f"https://t.me/{bot_username}?start=g{gid}"))
    rows.append(utility)
    return Keys(rows)


def hand_popup(lang: str, ctx: GameContext, seat: int) -> str:
    """The '👀 My hand' popup: only the tapper sees it (<= 200 characters)."""
    state = ctx.state
    assert state is not None
    hand = state.hands[seat]
    slots = "  ".join(f"{i + 1}:{card(c)}" for i, c in enumerate(hand)) or _(lang, "(no cards)")
    text = _(lang, "Your hand: {slots}", slots=slots)
    held = state.holdings[seat]
    if held:
        text += "\n" + _(lang, "[T!]: {cards}", cards=t_list(lang, held))
    if state.current == seat:
        text += "\n" + _(lang, "Target {target}. Your move!", target=state.target)
    return text[:200]


def sum_hint(lang: str, state: GameState, seat: int, draft: Draft) -> str:
    """The toast the composing player sees after each tap (popups are free)."""
    chosen = draft.selected(len(state.table))
    if draft.hand is None:
        if chosen:
            return _(
                lang,
                "Table cards: {total}. Now pick a hand card.",
                total=sum(VALUE[state.table[p]] for p in chosen),
            )
        return ""
    hand_card = state.hands[seat][draft.hand]
    total = VALUE[hand_card] + sum(VALUE[state.table[p]] for p in chosen)
    shown = [card(state.table[p]) for p in chosen[:HINT_TABLE_CARDS]]
    if len(chosen) > HINT_TABLE_CARDS:  # a popup has 200 characters: keep the total readable
        shown.append("…")
    expr = " + ".join([card(hand_card), *shown])
    if not chosen:
        options = [o for o in sum_options([hand_card], state.table, state.target)]
        if options:
            return _(lang, "{card} selected. Now pick table cards.", card=card(hand_card))
        return _(lang, "{card} selected. It makes no sum here: you can discard it.", card=card(hand_card))
    if total == state.target:
        return _(lang, "{expr} = {total} ✅ Tap Claim!", expr=expr, total=total)
    return _(lang, "{expr} = {total} (target {target})", expr=expr, total=total, target=state.target)


def mask_for(positions: tuple[int, ...]) -> int:
    return mask_of(positions)
