"""/start, /help, /rules (and its page keys), /language, and words the bot does not understand."""

from __future__ import annotations

from sqlmodel import Session

from .. import callbacks as cb
from ..errors import Outcome, Refusal, ServiceError
from ..i18n import LANGUAGES
from ..inline_data import HowToPlay, OpenPanel, PrivateTurns, start_link
from ..render import info as info_render
from ..render.info import language_keyboard, rules_page, welcome_keys
from ..store import games as game_rows
from ..store import once_keys
from ..store import people as people_rows
from ..store.models import LOBBY, PAUSED, PLAYING
from ..store.outbox import Priority
from . import drafts, inline_table, output, panels, people, private_turns
from .call import Answer, CommandCall, KeyCall, Replied, command_service, key_service
from .context import load_game
from .env import Env
from .lobby import active_games
from .play import use_panel
from .tables import presenter_of


@command_service
def start(call: CommandCall) -> Replied:
    """/start in private: the bot may write to this person now. A deep link's payload says more:
    ``g<id>`` (the board's 📱 Panel key) turns on that game's private panel and shows it (a
    practice table's: its board again, it has no panel), ``p<id>`` (the lobby's 🔔 key) confirms
    their turns come in private, ``howto`` (the button above an inline list) shows the help.
    Anything else is refused, and changes nothing. In a group:
    /help."""
    command = call.command
    if not command.private:
        call.reply(help_for(call.reply_language, call.env), once="help")
        return Replied(action="help")
    payload = command.args.split(maxsplit=1)[0] if command.args else ""
    link = start_link(payload) if payload else None
    if payload and link is None:
        raise ServiceError(Refusal.UNKNOWN_LINK)  # forged, or a link of a bot long gone
    private_turns.open_chat(call.session, call.env, command.person)
    if isinstance(link, OpenPanel):
        return _open_panel(call, link.game_id)
    if isinstance(link, PrivateTurns):
        return private_turns.confirm(call, link.game_id)
    if isinstance(link, HowToPlay):  # the button above an inline list with nothing to post
        call.reply(help_for(call.reply_language, call.env))
        return Replied(action="help")
    lang = call.reply_language
    call.reply(info_render.welcome(lang, call.env.bot_username), welcome_keys(lang, call.env.bot_username))
    return Replied()


def _open_panel(call: CommandCall, game_id: int) -> Replied:
    session, env = call.session, call.env
    ctx = load_game(session, game_id, lock=True)
    if ctx is None or ctx.game.status not in (PLAYING, PAUSED) or ctx.state is None:
        raise ServiceError(Refusal.NOT_RUNNING)
    seat = ctx.seat_of(call.command.person.id)
    if seat is None:
        raise ServiceError(Refusal.NOT_IN_GAME)
    if inline_table.is_inline(ctx):
        raise ServiceError(Refusal.PLAYED_IN_ITS_CHAT)  # each turn is a post there (inline_table)
    if presenter_of(ctx).in_players_chat:  # played in this very chat: no panel, its board again
        if ctx.game.status == PLAYING:
            presenter_of(ctx).post_board(session, env, ctx)
        return Replied(game_id=game_id)
    ctx, seat = use_panel(session, env, ctx, seat, True)
    draft = drafts.load(session, ctx.game_id, seat.seat, ctx.game.version)  # a move begun on the board
    panels.show(session, env, ctx, seat, draft, priority=Priority.TURN, fresh=True)
    return Replied(game_id=ctx.game_id)


def help_for(lang: str, env: Env) -> str:
    """The help, with games in any chat when the bot has inline mode (they need it)."""
    return info_render.help_text(lang, env.bot_username, env.inline)


@command_service
def help_text(call: CommandCall) -> Replied:
    call.reply(help_for(call.reply_language, call.env), once="help")
    return Replied()


@command_service
def rules(call: CommandCall) -> Replied:
    text, keys = rules_page(call.reply_language, 0)
    call.reply(text, keys, once="rules")
    return Replied()


@key_service(KeyCall)
def rules_key(call: KeyCall, key: cb.Rules) -> Answer:
    """Next/Back on a rules page: that message shows the other page."""
    tap = call.tap
    if tap.chat_id is None or tap.message_id is None:
        return Answer()
    text, keys = rules_page(key.lang or call.language, key.page)
    priority = Priority.TURN if tap.private else Priority.COSMETIC
    output.edit_message(call.session, call.env, tap.chat_id, tap.message_id, text, keys, priority)
    return Answer()


@command_service
def unknown_command(call: CommandCall) -> Replied:
    raise ServiceError(Refusal.UNKNOWN_COMMAND)


@command_service
def private_text(call: CommandCall) -> Replied:
    text = info_render.only_commands(call.reply_language)
    output.say_once(call.session, call.env, call.command.chat_id, once_keys.TEXT, text)
    return Replied(Outcome.TEXT)


@command_service
def language_menu(call: CommandCall) -> Replied:
    lang = call.reply_language
    text = info_render.language_prompt(lang, call.command.private)
    call.reply(text, language_keyboard(), once="language")
    return Replied()


@key_service(KeyCall)
def choose_language(call: KeyCall, key: cb.Language) -> Answer:
    """A language key: the group's language (its lobbies and boards redrawn), or, in private, the
    person's own. In a group anyone may tap it, so its redraws are cosmetic (spare budget only,
    coalesced per message): taps to and fro never delay a board."""
    session, env, tap, code = call.session, call.env, call.tap, key.code
    if code not in LANGUAGES:
        raise ServiceError(Refusal.UNKNOWN_LANGUAGE)
    if tap.chat_id is None:
        return Answer()
    if tap.private:
        user = people.upsert_user(session, tap.person, env)
        user.language = code
        people_rows.save(session, user)
        _speak(session, env, tap.chat_id, code)  # a practice table speaks its person's language
    else:
        chat = people.upsert_chat(session, tap.chat_id, None, env)
        chat.language = code
        people_rows.save(session, chat)
        _speak(session, env, tap.chat_id, code)
    done = info_render.language_chosen(code)
    if tap.message_id is not None:
        priority = Priority.TURN if tap.private else Priority.COSMETIC
        output.edit_message(session, env, tap.chat_id, tap.message_id, done, None, priority)
    return Answer(done)


def _speak(session: Session, env: Env, chat_id: int, code: str) -> None:
    """The chat's games speak `code` from now on: their lobbies and boards are redrawn at once."""
    for game in active_games(session, chat_id):
        game.language = code
        game_rows.write(session, game)
        ctx = load_game(session, game.id or 0)
        if ctx is None:
            continue
        if game.status == LOBBY:
            presenter_of(ctx).show_lobby(session, env, ctx)
        elif game.status == PLAYING and game.board_no:
            presenter_of(ctx).redraw_board(session, env, ctx)
