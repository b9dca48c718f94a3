"""/cards: a person's own cards in the game of this chat, seen by them alone.

The command is declared ephemeral in every language's menu (`command_menu.EPHEMERAL_COMMANDS`),
so in a group nobody else sees it, and there its answer is the person's own view of the game as
an ephemeral message (issue 61, `hand_replies.cards_view`). This is the answer where that view
cannot be shown (sent as an ordinary command, Telegram refusing ephemeral messages in the chat)
and in private: the 👀 My hand popup's text where only the person reads it, their private chat
with the bot (or the practice table's own chat). Never in the group: a reply there is everyone's,
whatever the command was. A person the bot cannot write to privately is pointed at the board's
key, without a card.
"""

from __future__ import annotations

from ..errors import Refusal, ServiceError
from ..render import hand_view
from ..store.models import LOBBY
from . import lobby, output, popups
from .call import CommandCall, Replied, command_service
from .context import require_game


@command_service
def cards(call: CommandCall) -> Replied:
    command = call.command
    session, env = call.session, call.env
    game = lobby.active_game(session, command.chat_id, command.thread_id)
    if game is None or game.id is None:
        raise ServiceError(Refusal.NO_GAME_HERE)
    if game.status == LOBBY:
        raise ServiceError(Refusal.NOT_STARTED)
    ctx = require_game(session, game.id)
    seat = ctx.seat_of(command.person.id)
    if seat is None or seat.user_id is None or ctx.state is None:
        raise ServiceError(Refusal.NOT_IN_GAME)
    text = popups.hand_popup(ctx, seat)
    if command.private:
        call.reply(text)
    elif seat.can_dm:
        output.say(session, env, seat.user_id, text)
    else:
        call.reply(hand_view.tap_my_hand(call.reply_language), once="cards")
    return Replied(game_id=ctx.game_id)
