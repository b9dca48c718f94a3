"""/top orders people tied on wins by win rate, then points per round, and shows equal places for
exact ties (issue "A group that enjoys the game": no more 🥈/🥉 handed out alphabetically)."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from sqlmodel import Session

from tgbot.render.stats import top_text
from tgbot.services.stats import leaderboard
from tgbot.store.db import create_all, make_engine
from tgbot.store.models import PlayerStats, User

NOW = datetime(2026, 1, 1, 12, 0)
CHAT = -100


def test_ties_on_wins_are_ordered_by_win_rate_then_points_per_round_and_exact_ties_share_a_place(
    tmp_path: Path,
) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'top.sqlite3'}")
    create_all(engine)
    people = {
        # name: (games, wins, rounds, points)
        "Ana": (10, 3, 30, 300),  # 3 wins, 30 %
        "Bea": (6, 3, 20, 300),  # 3 wins, 50 %, 15 pts/round
        "Cid": (6, 3, 20, 200),  # 3 wins, 50 %, 10 pts/round
        "Dan": (6, 3, 20, 200),  # exactly as Cid: the same place
        "Eve": (2, 1, 6, 90),
        "Abe": (9, 4, 25, 100),  # most wins: first whatever the rest
    }
    with Session(engine) as session:
        for uid, (name, (games, wins, rounds, points)) in enumerate(people.items(), start=1):
            session.add(User(id=uid, first_name=name, created_at=NOW))
            session.add(
                PlayerStats(
                    chat_id=CHAT,
                    user_id=uid,
                    games=games,
                    wins=wins,
                    rounds=rounds,
                    points=points,
                    updated_at=NOW,
                )
            )
        session.commit()
        lines = leaderboard(session, CHAT)
    engine.dispose()
    assert [line.name for line in lines] == ["Abe", "Bea", "Cid", "Dan", "Ana", "Eve"]
    text = top_text("en", lines, [])
    places = [row.split(" ", 1)[0] for row in text.splitlines()[1:]]
    assert places == ["🥇", "🥈", "🥉", "🥉", "5.", "6."]
