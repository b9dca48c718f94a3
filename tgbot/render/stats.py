"""Texts and keys for /stats, /top and /history, in the group's language."""

from __future__ import annotations

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from .. import callbacks as cb
from ..i18n import M_, _, _n
from ..services.history import HistoryEntry
from ..services.stats import StatLine
from .cards import name

LEVEL_NAMES = {"easy": M_("Easy"), "normal": M_("Normal"), "hard": M_("Hard")}
HISTORY_KEYS_PER_ROW = 3
MEDALS = {1: "🥇", 2: "🥈", 3: "🥉"}


def percent(value: float) -> str:
    return f"{round(value * 100)}%"


def one_decimal(value: float) -> str:
    return f"{value:.1f}"


def rounds_text(lang: str, rounds: int) -> str:
    return _n(lang, "{n} round", "{n} rounds", rounds)


def stats_text(lang: str, who: str, line: StatLine | None, everywhere: bool) -> str:
    """A person's numbers: games, wins, win rate, points per round, TWEAKs, [T!] cards."""
    title = (
        _(lang, "📊 <b>{name}</b> in all groups", name=name(who))
        if everywhere
        else _(lang, "📊 <b>{name}</b> in this group", name=name(who))
    )
    if line is None or line.games == 0:
        return title + "\n" + _(lang, "No finished games yet. Start one with /newgame!")
    return "\n".join(
        [
            title,
            _(
                lang,
                "Games: {games} · wins: {wins} ({rate})",
                games=line.games,
                wins=line.wins,
                rate=percent(line.win_rate),
            ),
            _(
                lang,
                "Average per round: {avg} points ({rounds})",
                avg=one_decimal(line.points_per_round),
                rounds=rounds_text(lang, line.rounds),
            ),
            _(lang, "TWEAKs: {tweaks} · [T!] cards played: {t}", tweaks=line.tweaks, t=line.t_played),
        ]
    )


def top_text(lang: str, people: list[StatLine], computers: list[StatLine]) -> str:
    """The group's leaderboard (wins, then win rate), and the computers apart."""
    lines = [_(lang, "🏆 <b>Leaderboard</b>")]
    if not people:
        lines.append(_(lang, "No finished games yet. Start one with /newgame!"))
    for place, s in enumerate(people, start=1):
        lines.append(
            _(
                lang,
                "{place} {name} — {wins} / {games} ({rate}) · {avg} pts/round · {tweaks}",
                place=MEDALS.get(place, f"{place}."),
                name=name(s.name),
                wins=_n(lang, "{n} win", "{n} wins", s.wins),
                games=_n(lang, "{n} game", "{n} games", s.games),
                rate=percent(s.win_rate),
                avg=one_decimal(s.points_per_round),
                tweaks=_n(lang, "{n} TWEAK", "{n} TWEAKs", s.tweaks),
            )
        )
    if computers:
        lines.append("")
        lines.append(_(lang, "🤖 <b>Computer players</b> (not ranked)"))
        for s in computers:
            level = _(lang, LEVEL_NAMES[s.key]) if s.key in LEVEL_NAMES else s.key
            lines.append(
                _(
                    lang,
                    "{level}: {wins} / {games} ({rate}) · {avg} pts/round",
                    level=level,
                    wins=_n(lang, "{n} win", "{n} wins", s.wins),
                    games=_n(lang, "{n} game", "{n} games", s.games),
                    rate=percent(s.win_rate),
                    avg=one_decimal(s.points_per_round),
                )
            )
    return "\n".join(lines)


def _seat_names(entry: HistoryEntry) -> str:
    return ", ".join(name(s.name, 16) + (" 🤖" if s.computer else "") for s in entry.seats)


def history_text(lang: str, entries: list[HistoryEntry]) -> str:
    """Recent games: number, date, players, winner, rounds."""
    if not entries:
        return _(lang, "📜 No finished games here yet. Start one with /newgame!")
    lines = [_(lang, "📜 <b>Recent games</b>")]
    for e in entries:
        lines.append("")
        when = e.ended_at.strftime("%Y-%m-%d")
        lines.append(f"<b>#{e.game_id}</b> · {when} · {_seat_names(e)}")
        if e.winners:
            winners = ", ".join(name(e.seats[s].name, 16) for s in e.winners if s < len(e.seats))
            top = max(s.total for s in e.seats)
            lines.append(
                _(
                    lang,
                    "🏆 {winners} ({points} points) · {rounds}",
                    winners=winners,
                    points=top,
                    rounds=rounds_text(lang, e.rounds),
                )
            )
        else:
            lines.append(
                _(lang, "🛑 Abandoned after {rounds} · no winner", rounds=rounds_text(lang, e.rounds))
            )
    if any(e.downloadable for e in entries):
        lines.append("")
        lines.append(_(lang, "Tap a game to get its replay file."))
    return "\n".join(lines)


def history_keyboard(lang: str, entries: list[HistoryEntry]) -> InlineKeyboardMarkup | None:
    keys = [
        InlineKeyboardButton(f"⬇️ #{e.game_id}", callback_data=cb.download(e.game_id))
        for e in entries
        if e.downloadable
    ]
    if not keys:
        return None
    rows = [keys[i : i + HISTORY_KEYS_PER_ROW] for i in range(0, len(keys), HISTORY_KEYS_PER_ROW)]
    return InlineKeyboardMarkup(rows)
