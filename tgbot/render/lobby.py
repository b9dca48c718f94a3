"""The lobby message and its settings screen."""

from __future__ import annotations

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from engine.cards import COLOUR_ORDER

from .. import callbacks as cb
from ..i18n import _
from ..services.context import GameContext
from ..services.pacing import Pace, pace_keys, pace_label
from .cards import COLOUR_EMOJI, name

MIN_PLAYERS = 2


def _colours_text(lang: str, ctx: GameContext) -> str:
    n = ctx.settings.colours
    if not n:
        return _(lang, "by player count")
    return "".join(COLOUR_EMOJI[c.value] for c in COLOUR_ORDER[:n])


def lobby_text(lang: str, ctx: GameContext, custom: Pace | None = None) -> str:
    s = ctx.settings
    players = max(MIN_PLAYERS, len(ctx.seats))
    lines = [
        _(lang, "🃏 <b>New game of TWEAK!</b>"),
        _(lang, "Tap Join to play (2–6 players)."),
        "",
        _(lang, "Players ({n}/6):", n=len(ctx.seats)),
    ]
    for seat in ctx.seats:
        tag = " 🤖" if seat.ai_level else ""
        lines.append(f"• {name(seat.name)}{tag}")
    if not ctx.seats:
        lines.append(_(lang, "(nobody yet)"))
    lines.append("")
    lines.append(
        _(
            lang,
            "Edition: {edition} · colours: {colours} · goal: {goal} · pace: {pace}",
            edition=_(lang, "classic") if s.edition == "classic" else _(lang, "extended"),
            colours=_colours_text(lang, ctx),
            goal=s.threshold(players) if s.target is not None else _(lang, "by player count"),
            pace=pace_label(lang, s.pace, custom),
        )
    )
    if s.face_down:
        lines.append(_(lang, "Won [T!] cards are kept face down."))
    lines.append(_(lang, "The creator or a group admin starts the game."))
    return "\n".join(lines)


def lobby_keyboard(lang: str, ctx: GameContext) -> InlineKeyboardMarkup:
    gid = ctx.game_id
    rows = [
        [
            InlineKeyboardButton(_(lang, "✋ Join"), callback_data=cb.lobby("lj", gid)),
            InlineKeyboardButton(_(lang, "🚪 Leave"), callback_data=cb.lobby("ll", gid)),
        ],
        [
            InlineKeyboardButton(_(lang, "▶️ Start"), callback_data=cb.lobby("ls", gid)),
            InlineKeyboardButton(_(lang, "⚙️ Settings"), callback_data=cb.lobby("lo", gid)),
        ],
        [
            InlineKeyboardButton(_(lang, "🤖 Add computer"), callback_data=cb.add_ai(gid, "normal")),
            InlineKeyboardButton(_(lang, "✖️ Cancel"), callback_data=cb.lobby("lc", gid)),
        ],
    ]
    return InlineKeyboardMarkup(rows)


def _mark(label: str, on: bool) -> str:
    return f"✅ {label}" if on else label


def pace_rows(
    lang: str, game_id: int, current: str, custom: Pace | None = None
) -> list[list[InlineKeyboardButton]]:
    """The pace keys, ✅ on the current one: in the lobby's settings and under /settings of a running game."""
    keys = [
        InlineKeyboardButton(
            _mark(pace_label(lang, p, custom), p == current), callback_data=cb.setting(game_id, "p", p)
        )
        for p in pace_keys(custom)
    ]
    return [keys[:3], keys[3:]]


def settings_keyboard(lang: str, ctx: GameContext, custom: Pace | None = None) -> InlineKeyboardMarkup:
    gid = ctx.game_id
    s = ctx.settings
    players = max(MIN_PLAYERS, len(ctx.seats))
    rows = [
        [
            InlineKeyboardButton(
                _mark(_(lang, "Classic"), s.edition == "classic"), callback_data=cb.setting(gid, "e", "c")
            ),
            InlineKeyboardButton(
                _mark(_(lang, "Extended"), s.edition == "extended"), callback_data=cb.setting(gid, "e", "x")
            ),
        ],
        [
            InlineKeyboardButton(
                _mark(_(lang, "Auto colours"), s.colours == 0), callback_data=cb.setting(gid, "c", "0")
            ),
            *(
                InlineKeyboardButton(
                    _mark(f"{n}🎨", s.colours == n), callback_data=cb.setting(gid, "c", str(n))
                )
                for n in (3, 4, 5, 6)
            ),
        ],
        [
            InlineKeyboardButton(_(lang, "Goal −20"), callback_data=cb.setting(gid, "t", "-")),
            InlineKeyboardButton(
                _mark(_(lang, "Goal auto"), s.target is None)
                if s.target is None
                else str(s.threshold(players)),
                callback_data=cb.setting(gid, "t", "d"),
            ),
            InlineKeyboardButton(_(lang, "Goal +20"), callback_data=cb.setting(gid, "t", "+")),
        ],
        [
            InlineKeyboardButton(
                _mark(_(lang, "[T!] face up"), not s.face_down), callback_data=cb.setting(gid, "f", "0")
            ),
            InlineKeyboardButton(
                _mark(_(lang, "[T!] face down"), s.face_down), callback_data=cb.setting(gid, "f", "1")
            ),
        ],
        *pace_rows(lang, gid, s.pace, custom),
        [
            InlineKeyboardButton(_(lang, "🤖 Easy"), callback_data=cb.add_ai(gid, "easy")),
            InlineKeyboardButton(_(lang, "🤖 Normal"), callback_data=cb.add_ai(gid, "normal")),
            InlineKeyboardButton(_(lang, "🤖 Hard"), callback_data=cb.add_ai(gid, "hard")),
        ],
        [InlineKeyboardButton(_(lang, "↩️ Back"), callback_data=cb.lobby("lb", gid))],
    ]
    return InlineKeyboardMarkup([r for r in rows if r])
