"""Every inline key: one handler per kind of callback data, routed by its pattern.

Each is one line: which service answers the key. The checks (a forged key, a stale board,
another player's turn) are the services' (services/play.py, lobby.py).
"""

from __future__ import annotations

from telegram.ext import BaseHandler, CallbackQueryHandler

from .. import callbacks as cb
from ..services import info, lobby, play, records, rematch
from ..services.env import Env
from ..services.play import Answer, Tap
from ..services.tx import Tx as Session
from .wrap import invalid_key, on_key, own_page


def _lobby(s: Session, env: Env, tap: Tap, key: cb.Lobby, admin: bool) -> Answer:
    return lobby.lobby_key(s, env, tap, key.game_id, key.op, admin)


def _setting(s: Session, env: Env, tap: Tap, key: cb.Setting, admin: bool) -> Answer:
    return lobby.change_setting(s, env, tap, key.game_id, key.key, key.value, admin)


def _computer(s: Session, env: Env, tap: Tap, key: cb.AddComputer, admin: bool) -> Answer:
    return lobby.add_computer(s, env, tap, key.game_id, key.level, key.stay)


def _hand(s: Session, env: Env, tap: Tap, key: cb.Hand, admin: bool) -> Answer:
    return play.hand(s, env, tap, key.game_id)


def _compose(s: Session, env: Env, tap: Tap, key: cb.Compose, admin: bool) -> Answer:
    return play.compose(s, env, tap, key.game_id, key.version, key.op, key.index)


def _t_choice(s: Session, env: Env, tap: Tap, key: cb.TChoice, admin: bool) -> Answer:
    return play.choose_t(s, env, tap, key.game_id, key.version, key.kind)


def _rules(s: Session, env: Env, tap: Tap, key: cb.Rules, admin: bool) -> Answer:
    return info.rules_key(s, env, tap, key.page, key.lang)


def _language(s: Session, env: Env, tap: Tap, key: cb.Language, admin: bool) -> Answer:
    return info.choose_language(s, env, tap, key.code)


def _download(s: Session, env: Env, tap: Tap, key: cb.Download, admin: bool) -> Answer:
    return records.download(s, env, tap, key.game_id)


def _rematch(s: Session, env: Env, tap: Tap, key: cb.Rematch, admin: bool) -> Answer:
    return rematch.rematch(s, env, tap, key.game_id)


def handlers() -> list[BaseHandler]:  # type: ignore[type-arg]
    """One handler per kind, then one for data no kind accepts (a forged or very old key)."""
    routes = [
        CallbackQueryHandler(on_key(cb.Lobby, "lobby", _lobby), pattern=cb.Lobby.PATTERN),
        CallbackQueryHandler(on_key(cb.Setting, "setting", _setting), pattern=cb.Setting.PATTERN),
        CallbackQueryHandler(
            on_key(cb.AddComputer, "add_computer", _computer), pattern=cb.AddComputer.PATTERN
        ),
        CallbackQueryHandler(on_key(cb.Hand, "hand", _hand), pattern=cb.Hand.PATTERN),
        CallbackQueryHandler(on_key(cb.Compose, "compose", _compose), pattern=cb.Compose.PATTERN),
        CallbackQueryHandler(on_key(cb.TChoice, "t_choice", _t_choice), pattern=cb.TChoice.PATTERN),
        CallbackQueryHandler(own_page("r:", on_key(cb.Rules, "rules", _rules)), pattern=cb.Rules.PATTERN),
        CallbackQueryHandler(
            own_page("lg:", on_key(cb.Language, "language", _language)), pattern=cb.Language.PATTERN
        ),
        CallbackQueryHandler(on_key(cb.Download, "download", _download), pattern=cb.Download.PATTERN),
        CallbackQueryHandler(on_key(cb.Rematch, "rematch", _rematch), pattern=cb.Rematch.PATTERN),
        CallbackQueryHandler(invalid_key),
    ]
    return list(routes)
