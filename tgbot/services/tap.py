"""The seam between a key's handler and its service: what a tap is, what it gets back, and what
every key's service does the same way, written once.

A key's service is only its use case: `@key_service` gives it a `KeyCall` (the transaction, the
moment, who tapped, their language looked up once) and turns a `ServiceError` into the refusal
popup. By default the attempt runs in a savepoint, so a refusal undoes it; a kind of key with
more to do on a refusal (a game key brings its player back, a rematch key on old standings loses
its keys) brings its own `KeyCall` subclass with its own `refused`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import TypeVar

from sqlmodel import Session

from ..callbacks import Callback
from ..errors import ServiceError
from ..render.refusals import refusal
from . import people
from .env import Env
from .people import Person

K = TypeVar("K", bound=Callback)
C = TypeVar("C", bound="KeyCall")


@dataclass(frozen=True)
class Tap:
    """A key press, as the services need it."""

    person: Person
    chat_id: int | None  # the chat of the message the key is on
    message_id: int | None
    private: bool  # the key is on a message in a private chat
    thread_id: int | None = None  # the forum topic of that message
    query_id: str = ""  # Telegram's id of this tap (the same if the update is delivered twice)
    #: Telegram said the tapper is an admin of the group (asked only when a service needed it).
    admin: bool = False


@dataclass(frozen=True)
class Answer:
    """The popup for the tapper."""

    text: str = ""
    alert: bool = False
    #: Refused for want of rights the tapper may have as a group admin: the handler asks
    #: Telegram (one getChatMember, only then) and tries again with `Tap.admin`.
    need_admin: bool = False


#: What the handlers call for a key: one transaction's session, the moment, the tap, the key.
KeyService = Callable[[Session, Env, Tap, K], Answer]


def answer_refusal(lang: str, error: ServiceError) -> Answer:
    return Answer(refusal(lang, error), alert=error.reason == "illegal")


@dataclass
class KeyCall:
    """A key being answered: its transaction, the moment, who tapped."""

    session: Session
    env: Env
    tap: Tap
    #: Run the use case in a savepoint, so that a refusal undoes what it began.
    savepoint: bool = field(default=True, init=False)

    @cached_property
    def language(self) -> str:
        """The tapper's language for the popup: their /language choice, else Telegram's."""
        person = self.tap.person
        return people.language_of(self.session, person.id, person.language_code)

    def refused(self, error: ServiceError) -> Answer:
        """The refusal's popup; one a group admin may overrule (only the creator may do that) also
        asks the handler to check with Telegram, and stands if the tapper is no admin."""
        answer = answer_refusal(self.language, error)
        overrule = error.reason == "not_creator" and not self.tap.admin
        return replace(answer, need_admin=True) if overrule else answer

    def attempt(self, use_case: Callable[[], Answer]) -> Answer:
        try:
            if not self.savepoint:
                return use_case()
            with self.session.begin_nested():
                return use_case()
        except ServiceError as error:
            return self.refused(error)


def key_service(call: type[C]) -> Callable[[Callable[[C, K], Answer]], KeyService[K]]:
    """Make `use_case(call, key)` a key's service, answered through `call` (a `KeyCall` type)."""

    def wrap(use_case: Callable[[C, K], Answer]) -> KeyService[K]:
        @functools.wraps(use_case)
        def service(session: Session, env: Env, tap: Tap, key: K) -> Answer:
            this = call(session, env, tap)
            return this.attempt(lambda: use_case(this, key))

        return service

    return wrap


def tapper_language(session: Session, env: Env, person: Person) -> str:
    """A popup no service wrote (a forged key) is in the tapper's language too."""
    return people.language_of(session, person.id, person.language_code)
