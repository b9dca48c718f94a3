"""Texts and keys for /stats, /top and /history, in the group's language."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from .. import callbacks as cb
from ..i18n import _, _n
from .board import COMPUTER_LEVELS, computer_label
from .cards import name
from .keys import Keyboard, button, rows_of


@dataclass(frozen=True)
class StatLine:
    """Totals for one person (or one computer level), ready to show."""

    key: str  # user id as text, or the computer level
    name: str
    games: int
    wins: int
    rounds: int
    points: int
    tweaks: int
    t_played: int

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def points_per_round(self) -> float:
        return self.points / self.rounds if self.rounds else 0.0


@dataclass(frozen=True)
class PracticeLine:
    """A person's practice games against one computer level (each level at the table counts)."""

    level: str
    games: int
    wins: int

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0


@dataclass(frozen=True)
class HistorySeat:
    name: str
    computer: bool
    total: int


@dataclass(frozen=True)
class HistoryEntry:
    game_id: int
    ended_at: datetime
    played_out: bool  # finished, not abandoned: its replay can be downloaded
    seats: list[HistorySeat]
    winners: list[int]  # seat numbers; empty for an abandoned game
    rounds: int

    @property
    def downloadable(self) -> bool:
        return self.played_out


HISTORY_KEYS_PER_ROW = 2
MEDALS = {1: "🥇", 2: "🥈", 3: "🥉"}


def percent(value: float) -> str:
    return f"{round(value * 100)}%"


def one_decimal(value: float) -> str:
    return f"{value:.1f}"


def rounds_text(lang: str, rounds: int) -> str:
    return _n(lang, "{n} round", "{n} rounds", rounds)


def stats_text(
    lang: str, who: str, line: StatLine | None, everywhere: bool, practice: list[PracticeLine] | None = None
) -> str:
    """A person's numbers: games, wins, win rate, points per round, TWEAKs, [T!] cards; then, apart,
    their practice games against each computer level."""
    text = _group_stats(lang, who, line, everywhere)
    if practice:
        text += "\n\n" + practice_text(lang, practice)
    return text


def practice_text(lang: str, lines: list[PracticeLine]) -> str:
    """Practice games and wins per computer level: never part of a group's numbers."""
    rows = [_(lang, "🎯 <b>Practice</b> against the computer (not counted in any group)")]
    for line in lines:
        rows.append(
            _(
                lang,
                "{level}: {wins} / {games} ({rate})",
                level=computer_label(lang, line.level) if line.level in COMPUTER_LEVELS else line.level,
                wins=_n(lang, "{n} win", "{n} wins", line.wins),
                games=_n(lang, "{n} game", "{n} games", line.games),
                rate=percent(line.win_rate),
            )
        )
    return "\n".join(rows)


def _group_stats(lang: str, who: str, line: StatLine | None, everywhere: bool) -> str:
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
    for place, s in zip(ranks(people), people, strict=True):
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
            level = _(lang, COMPUTER_LEVELS[s.key]) if s.key in COMPUTER_LEVELS else s.key
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


def ranks(people: list[StatLine]) -> list[int]:
    """Places on the leaderboard (already sorted): people equal on wins, win rate and points per
    round share a place, and the next place is skipped (1, 2, 2, 4)."""
    places: list[int] = []
    for i, s in enumerate(people):
        tied = i > 0 and standing(people[i - 1]) == standing(s)
        places.append(places[-1] if tied else i + 1)
    return places


def standing(s: StatLine) -> tuple[int, float, float]:
    """What orders the leaderboard: wins, then win rate, then points per round."""
    return (s.wins, round(s.win_rate, 9), round(s.points_per_round, 9))


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


def history_keyboard(lang: str, entries: list[HistoryEntry]) -> Keyboard | None:
    keys = [button(f"⬇️ #{e.game_id}", cb.Download(e.game_id)) for e in entries if e.downloadable]
    return rows_of(keys, HISTORY_KEYS_PER_ROW) if keys else None


def replay_caption(lang: str, game_id: int, filename: str) -> str:
    """Under a finished game's replay file (the /history key): how to check it."""
    return _(
        lang,
        "🎞 Replay of game #{id} (tweakbot replay format). Check it with: python -m engine.replay {file}",
        id=game_id,
        file=filename,
    )


def replay_sent_privately(lang: str) -> str:
    return _(lang, "Sent to you in our private chat.")


def replay_just_sent(lang: str) -> str:
    """A second tap within the minute: the file is a little above."""
    return _(lang, "The replay was just sent in this chat: it is a little above.")
