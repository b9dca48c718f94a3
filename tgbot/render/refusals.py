"""Why something was refused, in the reader's language (services raise `ServiceError(reason)`)."""

from __future__ import annotations

from engine.config import MAX_PLAYERS, MIN_PLAYERS

from ..errors import ServiceError
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

ERROR_TEXT = {
    "no_game": M_("This game no longer exists."),
    "no_game_here": M_("There is no game here. Start one with /newgame."),
    "not_lobby": M_("This lobby is closed."),
    "already_joined": M_("You're already in."),
    "lobby_full": M_("The table is full ({high} players)."),
    "not_in_game": M_("You're not in this game. Start your own with /newgame!"),
    "not_creator": M_("Only the creator or a group admin can do that."),
    "too_few": M_("At least {low} players are needed."),
    "no_humans": M_("At least one human player is needed."),
    "bad_config": M_("Not enough cards for this many players: pick more colours in Settings."),
    "stale": M_("This board is out of date: the live one is at the bottom of the chat."),
    "on_its_way": M_("⏳ The next board is on its way: it shows up at the bottom in a moment."),
    "not_your_turn": M_("It's {name}'s turn."),
    "paused": M_("The game is paused. /resume to continue."),
    "not_playing": M_("This game is over."),
    "game_over": M_("This game is over."),
    "game_exists": M_("A game is already running here."),
    "lobby_open": M_("A lobby is already open here: tap ✋ Join on it."),
    "rematch_not_player": M_("🔁 Rematch is for the players of this game. Start a new one with /newgame."),
    "rematch_old": M_("A newer game has been played here since. Start a new one with /newgame."),
    "bad_setting": M_("That setting is not available."),
    "already_left": M_("You already left this game."),
    "already_paused": M_("The game is already paused."),
    "not_paused": M_("The game is not paused."),
    "not_started": M_("The game has not started yet."),
    "malformed": M_("That key is not valid any more."),
    "not_your_turn_engine": M_("It's not your turn."),
    "illegal": M_("That move is not allowed."),
    "pick_hand": M_("Pick a hand card first."),
    "trouble": M_("The bot is having trouble right now. Please try again in a minute."),
}


def refusal(lang: str, error: ServiceError) -> str:
    if error.reason == "illegal":
        rule = str(error.details.get("rule", ""))
        template = ILLEGAL_TEXT.get(rule, ERROR_TEXT["illegal"])
        fmt = {k: v for k, v in error.details.items() if k in ("total", "target")}
        return _(lang, template, **fmt)
    template = ERROR_TEXT.get(error.reason, ERROR_TEXT["illegal"])
    fields = {"name": error.details.get("name", "?"), "low": MIN_PLAYERS, "high": MAX_PLAYERS}
    return _(lang, template, **{k: v for k, v in fields.items() if "{" + k + "}" in template})
