"""Replay records (JSON Lines) for a game, and a checker that re-runs them.

The simulator writes traces with `GameRecorder`, and the bot exports a
finished game from its move log through the same class, so both produce the
same format (docs/replay-format.md). A record describes the state *before* a
turn; lost turns and skips happen inside the engine's `apply` of the previous
turn, so the recorder follows the events on a shadow copy of the state to
know what the table looked like at each of them.

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
)
from .game import apply, new_game
from .state import GameState

FORMAT = "tweakbot-replay"
VERSION = 1

Record = dict[str, Any]


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


def _apply_t(shadow: GameState, event: TPlayed) -> None:
    """Mirror of the engine's [T!] effects, driven by the event instead of the RNG."""
    shadow.holdings[event.seat].remove(event.kind)
    shadow.used_t[event.seat].append(event.kind)
    if event.kind == "thief" and event.victim is not None and event.card is not None:
        shadow.hands[event.victim].remove(event.card)
        shadow.table.append(event.card)
    elif event.kind == "shifter" and event.card is not None:
        shadow.deck.pop()
        shadow.table.append(event.card)
    elif event.kind == "bomb":
        for victim, card in event.dropped.items():
            shadow.hands[victim].remove(card)
            shadow.table.append(card)


def _apply_main(shadow: GameState, event: Summed | Discarded) -> None:
    hand = shadow.hands[event.seat]
    if isinstance(event, Summed):
        hand.remove(event.hand_card)
        taken = set(event.table_cards)
        shadow.table = [c for c in shadow.table if c not in taken]
        shadow.piles[event.seat].extend([event.hand_card, *event.table_cards])
        if event.won_t is not None:
            shadow.tdeck.pop()
            shadow.holdings[event.seat].append(event.won_t)
    else:
        hand.remove(event.card)
        shadow.table.append(event.card)


def _draw(shadow: GameState, seat: int, hand_cards: Iterable[str], table_cards: Iterable[str] = ()) -> None:
    for card in hand_cards:
        shadow.deck.pop()
        shadow.hands[seat].append(card)
    for card in table_cards:
        shadow.deck.pop()
        shadow.table.append(card)


def _scores(record: Record, shadow: GameState) -> None:
    record["scores_round"] = shadow.scores_round()
    record["scores_total"] = shadow.scores_total()


def turn_records(
    game: int, state_before: GameState, seat: int, actions: Sequence[Action | str], events: Sequence[Event]
) -> Iterator[Record]:
    """Records for one turn: the turn itself, then lost turns, skips, round and game end.

    `state_before` is the state before the turn's first action (the [T!] play
    if any); `events` are the events of all of the turn's actions, in order.
    The input state is not modified.
    """
    shadow = state_before.clone()
    record = _before(game, shadow, seat)
    record["action"] = " ".join(a if isinstance(a, str) else encode(a) for a in actions)
    record["tcard"] = None
    pending: Record | None = record
    for event in events:
        if isinstance(event, TPlayed):
            record["tcard"] = _tcard(event)
            _apply_t(shadow, event)
        elif isinstance(event, Summed):
            record["main"] = {
                "kind": "sum",
                "hand": event.hand_card,
                "table": list(event.table_cards),
                "tweak": event.tweak,
                "won_t": event.won_t,
            }
            _apply_main(shadow, event)
        elif isinstance(event, Discarded):
            record["main"] = {"kind": "discard", "card": event.card}
            _apply_main(shadow, event)
        elif isinstance(event, Refilled):
            _draw(shadow, event.seat, event.hand_cards, event.table_cards)
            record["drawn_hand"] = list(event.hand_cards)
            record["drawn_table"] = list(event.table_cards)
            _scores(record, shadow)
        elif isinstance(event, (LostTurn, Skipped)):
            if pending is not None:
                yield pending
                pending = None
            shadow.turn += 1
            shadow.current = event.seat
            extra = _before(game, shadow, event.seat)
            lost = isinstance(event, LostTurn)
            extra["action"] = "L" if lost else "K"
            extra["tcard"] = None
            extra["main"] = {"kind": "lost_turn" if lost else "skip"}
            if isinstance(event, LostTurn):
                _draw(shadow, event.seat, event.hand_cards)
                extra["drawn_hand"] = list(event.hand_cards)
            else:
                extra["drawn_hand"] = []
            extra["drawn_table"] = []
            _scores(extra, shadow)
            yield extra
        elif isinstance(event, RoundEnded):
            # The engine has already dealt the next round: the scores of the
            # turn that ended this round come from the event, not a state.
            if pending is not None:
                pending["scores_round"] = list(event.points)
                pending["scores_total"] = list(event.totals)
                yield pending
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
        yield pending


class GameRecorder:
    """Turns a stream of (state before, seat, action, events) into records.

    The bot applies a [T!] play and the main action as two separate calls;
    the recorder holds the [T!] play back until its main action arrives so
    the pair becomes one record, as the format requires.
    """

    def __init__(self, game: int = 0) -> None:
        self.game = game
        self._pending: tuple[GameState, int, list[str], list[Event]] | None = None

    def feed(
        self, state_before: GameState, seat: int, action: Action | str, events: Sequence[Event]
    ) -> list[Record]:
        code = action if isinstance(action, str) else encode(action)
        if not isinstance(decode(code), (Sum, Discard)):
            self._pending = (state_before.clone(), seat, [code], list(events))
            return []
        if self._pending is not None:
            before, _, codes, earlier = self._pending
            self._pending = None
            return list(turn_records(self.game, before, seat, [*codes, code], [*earlier, *events]))
        return list(turn_records(self.game, state_before, seat, [code], events))


def record_game(
    config: GameConfig,
    seed: int,
    codes: Iterable[str],
    game: int = 0,
    ai: Sequence[str | None] | None = None,
) -> list[Record]:
    """The full trace of a game from its config, seed and action codes (e.g. a move log)."""
    records = [header_record(game, config, seed, ai)]
    recorder = GameRecorder(game)
    state = new_game(config, seed)
    for code in codes:
        seat = state.current
        new, events = apply(state, seat, code)
        records.extend(recorder.feed(state, seat, code, events))
        state = new
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
            new, events = apply(self.state, seat, code)
            self.queue.extend(_normalise(r) for r in self.recorder.feed(self.state, seat, code, events))
            self.state = new
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
    parser = argparse.ArgumentParser(prog="python -m engine.replay", description=__doc__.splitlines()[0])
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
