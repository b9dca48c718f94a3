"""A group's past games, and a finished game's replay file (docs/replay-format.md).

The replay is rebuilt from the move log (seed, action codes, and the events stored with each
move, which the engine checks against its re-run: `engine.replay.records_from_log`), so the file
the bot hands out is exactly what the simulator writes and what `python -m engine.replay FILE`
checks.
"""

from __future__ import annotations

import json
from typing import Any

from sqlmodel import Session

from engine import GameState
from engine.replay import records_from_log

from ..errors import Refusal, ServiceError
from ..render.stats import HistoryEntry, HistorySeat
from ..store import games as game_rows
from ..store.models import ABANDONED, FINISHED, Game
from .context import parse_state, player_rows
from .stats import game_moves

HISTORY_SIZE = 10
ENDED = (FINISHED, ABANDONED)


def _state(game: Game) -> GameState | None:
    return parse_state(game.state) if game.state else None


def recent_games(session: Session, chat_id: int, limit: int = HISTORY_SIZE) -> list[HistoryEntry]:
    """The group's last games that ended (finished or abandoned), newest first."""
    entries: list[HistoryEntry] = []
    for game in game_rows.ended_in(session, chat_id, ENDED, limit):
        assert game.id is not None
        state = _state(game)
        if state is None:
            continue
        players = player_rows(session, game.id)
        entries.append(
            HistoryEntry(
                game_id=game.id,
                ended_at=game.finished_at or game.updated_at,
                played_out=game.status == FINISHED,
                seats=[HistorySeat(p.name, p.ai_level is not None, state.totals[p.seat]) for p in players],
                winners=list(state.winners) if state.is_over else [],
                rounds=len(state.round_points),
            )
        )
    return entries


def replay_records(session: Session, game_id: int, chat_id: int | None = None) -> list[dict[str, Any]]:
    """The replay records of a finished game; `chat_id` limits it to that group's games."""
    game = game_rows.get(session, game_id)
    if game is None or (chat_id is not None and game.chat_id != chat_id):
        raise ServiceError(Refusal.NO_GAME)
    if game.status != FINISHED:
        raise ServiceError(Refusal.NOT_FINISHED)
    state = _state(game)
    assert state is not None
    players = player_rows(session, game_id)
    ai = [p.ai_level for p in players]
    moves = [(m.seat, m.code, m.events) for m in game_moves(session, game_id) if m.seat is not None]
    records = records_from_log(state.config, game.seed, moves, game=0, ai=ai)
    # Extra header fields are allowed by the format's stability promise; readers ignore them.
    records[0]["names"] = [p.name for p in players]
    records[0]["bot_game_id"] = game_id
    return records


def replay_file(session: Session, game_id: int, chat_id: int | None = None) -> bytes:
    """The replay as JSON Lines bytes, one record per line."""
    records = replay_records(session, game_id, chat_id)
    lines = (json.dumps(r, ensure_ascii=False, separators=(",", ":")) for r in records)
    return ("\n".join(lines) + "\n").encode("utf-8")
