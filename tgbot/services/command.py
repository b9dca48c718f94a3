"""What a command handler hands to a service, and gets back.

A command's answer is a message in its chat, so it goes through the outbox like everything else
(`reply`); the handler only learns whether the service needs the person's admin rights checked
(then it runs the command again with `Command.admin` set, or as `refuse_not_creator`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from sqlmodel import Session

from ..errors import ServiceError
from ..render.keys import Keyboard
from ..render.refusals import refusal
from . import output, people
from .env import Env
from .people import Person


@dataclass(frozen=True)
class Command:
    """Who sent a command, from where."""

    person: Person
    chat_id: int
    thread_id: int | None = None
    private: bool = False
    chat_title: str | None = None
    #: What followed the command's name (`/quiet 23-08 +7`: "23-08 +7").
    args: str = ""
    #: The person whose message the command replied to (`/stats` in reply: their stats).
    replied_to: Person | None = None
    #: Telegram said the sender is an admin of the group (asked only when a service needed it).
    admin: bool = False


@dataclass(frozen=True)
class Replied:
    """A command's result for the handler and the log line."""

    outcome: str = "ok"
    game_id: int | None = None
    #: Refused for want of rights the person may have as a group admin: the handler asks
    #: Telegram (one getChatMember, only then) and runs the command again.
    need_admin: bool = False
    #: The name the update's log line and metrics give it, when not the command's own.
    action: str | None = None


def reply_language(session: Session, command: Command) -> str:
    """The group's language in a group, the person's own in private."""
    own = people.language_of(session, command.person.id, command.person.language_code)
    return own if command.private else people.chat_language(session, command.chat_id, own)


def reply(
    session: Session, env: Env, command: Command, text: str, keys: Keyboard | None = None, notify: bool = True
) -> None:
    output.say(session, env, command.chat_id, text, thread_id=command.thread_id, keys=keys, notify=notify)


def refuse(session: Session, env: Env, command: Command, error: ServiceError) -> Replied:
    """A refusal becomes a short answer in the chat, or a request to check admin rights first."""
    if error.reason == "not_creator" and not command.admin:
        return Replied("not_creator", need_admin=True)
    reply(session, env, command, refusal(reply_language(session, command), error))
    return Replied(error.reason)


def guarded(session: Session, env: Env, command: Command, act: Callable[[], Replied]) -> Replied:
    """Run a command in a savepoint: a refusal undoes what it began, and is answered."""
    try:
        with session.begin_nested():
            return act()
    except ServiceError as error:
        return refuse(session, env, command, error)


def refuse_not_creator(session: Session, env: Env, command: Command) -> Replied:
    """A command only its game's creator or a group admin may give, from someone who is neither."""
    reply(session, env, command, refusal(reply_language(session, command), ServiceError("not_creator")))
    return Replied("not_creator")


#: What the handlers call for a command: one transaction's session, the moment, the command.
CommandService = Callable[[Session, Env, Command], Replied]
