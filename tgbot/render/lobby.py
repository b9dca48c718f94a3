"""The lobby message and its settings screen, and what the lobby's keys and commands answer: the
computers' names, the start, a cancel or expiry, a rematch's new lobby, the pace of a running game
(/settings, whose keys are the lobby's)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine.cards import COLOUR_ORDER
from engine.config import MAX_PLAYERS, MIN_PLAYERS

from .. import callbacks as cb
from ..game_settings import Colours, Edition, GameSettings, GoalStep
from ..i18n import M_, _
from ..pacing import Pace, PaceName, format_duration, pace_keys, pace_label
from .board import Player, computer_label
from .cards import COLOUR_EMOJI, name
from .keys import Keyboard, button
from .private_turns import PrivateTurns, marked, private_turns

#: A computer player's name, by its level (`engine.ai.LEVELS`); a second of a level gets a number.
COMPUTER_NAMES = {"easy": M_("Bot Easy"), "normal": M_("Bot Normal"), "hard": M_("Bot Hard")}


@dataclass(frozen=True)
class LobbyView:
    """What a lobby shows: who joined, and the settings chosen so far."""

    game_id: int
    players: tuple[Player, ...]
    settings: GameSettings
    bot_username: str = "tweakbot"
    #: A practice table (the bot's private chat): its person and the computers they add.
    practice: bool = False
    #: A lobby posted via inline mode: no admin can be asked there, so its poster starts it.
    inline: bool = False


def _colours_text(lang: str, ctx: LobbyView) -> str:
    n = ctx.settings.colours
    if not n:
        return _(lang, "by player count")
    return "".join(COLOUR_EMOJI[c.value] for c in COLOUR_ORDER[:n])


def _goal_text(lang: str, s: GameSettings, players: int) -> str:
    """The goal that will be played with the players seated now (it follows the count)."""
    goal = s.threshold(players)
    if s.goal_is_auto:
        return _(lang, "{points} (by player count)", points=goal)
    if s.target is None:
        return _(lang, "{points} (by player count {offset:+d})", points=goal, offset=s.goal_offset)
    return str(goal)


def hints_text(lang: str, on: bool) -> str:
    """Which way the table plays, said on the lobby and under /settings."""
    if on:
        return _(lang, "💡 Sum hints on: 🎯 Play lists the sums you can make, best first.")
    return _(lang, "🧠 Sum hints off: find the sums yourself (🎯 Play checks the values you type).")


def lobby_text(lang: str, ctx: LobbyView, custom: Pace | None = None) -> str:
    s = ctx.settings
    players = max(MIN_PLAYERS, len(ctx.players))
    if ctx.practice:
        lines = [
            _(lang, "🃏 <b>Practice game of TWEAK!</b>"),
            _(
                lang,
                "You against the computer: add {low} to {high} computer players with 🤖 Add computer "
                "(Easy, Normal or Hard in ⚙️ Settings), then tap ▶️ Start.",
                low=MIN_PLAYERS - 1,
                high=MAX_PLAYERS - 1,
            ),
        ]
    else:
        lines = [
            _(lang, "🃏 <b>New game of TWEAK!</b>"),
            _(lang, "Tap Join to play ({low}–{high} players).", low=MIN_PLAYERS, high=MAX_PLAYERS),
        ]
    lines += [
        "",
        _(lang, "Players ({n}/{high}):", n=len(ctx.players), high=MAX_PLAYERS),
    ]
    for seat in ctx.players:
        tag = " " + computer_label(lang, seat.computer) if seat.computer else ""
        lines.append(f"• {name(seat.name)}{tag}{'' if ctx.practice else marked(seat)}")
    if not ctx.players:
        lines.append(_(lang, "(nobody yet)"))
    told = None if ctx.practice else _told(lang, ctx).line
    if told:
        lines.append(told)
    lines.append("")
    lines.append(
        _(
            lang,
            "Edition: {edition} · colours: {colours} · goal: {goal} · pace: {pace}",
            edition=_(lang, "classic") if s.edition == Edition.CLASSIC else _(lang, "extended"),
            colours=_colours_text(lang, ctx),
            goal=_goal_text(lang, s, players),
            pace=pace_label(lang, s.pace, custom),
        )
    )
    if s.face_down:
        lines.append(_(lang, "Won [T!] cards are kept face down."))
    lines.append(hints_text(lang, s.hints))
    if ctx.inline:
        lines.append(_(lang, "Whoever posted this lobby starts the game."))
    elif not ctx.practice:
        lines.append(_(lang, "The creator or a group admin starts the game."))
    return "\n".join(lines)


def lobby_keyboard(lang: str, ctx: LobbyView, posted: bool = False) -> Keyboard:
    """Join and Leave (not at a practice table: nobody else is in its chat), the 🔔 key for
    those the bot cannot write to, Start and Settings, a computer and Cancel. `posted`: as drawn
    into a lobby posted via inline mode, before its game exists (keys that name no game:
    `callbacks.PostedLobby`; the 🔔 key, which names it, comes with the first redraw)."""
    gid = ctx.game_id
    step = cb.LobbyStep

    def data(key: cb.Callback, posted_as: cb.LobbyStep) -> cb.Callback:
        return cb.PostedLobby(posted_as) if posted else key

    joining = [
        button(_(lang, "✋ Join"), data(cb.Join(gid), step.JOIN)),
        button(_(lang, "🚪 Leave"), data(cb.Leave(gid), step.LEAVE)),
    ]
    # (at a practice table the bot's chat is its person's, who is told of every turn there)
    told = ctx.practice or posted
    private_key = None if told else _told(lang, ctx).key
    rows = [
        *([] if ctx.practice else [joining]),
        *([[private_key]] if private_key else []),
        [
            button(_(lang, "▶️ Start"), data(cb.Start(gid), step.START)),
            button(_(lang, "⚙️ Settings"), data(cb.OpenSettings(gid), step.SETTINGS)),
        ],
        [
            button(_(lang, "🤖 Add computer"), data(cb.AddComputer(gid, "normal"), step.COMPUTER)),
            button(_(lang, "✖️ Cancel"), data(cb.Cancel(gid), step.CANCEL)),
        ],
    ]
    return rows


def _told(lang: str, ctx: LobbyView) -> PrivateTurns:
    return private_turns(lang, ctx.game_id, ctx.players, ctx.bot_username, ctx.inline)


def _mark(label: str, on: bool) -> str:
    return f"✅ {label}" if on else label


def pace_rows(lang: str, game_id: int, current: PaceName, custom: Pace | None = None) -> Keyboard:
    """The pace keys, ✅ on the current one: in the lobby's settings and under /settings of a running game."""
    keys = [
        # The key names the pace only: the lobby's text and /settings spell out its durations.
        button(_mark(pace_label(lang, p), p == current), cb.SetPace(game_id, p))
        for p in pace_keys(custom)
    ]
    return [keys[:3], keys[3:]]


def settings_keyboard(lang: str, ctx: LobbyView, custom: Pace | None = None) -> Keyboard:
    gid = ctx.game_id
    s = ctx.settings
    players = max(MIN_PLAYERS, len(ctx.players))
    rows = [
        [
            button(
                _mark(_(lang, "Classic"), s.edition == Edition.CLASSIC),
                cb.SetEdition(gid, Edition.CLASSIC),
            ),
            button(
                _mark(_(lang, "Extended"), s.edition == Edition.EXTENDED),
                cb.SetEdition(gid, Edition.EXTENDED),
            ),
        ],
        [
            button(
                _mark(_(lang, "Auto colours"), s.colours == Colours.AUTO),
                cb.SetColours(gid, Colours.AUTO),
            )
        ],
        [
            button(_mark(f"{n.value}🎨", s.colours == n), cb.SetColours(gid, n))
            for n in Colours
            if n is not Colours.AUTO
        ],
        [
            button(_(lang, "Goal −20"), cb.SetGoal(gid, GoalStep.DOWN)),
            button(
                _mark(_(lang, "Goal auto"), True) if s.goal_is_auto else str(s.threshold(players)),
                cb.SetGoal(gid, GoalStep.AUTO),
            ),
            button(_(lang, "Goal +20"), cb.SetGoal(gid, GoalStep.UP)),
        ],
        [
            button(_mark(_(lang, "[T!] face up"), not s.face_down), cb.SetFaceDown(gid, False)),
            button(_mark(_(lang, "[T!] face down"), s.face_down), cb.SetFaceDown(gid, True)),
        ],
        [
            button(_mark(_(lang, "🧠 Hints off"), not s.hints), cb.SetHints(gid, False)),
            button(_mark(_(lang, "💡 Hints on"), s.hints), cb.SetHints(gid, True)),
        ],
        *pace_rows(lang, gid, s.pace, custom),
        [
            button(_(lang, "🤖 Easy"), cb.AddComputer(gid, "easy", stay=True)),
            button(_(lang, "🤖 Normal"), cb.AddComputer(gid, "normal", stay=True)),
            button(_(lang, "🤖 Hard"), cb.AddComputer(gid, "hard", stay=True)),
        ],
        [button(_(lang, "↩️ Back"), cb.CloseSettings(gid))],
    ]
    return [r for r in rows if r]


# --- computers, the game's start and end as the lobby says them --------------------------------


def computer_name(lang: str, seated: Sequence[str | None], level: str) -> str:
    """A new computer player's name: "Bot Normal", or "Bot Normal 2" when one of that level sits there."""
    same = sum(1 for seated_level in seated if seated_level == level)
    return _(lang, COMPUTER_NAMES[level]) + (f" {same + 1}" if same else "")


def computer_joined(lang: str) -> str:
    return _(lang, "A computer player joined.")


def you_left(lang: str) -> str:
    return _(lang, "You left the lobby.")


def started(lang: str, players: Sequence[str]) -> str:
    """The lobby's last words: who plays (the first board comes under it)."""
    names = ", ".join(name(p) for p in players)
    return _(lang, "🃏 <b>TWEAK!</b> has started: {names}", names=names)


def cancelled(lang: str) -> str:
    """The lobby or the game's record, when the game is cancelled."""
    return _(lang, "✖️ The game was cancelled.")


def expired(lang: str) -> str:
    return _(lang, "⌛ This lobby closed: nobody started the game in time. Send /newgame to try again.")


def already_running(lang: str) -> str:
    """A second /newgame, answered under the running game's board or lobby."""
    return _(lang, "A game is already running here. Scroll up to its board, or send /board.")


def rematch_opened(lang: str, practice: bool) -> str:
    """The 🔁 Rematch popup: the new lobby is open, with its tapper in."""
    if practice:
        return _(lang, "🔁 A new practice game with the same computers: tap ▶️ Start.")
    return _(lang, "🔁 The new lobby is open and you're in. The others join with ✋ Join.")


# --- the pace of a running game (/settings) --------------------------------------------------


def settings_text(lang: str, pace: PaceName, custom: Pace | None, hints: bool) -> str:
    """/settings in a running game: its pace, what each pace means, who may change it."""
    lines = [
        _(lang, "⚙️ Pace of this game: {pace}", pace=pace_label(lang, pace, custom)),
        _(
            lang,
            "live: reminder 1 min, auto-play 3 min · quick: 10 min / 1 h · casual: 2 h / 12 h · "
            "slow: 12 h / 48 h · relaxed: a reminder a day, no auto-play",
        ),
    ]
    if custom is not None:
        lines.append(
            _(
                lang,
                "custom: reminder {nudge}, auto-play {deadline}",
                nudge=format_duration(custom.nudge, lang),
                deadline=format_duration(custom.deadline, lang) if custom.deadline else "—",
            )
        )
    lines.append(_(lang, "The creator or a group admin can change it; the turn clock starts again."))
    lines.append(hints_text(lang, hints))  # chosen in the lobby, for the whole game
    return "\n".join(lines)


def pace_changed(lang: str, pace: PaceName, custom: Pace | None) -> str:
    """The group told of a new pace in a running game."""
    label = pace_label(lang, pace, custom)
    return _(lang, "⚙️ The pace of this game is now {pace}; the turn clock starts again.", pace=label)


def pace_popup(lang: str, pace: PaceName, custom: Pace | None) -> str:
    return _(lang, "Pace: {pace}", pace=pace_label(lang, pace, custom))
