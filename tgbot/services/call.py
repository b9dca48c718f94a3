"""The one seam between an update's handler and its service.

Every update — a key, a command, an inline query, a picked inline result, a change of a chat —
reaches its service the same way: the handler calls ``service(session, env, origin, *input)``
through `Deps.run` (one transaction, off the event loop), and the service is a use case
decorated here (`key_service`, `command_service`, `inline_service`, `pick_service`,
`event_service`). The decorator gives the use case a `Call`: the transaction, the moment, what
arrived (`origin`), the person's language looked up once, and `attempt`, which runs the use case
in a savepoint and turns a `ServiceError` into what that kind of update answers with — a popup, a
reply in the chat, a line in the inline list, a log outcome. It is the one place that catches a
refusal: a use case that ends otherwise returns its `Outcome` (both are typed, `errors.Ended`). A
refusal a group admin may overrule first asks the handler to find out whether the person is one
(`need_admin`), then runs again.

Every update is applied once. Telegram delivers one again (a webhook retried, to this instance or
another, maybe while the first delivery is still at work; a poller killed before it confirmed
the offset), and a third of the kinds would act twice (a Goal step, a computer seated, /newgame's
lobby, …). So before the use case runs, the seam records the update's id in the same
transaction (`store.once`): a repeat finds it and changes nothing (`repeated`: an empty popup, no
reply, a log outcome), and an update whose transaction failed was never recorded. A refusal is
recorded with its own effects; a run that only asked to know whether the person is an admin
records nothing, so the run with the answer is the one that counts. An inline query changes
nothing, so it is never recorded (people type one per keystroke).

A kind of key with more to do on a refusal (a game key brings its player back, a rematch key on
old standings loses its keys) brings its own `KeyCall` subclass with its own `refused`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, ClassVar, Concatenate, Generic, ParamSpec, Protocol, TypeVar

from sqlmodel import Session

from ..callbacks import Callback
from ..errors import Ended, Outcome, Refusal, ServiceError
from ..inline_data import HowToPlay, ResultId
from ..render.keys import Keyboard
from ..render.refusals import ALERTS, refusal
from ..store import db, once, once_keys
from . import output, people
from .env import Env
from .origins import ChatEvent, Command, InlineQuery, Pick, Tap
from .people import Person

P = ParamSpec("P")
K = TypeVar("K", bound=Callback)


class Origin(Protocol):
    @property
    def person(self) -> Person | None: ...

    @property
    def admin(self) -> bool | None: ...

    @property
    def update_id(self) -> int | None: ...


class Settled(Protocol):
    """What every kind of result says: whether the run only asked to know more."""

    @property
    def need_admin(self) -> bool: ...


O = TypeVar("O", bound=Origin)  # noqa: E741
R = TypeVar("R", bound=Settled)


# --- what a service answers ------------------------------------------------------------------


class Said:
    """What the update's log line and metrics say of a result: its outcome's text."""

    outcome: Ended

    @property
    def said(self) -> str:
        return str(self.outcome)


@dataclass(frozen=True)
class Answer(Said):
    """A key's popup for the tapper."""

    text: str = ""
    alert: bool = False
    outcome: Ended = Outcome.OK  # what the update's log line says
    game_id: int | None = None
    need_admin: bool = False
    #: A link to the bot (``t.me/<bot>?start=…``, the one kind Telegram lets a key's answer open)
    #: that the tapper's app opens, and only when the answer has no `text`.
    url: str | None = None


@dataclass(frozen=True)
class Replied(Said):
    """A command's result: its reply went to the outbox; this is for the handler and the log."""

    outcome: Ended = Outcome.OK
    game_id: int | None = None
    need_admin: bool = False
    #: The name the update's log line and metrics give it, when not the command's own.
    action: str | None = None


@dataclass(frozen=True)
class Result:
    """One line of an inline list: what it posts if picked, and the keys that message has (with
    keys, a posted message is one the bot can edit: Telegram gives its inline id)."""

    id: ResultId
    title: str
    description: str
    message: str
    keys: Keyboard | None = None


@dataclass(frozen=True)
class ResultsButton:
    """The button above an inline list: it posts nothing (it opens the person's private chat with
    the bot, sending ``/start <payload>``): what it says is never a message in the person's name."""

    text: str
    payload: str = HowToPlay().data


@dataclass(frozen=True)
class InlineAnswer(Said):
    """The list an inline query shows (`button`: above it, a line that posts nothing)."""

    results: list[Result] = field(default_factory=list)
    next_offset: str = ""
    outcome: Ended = Outcome.OK
    game_id: int | None = None
    need_admin: bool = False
    button: ResultsButton | None = None

    @classmethod
    def saying(cls, text: str, outcome: Ended, game_id: int | None = None) -> InlineAnswer:
        """No line to post, only `text` above the list (its button opens the help in private)."""
        return cls(button=ResultsButton(text), outcome=outcome, game_id=game_id)


@dataclass(frozen=True)
class Noted(Said):
    """What came of an update that gets no answer (a pick, a chat event): for the log."""

    outcome: Ended = Outcome.OK
    game_id: int | None = None
    need_admin: bool = False
    #: How many things it changed, said after the outcome (``moved_2``: two games moved).
    count: int | None = None

    @property
    def said(self) -> str:
        return str(self.outcome) if self.count is None else f"{self.outcome}_{self.count}"


# --- the call --------------------------------------------------------------------------------


@dataclass
class Call(Generic[O, R]):
    """An update being answered: its transaction, the moment, what arrived."""

    session: Session
    env: Env
    origin: O
    #: Run the use case in a savepoint, so that a refusal undoes what it began.
    savepoint: ClassVar[bool] = True
    #: Record the update, so that its second delivery changes nothing (`first_time`).
    recorded: ClassVar[bool] = True

    @cached_property
    def language(self) -> str:
        """The person's language for what only they read: their /language choice, else
        Telegram's (English for an update no person sent)."""
        person = self.origin.person
        if person is None:
            return "en"
        return people.language_of(self.session, person.id, person.language_code)

    def first_time(self, service: str) -> bool:
        """Record this update as applied by `service`; False when it was (a second delivery).
        An origin without an update id (a test's, a job's) is always new."""
        update_id = self.origin.update_id
        if not self.recorded or update_id is None:
            return True
        return once.first_time(self.session, once_keys.update(update_id, service), self.env.now)

    def undecided(self, service: str) -> None:
        """The run asked to know more (`need_admin`) and decided nothing: the run with the answer
        records the update."""
        update_id = self.origin.update_id
        if self.recorded and update_id is not None:
            once.forget(self.session, once_keys.update(update_id, service))

    def repeated(self) -> R:
        """The answer to an update applied already: nothing more happens."""
        raise NotImplementedError

    def attempt(self, use_case: Callable[[], R]) -> R:
        try:
            with self.guard():
                return use_case()
        except ServiceError as error:
            return self.refusal(error)

    def guard(self) -> AbstractContextManager[object]:
        """What the use case runs in: a savepoint (unless `savepoint` is off)."""
        return db.savepoint(self.session) if self.savepoint else nullcontext()

    def refusal(self, error: ServiceError) -> R:
        """A refusal only the creator or a group admin escapes is answered once Telegram said
        whether the person is an admin (the handler asks, then runs the service again)."""
        if error.reason is Refusal.NOT_CREATOR and self.origin.admin is None:
            return self.ask_admin()
        return self.refused(error)

    def refused(self, error: ServiceError) -> R:
        raise NotImplementedError

    def ask_admin(self) -> R:
        raise NotImplementedError


@dataclass
class KeyCall(Call[Tap, Answer]):
    """A key: a refusal is the tapper's popup."""

    @property
    def tap(self) -> Tap:
        return self.origin

    def refused(self, error: ServiceError) -> Answer:
        text = refusal(self.language, error)
        return Answer(text, alert=error.reason in ALERTS, outcome=error.reason)

    def ask_admin(self) -> Answer:
        return Answer(outcome=Outcome.NEED_ADMIN, need_admin=True)

    def repeated(self) -> Answer:
        """An empty popup: the tap may still wait (its first answer got lost), and that one said it."""
        return Answer(outcome=Outcome.DUPLICATE)


@dataclass
class CommandCall(Call[Command, Replied]):
    """A command: its answer, and a refusal, are a reply in its chat."""

    @property
    def command(self) -> Command:
        return self.origin

    @cached_property
    def reply_language(self) -> str:
        """The group's language in a group, the person's own in private."""
        command = self.command
        own = self.language
        return own if command.private else people.chat_language(self.session, command.chat_id, own)

    def reply(
        self, text: str, keys: Keyboard | None = None, notify: bool = True, once: str | None = None
    ) -> None:
        """The command's answer in its chat. `once` names an answer a group needs once in a
        while, not once per command (its help, its leaderboard): sent again within a minute in
        that chat and topic, it comes to stand in the answer already given (`output.say_capped`)."""
        command, session, env = self.command, self.session, self.env
        chat_id, thread_id = command.chat_id, command.thread_id
        if once is not None and not command.private:
            key = once_keys.answer(once, thread_id)
            output.say_capped(session, env, chat_id, key, text, thread_id=thread_id, keys=keys, notify=notify)
            return
        output.say(session, env, chat_id, text, thread_id=thread_id, keys=keys, notify=notify)

    def refused(self, error: ServiceError) -> Replied:
        """A refusal is said once in a while in a group: sixty refused commands (a non-admin's
        /pause, /foo@bot) would spend the group's budget on sixty copies of one answer."""
        self.reply(refusal(self.reply_language, error), once=once_keys.refused(error.reason))
        return Replied(error.reason)

    def ask_admin(self) -> Replied:
        return Replied(Outcome.NEED_ADMIN, need_admin=True)

    def repeated(self) -> Replied:
        return Replied(Outcome.DUPLICATE)


@dataclass
class InlineCall(Call[InlineQuery, InlineAnswer]):
    """An inline query: read only (no savepoint, nothing to record as applied: its second
    delivery is answered with the same list); a refusal is the button above an empty list (a
    line of the list would post it as the person's own message, wherever they typed)."""

    savepoint: ClassVar[bool] = False
    recorded: ClassVar[bool] = False

    def refused(self, error: ServiceError) -> InlineAnswer:
        return InlineAnswer.saying(refusal(self.language, error), error.reason)

    def ask_admin(self) -> InlineAnswer:
        return InlineAnswer(outcome=Outcome.NEED_ADMIN, need_admin=True)


@dataclass
class LoggedCall(Call[O, Noted]):
    """An update nobody is answered for: a refusal, a repeat, are only logged."""

    def refused(self, error: ServiceError) -> Noted:
        return Noted(error.reason)

    def ask_admin(self) -> Noted:
        return Noted(Outcome.NEED_ADMIN, need_admin=True)

    def repeated(self) -> Noted:
        return Noted(Outcome.DUPLICATE)


@dataclass
class PickCall(LoggedCall[Pick]):
    """A picked inline result: nothing for a savepoint to undo, nor to record by update (a pick is
    recorded by its post or turn, a lobby by its message: one pick comes as two updates)."""

    savepoint: ClassVar[bool] = False
    recorded: ClassVar[bool] = False


@dataclass
class EventCall(LoggedCall[ChatEvent]):
    """A change of a chat."""


# --- use cases as services -------------------------------------------------------------------

KC = TypeVar("KC", bound=KeyCall)

#: What the handlers call: one transaction's session, the moment, what arrived, its input.
KeyService = Callable[[Session, Env, Tap, K], Answer]
CommandService = Callable[[Session, Env, Command], Replied]
InlineService = Callable[[Session, Env, InlineQuery], InlineAnswer]
PickService = Callable[[Session, Env, Pick], Noted]


def _serve(call: type[Call[Any, R]], use_case: Callable[..., R]) -> Callable[..., R]:
    name = use_case.__name__

    @functools.wraps(use_case)
    def service(session: Session, env: Env, origin: Any, *args: Any) -> R:
        this = call(session, env, origin)
        if not this.first_time(name):
            return this.repeated()
        result = this.attempt(lambda: use_case(this, *args))
        if result.need_admin:
            this.undecided(name)
        return result

    return service


def key_service(call: type[KC]) -> Callable[[Callable[[KC, K], Answer]], KeyService[K]]:
    """`use_case(call, key)` as a key's service, answered through `call` (a `KeyCall` type)."""

    def wrap(use_case: Callable[[KC, K], Answer]) -> KeyService[K]:
        return _serve(call, use_case)

    return wrap


def command_service(
    use_case: Callable[[CommandCall], Replied], call: type[CommandCall] = CommandCall
) -> CommandService:
    return _serve(call, use_case)


def inline_service(use_case: Callable[[InlineCall], InlineAnswer]) -> InlineService:
    return _serve(InlineCall, use_case)


def pick_service(use_case: Callable[[PickCall], Noted]) -> PickService:
    return _serve(PickCall, use_case)


def event_service(
    use_case: Callable[Concatenate[EventCall, P], Noted],
) -> Callable[Concatenate[Session, Env, ChatEvent, P], Noted]:
    return _serve(EventCall, use_case)


def forged_key(session: Session, env: Env, tap: Tap) -> Answer:
    """Data no kind of key accepts (forged, or from a bot long gone): refused in the tapper's."""
    return KeyCall(session, env, tap).refused(ServiceError(Refusal.MALFORMED))
