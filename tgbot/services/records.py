"""/stats, /top, /history and the replay download key: reads, answered through the outbox."""

from __future__ import annotations

import base64

from sqlmodel import Session

from .. import callbacks as cb
from ..errors import ServiceError
from ..i18n import _
from ..render import stats as stats_render
from ..store.models import User
from . import history, output, people, stats
from .command import Command, Replied, reply, reply_language
from .env import Env
from .tap import Answer, KeyCall, key_service


def my_stats(session: Session, env: Env, command: Command) -> Replied:
    """Someone's stats in this group (in private: in every group): the sender's, or, sent in
    reply to a person's message, that person's."""
    subject = command.replied_to or command.person
    lang = reply_language(session, command)
    line = stats.user_stats(session, None if command.private else command.chat_id, subject.id)
    stored = session.get(User, subject.id)
    name = stored.first_name if stored is not None and stored.first_name else subject.first_name
    reply(session, env, command, stats_render.stats_text(lang, name, line, command.private))
    return Replied("ok" if line else "empty")


def top(session: Session, env: Env, command: Command) -> Replied:
    lang = reply_language(session, command)
    if command.private:
        reply(session, env, command, _(lang, "Send /top in a group to see its leaderboard."))
        return Replied("private")
    text = stats_render.top_text(
        lang, stats.leaderboard(session, command.chat_id), stats.computer_lines(session, command.chat_id)
    )
    reply(session, env, command, text)
    return Replied()


def recent(session: Session, env: Env, command: Command) -> Replied:
    lang = reply_language(session, command)
    if command.private:
        reply(session, env, command, _(lang, "Send /history in a group to see its games."))
        return Replied("private")
    entries = history.recent_games(session, command.chat_id)
    reply(
        session,
        env,
        command,
        stats_render.history_text(lang, entries),
        stats_render.history_keyboard(lang, entries),
    )
    return Replied()


@key_service(KeyCall)
def download(call: KeyCall, key: cb.Download) -> Answer:
    """A finished game's replay file: in private when the tapper opened a chat with the bot, else
    in the group the key was tapped in. Only that group's games can be fetched."""
    session, env, tap, game_id, lang = call.session, call.env, call.tap, key.game_id, call.language
    where = tap.chat_id
    if where is None:
        return Answer(_(lang, "This game no longer exists."), alert=True)
    try:
        content = history.replay_file(session, game_id, chat_id=where)
    except ServiceError as exc:
        text = (
            _(lang, "Only finished games have a replay file.")
            if exc.reason == "not_finished"
            else _(lang, "This game no longer exists.")
        )
        return Answer(text, alert=True)
    user = session.get(User, tap.person.id)
    filename = f"tweak-game-{game_id}.jsonl"
    media = {"kind": "document", "filename": filename, "data": base64.b64encode(content).decode()}
    if user is not None and user.can_dm and where != tap.person.id:
        caption = _replay_caption(lang, game_id, filename)
        output.send_file(session, env, tap.person.id, caption, media)
        return Answer(_(lang, "Sent to you in our private chat."))
    group_lang = people.chat_language(session, where, lang)
    output.send_file(
        session, env, where, _replay_caption(group_lang, game_id, filename), media, thread_id=tap.thread_id
    )
    return Answer()


def _replay_caption(lang: str, game_id: int, filename: str) -> str:
    return _(
        lang,
        "🎞 Replay of game #{id} (tweakbot replay format). Check it with: python -m engine.replay {file}",
        id=game_id,
        file=filename,
    )
