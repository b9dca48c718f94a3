"""/start, /help, /rules (and its page keys), /language, and words the bot does not understand."""

from __future__ import annotations

from dataclasses import replace

from sqlmodel import Session

from .. import callbacks as cb
from ..errors import ServiceError
from ..i18n import LANGUAGES, _
from ..render.info import language_keyboard, rules_page, welcome_keys
from ..render.refusals import refusal
from ..store.models import LOBBY, PAUSED, PLAYING
from ..store.outbox import Priority
from ..texts import HELP_TEXT, WELCOME_TEXT
from . import drafts, lobby_message, output, panels, people, record
from .command import Command, Replied, reply, reply_language
from .context import load_game
from .env import Env
from .lobby import active_games
from .play import use_panel
from .tap import Answer, KeyCall, key_service


def start(session: Session, env: Env, command: Command) -> Replied:
    """/start in private: the bot may write to this person now. ``/start g<id>`` (the board's
    📱 Panel key) turns on that game's private panel and shows it. In a group: /help."""
    if not command.private:
        return replace(help_text(session, env, command), action="help")
    payload = command.args.split(maxsplit=1)[0] if command.args else ""
    people.upsert_user(session, command.person, env, can_dm=True)
    lang = reply_language(session, command)
    digits = payload[1:]
    if payload.startswith("g") and digits.isascii() and digits.isdigit() and len(digits) <= 12:
        return _open_panel(session, env, command, int(digits), lang)
    reply(
        session,
        env,
        command,
        _(lang, WELCOME_TEXT, bot_name=env.bot_username),
        welcome_keys(lang, env.bot_username),
    )
    return Replied()


def _open_panel(session: Session, env: Env, command: Command, game_id: int, lang: str) -> Replied:
    ctx = load_game(session, game_id, lock=True) if game_id < 2**31 else None
    if ctx is None or ctx.game.status not in (PLAYING, PAUSED) or ctx.state is None:
        reply(session, env, command, _(lang, "That game is not running any more."))
        return Replied("not_running")
    seat = ctx.seat_of(command.person.id)
    if seat is None:
        reply(session, env, command, refusal(lang, ServiceError("not_in_game")))
        return Replied("not_in_game")
    ctx, seat = use_panel(session, env, ctx, seat, True)
    draft = drafts.load(session, game_id, seat.seat, ctx.game.version)  # a move begun on the board
    panels.show(session, env, ctx, seat, draft, priority=Priority.TURN, fresh=True)
    return Replied(game_id=game_id)


def help_text(session: Session, env: Env, command: Command) -> Replied:
    reply(session, env, command, _(reply_language(session, command), HELP_TEXT))
    return Replied()


def rules(session: Session, env: Env, command: Command) -> Replied:
    text, keys = rules_page(reply_language(session, command), 0)
    reply(session, env, command, text, keys)
    return Replied()


@key_service(KeyCall)
def rules_key(call: KeyCall, key: cb.Rules) -> Answer:
    """Next/Back on a rules page: that message shows the other page."""
    tap = call.tap
    if tap.chat_id is None or tap.message_id is None:
        return Answer()
    text, keys = rules_page(key.lang or call.language, key.page)
    output.edit_message(call.session, call.env, tap.chat_id, tap.message_id, text, keys)
    return Answer()


def unknown_command(session: Session, env: Env, command: Command) -> Replied:
    lang = reply_language(session, command)
    reply(session, env, command, _(lang, "I don't know that command. /help lists what I can do."))
    return Replied()


def private_text(session: Session, env: Env, command: Command) -> Replied:
    lang = reply_language(session, command)
    text = _(lang, "I only understand commands and keys. /help lists them; games are played in groups.")
    output.say_once(session, env, command.chat_id, "text", text)
    return Replied("text")


def language_menu(session: Session, env: Env, command: Command) -> Replied:
    lang = reply_language(session, command)
    if command.private:
        text = _(lang, "Choose your language for private messages and popups:")
    else:
        text = _(lang, "Choose the language of this group's games:")
    reply(session, env, command, text, language_keyboard())
    return Replied()


@key_service(KeyCall)
def choose_language(call: KeyCall, key: cb.Language) -> Answer:
    """A language key: the group's language (its lobbies and boards redrawn at once), or, in
    private, the person's own."""
    session, env, tap, code = call.session, call.env, call.tap, key.code
    if code not in LANGUAGES:
        return Answer(_(call.language, "Unknown language."), alert=True)
    if tap.chat_id is None:
        return Answer()
    if tap.private:
        user = people.upsert_user(session, tap.person, env)
        user.language = code
        session.add(user)
    else:
        chat = people.upsert_chat(session, tap.chat_id, None, env)
        chat.language = code
        session.add(chat)
        for game in active_games(session, tap.chat_id):
            game.language = code
            session.add(game)
            session.flush()
            ctx = load_game(session, game.id or 0)
            if ctx is None:
                continue
            if game.status == LOBBY:
                lobby_message.show_lobby(session, env, ctx)
            elif game.status == PLAYING and game.board_no:
                record.redraw_board(session, env, ctx)
    done = _(code, "Language: {name}", name=LANGUAGES[code])
    if tap.message_id is not None:
        output.edit_message(session, env, tap.chat_id, tap.message_id, done, None)
    return Answer(done)
