"""/stats, /top, /history and the replay download key: reads, answered through the outbox."""

from __future__ import annotations

import base64

from .. import callbacks as cb
from ..errors import Outcome, Refusal, ServiceError
from ..render import stats as stats_render
from ..store import once_keys
from ..store import people as people_rows
from ..store.outbox import Media, MediaKind
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
    call.reply(text, once=once_keys.stats_of(subject.id))
    return Replied(Outcome.OK if line or practice else Outcome.EMPTY)


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
    media = Media(MediaKind.DOCUMENT, filename, data=base64.b64encode(content).decode())
    if user is not None and user.can_dm and where != tap.person.id:
        caption = stats_render.replay_caption(lang, game_id, filename)
        output.send_file(session, env, tap.person.id, caption, media)
        return Answer(stats_render.replay_sent_privately(lang))
    if not output.claim(session, env, where, once_keys.replay(game_id)):
        return Answer(stats_render.replay_just_sent(lang))
    caption = stats_render.replay_caption(people.chat_language(session, where, lang), game_id, filename)
    output.send_file(session, env, where, caption, media, thread_id=tap.thread_id)
    return Answer()
