"""A game as one transaction sees it: its row, seats, parsed state, settings and chat facts.

`load_game` is how every service reads a game. With ``lock=True`` it also serialises the game
across bot instances for the rest of the transaction (PostgreSQL row lock; SQLite transactions
are serial already), so two taps or a tap and the sweep never both act on one version.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from dataclasses import dataclass, replace
from functools import lru_cache

from sqlmodel import Session

from engine import GameState

from ..errors import Refusal, ServiceError
from ..game_settings import GameSettings
from ..i18n import normalize
from ..pacing import QuietHours
from ..store import games as game_rows
from ..store import people as people_rows
from ..store import seats as seat_rows
from ..store.models import Chat, Game, GamePlayer, User
from ..tables import TableKind
from . import drafts


@dataclass
class SeatInfo:
    seat: int
    user_id: int | None
    name: str
    ai_level: str | None
    away: bool
    left: bool
    can_dm: bool
    language: str
    timeouts: int = 0  # consecutive turns the bot played for this seat (two make it away)
    panel: bool = False  # the player uses the private panel

    @property
    def is_human(self) -> bool:
        return self.ai_level is None

    @property
    def autoplayed(self) -> bool:
        """Seats whose turns the bot plays at once (computer, left, away)."""
        return self.ai_level is not None or self.left or self.away

    @property
    def gets_panel(self) -> bool:
        """A private panel is sent only to a person who uses it and can be written to."""
        return self.panel and self.can_dm and self.user_id is not None and not self.autoplayed


@dataclass
class GameContext:
    game: Game
    seats: list[SeatInfo]
    state: GameState | None
    settings: GameSettings
    chat_title: str
    quiet: QuietHours | None = None

    @property
    def game_id(self) -> int:
        assert self.game.id is not None
        return self.game.id

    @property
    def language(self) -> str:
        """The group's language: boards, lobby and reports."""
        return self.game.language or "en"

    @property
    def table(self) -> TableKind:
        """Where the game is played, as stored when its lobby opened (what that kind of table does:
        `services.tables`)."""
        return TableKind(self.game.table_kind)

    def with_seat(self, seat: SeatInfo) -> GameContext:
        """The game with one seat as this transaction has just changed it."""
        return replace(self, seats=[seat if s.seat == seat.seat else s for s in self.seats])

    def seat_of(self, user_id: int) -> SeatInfo | None:
        return next((s for s in self.seats if s.user_id == user_id), None)

    @property
    def current(self) -> SeatInfo | None:
        if self.state is None or self.state.is_over:
            return None
        return self.seats[self.state.current]

    def playing_state(self) -> GameState:
        assert self.state is not None
        return self.state


def parse_state(text: str) -> GameState:
    return GameState.from_json(json.loads(text))


#: Games whose state is kept parsed; the least recently read give way.
PARSED_GAMES = 512


class _LastStates:
    """Each recently read game's state as of its last version, parsed once.

    A state only changes with the game's version, so a turn's taps, the sweep and the senders'
    transactions share one parse. Only a game's newest version is ever read again: kept by the
    state's text, as before, every move added an entry and the 512 of them held about 3 MB in a
    bot with four games (decisions.md B29).
    What is kept is shared by several worker threads, and a `GameState` is a mutable record: each
    reader gets its own copy (`GameState.clone`, a few microseconds against the parse's
    hundreds), so no thread can change what another reads, whatever a caller does with it.
    The lock: services run in several worker threads.
    """

    def __init__(self, size: int) -> None:
        self._size = size
        self._by_game: OrderedDict[int, tuple[str, GameState]] = OrderedDict()
        self._lock = threading.Lock()

    def of(self, game_id: int, text: str) -> GameState:
        with self._lock:
            found = self._by_game.get(game_id)
            if found is not None and found[0] == text:
                self._by_game.move_to_end(game_id)
                return found[1].clone()
        state = parse_state(text)
        with self._lock:
            self._by_game[game_id] = (text, state)
            self._by_game.move_to_end(game_id)
            if len(self._by_game) > self._size:
                self._by_game.popitem(last=False)
        return state.clone()


_last_states = _LastStates(PARSED_GAMES)


def game_state(game: Game) -> GameState | None:
    """The game's state (None before the game starts), parsed once per version."""
    if not game.state:
        return None
    if game.id is None:
        return parse_state(game.state)
    return _last_states.of(game.id, game.state)


def dump_state(state: GameState) -> str:
    return json.dumps(state.to_json(), separators=(",", ":"))


@lru_cache(maxsize=256)
def parse_settings(text: str) -> GameSettings:
    return GameSettings.from_json(text)


@dataclass(frozen=True)
class ChatFacts:
    """What a game needs of its chat's row: the title its reports name, the quiet hours."""

    title: str = ""
    quiet: QuietHours | None = None

    @classmethod
    def of(
        cls, title: str | None, start: int | None, end: int | None, offset_minutes: int | None
    ) -> ChatFacts:
        quiet = None if start is None or end is None else QuietHours(start, end, offset_minutes or 0)
        return cls(title or "", quiet)


def chat_facts(chat: Chat | None) -> ChatFacts:
    if chat is None:
        return ChatFacts()
    return ChatFacts.of(chat.title, chat.quiet_start, chat.quiet_end, chat.utc_offset_minutes)


def _reach(
    known: bool, can_dm: bool | None, language: str | None, tg_language: str | None
) -> tuple[bool, str]:
    """Whether a seat's person can get a private message, and their language: a computer or a
    person the bot never met gets neither (English)."""
    return bool(known and can_dm), normalize(language or tg_language) if known else "en"


def seat_of_row(player: GamePlayer, user: User | None) -> SeatInfo:
    can_dm, language = (
        _reach(True, user.can_dm, user.language, user.tg_language)
        if user is not None
        else _reach(False, None, None, None)
    )
    return SeatInfo(
        seat=player.seat,
        user_id=player.user_id,
        name=player.name,
        ai_level=player.ai_level,
        away=player.away,
        left=player.left,
        can_dm=can_dm,
        language=language,
        timeouts=player.timeouts,
        panel=player.panel,
    )


def player_rows(session: Session, game_id: int) -> list[GamePlayer]:
    """A game's seats as stored, in seat order (the lobby changes them; history reads names)."""
    return seat_rows.of_game(session, game_id)


def load_seats(session: Session, game_id: int) -> list[SeatInfo]:
    """A game's seats with their people's language and reach, in seat order (as `seat_of_row`);
    their drafts are kept for the transaction."""
    seats = []
    for row in seat_rows.with_people_and_drafts(session, game_id):
        seat, user_id, name, ai_level, away, left, timeouts, panel = row[:8]
        known, can_dm, language, tg_language = row[8:12]
        drafts.known(session, game_id, seat, *row[12:])
        reach, lang = _reach(known is not None, can_dm, language, tg_language)
        seats.append(
            SeatInfo(
                seat=seat,
                user_id=user_id,
                name=name,
                ai_level=ai_level,
                away=away,
                left=left,
                can_dm=reach,
                language=lang,
                timeouts=timeouts,
                panel=panel,
            )
        )
    return seats


def game_and_chat(session: Session, game_id: int, *, lock: bool = False) -> tuple[Game, ChatFacts] | None:
    """The game row with its chat's facts, in one statement (locked on PostgreSQL when asked), or
    None."""
    found = game_rows.with_chat(session, game_id, lock=lock)
    if found is None:
        return None
    game, chat_id, title, start, end, offset = found
    return game, ChatFacts() if chat_id is None else ChatFacts.of(title, start, end, offset)


def load_game(session: Session, game_id: int, *, lock: bool = False) -> GameContext | None:
    """The game with its seats, or None when there is no such game: two queries, the game row
    with its chat's, then the seats with their people.

    The seats stay a statement of their own, after the lock, though folding them into the game's
    read saves a PostgreSQL round trip: under READ COMMITTED a statement that waits for the
    game's row lock still reads every other table as of its start, so a compose tap queued behind
    another would build on the draft from before that tap and undo its selection. Taken apart,
    the second statement reads after the lock (tests/bot/test_game_lock.py)."""
    found = game_and_chat(session, game_id, lock=lock)
    return None if found is None else _context(session, *found)


def context_of(session: Session, game: Game) -> GameContext:
    return _context(session, game, chat_facts(people_rows.chat(session, game.chat_id)))


def _context(session: Session, game: Game, chat: ChatFacts) -> GameContext:
    assert game.id is not None
    return GameContext(
        game=game,
        seats=load_seats(session, game.id),
        state=game_state(game),
        settings=parse_settings(game.settings),
        chat_title=chat.title,
        quiet=chat.quiet,
    )


def contexts_of(session: Session, games: list[Game]) -> dict[int, GameContext]:
    """Several games' contexts with one query for all their seats and one for their chats (the
    sweep's batches)."""
    ids = [g.id for g in games if g.id is not None]
    if not ids:
        return {}
    seats: dict[int, list[SeatInfo]] = {game_id: [] for game_id in ids}
    for player, user in seat_rows.of_games(session, ids):
        seats[player.game_id].append(seat_of_row(player, user))
    chat_ids = {g.chat_id for g in games}
    chats = people_rows.chats(session, chat_ids)
    found: dict[int, GameContext] = {}
    for game in games:
        assert game.id is not None
        facts = chat_facts(chats.get(game.chat_id))
        found[game.id] = GameContext(
            game=game,
            seats=seats[game.id],
            state=game_state(game),
            settings=parse_settings(game.settings),
            chat_title=facts.title,
            quiet=facts.quiet,
        )
    return found


def require_game(session: Session, game_id: int, *, lock: bool = False) -> GameContext:
    ctx = load_game(session, game_id, lock=lock)
    if ctx is None:
        raise ServiceError(Refusal.NO_GAME)
    return ctx
