"""What a request ended in: refused (a `Refusal` the seam words in the reader's language), done
otherwise (an `Outcome`), or not answered at all (`DatabaseTrouble`)."""

from __future__ import annotations

from enum import StrEnum


class DatabaseTrouble(Exception):
    """The database did not answer in time, or not at all: the update gets an apology."""


class Refusal(StrEnum):
    """Every reason a service refuses a request. Each has its words in one table
    (`render.refusals.REFUSAL_TEXT`); the value is what the update's log line and metrics say."""

    # Games and lobbies.
    NO_GAME = "no_game"
    NO_GAME_HERE = "no_game_here"
    NOT_LOBBY = "not_lobby"
    ALREADY_JOINED = "already_joined"
    LOBBY_FULL = "lobby_full"
    NOT_IN_GAME = "not_in_game"
    NOT_IN_GAME_HERE = "not_in_game_here"  # as NOT_IN_GAME, in a chat the bot is not in (no /newgame)
    NOT_CREATOR = "not_creator"
    NOT_POSTER = "not_poster"  # as NOT_CREATOR, in a chat the bot is not in (no admins there)
    TOO_FEW = "too_few"
    NO_HUMANS = "no_humans"
    NO_COMPUTER = "no_computer"
    BAD_CONFIG = "bad_config"
    GAME_EXISTS = "game_exists"
    LOBBY_OPEN = "lobby_open"
    BAD_SETTING = "bad_setting"
    NOT_RUNNING = "not_running"
    SECOND_LOBBY = "second_lobby"  # a lobby posted via inline mode where a game is open already
    UNKNOWN_LOBBY = "unknown_lobby"  # a posted lobby no game took up (inline feedback is off)
    PLAYED_IN_ITS_CHAT = "played_in_its_chat"  # no private panel for a game played via inline mode
    # A running game's keys.
    STALE = "stale"
    ON_ITS_WAY = "on_its_way"
    NOT_YOUR_TURN = "not_your_turn"
    PAUSED = "paused"
    NOT_PLAYING = "not_playing"
    GAME_OVER = "game_over"
    MALFORMED = "malformed"
    ILLEGAL = "illegal"
    PICK_HAND = "pick_hand"
    # After a game.
    REMATCH_NOT_PLAYER = "rematch_not_player"
    REMATCH_OLD = "rematch_old"
    NOT_FINISHED = "not_finished"
    # Table commands.
    ALREADY_LEFT = "already_left"
    ALREADY_PAUSED = "already_paused"
    NOT_PAUSED = "not_paused"
    NOT_STARTED = "not_started"
    NOT_AWAY = "not_away"
    QUIET_IN_GROUP = "quiet_in_group"
    QUIET_USAGE = "quiet_usage"
    QUIET_UNREADABLE = "quiet_unreadable"
    SETTINGS_NO_GAME = "settings_no_game"
    SETTINGS_IN_LOBBY = "settings_in_lobby"
    TOP_IN_GROUP = "top_in_group"
    HISTORY_IN_GROUP = "history_in_group"
    UNKNOWN_LANGUAGE = "unknown_language"
    UNKNOWN_COMMAND = "unknown_command"
    # Deep links (/start <payload>).
    UNKNOWN_LINK = "unknown_link"
    NOT_YOUR_LINK = "not_your_link"

    @classmethod
    def of_engine(cls, code: str) -> Refusal:
        """The refusal for an engine error's code (`engine.errors.EngineError.code`): the turn,
        the game's end and a malformed action have their own words; anything else is illegal."""
        known = {"not_your_turn": cls.NOT_YOUR_TURN, "game_over": cls.GAME_OVER, "malformed": cls.MALFORMED}
        return known.get(code, cls.ILLEGAL)


class ServiceError(Exception):
    """A service refuses: `reason`, with what its words need (`rule` for an illegal move, the
    name of the player whose turn it is, the sum's total and target)."""

    def __init__(self, reason: Refusal, **details: object) -> None:
        super().__init__(reason.value)
        self.reason = reason
        self.details = details


class Outcome(StrEnum):
    """Every way an update ends that is not a refusal. Nothing is said for these (or the use case
    says it itself); the value is what the update's log line and metrics say, as a `Refusal`'s."""

    OK = "ok"
    NEED_ADMIN = "need_admin"  # asked again once Telegram said whether the person is an admin
    DUPLICATE = "duplicate"  # the same update delivered again: it was applied already
    IGNORED = "ignored"  # nothing of the bot's (a pick of no game, a post of another bot)
    FORGED = "forged"  # a pick no list of the game ever offered: it says nothing
    STALE_AGAIN = "stale_again"  # a stale pick after the turn's note that it played nothing
    NOT_ITS_CHAT = "not_its_chat"  # an inline game's moves typed outside its own chat
    ELSEWHERE = "elsewhere"  # an inline game's board shown in a chat it is not played in
    BOARD_OFFERED = "board_offered"  # an inline game's board posted again: it waits for a tap
    NO_INLINE_ID = "no_inline_id"  # a post without keys: never the bot's own result
    LOBBY = "lobby"  # a lobby opened
    EXISTS = "exists"  # /newgame where a game is here already: it is pointed at
    RECENT = "recent"  # a board posted again within the minute: near the bottom still
    LEFT = "left"  # a player left the game (counted, ``left_2``: games left with the group)
    EMPTY = "empty"  # a record with nothing in it
    TEXT = "text"  # a private message that is no command: pointed at the commands
    MOVED = "moved"  # a group became a supergroup (counted: its games moved)
    HELD = "held"  # the bot was removed (counted: the games held)
    OPEN = "open"  # a person's private chat with the bot opened
    BLOCKED = "blocked"  # … or blocked
    LATE = "late"  # an inline query answered too late for Telegram
    DB_TROUBLE = "db_trouble"  # the database did not answer
    ERROR = "error"  # an unhandled exception


#: What an update ends in, as its result says and its log line shows.
Ended = Outcome | Refusal
