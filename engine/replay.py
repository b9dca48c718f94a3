"""Replay records (JSON Lines) for a game, and a checker that re-runs them.

The simulator writes traces with `GameRecorder`, and the bot exports a
finished game from its move log through the same class, so both produce the
same format (docs/replay-format.md).

A record describes the state *before* a turn. Lost turns and skips happen
inside the engine's `apply` of the previous turn, so the recorder has `apply`
show it the live state as each of them begins (`on_auto_turn`) instead of
replaying events on a copy of the state: the rules live in `engine.game`
alone, and a rule change cannot make the records drift from the game.

Records hold every hand and the deck's top card, which no event carries (the
deal is not an event), so building them always runs `apply` from the config
and seed. Stored events (`records_from_log`) are compared with what that run
reports, so a log the current rules no longer reproduce is refused instead of
exported wrongly.

``python -m engine.replay FILE`` re-runs every game of a trace from its header
(config and seed) with the recorded action codes and prints ``OK`` or the
first record that does not match.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from .actions import Action, Discard, Sum, decode, encode
from .config import GameConfig
from .errors import EngineError
from .events import (
    Discarded,
    Event,
    GameEnded,
    LostTurn,
    Refilled,
    RoundEnded,
    Skipped,
    Summed,
    TPlayed,
    load_events,
)
from .game import apply, new_game
from .state import GameState

FORMAT = "tweakbot-replay"
VERSION = 1

Record = dict[str, Any]


class ReplayMismatchError(EngineError):
    """A move's stored events differ from what the engine reports when it re-runs the move.

    The game was played under other rules (or the log is damaged); a replay
    built now would show a game that never happened.
    """

    code = "replay_mismatch"


def header_record(game: int, config: GameConfig, seed: int, ai: Sequence[str | None] | None = None) -> Record:
    return {
        "game": game,
        "header": True,
        "format": FORMAT,
        "version": VERSION,
        "config": config.to_json(),
        "seed": seed,
        "players": config.players,
        "ai": list(ai) if ai is not None else [None] * config.players,
    }


def _before(game: int, state: GameState, seat: int) -> Record:
    return {
        "game": game,
        "round": state.round,
        "turn": state.turn,
        "seat": seat,
        "dealer": state.dealer,
        "target": state.base_target,
        "top": state.deck[-1] if state.deck else None,
        "deck": len(state.deck),
        "hands": [list(h) for h in state.hands],
        "table": list(state.table),
        "holdings": [list(h) for h in state.holdings],
        "tdeck": len(state.tdeck),
    }


def _tcard(event: TPlayed) -> Record:
    if event.kind == "thief":
        return {"kind": "thief", "victim": event.victim, "card": event.card}
    if event.kind == "joker":
        return {"kind": "joker", "delta": event.delta}
    if event.kind == "shifter":
        return {"kind": "shifter", "card": event.card, "new_target": event.new_target}
    return {"kind": "bomb", "dropped": {str(s): c for s, c in sorted(event.dropped.items())}}


def _scored(record: Record, scores_round: list[int], scores_total: list[int]) -> Record:
    record["scores_round"] = scores_round
    record["scores_total"] = scores_total
    return record


# Taken as an automatic turn begins: its record so far, and the scores at that moment, which
# are the scores *after* the turn before it.
_Snapshot = tuple[Record, list[int], list[int]]


class GameRecorder:
    """Turns a game's actions, one at a time, into records.

    The bot applies a [T!] play and the main action as two separate calls;
    the recorder holds the [T!] play back until its main action arrives so
    the pair becomes one record, as the format requires.
    """

    def __init__(self, game: int = 0) -> None:
        self.game = game
        self._held: Record | None = None

    def play(
        self, state: GameState, seat: int, action: Action | str
    ) -> tuple[GameState, list[Event], list[Record]]:
        """`engine.apply` plus the records the action completes (none for a [T!] play)."""
        new, events, snapshots = self._apply(state, seat, action)
        return new, events, self._records(state, seat, action, events, new, snapshots)

    def feed(
        self, state_before: GameState, seat: int, action: Action | str, events: Sequence[Event]
    ) -> list[Record]:
        """Records for a caller that applied the action itself.

        The action is applied once more here: the automatic turns inside it
        can only be seen while `apply` runs. `events` must be what the
        caller's run reported, or ValueError (and the recorder is unchanged).
        """
        new, again, snapshots = self._apply(state_before, seat, action)
        if again != list(events):
            raise ValueError("the events were not produced by this action on this state")
        return self._records(state_before, seat, action, again, new, snapshots)

    def _apply(
        self, state: GameState, seat: int, action: Action | str
    ) -> tuple[GameState, list[Event], list[_Snapshot]]:
        snapshots: list[_Snapshot] = []

        def observe(live: GameState) -> None:
            snapshots.append(
                (_before(self.game, live, live.current), live.scores_round(), live.scores_total())
            )

        new, events = apply(state, seat, action, on_auto_turn=observe)
        return new, events, snapshots

    def _records(
        self,
        state: GameState,
        seat: int,
        action: Action | str,
        events: list[Event],
        new: GameState,
        snapshots: list[_Snapshot],
    ) -> list[Record]:
        code = action if isinstance(action, str) else encode(action)
        if self._held is not None:
            record, self._held = self._held, None
            record["action"] = f"{record['action']} {code}"
        else:
            record = _before(self.game, state, seat)
            record["action"] = code
            record["tcard"] = None
        if not isinstance(decode(code), (Sum, Discard)):
            for event in events:
                if isinstance(event, TPlayed):
                    record["tcard"] = _tcard(event)
            self._held = record
            return []
        return list(self._turn(record, events, new, iter(snapshots)))

    def _turn(
        self, record: Record, events: list[Event], new: GameState, snapshots: Iterator[_Snapshot]
    ) -> Iterator[Record]:
        """The main action's record, then lost turns, skips, round and game end.

        Each turn record gets its scores from the next moment the engine
        showed: the next automatic turn, the round end, or the state `apply`
        returned.
        """
        game = self.game
        pending: Record | None = record
        for event in events:
            if isinstance(event, Summed):
                record["main"] = {
                    "kind": "sum",
                    "hand": event.hand_card,
                    "table": list(event.table_cards),
                    "tweak": event.tweak,
                    "won_t": event.won_t,
                }
            elif isinstance(event, Discarded):
                record["main"] = {"kind": "discard", "card": event.card}
            elif isinstance(event, Refilled):
                record["drawn_hand"] = list(event.hand_cards)
                record["drawn_table"] = list(event.table_cards)
            elif isinstance(event, (LostTurn, Skipped)):
                auto, scores_round, scores_total = next(snapshots)
                if pending is not None:
                    yield _scored(pending, scores_round, scores_total)
                lost = isinstance(event, LostTurn)
                auto["action"] = "L" if lost else "K"
                auto["tcard"] = None
                auto["main"] = {"kind": "lost_turn" if lost else "skip"}
                auto["drawn_hand"] = list(event.hand_cards) if isinstance(event, LostTurn) else []
                auto["drawn_table"] = []
                pending = auto
            elif isinstance(event, RoundEnded):
                # The engine has already dealt the next round: the scores of the
                # turn that ended this round come from the event, not a state.
                if pending is not None:
                    yield _scored(pending, list(event.points), list(event.totals))
                    pending = None
                yield {
                    "game": game,
                    "round": event.round,
                    "end": True,
                    "round_points": list(event.points),
                    "totals": list(event.totals),
                    "leftover_table": list(event.leftover_table),
                }
            elif isinstance(event, GameEnded):
                yield {
                    "game": game,
                    "end_game": True,
                    "winners": list(event.winners),
                    "totals": list(event.totals),
                }
        if pending is not None:
            yield _scored(pending, new.scores_round(), new.scores_total())


def turn_records(
    game: int, state_before: GameState, seat: int, actions: Sequence[Action | str], events: Sequence[Event]
) -> Iterator[Record]:
    """Records for one turn: the turn itself, then lost turns, skips, round and game end.

    `state_before` is the state before the turn's first action (the [T!] play
    if any); `events` are the events of all of the turn's actions, in order,
    and must be what the engine reports for them (ValueError otherwise). The
    input state is not modified.
    """
    recorder = GameRecorder(game)
    state = state_before
    again: list[Event] = []
    records: list[Record] = []
    for action in actions:
        state, produced, out = recorder.play(state, seat, action)
        again.extend(produced)
        records.extend(out)
    if again != list(events):
        raise ValueError("the events were not produced by these actions on this state")
    yield from records


def records_from_log(
    config: GameConfig,
    seed: int,
    moves: Iterable[tuple[int, str, str | None]],
    game: int = 0,
    ai: Sequence[str | None] | None = None,
) -> list[Record]:
    """The full trace of a game from a move log of (seat, action code, stored events text).

    The stored text is `events.dump_events` of what `apply` reported for that
    move, or None for moves logged before events were kept. The game is run
    again from `config` and `seed` (records need every hand, which events do
    not carry), and each move's stored events must equal the run's:
    ReplayMismatchError otherwise, naming the move; SchemaError if the stored
    text is unreadable; the engine's own errors if a move is illegal.
    """
    records = [header_record(game, config, seed, ai)]
    recorder = GameRecorder(game)
    state = new_game(config, seed)
    for number, (seat, code, stored) in enumerate(moves, start=1):
        state, events, out = recorder.play(state, seat, code)
        if stored is not None and load_events(stored) != events:
            raise ReplayMismatchError(f"move {number} ({code!r} by seat {seat}): stored events differ")
        records.extend(out)
    return records


def record_game(
    config: GameConfig,
    seed: int,
    codes: Iterable[str],
    game: int = 0,
    ai: Sequence[str | None] | None = None,
) -> list[Record]:
    """The full trace of a game from its config, seed and action codes (each by the seat to move)."""
    records = [header_record(game, config, seed, ai)]
    recorder = GameRecorder(game)
    state = new_game(config, seed)
    for code in codes:
        state, _, out = recorder.play(state, state.current, code)
        records.extend(out)
    return records


# --- checking -------------------------------------------------------------


def _normalise(record: Record) -> Any:
    return json.loads(json.dumps(record))


def _first_difference(expected: Record, found: Record) -> str:
    for key in list(expected) + [k for k in found if k not in expected]:
        if expected.get(key, "<missing>") != found.get(key, "<missing>"):
            return (
                f"{key}: expected {expected.get(key, '<missing>')!r}, found {found.get(key, '<missing>')!r}"
            )
    return "records differ"


class _GameCheck:
    """Re-runs one game of a trace and compares each record with the engine's."""

    def __init__(self, header: Record) -> None:
        if header.get("format", FORMAT) != FORMAT or header.get("version") != VERSION:
            raise ValueError(f"unsupported trace version {header.get('version')!r}")
        self.game = int(header["game"])
        self.state = new_game(GameConfig.from_json(header["config"]), int(header["seed"]))
        self.recorder = GameRecorder(self.game)
        self.queue: list[Record] = []
        self.ended = False

    def expect(self, found: Record) -> Record:
        if not self.queue:
            action = found.get("action")
            if self.ended or not isinstance(action, str) or action in ("L", "K"):
                raise ValueError("record not produced by the engine at this point")
            self._play(found, action.split(" "))
        return self.queue.pop(0)

    def _play(self, found: Record, codes: list[str]) -> None:
        seat = found.get("seat")
        for code in codes:
            if not isinstance(seat, int):
                raise ValueError("turn record without a seat")
            self.state, _, records = self.recorder.play(self.state, seat, code)
            self.queue.extend(_normalise(r) for r in records)
        if not self.queue:
            raise ValueError(f"action {found.get('action')!r} does not complete a turn")
        if any(r.get("end_game") for r in self.queue):
            self.ended = True


def check_records(records: Iterable[Record], allow_unfinished: bool = False) -> str | None:
    """None when every record matches a re-run of the engine, else the first mismatch."""
    games: dict[int, _GameCheck] = {}
    number = 0
    for number, found in enumerate(records, start=1):
        try:
            game = int(found["game"])
            if found.get("header"):
                if game in games:
                    return f"record {number}: second header for game {game}"
                games[game] = _GameCheck(found)
                continue
            if game not in games:
                return f"record {number}: game {game} has no header"
            expected = games[game].expect(found)
        except (EngineError, ValueError, KeyError, TypeError) as exc:
            return f"record {number}: {type(exc).__name__}: {exc}"
        if expected != found:
            return f"record {number} (game {game}): {_first_difference(expected, found)}"
    if not games:
        return "no games in trace"
    for game, checker in games.items():
        if checker.queue:
            return f"game {game}: trace ends early, next record would be {checker.queue[0]!r}"
        if not checker.ended and not allow_unfinished:
            return f"game {game}: trace ends before the game is over"
    return None


def read_trace(path: str) -> Iterator[Record]:
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                yield json.loads(line)


def check_trace(path: str, allow_unfinished: bool = False) -> str | None:
    try:
        return check_records(read_trace(path), allow_unfinished)
    except (OSError, json.JSONDecodeError) as exc:
        return f"cannot read trace: {exc}"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m engine.replay", description=(__doc__ or "").partition("\n")[0]
    )
    parser.add_argument("trace", help="JSON Lines trace written by engine.simulate --trace or the bot")
    parser.add_argument("--partial", action="store_true", help="accept games that stop before their end")
    args = parser.parse_args(argv)
    problem = check_trace(args.trace, allow_unfinished=args.partial)
    if problem is None:
        print("OK")
        return 0
    print(f"MISMATCH {problem}")
    return 1


if __name__ == "__main__":
    sys.exit(main())
