"""Every inline key: one handler per kind of callback data, routed by its pattern.

Each row is the whole route: the kind of key (`callbacks.py`), the service that answers it, and
the name its taps have in the logs and metrics. The checks (a forged key, a stale board, another
player's turn) are the services'.
"""

from __future__ import annotations

from typing import Any, TypeVar

from telegram.ext import BaseHandler, CallbackQueryHandler

from .. import callbacks as cb
from ..services import hand, info, inline_posts, lobby_keys, play, rematch, stats_commands
from ..services.call import KeyService
from .seam import invalid_key, on_key, own_page

K = TypeVar("K", bound=cb.Callback)
Route = CallbackQueryHandler[Any, Any]


def route(kind: type[K], service: KeyService[K], action: str, *, own_page_of: str = "") -> Route:
    """Taps whose data matches `kind`'s pattern go to `service`; `own_page_of`: the key rewrites
    its own message, so it acts only on a message whose keys all start so."""
    handler = on_key(kind, service, action)
    return CallbackQueryHandler(
        own_page(own_page_of, handler) if own_page_of else handler, pattern=kind.PATTERN
    )


#: Data of the keys that rewrite their own message, and so read the keyboard it shows.
RULES_PAGE, LANGUAGE_PAGE = "r:", "lg:"


ROUTES: list[Route] = [
    route(cb.Join, lobby_keys.join, "lobby"),
    route(cb.PostedLobby, lobby_keys.posted_step, "lobby"),
    route(cb.Leave, lobby_keys.leave, "lobby"),
    route(cb.Start, lobby_keys.start_game, "lobby"),
    route(cb.Cancel, lobby_keys.cancel_lobby, "lobby"),
    route(cb.OpenSettings, lobby_keys.open_settings, "lobby"),
    route(cb.CloseSettings, lobby_keys.close_settings, "lobby"),
    *[route(kind, lobby_keys.change_setting, "setting") for kind in cb.SETTINGS],
    route(cb.AddComputer, lobby_keys.add_computer, "add_computer"),
    route(cb.Hand, play.hand, "hand"),
    route(cb.ShowBoard, inline_posts.show_board, "board_here"),
    route(cb.PickHand, play.pick_hand, "compose"),
    route(cb.PickTable, play.pick_table, "compose"),
    route(cb.Claim, play.claim, "compose"),
    route(cb.Discard, play.discard, "compose"),
    route(cb.Clear, play.clear, "compose"),
    route(cb.TChoice, play.choose_t, "t_choice"),
    route(cb.MyCards, hand.my_cards, "my_cards"),
    route(cb.CardsPickHand, hand.pick_hand, "view_compose"),
    route(cb.CardsPickTable, hand.pick_table, "view_compose"),
    route(cb.CardsChooseT, hand.choose_t, "view_t_choice"),
    route(cb.CardsClear, hand.clear, "view_compose"),
    route(cb.CardsClaim, hand.claim, "view_compose"),
    route(cb.CardsDiscard, hand.discard, "view_compose"),
    route(cb.CardsPlay, hand.play_sum, "view_compose"),
    route(cb.Rules, info.rules_key, "rules", own_page_of=RULES_PAGE),
    route(cb.Language, info.choose_language, "language", own_page_of=LANGUAGE_PAGE),
    route(cb.Download, stats_commands.download, "download"),
    route(cb.Rematch, rematch.rematch, "rematch"),
]


def handlers() -> list[BaseHandler[Any, Any, Any]]:
    """One handler per kind, then one for data no kind accepts (a forged or very old key)."""
    return [*ROUTES, CallbackQueryHandler(invalid_key)]
