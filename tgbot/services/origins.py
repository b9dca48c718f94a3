"""What reaches a service from Telegram, as the services need it: parsed once by the handlers.

Each kind of update has its origin: a key press (`Tap`), a command (`Command`), an inline query
(`InlineQuery`), a picked inline result (`Pick`), a change of a chat (`ChatEvent`). A service
gets it inside its `Call` (`services.call`), which also knows the person's language. Each carries
Telegram's id of the update it came in (`update_id`: the same when the update is delivered again),
by which the seam applies each update once.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..inline_data import PickedMoves, Posted
from .people import Person


@dataclass(frozen=True)
class Tap:
    """A key press.

    A key on a message posted "via" the bot in a chat the bot is not in (inline mode) comes
    without the message: no chat, no message id, but the inline message's id and the
    `chat_instance`, which is the same for every message of one chat and tells the chat apart."""

    person: Person
    chat_id: int | None  # the chat of the message the key is on
    message_id: int | None
    private: bool  # the key is on a message in a private chat
    thread_id: int | None = None  # the forum topic of that message
    query_id: str = ""  # Telegram's id of this tap
    inline_id: str | None = None  # the inline message the key is on
    chat_instance: str | None = None
    #: What Telegram said of the tapper's admin rights in the group: None until a service needed
    #: to know (`Call.attempt` then asks the handler to find out).
    admin: bool | None = None
    #: The update it came in (None: not from Telegram).
    update_id: int | None = None


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
    #: As `Tap.admin`.
    admin: bool | None = None
    update_id: int | None = None


@dataclass(frozen=True)
class InlineQuery:
    """A person typing "@bot …" in a chat: `chat_type` is Telegram's ("sender" is their own chat
    with the bot), `offset` the page they scrolled to."""

    person: Person
    query: str
    offset: str = ""
    chat_type: str | None = None
    admin: bool | None = None  # never asked: nothing inline needs admin rights
    update_id: int | None = None


@dataclass(frozen=True)
class Pick:
    """An inline result a person picked: the moves its id carries (`picked`; None: a line that
    plays nothing, or an id no version of the bot gave), or the game message it posts in a chat
    the bot is not in (`posted`: a lobby, a board); and the chat it was posted in when the bot saw
    the message itself (None: from `chosen_inline_result`). A result with keys is a message the
    bot may edit: its `inline_id` comes with the chosen result."""

    person: Person
    picked: PickedMoves | None
    chat_id: int | None = None
    inline_id: str | None = None
    posted: Posted | None = None
    admin: bool | None = None
    update_id: int | None = None


@dataclass(frozen=True)
class ChatEvent:
    """A change of a chat: a migration, the bot or a member coming or going. `person` is who it
    concerns, when a person does."""

    chat_id: int
    person: Person | None = None
    admin: bool | None = None
    update_id: int | None = None
