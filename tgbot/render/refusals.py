"""Why something was refused, in the reader's language: one table, keyed by `Refusal`.

An illegal move is worded by the engine's rule (`IllegalActionError.reason`, a stable keyword).
"""

from __future__ import annotations

from engine.config import MAX_PLAYERS, MIN_PLAYERS

from ..errors import Refusal, ServiceError
from ..i18n import M_, _

ILLEGAL_TEXT = {
    "wrong_total": M_("{total} is not the target {target}. Nothing was played."),
    "no_table_cards": M_("Pick at least one table card for a sum."),
    "bad_hand_index": M_("Those cards are no longer there."),
    "bad_table_index": M_("Those cards are no longer there."),
    "one_t_per_turn": M_("Only one [T!] card per turn."),
    "t_not_held": M_("You don't hold that [T!] card."),
    "bad_victim": M_("Pick another player."),
    "victim_empty": M_("That player has no cards."),
    "deck_empty": M_("The deck is empty: the Shifter can't be played."),
    "no_victims": M_("Nobody else has cards."),
    "joker_delta": M_("The Joker changes the target by +1 or −1."),
    "empty_hand": M_("You need a card in your hand for that."),
}

REFUSAL_TEXT: dict[Refusal, str] = {
    Refusal.NO_GAME: M_("This game no longer exists."),
    Refusal.NO_GAME_HERE: M_("There is no game here. Start one with /newgame."),
    Refusal.NOT_LOBBY: M_("This lobby is closed."),
    Refusal.ALREADY_JOINED: M_("You're already in."),
    Refusal.LOBBY_FULL: M_("The table is full ({high} players)."),
    Refusal.NOT_IN_GAME: M_("You're not in this game. Start your own with /newgame!"),
    Refusal.NOT_IN_GAME_HERE: M_(
        "You're not in this game. Start your own: type @{bot} in a chat and pick 🎴 New game here."
    ),
    Refusal.NOT_CREATOR: M_("Only the creator or a group admin can do that."),
    Refusal.NOT_POSTER: M_("Only whoever posted this lobby can do that."),
    Refusal.TOO_FEW: M_("At least {low} players are needed."),
    Refusal.NO_HUMANS: M_("At least one human player is needed."),
    Refusal.NO_COMPUTER: M_(
        "Add a computer player first: 🤖 Add computer, or Easy, Normal or Hard in ⚙️ Settings."
    ),
    Refusal.BAD_CONFIG: M_("Not enough cards for this many players: pick more colours in Settings."),
    Refusal.GAME_EXISTS: M_("A game is already running here."),
    Refusal.LOBBY_OPEN: M_("A lobby is already open here: tap ✋ Join on it."),
    Refusal.BAD_SETTING: M_("That setting is not available."),
    Refusal.NOT_RUNNING: M_("That game is not running any more."),
    Refusal.SECOND_LOBBY: M_("A game is already open in this chat: play that one."),
    Refusal.PLAYED_IN_ITS_CHAT: M_("This game is played in its chat: post your moves there with 🎯 Play."),
    Refusal.UNKNOWN_LOBBY: M_("This lobby is not set up: the bot needs inline feedback (see the message)."),
    Refusal.STALE: M_("This board is out of date: the live one is at the bottom of the chat."),
    Refusal.ON_ITS_WAY: M_("⏳ The next board is on its way: it shows up at the bottom in a moment."),
    Refusal.NOT_YOUR_TURN: M_("It's {name}'s turn."),
    Refusal.PAUSED: M_("The game is paused. /resume to continue."),
    Refusal.NOT_PLAYING: M_("This game is over."),
    Refusal.GAME_OVER: M_("This game is over."),
    Refusal.MALFORMED: M_("That key is not valid any more."),
    Refusal.ILLEGAL: M_("That move is not allowed."),
    Refusal.PICK_HAND: M_("Pick a hand card first."),
    Refusal.REMATCH_NOT_PLAYER: M_(
        "🔁 Rematch is for the players of this game. Start a new one with /newgame."
    ),
    Refusal.REMATCH_OLD: M_("A newer game has been played here since. Start a new one with /newgame."),
    Refusal.NOT_FINISHED: M_("Only finished games have a replay file."),
    Refusal.ALREADY_LEFT: M_("You already left this game."),
    Refusal.ALREADY_PAUSED: M_("The game is already paused."),
    Refusal.NOT_PAUSED: M_("The game is not paused."),
    Refusal.NOT_STARTED: M_("The game has not started yet."),
    Refusal.NOT_AWAY: M_("You were not away."),
    Refusal.QUIET_IN_GROUP: M_("Quiet hours are set in a group."),
    Refusal.QUIET_USAGE: M_(
        "Usage: /quiet 23-08 +7 (hours in local time, then the UTC offset), or /quiet off."
    ),
    Refusal.QUIET_UNREADABLE: M_("I could not read that. Example: /quiet 23-08 +7"),
    Refusal.SETTINGS_NO_GAME: M_("There is no game here. Settings are in the lobby of /newgame."),
    Refusal.SETTINGS_IN_LOBBY: M_("Use the ⚙️ Settings key of the lobby."),
    Refusal.TOP_IN_GROUP: M_("Send /top in a group to see its leaderboard."),
    Refusal.HISTORY_IN_GROUP: M_("Send /history in a group to see its games."),
    Refusal.UNKNOWN_LANGUAGE: M_("Unknown language."),
    Refusal.UNKNOWN_COMMAND: M_("I don't know that command. /help lists what I can do."),
    Refusal.UNKNOWN_LINK: M_("I don't know that link, so nothing changed. /help lists what I can do."),
    Refusal.NOT_YOUR_LINK: M_(
        "That link is for the players of a game you're not in (or one that is over), so nothing "
        "changed. Join its lobby with ✋ Join first."
    ),
}

#: Refusals shown as an alert the person dismisses: a move the rules forbid, and keys that can
#: never work (forged, or a game or language that is not there).
ALERTS = frozenset(
    {Refusal.ILLEGAL, Refusal.MALFORMED, Refusal.NO_GAME, Refusal.NOT_FINISHED, Refusal.UNKNOWN_LANGUAGE}
)

#: "It's {name}'s turn." when the refusal does not say whose (the engine's own check).
NOT_YOUR_TURN_ANYONE = M_("It's not your turn.")
#: The apology when the database does not answer (not a refusal: nothing was decided).
TROUBLE_TEXT = M_("The bot is having trouble right now. Please try again in a minute.")


def refusal(lang: str, error: ServiceError) -> str:
    """The refusal's words, filled in with what it says (a rule's total and target, whose turn)."""
    details = error.details
    if error.reason is Refusal.ILLEGAL:
        template = ILLEGAL_TEXT.get(str(details.get("rule", "")), REFUSAL_TEXT[Refusal.ILLEGAL])
        return _(lang, template, **{k: v for k, v in details.items() if k in ("total", "target")})
    if error.reason is Refusal.NOT_YOUR_TURN and "name" not in details:
        return _(lang, NOT_YOUR_TURN_ANYONE)
    template = REFUSAL_TEXT[error.reason]
    fields = {
        "name": details.get("name", ""),
        "bot": details.get("bot", ""),
        "low": MIN_PLAYERS,
        "high": MAX_PLAYERS,
    }
    return _(lang, template, **{k: v for k, v in fields.items() if "{" + k + "}" in template})
