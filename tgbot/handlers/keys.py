"""Every inline key: one handler per kind of callback data, routed by its pattern.

Each row is the whole route: the kind of key (`callbacks.py`), the service that answers it, and
the name its taps have in the logs and metrics. The checks (a forged key, a stale board, another
player's turn) are the services'.
"""

from __future__ import annotations

from typing import Any

from telegram.ext import BaseHandler, CallbackQueryHandler

from .. import callbacks as cb
from ..services import info, lobby, play, records, rematch
from .wrap import Handler, invalid_key, on_key, own_page

ROUTES: list[tuple[type[cb.Callback], Handler]] = [
    (cb.Join, on_key(cb.Join, lobby.join, "lobby")),
    (cb.Leave, on_key(cb.Leave, lobby.leave, "lobby")),
    (cb.Start, on_key(cb.Start, lobby.start_game, "lobby")),
    (cb.Cancel, on_key(cb.Cancel, lobby.cancel_lobby, "lobby")),
    (cb.OpenSettings, on_key(cb.OpenSettings, lobby.open_settings, "lobby")),
    (cb.CloseSettings, on_key(cb.CloseSettings, lobby.close_settings, "lobby")),
    (cb.Setting, on_key(cb.Setting, lobby.change_setting, "setting")),
    (cb.AddComputer, on_key(cb.AddComputer, lobby.add_computer, "add_computer")),
    (cb.Hand, on_key(cb.Hand, play.hand, "hand")),
    (cb.PickHand, on_key(cb.PickHand, play.pick_hand, "compose")),
    (cb.PickTable, on_key(cb.PickTable, play.pick_table, "compose")),
    (cb.Claim, on_key(cb.Claim, play.claim, "compose")),
    (cb.Discard, on_key(cb.Discard, play.discard, "compose")),
    (cb.Clear, on_key(cb.Clear, play.clear, "compose")),
    (cb.TChoice, on_key(cb.TChoice, play.choose_t, "t_choice")),
    # A key that rewrites its own message acts only on a message made of such keys.
    (cb.Rules, own_page("r:", on_key(cb.Rules, info.rules_key, "rules"))),
    (cb.Language, own_page("lg:", on_key(cb.Language, info.choose_language, "language"))),
    (cb.Download, on_key(cb.Download, records.download, "download")),
    (cb.Rematch, on_key(cb.Rematch, rematch.rematch, "rematch")),
]


def handlers() -> list[BaseHandler[Any, Any, Any]]:
    """One handler per kind, then one for data no kind accepts (a forged or very old key)."""
    found: list[BaseHandler[Any, Any, Any]] = [
        CallbackQueryHandler(handler, pattern=kind.PATTERN) for kind, handler in ROUTES
    ]
    return [*found, CallbackQueryHandler(invalid_key)]
