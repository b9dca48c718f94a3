"""What a tap costs: SQL statements and transactions, and writes into the group, per kind of tap;
per turn, for the three ways of playing; and the inline list's answer time on a 20-card table.

``python benchmarks/tap_cost.py [--runs 3] [--db sqlite postgres] [--games 3] [--queries 300] [--trace]
[--private-chats some|all]``

Each cold run is a fresh process with a fresh database (a SQLite file in a temporary directory,
WAL, as the bot runs it; a new PostgreSQL database from ``tests/pg.py``) and a fresh bot:
`benchmarks/botplay.py` (the real Application over the fake Bot API with Telegram's flood limits
and inline mode on). Per run, with seed = the run's number:

1. **Games**: ``--games`` game(s) of each way of playing (group board, private panel, inline
   pick), 3 players each, goal 40 (*Goal −20* four times in the lobby, so a game has round ends
   and a game end), all played at once at human pace on the virtual clock (after a quiet minute
   that lets the lobbies' writes leave the budget window), to the final standings; now and then
   a refused tap (a key of an old board, the board tapped out of turn).
   For every tap (a callback query, an inline query, each of the two updates of an inline pick):
   the transactions and SQL statements of its handler (`begin` and `before_cursor_execute`
   events; SQLite's ``BEGIN IMMEDIATE`` is not counted as a statement), and the writes into the
   group that carried its content: *before the next tap* of that game, and *in the end* (the
   senders keep Telegram's budget, so a board may wait, and the next content may replace it
   before it goes out: coalesced). Keys taken off old messages (the lowest-priority edits) and
   writes to private chats (panels) are counted apart. Per turn and way of playing: the group
   writes of its taps, keys-off edits apart, for all turns, steady play (turns that end no
   round), steady play without the board a Thief, Shifter or Bomb played on the group board
   brings (by design), and turns that end a round. After the games the virtual clock runs two
   more minutes so nothing stays in the outbox.

   **Notifications per person per turn.** A notification is a message Telegram delivers with
   sound: a sendMessage, sendPhoto or sendDocument it accepted without ``disable_notification``
   (as ``notifications()`` in tests/bot/test_notifications.py): in the group it wakes every
   player at the table, in a private chat that person. Each is credited to the tap whose content
   it carried (the ledger's owners, as the writes), and so to a turn: the turn the game is in
   right after that tap (the driver reads the game after every tap), so a move's messages count
   for the next player's turn, which they announce; those of the move that ends the game count
   for the game's end. Per turn: the mover's notifications and each other player's, by way of
   playing and by whether the mover has a private chat with the bot. At the board and inline
   tables every other seat sent /start in private before the game (seat 0 or 1 first, by the
   table's seed: one or two of the three), the others never wrote to the bot; a panel player
   opens their panel in private, so has one (``--private-chats all``: every seat has one, the
   set-up before these figures). Each game's first turn is left out (announced by the set-up's
   Start); notifications from no tap are counted apart. No reminder can come: the game clock
   does not move in these runs (only the delivery timer does) and the test client pauses the
   JobQueue, so the sweep never runs.
2. **Inline answer time**: a 2-player game in inline mode; before each of ``--queries`` inline
   queries the game's state is replaced (same version) by a deal with **20 cards on the table**
   (the deck's cards shuffled onto it; every other query the mover also holds a Joker, whose
   ±1 sums are listed too). A new state text each time: the bot parses it cold, as after a move.
   The time is from the update reaching the Application to the bot's ``answerInlineQuery``
   request (the fake's own parsing of the answer is not in it); p50 and p99 per run.

The parent prints the median of the cold runs and their range (min–max).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import statistics
import sys
import tempfile
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from botplay import (
    WAYS,
    Bench,
    Query,
    Table,
    TapRecord,
    new_table,
    play_game,
    postgres_url,
    quiet_minute,
    settle_outbox,
)
from coldrun import add_child_arguments, cold_runs, column, emit, fig, machine, spread

KIND_ORDER = [
    "👀 My hand (popup)",
    "compose, board",
    "compose, panel",
    "[T!] choice, board",
    "[T!] choice, panel",
    "[T!] card played (Claim), board",
    "[T!] card played (Claim), panel",
    "claim a Joker and its sum, board",
    "claim a Joker and its sum, panel",
    "claim, board",
    "claim, panel",
    "discard, board",
    "discard, panel",
    "inline: 🎯 Play list (query)",
    "inline: pick (posted message)",
    "inline: pick (chosen result, a duplicate)",
    "refused: out of turn",
    "refused: a key of an old board",
]
VERBS = ("SELECT", "INSERT", "UPDATE", "DELETE", "SAVEPOINT")


@contextlib.contextmanager
def database(kind: str) -> Iterator[str]:
    if kind == "sqlite":
        with tempfile.TemporaryDirectory() as tmp:
            yield f"sqlite:///{Path(tmp) / 'bench.sqlite3'}"
    else:
        yield from postgres_url()


def _mean(values: Sequence[float]) -> float:
    return statistics.fmean(values) if values else 0.0


def _pct(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return 0.0
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def summarise_taps(taps: list[TapRecord]) -> dict[str, Any]:
    by_kind: dict[str, list[TapRecord]] = defaultdict(list)
    for tap in taps:
        by_kind[tap.kind].append(tap)
    out: dict[str, Any] = {}
    for kind, records in by_kind.items():
        out[kind] = {
            "n": len(records),
            "tx": _mean([r.transactions for r in records]),
            "tx_max": max(r.transactions for r in records),
            "sql": _mean([r.statement_count for r in records]),
            "sql_min": min(r.statement_count for r in records),
            "sql_max": max(r.statement_count for r in records),
            "verbs": {v: _mean([r.statements.get(v, 0) for r in records]) for v in VERBS},
            "group_now": _mean([r.group_now for r in records]),
            "group_total": _mean([r.group_total for r in records]),
            "group_max": max(r.group_total for r in records),
            "keys_off": _mean([r.keys_off for r in records]),
            "private": _mean([r.private_total for r in records]),
            "answer_p50": _pct([r.answer_seconds for r in records], 0.5),
            "answer_max": max(r.answer_seconds for r in records),
        }
    return out


def summarise_turns(bench: Bench) -> dict[str, Any]:
    ledger = bench.ledger
    out: dict[str, Any] = {}
    for way in WAYS:
        turns = [t for t in ledger.turns if t.way == way]
        if not turns:
            continue

        def per(turns: list[Any], field: str) -> list[int]:
            return [sum(getattr(ledger.taps[i], field) for i in t.taps) for t in turns]

        def taps(turns: list[Any]) -> list[int]:
            # the two updates of one inline pick are one tap of the player's
            return [
                sum(1 for i in t.taps if ledger.taps[i].kind != "inline: pick (chosen result, a duplicate)")
                for t in turns
            ]

        steady = [t for t in turns if not t.special]
        plain = [t for t in steady if not t.t_board]
        ends = [t for t in turns if t.special]
        group = per(turns, "group_total")
        out[way] = {
            "turns": len(turns),
            "special": len(ends),
            "t_turns": sum(1 for t in turns if t.t_card),
            "t_board_turns": sum(1 for t in turns if t.t_board),
            "taps": _mean(taps(turns)),
            "taps_max": max(taps(turns)),
            "group": _mean(group),
            "group_max": max(group),
            "group_now": _mean(per(turns, "group_now")),
            "steady": _mean(per(steady, "group_total")),
            "steady_max": max(per(steady, "group_total"), default=0),
            "steady_plain": _mean(per(plain, "group_total")),
            "steady_plain_max": max(per(plain, "group_total"), default=0),
            "steady_t_board": _mean(per([t for t in steady if t.t_board], "group_total")),
            "ends": _mean(per(ends, "group_total")),
            "ends_max": max(per(ends, "group_total"), default=0),
            "keys_off": _mean(per(turns, "keys_off")),
            "keys_off_max": max(per(turns, "keys_off")),
            "keys_off_share": sum(per(turns, "keys_off")) / max(1, sum(per(turns, "keys_off")) + sum(group)),
            "private": _mean(per(turns, "private_total")),
            "private_max": max(per(turns, "private_total")),
            "sql": _mean([sum(ledger.taps[i].statement_count for i in t.taps) for t in turns]),
            "tx": _mean([sum(ledger.taps[i].transactions for i in t.taps) for t in turns]),
            "waited": _mean([t.waited for t in turns]),
        }
    return out


def private_chats(table_seed: int, mode: str) -> Callable[[int], bool] | None:
    """Which seats of a board or inline table sent /start in private before the game: every
    other seat, starting with seat 0 or 1 by the table's seed (so a 3-player table has one or two
    of each kind); ``all``: every seat (the set-up before the notification figures)."""
    if mode == "all":
        return None
    return lambda seat: (seat + table_seed) % 2 == 0


def summarise_notifications(bench: Bench, tables: list[Table], first: int) -> dict[str, Any]:
    """Notifications per person per turn (see `NOTIFY_DOC`), by way of playing and by whether
    the mover has a private chat with the bot."""
    ledger = bench.ledger
    by_game = {t.game_id: t for t in tables}
    starts: dict[int, list[tuple[int, int]]] = defaultdict(list)  # game: (version, turn index)
    for index, turn in enumerate(ledger.turns):
        starts[turn.game].append((turn.version, index))
    woken: dict[int, Counter[int]] = defaultdict(Counter)  # turn index: user id -> notifications
    ends: dict[int, Counter[int]] = defaultdict(Counter)  # game: ... (the game's end)
    unowned: Counter[str] = Counter()
    unmatched = 0
    mismatched = 0
    for chat_id, owner, _at in ledger.notifications[first:]:
        if owner is None:
            unowned["group" if chat_id < 0 else "private"] += 1
            continue
        tap = ledger.taps[owner]
        table = by_game[tap.game]
        users = [s.user.id for s in table.seats]
        recipients = users if chat_id == table.group.id else [u for u in users if u == chat_id]
        if tap.after is None:
            unmatched += 1
            continue
        status, version, current = tap.after
        if status != "playing":
            ends[tap.game].update(recipients)
            continue
        found = [i for v, i in starts[tap.game] if v <= version]
        if not found:
            unmatched += 1
            continue
        if ledger.turns[found[-1]].mover != current:
            mismatched += 1
        woken[found[-1]].update(recipients)
    firsts = {indices[0][1] for indices in starts.values()}
    out: dict[str, Any] = {}
    for way in WAYS:
        for private in (True, False):
            mover_n: list[int] = []
            others_n: list[int] = []  # per other person
            others_woken = 0  # turns in which any other player was notified
            after_round = 0
            for index, turn in enumerate(ledger.turns):
                if turn.way != way or index in firsts:
                    continue
                table = by_game[turn.game]
                seat = table.seats[turn.mover]
                if seat.private != private:
                    continue
                got = woken[index]
                mover_n.append(got[seat.user.id])
                rest = [got[s.user.id] for s in table.seats if s is not seat]
                others_n += rest
                others_woken += any(rest)
                after_round += bool(index > 0 and ledger.turns[index - 1].special)
            if not mover_n:
                continue
            out[f"{way}:{'private' if private else 'none'}"] = {
                "turns": len(mover_n),
                "after_round": after_round,
                "mover": _mean(mover_n),
                "mover_max": max(mover_n),
                "mover_over_1": sum(1 for n in mover_n if n > 1) / len(mover_n),
                "mover_zero": sum(1 for n in mover_n if n == 0) / len(mover_n),
                "others": _mean(others_n),
                "others_max": max(others_n),
                "others_share": others_woken / len(mover_n),
            }
    people = [n for game in ends.values() for n in game.values()]
    out["_"] = {
        "game_end": sum(people) / max(1, sum(len(t.seats) for t in tables)),
        "unowned_group": unowned["group"],
        "unowned_private": unowned["private"],
        "unmatched": unmatched,
        "mismatched": mismatched,
        "first_turns": len(firsts),
    }
    return out


async def play(url: str, games: int, seed: int, trace: bool = False, private: str = "some") -> dict[str, Any]:
    async with Bench(url, seed=seed) as bench:
        bench.ledger.tracing = trace
        bench.driver.track_turns = True
        tables: list[Table] = []
        for way in WAYS:
            for g in range(games):
                table_seed = seed * 100 + len(tables) + g
                tables.append(
                    await new_table(bench.rig, way, 3, 4, table_seed, private_chats(table_seed, private))
                )
        await quiet_minute(bench)
        before = len(bench.ledger.writes)
        first_notification = len(bench.ledger.notifications)
        await bench.driver.run([(t, play_game(bench.driver, t)) for t in tables])
        await settle_outbox(bench)
        ledger = bench.ledger
        writes = ledger.writes[before:]
        not_modified = sum(
            1 for c in bench.fake.calls if c.method.startswith("edit") and "not modified" in (c.error or "")
        )
        delivery_sql = sum(n for v, n in ledger.other_sql.get("delivery", Counter()).items() if v != "BEGIN")
        group_writes = sum(1 for _c, private, _o in writes if not private)
        return {
            "taps": summarise_taps(ledger.taps),
            "turns": summarise_turns(bench),
            "writes": len(writes),
            "group_writes": group_writes,
            "unattributed": sum(1 for _c, _p, owner in writes if owner is None),
            "delivery_tx_per_write": ledger.other_tx["delivery"] / max(1, len(writes)),
            "delivery_sql_per_write": delivery_sql / max(1, len(writes)),
            "flood_rejections": len(bench.fake.flood_rejections),
            "not_modified": not_modified,
            "virtual_minutes": bench.rig.timer.monotonic() / 60,
            "notifications": summarise_notifications(bench, tables, first_notification),
            "private_seats": sum(s.private for t in tables if t.way != "panel" for s in t.seats),
            "other_seats": sum(not s.private for t in tables if t.way != "panel" for s in t.seats),
            "trace": ledger.trace,
        }


async def inline_times(url: str, queries: int, seed: int) -> dict[str, Any]:
    from engine import GameState
    from tests.bot.helpers import set_state

    async with Bench(url, seed=seed, writes=False) as bench:
        table = await new_table(bench.rig, "inline", 2, 0, seed)
        _status, _version, raw = bench.driver.game(table.game_id)
        assert raw is not None
        base = GameState.from_json(raw)
        mover = table.seats[base.current].user
        rng = random.Random(seed)
        plain: list[float] = []
        joker: list[float] = []
        results: list[int] = []
        sql: list[int] = []
        for i in range(queries):
            state = base.clone()
            pool = state.table + state.deck
            rng.shuffle(pool)
            state.table, state.deck = pool[:20], pool[20:]
            with_joker = i % 2 == 1 and "joker" in state.tdeck
            if with_joker:
                state.tdeck.remove("joker")
                state.holdings[state.current].append("joker")
            set_state(bench.rig, table.game_id, state)
            bench.ledger.idle()
            answer = await bench.driver.execute(table, Query(mover, table.group, f"g{table.game_id}"))
            record = bench.ledger.taps[-1]
            (joker if with_joker else plain).append(record.answer_seconds)
            results.append(len(answer.results))
            sql.append(record.statement_count)
        return {
            "plain_p50": _pct(plain, 0.5),
            "plain_p99": _pct(plain, 0.99),
            "joker_p50": _pct(joker, 0.5),
            "joker_p99": _pct(joker, 0.99),
            "all_p50": _pct(plain + joker, 0.5),
            "all_p99": _pct(plain + joker, 0.99),
            "results": _mean(results),
            "sql": _mean(sql),
            "queries": len(plain) + len(joker),
        }


def child(args: argparse.Namespace) -> None:
    figures: dict[str, Any] = {}
    seed = args.run + 1
    with database(args.db[0]) as url:
        figures["games"] = asyncio.run(play(url, args.games, seed, args.trace, args.private_chats))
    with database(args.db[0]) as url:
        figures["inline"] = asyncio.run(inline_times(url, args.queries, seed))
    emit(figures)


# --- the report ---------------------------------------------------------------------------------


def fmt(v: float) -> str:
    return f"{v:.2f}".rstrip("0").rstrip(".") if v != int(v) else f"{int(v)}"


def taps_table(results: list[dict[str, Any]]) -> list[str]:
    kinds = [k for k in KIND_ORDER if any(k in r["games"]["taps"] for r in results)]
    kinds += sorted({k for r in results for k in r["games"]["taps"]} - set(kinds))
    lines = [
        "| Tap | Taps (all runs) | Transactions | SQL statements: mean (min–max) "
        "| of which SELECT / INSERT / "
        "UPDATE / DELETE / SAVEPOINT (mean) | Group writes: before the next tap / in the end | "
        "Keys-off edits | Private writes | Answer time p50 |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for kind in kinds:
        got = [r["games"]["taps"][kind] for r in results if kind in r["games"]["taps"]]
        n = sum(int(g["n"]) for g in got)
        verbs = " / ".join(spread([g["verbs"][v] for g in got], fmt) for v in VERBS)
        lines.append(
            f"| {kind} | {n:,} | {spread([g['tx'] for g in got], fmt)} (max {max(g['tx_max'] for g in got)}) "
            f"| {spread([g['sql'] for g in got], fmt)} ({min(g['sql_min'] for g in got)}–"
            f"{max(g['sql_max'] for g in got)}) | {verbs} | {spread([g['group_now'] for g in got], fmt)} / "
            f"{spread([g['group_total'] for g in got], fmt)} (max {max(g['group_max'] for g in got)}) | "
            f"{spread([g.get('keys_off', 0) for g in got], fmt)} | "
            f"{spread([g['private'] for g in got], fmt)} | "
            f"{spread([g['answer_p50'] * 1000 for g in got], lambda v: f'{v:.1f}')} ms |"
        )
    return lines


def turns_table(results: list[dict[str, Any]]) -> list[str]:
    """Group writes per turn (keys-off edits apart), by way of playing: all turns, steady play
    (turns that end no round), steady play without the boards a Thief, Shifter or Bomb played on
    the group board brings (by design), turns that end a round (or the game)."""
    lines = [
        "| Way of playing | Turns (all runs) | Taps per turn: mean / max | **Group writes per turn, "
        "all turns**: mean / max | **Steady play** (no round end): mean / max | Steady, without a "
        "Thief/Shifter/Bomb board: mean / max (those turns alone) | Turns ending a round: mean / max "
        "| Keys-off edits per turn: mean / max (share of the group writes) | Private writes per "
        "turn: mean / max | SQL statements / transactions per turn | Waited for the board or panel "
        "per turn |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for way in WAYS:
        got = [r["games"]["turns"][way] for r in results if way in r["games"]["turns"]]
        if not got:
            continue
        turns = sum(int(g["turns"]) for g in got)
        t_boards = sum(int(g.get("t_board_turns", 0)) for g in got)
        lines.append(
            f"| {way} | {turns:,} ({sum(int(g['t_turns']) for g in got)} with a [T!] card"
            + (f", {t_boards} of them a board of its own" if t_boards else "")
            + f", {sum(int(g['special']) for g in got)} ending a round) "
            f"| {spread([g['taps'] for g in got], fmt)} / {max(g['taps_max'] for g in got)} "
            f"| {spread([g['group'] for g in got], fmt)} / {max(g['group_max'] for g in got)} "
            f"| {spread([g['steady'] for g in got], fmt)} / {max(g['steady_max'] for g in got)} "
            f"| {spread([g['steady_plain'] for g in got], fmt)} / {max(g['steady_plain_max'] for g in got)}"
            + (f" ({spread([g['steady_t_board'] for g in got], fmt)})" if t_boards else "")
            + f" | {spread([g['ends'] for g in got], fmt)} / {max(g['ends_max'] for g in got)} "
            f"| {spread([g['keys_off'] for g in got], fmt)} / {max(g['keys_off_max'] for g in got)} "
            f"({spread([100 * g['keys_off_share'] for g in got], lambda v: f'{v:.0f}')} %) "
            f"| {spread([g['private'] for g in got], fmt)} / {max(g['private_max'] for g in got)} "
            f"| {spread([g['sql'] for g in got], fmt)} / {spread([g['tx'] for g in got], fmt)} "
            f"| {spread([g['waited'] for g in got], lambda v: f'{v:.1f}')} s |"
        )
    return lines


def notifications_table(results: list[dict[str, Any]]) -> list[str]:
    """Notifications per person per turn, by way of playing and whether the mover has a private
    chat with the bot."""
    pct = lambda v: f"{100 * v:.0f} %"  # noqa: E731
    lines = [
        "| Way of playing | Mover has a private chat | Turns (all runs; after a round end) "
        "| **Mover**: notifications per turn, mean / most | Turns the mover got more than one "
        "| Turns the mover got none | **Each other player**: notifications per turn, mean / most "
        "| Turns that woke another player |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for way in WAYS:
        for private in ("private", "none"):
            key = f"{way}:{private}"
            got = [
                r["games"]["notifications"][key]
                for r in results
                if key in r["games"].get("notifications", {})
            ]
            if not got:
                continue
            lines.append(
                f"| {way} | {'yes' if private == 'private' else 'no'} "
                f"| {sum(int(g['turns']) for g in got):,} ({sum(int(g['after_round']) for g in got)}) "
                f"| {spread([g['mover'] for g in got], fmt)} / {max(g['mover_max'] for g in got)} "
                f"| {spread([g['mover_over_1'] for g in got], pct)} "
                f"| {spread([g['mover_zero'] for g in got], pct)} "
                f"| {spread([g['others'] for g in got], fmt)} / {max(g['others_max'] for g in got)} "
                f"| {spread([g['others_share'] for g in got], pct)} |"
            )
    return lines


def report(label: str, results: list[dict[str, Any]]) -> None:
    print(f"\n### {label}: {len(results)} cold runs; {machine(results)}\n")
    print("\n".join(taps_table(results)))
    print()
    print("\n".join(turns_table(results)))
    games = [r["games"] for r in results]
    print(
        f"\nDelivery (the senders' own transactions): {fig(games, 'delivery_tx_per_write', f=fmt)} "
        f"transactions and {fig(games, 'delivery_sql_per_write', f=fmt)} statements per write; "
        f"writes per run {fig(games, 'writes', f=fmt)} ({fig(games, 'group_writes', f=fmt)} "
        f"in groups), not matched to a tap {fig(games, 'unattributed', f=fmt)}; 429s "
        f"{fig(games, 'flood_rejections', f=fmt)}; virtual time per run "
        f"{spread(column(games, 'virtual_minutes'), lambda v: f'{v:.0f}')} min."
    )
    print(f"\nNot-modified edits (refused by Telegram) per run: {fig(games, 'not_modified', f=fmt)}.")
    if any("notifications" in g for g in games):
        rest = [g["notifications"]["_"] for g in games if "notifications" in g]
        print(
            f"\nNotifications per person per turn ({fig(games, 'private_seats', f=fmt)} seats with a "
            f"private chat and {fig(games, 'other_seats', f=fmt)} without at the board and inline "
            "tables per run; every panel player has one; each game's first turn left out, its "
            "notification came with the set-up's Start):\n"
        )
        print("\n".join(notifications_table(results)))
        print(
            f"\nAt the games' ends: {fig(rest, 'game_end', f=fmt)} notifications per person; not "
            f"from a tap: {fig(rest, 'unowned_group', f=fmt)} in groups, "
            f"{fig(rest, 'unowned_private', f=fmt)} in private; not matched to a turn "
            f"{fig(rest, 'unmatched', f=fmt)}, matched to a turn of another mover "
            f"{fig(rest, 'mismatched', f=fmt)}."
        )
    inline = [r["inline"] for r in results]
    ms = lambda v: f"{v * 1000:.1f}"  # noqa: E731
    print(
        f"\nInline answer, 20 cards on the table ({int(inline[0]['queries'])} queries per run, "
        f"{fig(inline, 'results', f=fmt)} results each, {fig(inline, 'sql', f=fmt)} "
        f"SQL statements): p50 {fig(inline, 'all_p50', f=ms)} ms, p99 "
        f"{fig(inline, 'all_p99', f=ms)} ms; without a Joker p50 {fig(inline, 'plain_p50', f=ms)}"
        f" / p99 {fig(inline, 'plain_p99', f=ms)} ms; holding a Joker p50 "
        f"{fig(inline, 'joker_p50', f=ms)} / p99 {fig(inline, 'joker_p99', f=ms)} ms."
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="cold runs per database")
    parser.add_argument("--db", nargs="+", default=["sqlite", "postgres"], choices=["sqlite", "postgres"])
    parser.add_argument("--games", type=int, default=3, help="games of each way of playing per run")
    parser.add_argument("--queries", type=int, default=300, help="inline queries timed per run")
    parser.add_argument("--trace", action="store_true", help="print the SQL of one tap of each kind")
    parser.add_argument(
        "--private-chats",
        choices=["some", "all"],
        default="some",
        help="board and inline tables: every other seat has a private chat with the bot (some), or all",
    )
    add_child_arguments(parser)
    args = parser.parse_args(argv)
    if args.child:
        child(args)
        return 0
    for db in args.db:
        label = "SQLite" if db == "sqlite" else "PostgreSQL"
        passed = [
            f"--db={db}",
            f"--games={args.games}",
            f"--queries={args.queries}",
            f"--private-chats={args.private_chats}",
        ]
        results = cold_runs(
            __file__, passed + (["--trace"] if args.trace else []), args.runs, f"tap_cost {label}"
        )
        report(label, results)
        if args.trace:
            for kind, statements in results[0]["games"]["trace"].items():
                print(f"\n{kind} (tap {statements[0]}):")
                for statement in statements[1:]:
                    print(f"    {statement}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
