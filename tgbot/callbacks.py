"""Callback data: one typed class per kind of key, short ASCII, at most 64 bytes.

Each kind declares its layout and field types on `tgbot.wire` (as inline result ids and deep
links do), which derives its strict parser and formatter. Each class's `PATTERN` routes its taps
to its one handler (`CallbackQueryHandler(pattern=…)`).

The layouts are those of the bot's first versions: keys already in chats still parse.

  lj|ll|ls|lc|lo|lb:<game>          lobby: join, leave, start, cancel, settings, back
  ln:<game>:e:c|x                   edition: classic, extended  (the settings: lobby; the pace
  ln:<game>:c:0|3|4|5|6             colours: auto or a count     also in a running game)
  ln:<game>:t:+|-|d                 goal: up, down, automatic
  ln:<game>:f|h:0|1                 [T!] face down, sum hints: off, on
  ln:<game>:p:<pace>                pace: its name
  la:<game>:<level>[:s]             lobby: add a computer player (s: from the settings screen)
  h:<game>                          "my hand" popup
  mc:<game>                         🃏 My cards: the person's own view of the game (never stale)
  e:<game>:<ver>:<seat>:h|t:<i>     on that view (an ephemeral message): hand card i, table card i
  e:<game>:<ver>:<seat>:c|d|x       claim, discard, clear
  e:<game>:<ver>:<seat>:k:<code>    choose that [T!] play (engine code: T<victim>, J+, J-, F, B)
  e:<game>:<ver>:<seat>:p:<codes>   play a sum the view offers (engine codes, _ between: J+_S0.5)
  k:<game>:<ver>:h:<i>|t:<i>        compose on the server's draft: hand card i, table card i
  k:<game>:<ver>:c|d|x              claim, discard, clear
  t:<game>:<ver>:<kind>             choose a [T!] play of that kind (again: the next choice)
  r:<page>[:<lang>]                 rules page
  lg:<code>                         language choice
  dl:<game>                         a finished game's replay file
  rm:<game>                         a finished game's rematch: a lobby with its settings and computers
  nl[:<step>]                       a key of a lobby as posted via inline mode (its game: the message's)
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Annotated, ClassVar

from engine.ai import LEVELS
from engine.cards import T_KINDS, TKind

from .game_settings import Colours, Edition, GameSettings, GoalStep
from .inline_data import LinkedMoves
from .pacing import PaceName
from .wire import (
    CALLBACK_DATA,
    BadData,
    Codec,
    GameId,
    Lang,
    Limit,
    Small,
    Version,
    Wire,
    choice,
    coded,
    flag,
)
from .wire import MAX_GAME_ID as MAX_GAME_ID

MAX_BYTES = CALLBACK_DATA.size
#: Data no kind of key accepts.
BadCallback = BadData

Level = Annotated[str, choice(tuple(LEVELS))]
#: A setting that is on or off.
OnOff = Annotated[bool, coded({"0": False, "1": True})]
#: A pace by its name; a name the bot does not offer (an older version's, or forged) reads as
#: None, which the service refuses as a setting not available.
PaceValue = Annotated[PaceName | None, Codec(r"[a-z]{1,8}", PaceName.known)]


class TChoiceKind(StrEnum):
    """What a [T!] key chooses: a play of one kind, or ("any") of any kind the player holds, when
    the group cannot see which."""

    THIEF = TKind.THIEF.value
    JOKER = TKind.JOKER.value
    SHIFTER = TKind.SHIFTER.value
    BOMB = TKind.BOMB.value
    ANY = "any"

    @classmethod
    def of(cls, kind: TKind) -> TChoiceKind:
        return cls(kind.value)

    @property
    def t_kind(self) -> TKind | None:
        return None if self is TChoiceKind.ANY else TKind(self.value)


assert {k.value for k in T_KINDS} | {"any"} == {k.value for k in TChoiceKind}


class Callback(Wire):
    """A kind of key: its data is at most 64 bytes of ASCII."""

    LIMIT: ClassVar[Limit] = CALLBACK_DATA


# The lobby.


@dataclass(frozen=True)
class Join(Callback, wire="lj:{game_id}"):
    game_id: GameId


@dataclass(frozen=True)
class Leave(Callback, wire="ll:{game_id}"):
    game_id: GameId


@dataclass(frozen=True)
class Start(Callback, wire="ls:{game_id}"):
    game_id: GameId


@dataclass(frozen=True)
class Cancel(Callback, wire="lc:{game_id}"):
    game_id: GameId


@dataclass(frozen=True)
class OpenSettings(Callback, wire="lo:{game_id}"):
    game_id: GameId


@dataclass(frozen=True)
class CloseSettings(Callback, wire="lb:{game_id}"):
    game_id: GameId


@dataclass(frozen=True)
class Setting(Callback):
    """A settings key, one kind per setting with its value typed by it: in the lobby, and the
    pace also under /settings of a running game."""

    game_id: GameId

    def change(self, settings: GameSettings, players: int) -> GameSettings:
        """The settings with this key applied, for a game of `players` seats so far."""
        raise NotImplementedError


@dataclass(frozen=True)
class SetEdition(Setting, wire="ln:{game_id}:e:{value}"):
    value: Annotated[Edition, coded({"c": Edition.CLASSIC, "x": Edition.EXTENDED})]

    def change(self, settings: GameSettings, players: int) -> GameSettings:
        return replace(settings, edition=self.value)


@dataclass(frozen=True)
class SetColours(Setting, wire="ln:{game_id}:c:{value}"):
    value: Annotated[Colours, coded({str(c.value): c for c in Colours})]

    def change(self, settings: GameSettings, players: int) -> GameSettings:
        return replace(settings, colours=self.value)


@dataclass(frozen=True)
class SetGoal(Setting, wire="ln:{game_id}:t:{value}"):
    value: GoalStep

    def change(self, settings: GameSettings, players: int) -> GameSettings:
        return settings.with_goal(self.value, players)


@dataclass(frozen=True)
class SetFaceDown(Setting, wire="ln:{game_id}:f:{value}"):
    value: OnOff  # won [T!] cards kept face down

    def change(self, settings: GameSettings, players: int) -> GameSettings:
        return replace(settings, face_down=self.value)


@dataclass(frozen=True)
class SetHints(Setting, wire="ln:{game_id}:h:{value}"):
    value: OnOff

    def change(self, settings: GameSettings, players: int) -> GameSettings:
        return replace(settings, hints=self.value)


@dataclass(frozen=True)
class SetPace(Setting, wire="ln:{game_id}:p:{value}"):
    value: PaceValue

    def change(self, settings: GameSettings, players: int) -> GameSettings:
        assert self.value is not None, "a pace the bot does not offer is refused before"
        return replace(settings, pace=self.value)


#: Every kind of settings key.
SETTINGS: tuple[type[Setting], ...] = (SetEdition, SetColours, SetGoal, SetFaceDown, SetHints, SetPace)


@dataclass(frozen=True)
class AddComputer(Callback, wire="la:{game_id}:{level}[:{stay}]"):
    game_id: GameId
    level: Level
    stay: Annotated[bool, flag("s")] = False  # tapped on the settings screen, which stays open


# A running game.


@dataclass(frozen=True)
class Hand(Callback, wire="h:{game_id}"):
    game_id: GameId


@dataclass(frozen=True)
class ShowBoard(Callback, wire="bh:{game_id}"):
    """The key of a 📋 Board here post (a chat the bot is not in): a tap tells the bot the chat
    it is in, so the board comes only into the game's own chat."""

    game_id: GameId


@dataclass(frozen=True)
class PickHand(Callback, wire="k:{game_id}:{version}:h:{index}"):
    """Pick hand card `index` for the draft (again: put it back)."""

    game_id: GameId
    version: Version
    index: Small


@dataclass(frozen=True)
class PickTable(Callback, wire="k:{game_id}:{version}:t:{index}"):
    """Toggle table card `index` in the draft."""

    game_id: GameId
    version: Version
    index: Small


@dataclass(frozen=True)
class Claim(Callback, wire="k:{game_id}:{version}:c"):
    """Play the draft: the chosen [T!] card, else the sum."""

    game_id: GameId
    version: Version


@dataclass(frozen=True)
class Discard(Callback, wire="k:{game_id}:{version}:d"):
    """Discard the draft's hand card."""

    game_id: GameId
    version: Version


@dataclass(frozen=True)
class Clear(Callback, wire="k:{game_id}:{version}:x"):
    """Start the draft again."""

    game_id: GameId
    version: Version


#: The compose keys, for code that reads a board's keys (tests, benchmarks).
COMPOSE_KEYS: tuple[type[Callback], ...] = (PickHand, PickTable, Claim, Discard, Clear)


@dataclass(frozen=True)
class TChoice(Callback, wire="t:{game_id}:{version}:{kind}"):
    """A [T!] key: choose a play of that kind; tapped again, the next choice. *Claim* plays it."""

    game_id: GameId
    version: Version
    kind: TChoiceKind


# A person's own view of a running game (issue 61), an ephemeral message: its keys carry the seat
# it was drawn for (never taken for another's view) and the version (stale after a move).


@dataclass(frozen=True)
class MyCards(Callback, wire="mc:{game_id}"):
    """🃏 My cards: open (or redraw) the tapper's own view. It names the game and no version, so
    an old board's key still opens the live game's view, or says the game is over."""

    game_id: GameId


#: A [T!] play as the engine codes it (`engine.actions.encode`): T<victim>, J+, J-, F, B.
TPlayCode = Annotated[str, Codec(r"T[0-9]|J[+-]|F|B")]


@dataclass(frozen=True)
class CardsKey(Callback):
    """A key of a person's own view: its game, the version it was drawn for, the seat it shows."""

    game_id: GameId
    version: Version
    seat: Small


@dataclass(frozen=True)
class CardsPickHand(CardsKey, wire="e:{game_id}:{version}:{seat}:h:{index}"):
    """Pick hand card `index` for the draft (again: put it back)."""

    index: Small


@dataclass(frozen=True)
class CardsPickTable(CardsKey, wire="e:{game_id}:{version}:{seat}:t:{index}"):
    """Toggle table card `index` in the draft."""

    index: Small


@dataclass(frozen=True)
class CardsChooseT(CardsKey, wire="e:{game_id}:{version}:{seat}:k:{play}"):
    """Choose this [T!] play (again: choose none); *Claim* plays it (a Joker with the sum)."""

    play: TPlayCode


@dataclass(frozen=True)
class CardsClaim(CardsKey, wire="e:{game_id}:{version}:{seat}:c"):
    """Play the draft: the chosen [T!] card, else the sum (drawn only when the draft is legal)."""


@dataclass(frozen=True)
class CardsDiscard(CardsKey, wire="e:{game_id}:{version}:{seat}:d"):
    """Discard the draft's hand card."""


@dataclass(frozen=True)
class CardsClear(CardsKey, wire="e:{game_id}:{version}:{seat}:x"):
    """Start the draft again (and forget the values typed)."""


@dataclass(frozen=True)
class CardsPlay(CardsKey, wire="e:{game_id}:{version}:{seat}:p:{moves}"):
    """Play a sum the view offers (a hint, or made of the values typed), a Joker first if needed."""

    moves: LinkedMoves


#: The keys of a person's own view.
CARDS_KEYS: tuple[type[CardsKey], ...] = (
    CardsPickHand,
    CardsPickTable,
    CardsChooseT,
    CardsClaim,
    CardsDiscard,
    CardsClear,
    CardsPlay,
)


# Anywhere.


@dataclass(frozen=True)
class Rules(Callback, wire="r:{page}[:{lang}]"):
    page: Small
    lang: Lang = ""


@dataclass(frozen=True)
class Language(Callback, wire="lg:{code}"):
    code: Lang


@dataclass(frozen=True)
class Download(Callback, wire="dl:{game_id}"):
    game_id: GameId


@dataclass(frozen=True)
class Rematch(Callback, wire="rm:{game_id}"):
    game_id: GameId  # the finished game whose standings carry the key


class LobbyStep(StrEnum):
    """What a key of a lobby does, on a lobby posted via inline mode (`PostedLobby`)."""

    JOIN = "j"
    LEAVE = "l"
    START = "s"
    SETTINGS = "o"
    COMPUTER = "a"
    CANCEL = "c"


@dataclass(frozen=True)
class PostedLobby(Callback, wire="nl[:{step}]"):
    """A key of a lobby as a person posted it from the inline list: its text and keys were drawn
    before the game existed, so the key names no game; its game is the one the posted message (its
    inline id) became. Once the bot has redrawn the lobby, its keys are the usual ones."""

    step: LobbyStep = LobbyStep.JOIN
