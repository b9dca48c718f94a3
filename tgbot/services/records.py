"""/stats, /top, /history and the replay download key: reads, answered through the outbox."""

from __future__ import annotations

import base64

from .. import callbacks as cb
from ..errors import Refusal, ServiceError
from ..i18n import _
from ..render import stats as stats_render
from ..store import people as people_rows
from . import history, output, people, stats
from .call import Answer, CommandCall, KeyCall, Replied, command_service, key_service


@command_service
def my_stats(call: CommandCall) -> Replied:
    """Someone's stats in this group (in private: in every group, then their practice games
    apart): the sender's, or, sent in reply to a person's message, that person's."""
    session, command = call.session, call.command
    subject = command.replied_to or command.person
    lang = call.reply_language
    line = stats.user_stats(session, None if command.private else command.chat_id, subject.id)
    practice = stats.practice_lines(session, subject.id) if command.private else []
    stored = people_rows.user(session, subject.id)
    name = stored.first_name if stored is not None and stored.first_name else subject.first_name
    text = stats_render.stats_text(lang, name, line, command.private, practice)
    call.reply(text, once=f"stats:{subject.id}")
    return Replied("ok" if line or practice else "empty")


@command_service
def top(call: CommandCall) -> Replied:
    session, command = call.session, call.command
    if command.private:
        raise ServiceError(Refusal.TOP_IN_GROUP)
    leaders, computers = (
        stats.leaderboard(session, command.chat_id),
        stats.computer_lines(session, command.chat_id),
    )
    call.reply(stats_render.top_text(call.reply_language, leaders, computers), once="top")
    return Replied()


@command_service
def recent(call: CommandCall) -> Replied:
    command, lang = call.command, call.reply_language
    if command.private:
        raise ServiceError(Refusal.HISTORY_IN_GROUP)
    entries = history.recent_games(call.session, command.chat_id)
    call.reply(
        stats_render.history_text(lang, entries), stats_render.history_keyboard(lang, entries), once="history"
    )
    return Replied()


@key_service(KeyCall)
def download(call: KeyCall, key: cb.Download) -> Answer:
    """A finished game's replay file: in private when the tapper opened a chat with the bot, else
    in the group the key was tapped in, once a minute at most (the file just sent is a little
    above). Only that group's games can be fetched."""
    session, env, tap, game_id, lang = call.session, call.env, call.tap, key.game_id, call.language
    where = tap.chat_id
    if where is None:
        raise ServiceError(Refusal.NO_GAME)
    content = history.replay_file(session, game_id, chat_id=where)
    user = people_rows.user(session, tap.person.id)
    filename = f"tweak-game-{game_id}.jsonl"
    media = {"kind": "document", "filename": filename, "data": base64.b64encode(content).decode()}
    if user is not None and user.can_dm and where != tap.person.id:
        caption = _replay_caption(lang, game_id, filename)
        output.send_file(session, env, tap.person.id, caption, media)
        return Answer(_(lang, "Sent to you in our private chat."))
    if not output.claim(session, env, where, f"replay:{game_id}"):
        return Answer(_(lang, "The replay was just sent in this chat: it is a little above."))
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
