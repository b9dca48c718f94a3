"""What a game in a chat the bot is not in shows (inline mode, `services.inline_table`).

There each game message is one a person posted via the bot, which the bot then edits: a lobby
posted from the inline list, each turn's pick, a board brought back. The board has no compose
keys — a turn is played by posting a pick from 🎯 Play, which becomes the next board — only 🎯
Play itself and 👀 My hand. The texts here are what the inline list offers and what a message
says before the bot has made it the game's own.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from engine import View
from engine.config import MAX_PLAYERS, MIN_PLAYERS

from .. import callbacks as cb
from ..i18n import _
from ..inline_data import RematchQuery
from ..pacing import Pace
from .board import Table, board_text
from .keys import Keyboard, button, switch_inline
from .limits import MESSAGE_LIMIT, visible_length
from .lobby import LobbyView, lobby_keyboard, lobby_text


def board_keys(lang: str, table: Table, query: str) -> Keyboard:
    """The live board's keys: the list of moves (posting one plays it; `query`, what the key
    types, names the game and its chat) and the hand popup."""
    gid = table.game_id
    return [
        [
            switch_inline(_(lang, "🎯 Play"), query),
            button(_(lang, "👀 My hand"), cb.Hand(gid)),
        ]
    ]


def pick_keys(lang: str, game_id: int) -> Keyboard:
    """The key a posted pick carries: with a key, the message is one the bot can edit (Telegram
    gives its inline id only then), into the move's report and the next board."""
    return [[button(_(lang, "👀 My hand"), cb.Hand(game_id))]]


def board(lang: str, view: View, table: Table) -> str:
    """The live board (under the record of the message it is in: `Record.text`)."""
    return board_text(lang, view, table)


def under(report: list[str], text: str) -> str:
    return "\n".join(report) + "\n\n" + text if report else text


def new_game_title(lang: str) -> tuple[str, str]:
    return (
        _(lang, "🎴 New game here"),
        _(
            lang,
            "A lobby in this chat: {low}–{high} players, computers welcome",
            low=MIN_PLAYERS,
            high=MAX_PLAYERS,
        ),
    )


def posted_lobby(lang: str, view: LobbyView, custom: Pace | None = None) -> tuple[str, Keyboard]:
    """A lobby as a person posts it from the inline list: drawn before its game exists (its keys
    name no game: `callbacks.PostedLobby`), as the bot would draw it, so it needs no edit until
    someone taps it — the tap that tells the bot which chat it is in."""
    return lobby_text(lang, view, custom), lobby_keyboard(lang, view, posted=True)


def feedback_off(lang: str, bot_username: str) -> str:
    """A lobby the bot never heard of: its owner has not turned inline feedback on."""
    return _(
        lang,
        "⚠️ This game cannot start: @{bot} needs inline feedback for games in any chat. Its owner "
        "turns it on in @BotFather: /setinlinefeedback, then Enabled.",
        bot=bot_username,
    )


def second_lobby(lang: str, bot_username: str, *, lobby: bool = False) -> str:
    """A lobby posted where a game is open: that game's own lobby (`lobby`: still open, above
    in the chat; no board to bring down yet), or its board."""
    if lobby:
        return _(lang, "🃏 A game is already open in this chat: join its lobby above.")
    return _(
        lang,
        "🃏 A game is already open in this chat: play that one (type @{bot} and pick 📋 Board here "
        "to bring its board down).",
        bot=bot_username,
    )


def board_title(lang: str, players: list[str]) -> tuple[str, str]:
    """The inline list's line that posts the live board here again."""
    return _(lang, "📋 Board here"), table_name(lang, players)


def table_name(lang: str, players: Sequence[str]) -> str:
    """What names a game in a chat the bot is not in, whose title the bot cannot know: its
    players. The inline list and the private messages about the game call it so."""
    return _(lang, "TWEAK! with {names}", names=", ".join(players))


def board_posted(lang: str, players: list[str]) -> str:
    """What a 📋 Board here post says until someone taps its key: the bot learns the chat it is
    in only from a tap, and brings the board only into the game's own chat."""
    return _(lang, "📋 TWEAK! with {names}: tap the key to bring the board here.", names=", ".join(players))


def show_board_keys(lang: str, game_id: int) -> Keyboard:
    return [[button(_(lang, "📋 Show the board"), cb.ShowBoard(game_id))]]


def played_elsewhere(lang: str, players: list[str]) -> str:
    """A 📋 Board here post tapped in a chat that is not the game's: it stays as it was, saying
    where the game is (the chat its lobby was posted in; the bot knows no chat's name)."""
    return _(
        lang,
        "🃏 TWEAK! with {names} is played in the chat where its lobby was posted: its board is there.",
        names=", ".join(players),
    )


def not_its_chat(lang: str) -> str:
    """Above an inline list typed outside a game's own chat (or not from its 🎯 Play key): no
    moves, and nothing to post."""
    return _(lang, "🃏 Your game is played in its own chat: tap 🎯 Play on its board there")


def no_game(lang: str) -> str:
    """Above an inline list with no game of the person's: nothing to post; the help in private."""
    return _(lang, "No game waits for your move here · how to start one")


def rematch_title(lang: str) -> tuple[str, str]:
    return _(lang, "🔁 Rematch here"), _(lang, "A lobby with the same settings and computers")


def rematch_keys(lang: str, game_id: int) -> Keyboard:
    """Under the final standings of a game in a chat the bot is not in: the rematch is posted from
    the inline list, as every game message there is."""
    return [[switch_inline(_(lang, "🔁 Rematch"), RematchQuery(game_id).data)]]


#: Between the parts of a game message in a chat the bot is not in, where a group would have had
#: messages of their own (a round's summary, a notice, the next board).
DIVIDER = "┈┈┈┈┈┈┈┈"


@dataclass
class Record:
    """What one game message of an inline chat records, in parts: each closed part is what a
    group would read as a message of its own (moves with a round's summary or the standings, a
    notice, moves alone), and the open part holds the moves the board under it opens with.

    Stored as text (`games.board_report`): the parts, then the open part, divided by `DIVIDER`."""

    parts: list[list[str]] = field(default_factory=list)
    open: list[str] = field(default_factory=list)

    @classmethod
    def from_text(cls, text: str) -> Record:
        if not text:
            return cls()
        *parts, last = text.split(f"\n{DIVIDER}\n")
        return cls([p.split("\n") for p in parts], last.split("\n") if last else [])

    def to_text(self) -> str:
        if not self.parts:
            return "\n".join(self.open)
        return f"\n{DIVIDER}\n".join(["\n".join(p) for p in self.parts] + ["\n".join(self.open)])

    def add_moves(self, lines: list[str]) -> None:
        self.open.extend(lines)

    def add_block(self, text: str) -> None:
        """A round's summary or the standings, under the moves that led to it."""
        self.parts.append([*self.open, "", *text.split("\n")] if self.open else text.split("\n"))
        self.open = []

    def add_notice(self, text: str) -> None:
        if self.open:
            self.parts.append(self.open)
            self.open = []
        self.parts.append(text.split("\n"))

    def after(self, earlier: Record) -> Record:
        """This record with `earlier` before it: what a deleted message held, which the chat
        lost, opens the live one (its open moves a part of their own when parts follow)."""
        if not earlier.parts and not earlier.open:
            return self
        if self.parts:
            return Record([*earlier.parts, *([earlier.open] if earlier.open else []), *self.parts], self.open)
        return Record(list(earlier.parts), [*earlier.open, *self.open])

    def text(self, board: str | None) -> str:
        """The message: the parts, then the open moves over the board (or alone, game over)."""
        segments = ["\n".join(p) for p in self.parts]
        last = under(self.open, board) if board is not None else "\n".join(self.open)
        return f"\n{DIVIDER}\n".join([s for s in [*segments, last] if s])

    def fit(self, board: str | None, limit: int = MESSAGE_LIMIT) -> tuple[Record, Record]:
        """What one message shows (whole parts, then whole moves, while they fit with the board)
        and what is left for the next post."""
        shown = Record()
        for i, part in enumerate(self.parts):
            if visible_length(Record([*shown.parts, part]).text(board)) > limit:
                return shown, Record(self.parts[i:], self.open)
            shown.parts.append(part)
        for i, line in enumerate(self.open):
            if visible_length(Record(shown.parts, [*shown.open, line]).text(board)) > limit:
                return shown, Record([], self.open[i:])
            shown.open.append(line)
        return shown, Record()
