"""The score chart: each player's total after every round, with the goal line, as a PNG.

Drawn with matplotlib's object API on the Agg canvas (no pyplot, no global
state, so it is safe to render in a worker thread). Sized for a phone: 1200 px
wide (Telegram keeps photos up to 1280 px), big type, thick lines, a marker
shape per player so the lines stay apart without colour, and a legend with the
names and final totals.

Names are drawn with the fonts matplotlib finds (DejaVu Sans, bundled, plus
any Noto CJK/Devanagari font installed on the host); characters no font can
draw (emoji, scripts without a font) are left out rather than shown as boxes.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from matplotlib.figure import Figure

WIDTH_PX = 1200
HEIGHT_PX = 960
DPI = 120
BASE_FONT = 19  # points; at 120 dpi about 32 px tall in a 1200 px image
# Okabe-Ito: readable for colour-blind players
COLOURS = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9")
MARKERS = ("o", "s", "^", "D", "v", "P")
FALLBACK_FAMILIES = (
    "DejaVu Sans",
    "Noto Sans",
    "Noto Sans CJK JP",
    "Noto Sans JP",
    "Noto Sans Devanagari",
    "Droid Sans Fallback",
)


@dataclass(frozen=True)
class ChartTexts:
    """Translated labels (the caller translates; this module knows no language)."""

    title: str
    round_label: str
    points_label: str
    goal_label: str  # e.g. "Goal 100"


@cache
def _fonts() -> tuple[list[str], frozenset[int]]:
    """The installed families of FALLBACK_FAMILIES and every code point they can draw."""
    from matplotlib import font_manager
    from matplotlib.ft2font import FT2Font

    families: list[str] = []
    covered: set[int] = set()
    entries = font_manager.fontManager.ttflist
    for family in FALLBACK_FAMILIES:
        files = [f.fname for f in entries if f.name == family]
        if not files:
            continue
        families.append(family)
        try:
            covered.update(FT2Font(files[0]).get_charmap())
        except (OSError, RuntimeError):  # an unreadable font file: skip it
            continue
    return families or ["DejaVu Sans"], frozenset(covered)


def drawable(text: str, fallback: str) -> str:
    """`text` without the characters no installed font can draw; `fallback` if nothing is left."""
    covered = _fonts()[1]
    kept = "".join(c for c in text if ord(c) in covered or c == " ")
    kept = " ".join(kept.split())
    if len(kept) > 20:
        kept = kept[:19] + "…"
    return kept or fallback


def _covers(text: str) -> bool:
    covered = _fonts()[1]
    return all(ord(c) in covered or c.isspace() for c in text)


def legible(texts: ChartTexts, fallback: ChartTexts) -> ChartTexts:
    """Each label in the group's language when the host's fonts can draw it, else the fallback's.

    A host without CJK or Devanagari fonts would otherwise draw a Japanese or
    Hindi title as empty boxes; English labels are better than boxes.
    """
    fields = ("title", "round_label", "points_label", "goal_label")
    chosen = {f: getattr(texts, f) if _covers(getattr(texts, f)) else getattr(fallback, f) for f in fields}
    return ChartTexts(**chosen)


def cumulative(round_points: Sequence[Sequence[int]], players: int) -> list[list[int]]:
    """Per seat: 0, then the running total after each round."""
    series = [[0] for _ in range(players)]
    for points in round_points:
        for seat in range(players):
            series[seat].append(series[seat][-1] + points[seat])
    return series


def reading_order(count: int, columns: int) -> list[int]:
    """Matplotlib fills legend columns top to bottom; this order makes the rows read left to right."""
    rows = -(-count // columns)
    grid = [r * columns + c for c in range(columns) for r in range(rows)]
    return [i for i in grid if i < count]


def score_chart_png(
    names: Sequence[str],
    round_points: Sequence[Sequence[int]],
    threshold: int,
    texts: ChartTexts,
    winners: Sequence[int] = (),
) -> bytes:
    """The PNG bytes of the chart; one line per seat, in seat order, `names[seat]` in the legend."""
    import matplotlib

    with matplotlib.rc_context({"font.family": _fonts()[0], "font.size": BASE_FONT}):
        fig = score_figure(names, round_points, threshold, texts, winners)
        buffer = io.BytesIO()
        fig.savefig(buffer, format="png", dpi=DPI)
    return buffer.getvalue()


def score_figure(
    names: Sequence[str],
    round_points: Sequence[Sequence[int]],
    threshold: int,
    texts: ChartTexts,
    winners: Sequence[int] = (),
) -> Figure:
    """The chart as a matplotlib figure (what `score_chart_png` saves)."""
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    players = len(names)
    series = cumulative(round_points, players)
    families, _covered = _fonts()
    import matplotlib

    with matplotlib.rc_context({"font.family": families, "font.size": BASE_FONT}):
        fig = Figure(
            figsize=(WIDTH_PX / DPI, HEIGHT_PX / DPI), dpi=DPI, facecolor="white", layout="constrained"
        )
        ax = fig.subplots()
        rounds = list(range(len(round_points) + 1))
        order = sorted(range(players), key=lambda s: (-series[s][-1], s))
        for seat in order:
            label = drawable(names[seat], f"#{seat + 1}")
            win = seat in winners
            ax.plot(
                rounds,
                series[seat],
                color=COLOURS[seat % len(COLOURS)],
                marker=MARKERS[seat % len(MARKERS)],
                markersize=13 if win else 10,
                linewidth=6 if win else 3.5,
                label=f"{label} · {series[seat][-1]}" + (" ★" if win else ""),
                zorder=3 if win else 2,
            )
        ax.axhline(threshold, color="#444444", linestyle="--", linewidth=2.5, zorder=1)
        last = max(1, len(round_points))
        # The goal's label sits in the right margin, level with its line: outside the plot, it can
        # never cover a data point, whatever the scores.
        ax.annotate(
            texts.goal_label,
            xy=(1.0, threshold),
            xycoords=("axes fraction", "data"),
            xytext=(6, 0),
            textcoords="offset points",
            ha="left",
            va="center",
            color="#444444",
            fontsize=BASE_FONT - 2,
            fontweight="bold",
            annotation_clip=False,
        )
        top = max([threshold, *(max(s) for s in series)])
        ax.set_ylim(0, top * 1.1 + 1)
        ax.set_xlim(-0.1, last + 0.15)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.yaxis.set_major_locator(MaxNLocator(integer=True, nbins=6))
        ax.set_title(texts.title, fontsize=BASE_FONT + 5, fontweight="bold", pad=14)
        ax.set_xlabel(texts.round_label)
        ax.set_ylabel(texts.points_label)
        ax.tick_params(labelsize=BASE_FONT - 2)
        ax.grid(True, alpha=0.3, linewidth=1.2)
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)
        columns = 2 if players > 1 else 1
        handles, labels = ax.get_legend_handles_labels()  # best total first
        order = reading_order(len(handles), columns)
        fig.legend(
            [handles[i] for i in order],
            [labels[i] for i in order],
            loc="outside lower center",
            ncol=columns,
            frameon=False,
            fontsize=BASE_FONT,
            handlelength=1.8,
            columnspacing=1.5,
        )
    return fig


def spec(
    texts: ChartTexts,
    fallback: ChartTexts,
    names: Sequence[str],
    round_points: Sequence[Sequence[int]],
    threshold: int,
    winners: Sequence[int],
) -> dict[str, object]:
    """Everything `from_spec` draws, as JSON: it waits in the outbox until its turn to be sent,
    and is drawn then (fonts and matplotlib are loaded by the sender, never on a tap's path)."""
    return {
        "texts": [texts.title, texts.round_label, texts.points_label, texts.goal_label],
        "fallback": [fallback.title, fallback.round_label, fallback.points_label, fallback.goal_label],
        "names": list(names),
        "rounds": [list(r) for r in round_points],
        "threshold": threshold,
        "winners": list(winners),
    }


def from_spec(data: dict[str, object]) -> bytes:
    texts = legible(
        ChartTexts(*(str(t) for t in data["texts"])),  # type: ignore[attr-defined]
        ChartTexts(*(str(t) for t in data["fallback"])),  # type: ignore[attr-defined]
    )
    return score_chart_png(
        [str(n) for n in data["names"]],  # type: ignore[attr-defined]
        [[int(p) for p in r] for r in data["rounds"]],  # type: ignore[attr-defined]
        int(data["threshold"]),  # type: ignore[call-overload]
        texts,
        [int(w) for w in data["winners"]],  # type: ignore[attr-defined]
    )


def main() -> None:
    """``python -m tgbot.render.chart``: a chart spec (JSON) on stdin, the PNG on stdout. The bot
    draws each chart in such a short-lived process, so it never holds matplotlib itself."""
    import json
    import sys

    sys.stdout.buffer.write(from_spec(json.load(sys.stdin)))


if __name__ == "__main__":
    main()
