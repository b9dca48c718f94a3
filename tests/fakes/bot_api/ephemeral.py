"""Ephemeral messages (Bot API 10.2, with 10.3's ``ephemeral_message_parameters``).

What Telegram documents (core.telegram.org/bots/api, *Ephemeral messages and commands*,
``EphemeralMessageParameters``, ``Message``, ``ReplyParameters``, ``BotCommand`` and the
``editEphemeralMessage…``/``deleteEphemeralMessage`` methods, as generated into aiogram's
``.butcher`` schema for 10.2 and its 3.31 docs for 10.3):

* Group and supergroup chats only. A send with ``ephemeral_message_parameters`` =
  ``{receiver_user_id, callback_query_id?, replace_callback_query_message?}`` shows the message to
  that one person; "other members of the group or supergroup chat will not see the message".
  Only sendMessage, sendPhoto and sendDocument are modelled (the fake has no other sends).
* "Any bot can send an ephemeral message to a user within 15 seconds of the incoming eligible
  action": the ``callback_query_id`` of that person's tap, or ``reply_parameters.
  ephemeral_message_id`` of their incoming ephemeral message ("an ephemeral message may only be
  replied to within 15 seconds of being sent"; "a reply to an ephemeral message must itself be
  an ephemeral message"). "If the bot is a chat administrator, it can send an ephemeral message
  to any non-bot member of the chat at any time."
* ``replace_callback_query_message``: the ephemeral message "must be shown in place of the
  original message" -- for that person only; it "must be False for callback queries from
  ephemeral messages, which must be edited using regular editEphemeralMessage… methods".
* The sent Message has ``message_id`` 0 ("0 for ephemeral messages"), ``receiver_user`` and
  ``ephemeral_message_id`` ("identifier of the ephemeral message inside this chat. The identifier
  may be reused for another ephemeral message after the message is deleted or expires"). The
  fake counts ids per chat and receiver (the bot is the receiver of a person's ephemeral
  messages) and hands out the lowest free one, so reuse happens as soon as it may.
* ``editEphemeralMessageText``/``…ReplyMarkup``/``…Caption``/``…Media`` and
  ``deleteEphemeralMessage`` take ``chat_id``, ``receiver_user_id``, ``ephemeral_message_id``
  and return True (not the Message). ``…Media`` cannot upload a new file.
* "It is not guaranteed that the user will receive the message, especially if they are
  offline" (``set_offline``: the send succeeds, the person never sees it); ephemeral messages
  "may disappear automatically after some time, or if the app is restarted" (``ephemeral_lifetime``,
  ``expire_ephemeral``, ``restart_app``).
* ``BotCommand.is_ephemeral``: "the command sends an ephemeral message, which can be seen only
  by the sender of the message and the bot" (``ephemeral_command_update``); a person's reply to
  the bot's ephemeral message is ephemeral too (``ephemeral_reply_update``), and its
  ``reply_to_message`` "may be omitted" -- the fake omits it.
* Taps on an ephemeral message's keys are callback queries whose ``message`` is that ephemeral
  message (``callback_update`` of one of them).

Not documented, so modelled and switchable: whether an ephemeral write spends the group's 20 a
minute (``ephemeral_spends_group_budget``, off; the bot's 30 a second always counts), how long a
message lives (``ephemeral_lifetime``, forever), a chat where Telegram refuses them
(``refuse_ephemeral``) and a Bot API server older than 10.2 (``ephemeral_supported = False``: the
new methods are 404 "Not Found" and a send *ignores* the unknown ``ephemeral_message_parameters``
and posts a public message, as a server does with any parameter it does not know).

The error texts Telegram gives for ephemeral refusals are not documented; the fake's are below,
each the closest existing text (the Bot API server's own, or an MTProto error it passes on).
"""

from __future__ import annotations

import bisect
import json
from dataclasses import dataclass
from typing import Any, Literal

from tests.fakes.bot_api.chats import Access
from tests.fakes.bot_api.common import (
    BOT_ID,
    NOT_MODIFIED,
    QUERY_INVALID,
    ApiError,
    JSONDict,
    bad,
    too_late,
    utf16_len,
)
from tests.fakes.bot_api.html import render
from tests.fakes.bot_api.markup import parse_markup
from tests.fakes.bot_api.messages import Messages, new_text
from tests.fakes.bot_api.records import CallbackAnswer, FakeChat, FakeUser, StoredMessage, UploadedFile
from tests.fakes.bot_api.updates import Updates
from tests.fakes.flood import FloodRejection, retry_after

#: How long a person's action lets a bot that is not an administrator answer them ephemerally.
EPHEMERAL_WINDOW = 15.0

#: The Bot API methods of ephemeral messages (10.2); the sends are the usual ones.
EPHEMERAL_METHODS: frozenset[str] = frozenset(
    {
        "editEphemeralMessageText",
        "editEphemeralMessageReplyMarkup",
        "editEphemeralMessageCaption",
        "editEphemeralMessageMedia",
        "deleteEphemeralMessage",
    }
)

#: A bot that is not an administrator, with no eligible action to answer (and any bot in a
#: private chat: what a bot author reports api.telegram.org answers there).
NOT_ADMIN = "Bad Request: BOT_NOT_ADMIN"
#: ``receiver_user_id`` names a bot ("any non-bot member"): MTProto's USER_IS_BOT.
RECEIVER_IS_BOT = "Bad Request: USER_IS_BOT"
#: ``receiver_user_id`` names someone who is not in the group: MTProto's USER_NOT_PARTICIPANT.
NOT_PARTICIPANT = "Bad Request: USER_NOT_PARTICIPANT"
#: ``receiver_user_id`` names nobody Telegram knows: the Bot API server's text for a bad user id.
USER_NOT_FOUND = "Bad Request: user not found"
#: A channel ("group and supergroup chats only"): MTProto's CHAT_TYPE_INVALID.
WRONG_CHAT_TYPE = "Bad Request: CHAT_TYPE_INVALID"
#: ``replace_callback_query_message`` for a tap on an ephemeral message, or without a tap.
CANT_REPLACE = "Bad Request: REPLACE_CALLBACK_QUERY_MESSAGE_INVALID"
#: A reply to an ephemeral message that is not ephemeral itself.
REPLY_NOT_EPHEMERAL = "Bad Request: a reply to an ephemeral message must be ephemeral"
#: The default of ``refuse_ephemeral``: shaped like the server's "not enough rights to send text
#: messages to the chat".
REFUSED = "Bad Request: not enough rights to send ephemeral messages to the chat"
#: What any Bot API server answers a method it does not know (PTB: ``EndPointNotFound``).
METHOD_NOT_FOUND = "Not Found"

Gone = Literal["deleted", "expired", "restart"]


def _obj(raw: Any) -> JSONDict | None:
    """A JSON object parameter, sent as an object or as its JSON text."""
    if raw is None:
        return None
    if isinstance(raw, str):
        raw = json.loads(raw)
    if not isinstance(raw, dict):
        raise bad("can't parse JSON object")
    return raw


def _true(raw: Any) -> bool:
    return raw in (True, "true", "True", 1)


@dataclass(eq=False)
class StoredEphemeral(StoredMessage):
    """An ephemeral message: ``message_id`` 0; the bot's to ``person_id``, or that person's to the
    bot (``receiver_id`` is then the bot). ``order`` places it among the chat's messages."""

    receiver_id: int = 0
    person_id: int = 0
    ephemeral_message_id: int = 0
    order: int = 0
    #: When it was sent, on the fake's timer (the 15 seconds, expiry).
    sent_at: float = 0.0
    #: The person's app got it (they were online); if not, they never see it.
    delivered: bool = True
    #: Why it is no longer there; ``deleted`` is set too, so no key of it can be tapped.
    gone: Gone | None = None
    #: The public message it is shown in place of, for its person.
    replaces: StoredMessage | None = None
    #: The bot's ephemeral message a person's ephemeral reply answers (not told to the bot).
    answers_to: StoredEphemeral | None = None

    @property
    def live(self) -> bool:
        return self.gone is None

    @property
    def reads_as(self) -> str:
        """As its person reads it: marked, since nobody else sees it."""
        name = str(self.sender.get("first_name", "?"))
        return f"{name} (only you): {self.content}"


class Ephemeral(Messages, Updates):
    """Ephemeral sends, edits and deletions; what each person sees; their ephemeral commands."""

    def __init__(
        self,
        *,
        ephemeral_spends_group_budget: bool = False,
        ephemeral_lifetime: float | None = None,
        **kwargs: Any,
    ) -> None:
        """``ephemeral_spends_group_budget``: an ephemeral write also counts against the group's
        20 a minute (undocumented; always against the bot's 30 a second). ``ephemeral_lifetime``:
        seconds on the fake's timer after which an ephemeral message disappears (None: never)."""
        super().__init__(**kwargs)
        self.ephemeral_spends_group_budget = ephemeral_spends_group_budget
        self.ephemeral_lifetime = ephemeral_lifetime
        #: Seconds a person's action stays eligible for an answer (Telegram: 15).
        self.ephemeral_window = EPHEMERAL_WINDOW
        #: False: a Bot API server older than 10.2 (see the module's docstring).
        self.ephemeral_supported = True
        #: Timer readings of the accepted ephemeral writes, per chat.
        self.ephemeral_writes: dict[int, list[float]] = {}
        self._ephemeral: list[StoredEphemeral] = []
        self._offline: set[int] = set()
        self._ephemeral_refused: dict[int, str] = {}
        #: Callback queries from taps on ephemeral messages, by query id.
        self._ephemeral_taps: dict[str, StoredEphemeral] = {}

    # -- the world ---------------------------------------------------------------------------------

    def other_bot(self, user_id: int, first_name: str) -> FakeUser:
        """Another bot, a member of every group like a person (never an ephemeral receiver)."""
        bot = FakeUser(user_id, first_name, None, f"{first_name.lower()}_bot", is_bot=True)
        self._users[user_id] = bot
        return bot

    def set_offline(self, user: FakeUser | int, offline: bool = True) -> None:
        """While offline, ephemeral messages to ``user`` are accepted and never reach them."""
        user_id = user if isinstance(user, int) else user.id
        (self._offline.add if offline else self._offline.discard)(user_id)

    def restart_app(self, user: FakeUser | int) -> list[StoredEphemeral]:
        """``user`` restarts their app: every ephemeral message of theirs is gone, for good."""
        user_id = user if isinstance(user, int) else user.id
        gone = [m for m in self._live() if m.person_id == user_id]
        for message in gone:
            self._drop(message, "restart")
        return gone

    def expire_ephemeral(self, message: StoredEphemeral) -> None:
        """``message`` disappears on its own, as ephemeral messages may after some time."""
        if message.live:
            self._drop(message, "expired")

    def refuse_ephemeral(self, chat: FakeChat | int, description: str | None = REFUSED) -> None:
        """Telegram refuses ephemeral sends in ``chat`` with a 400 saying ``description``
        (None: accepts them again)."""
        chat_id = chat if isinstance(chat, int) else chat.id
        if description is None:
            self._ephemeral_refused.pop(chat_id, None)
        else:
            self._ephemeral_refused[chat_id] = description

    # -- inspection --------------------------------------------------------------------------------

    def ephemeral_messages(
        self, chat: FakeChat | int, person: FakeUser | int | None = None, *, include_gone: bool = False
    ) -> list[StoredEphemeral]:
        """Ephemeral messages of a chat, both ways, oldest first; of one person if given."""
        chat_id = chat if isinstance(chat, int) else chat.id
        person_id = person if person is None or isinstance(person, int) else person.id
        self._expire_due()
        return [
            m
            for m in self._ephemeral
            if m.chat_id == chat_id
            and (person_id is None or m.person_id == person_id)
            and (include_gone or m.live)
        ]

    def last_ephemeral(self, chat: FakeChat | int, person: FakeUser | int) -> StoredEphemeral:
        """The bot's newest live ephemeral message to ``person`` in ``chat``."""
        mine = [m for m in self.ephemeral_messages(chat, person) if m.from_bot]
        if not mine:
            raise AssertionError(f"the bot has no live ephemeral message to {person} in chat {chat}")
        return mine[-1]

    def ephemeral_write_times(self, chat_id: int) -> list[float]:
        return list(self.ephemeral_writes.get(chat_id, []))

    def transcript(self, chat: FakeChat | int, viewer: FakeUser | int | None = None) -> list[StoredMessage]:
        """The chat as everyone sees it; with ``viewer``, as that person sees it: with the
        ephemeral messages they got and sent, each in place of the message it replaces."""
        public = super().transcript(chat)
        if viewer is None:
            return public
        viewer_id = viewer if isinstance(viewer, int) else viewer.id
        mine = [m for m in self.ephemeral_messages(chat, viewer_id) if m.delivered]
        in_place: dict[int, StoredEphemeral] = {}
        for message in mine:
            if message.replaces is not None and not message.replaces.deleted:
                in_place[id(message.replaces)] = message  # the newest one shows
        shown: list[tuple[int, StoredMessage]] = [(m.message_id, in_place.get(id(m), m)) for m in public]
        shown += [(m.order, m) for m in mine if all(m is not v for v in in_place.values())]
        return [m for _, m in sorted(shown, key=lambda pair: pair[0])]

    def read_chat(self, chat: FakeChat | int, viewer: FakeUser | int | None = None) -> list[str]:
        return [m.reads_as for m in self.transcript(chat, viewer)]

    # -- what people do --------------------------------------------------------------------------------

    def callback_update(self, user: FakeUser, message: StoredMessage, data: str | None) -> JSONDict:
        """A tap; on an ephemeral message, its query's ``message`` is that ephemeral message. A
        person for whom a message is replaced by an ephemeral one cannot tap the original."""
        self._expire_due()
        if not isinstance(message, StoredEphemeral):
            replaced_by = [
                m for m in self._live() if m.replaces is message and m.person_id == user.id and m.delivered
            ]
            if replaced_by:
                raise AssertionError(
                    f"{user.first_name} sees ephemeral message {replaced_by[-1].ephemeral_message_id} in "
                    f"place of message {message.message_id}: they cannot tap the original"
                )
            return super().callback_update(user, message, data)
        if not message.from_bot:
            raise AssertionError("only the bot's ephemeral messages have keys that send callback queries")
        if user.id != message.person_id:
            raise AssertionError(f"{user.first_name} never sees another person's ephemeral message")
        if not message.live or not message.delivered:
            raise AssertionError(
                f"ephemeral message {message.ephemeral_message_id} is not on {user.first_name}'s screen "
                f"({message.gone or 'never delivered'})"
            )
        query_id = str(next(self._query_ids))
        self.answers[query_id] = CallbackAnswer(
            query_id, user.id, message.chat_id, 0, data, created_at=self.timer.monotonic()
        )
        self._ephemeral_taps[query_id] = message
        query: JSONDict = {
            "id": query_id,
            "from": user.to_dict(),
            "chat_instance": self.chat_instance(message.chat_id),
            "message": self._message_json(message),
        }
        if data is not None:
            query["data"] = data
        return {"update_id": next(self._update_ids), "callback_query": query}

    def ephemeral_command_update(
        self, chat: FakeChat, user: FakeUser, text: str, *, thread_id: int | None = None
    ) -> JSONDict:
        """``user`` sends a command the bot declared ``is_ephemeral`` (setMyCommands): only they
        and the bot see it."""
        command = text.split(maxsplit=1)[0] if text.startswith("/") else ""
        name = command[1:].split("@", 1)[0]
        if not any(
            c.get("command") == name and _true(c.get("is_ephemeral"))
            for commands in self._commands.values()
            for c in commands
        ):
            raise AssertionError(
                f"{text!r} is not a command the bot declared ephemeral (setMyCommands with is_ephemeral): "
                "Telegram sends it as an ordinary message"
            )
        entity = {"type": "bot_command", "offset": 0, "length": utf16_len(command)}
        return self._incoming_ephemeral(chat, user, text, [entity], thread_id, None)

    def ephemeral_reply_update(self, user: FakeUser, to: StoredEphemeral, text: str) -> JSONDict:
        """``user`` replies to the bot's ephemeral message ``to``: the reply is ephemeral (only
        they and the bot see it), and Telegram allows it within 15 seconds of ``to``."""
        self._expire_due()
        if not to.from_bot or to.person_id != user.id or not to.live or not to.delivered:
            raise AssertionError(f"{user.first_name} cannot see ephemeral message {to.ephemeral_message_id}")
        if too_late(to.sent_at, self.ephemeral_window, self.timer.monotonic()):
            raise AssertionError(
                f"ephemeral message {to.ephemeral_message_id} was sent more than "
                f"{self.ephemeral_window} s ago: Telegram no longer lets it be replied to"
            )
        return self._incoming_ephemeral(self._chats[to.chat_id], user, text, [], to.message_thread_id, to)

    def _incoming_ephemeral(
        self,
        chat: FakeChat,
        user: FakeUser,
        text: str,
        entities: list[JSONDict],
        thread_id: int | None,
        answers_to: StoredEphemeral | None,
    ) -> JSONDict:
        self._users.setdefault(user.id, user)
        if chat.type not in ("group", "supergroup") or not self.bot_in(chat):
            raise AssertionError(
                f"ephemeral messages to the bot exist only in groups it is in, not {chat.id}"
            )
        self._expire_due()
        message = StoredEphemeral(
            chat_id=chat.id,
            message_id=0,
            date=self._now(),
            from_bot=False,
            sender=user.to_dict(),
            kind="text",
            text=text,
            source=text,
            entities=entities,
            message_thread_id=thread_id,
            receiver_id=BOT_ID,
            person_id=user.id,
            ephemeral_message_id=self._free_id(chat.id, BOT_ID),
            order=next(self._message_ids),
            sent_at=self.timer.monotonic(),
            answers_to=answers_to,
        )
        message.extra = {
            "ephemeral_message_id": message.ephemeral_message_id,
            "receiver_user": self.bot_user.to_dict(),
        }
        self._ephemeral.append(message)
        return {"update_id": next(self._update_ids), "message": self._message_json(message)}

    # -- ids, expiry, budget -----------------------------------------------------------------------------

    def _live(self) -> list[StoredEphemeral]:
        return [m for m in self._ephemeral if m.live]

    def _expire_due(self) -> None:
        if self.ephemeral_lifetime is None:
            return
        now = self.timer.monotonic()
        for message in self._live():
            if now - message.sent_at >= self.ephemeral_lifetime:
                self._drop(message, "expired")

    def _drop(self, message: StoredEphemeral, why: Gone) -> None:
        message.gone = why
        message.deleted = True

    def _free_id(self, chat_id: int, receiver_id: int) -> int:
        """The lowest id no live ephemeral message to ``receiver_id`` in the chat holds."""
        taken = {
            m.ephemeral_message_id
            for m in self._live()
            if (m.chat_id, m.receiver_id) == (chat_id, receiver_id)
        }
        return next(i for i in range(1, len(taken) + 2) if i not in taken)

    def _find(self, chat_id: int, receiver_id: int, ephemeral_id: int) -> StoredEphemeral | None:
        self._expire_due()
        for message in self._live():
            if (message.chat_id, message.receiver_id, message.ephemeral_message_id) == (
                chat_id,
                receiver_id,
                ephemeral_id,
            ):
                return message
        return None

    def _admit_ephemeral(self, chat_id: int, method: str) -> None:
        """The bot's 30 writes a second, and the group's 20 a minute if they count there too."""
        now = self.timer.monotonic()
        if self.ephemeral_spends_group_budget:
            self._admit(chat_id, False, method)
        else:
            ledger = self.flood_ledger
            overall = ledger.limits.overall if ledger.limits is not None else None
            wait = retry_after(ledger.all_writes, overall, now) if overall is not None else None
            if wait is not None:
                ledger.rejections.append(FloodRejection(now, chat_id, method, wait, "overall"))
                raise ApiError(429, f"Too Many Requests: retry after {wait}", {"retry_after": wait})
            bisect.insort(ledger.all_writes, now)
        bisect.insort(self.ephemeral_writes.setdefault(chat_id, []), now)

    # -- sends -----------------------------------------------------------------------------------------

    def _api_sendMessage(self, params: JSONDict, files: list[UploadedFile]) -> JSONDict:
        public = self._public_send(params)
        if public is not None:
            return super()._api_sendMessage(public, files)
        return self._send_ephemeral("text", params, files)

    def _api_sendPhoto(self, params: JSONDict, files: list[UploadedFile]) -> JSONDict:
        public = self._public_send(params)
        if public is not None:
            return super()._api_sendPhoto(public, files)
        return self._send_ephemeral("photo", params, files)

    def _api_sendDocument(self, params: JSONDict, files: list[UploadedFile]) -> JSONDict:
        public = self._public_send(params)
        if public is not None:
            return super()._api_sendDocument(public, files)
        return self._send_ephemeral("document", params, files)

    def _public_send(self, params: JSONDict) -> JSONDict | None:
        """The parameters of an ordinary send, or None for an ephemeral one."""
        if not self.ephemeral_supported:
            # An old server knows no such parameter and ignores it: the message goes public.
            return {k: v for k, v in params.items() if k != "ephemeral_message_parameters"}
        if params.get("ephemeral_message_parameters") is not None:
            return None
        reply = _obj(params.get("reply_parameters")) or {}
        if reply.get("ephemeral_message_id") is not None:
            raise ApiError(400, REPLY_NOT_EPHEMERAL)
        return params

    def _send_ephemeral(
        self, kind: Literal["text", "photo", "document"], params: JSONDict, files: list[UploadedFile]
    ) -> JSONDict:
        chat = self._access(params.get("chat_id"), Access.WRITE)
        if chat.type == "private":
            raise ApiError(400, NOT_ADMIN)
        if chat.type == "channel":
            raise ApiError(400, WRONG_CHAT_TYPE)
        if chat.id in self._ephemeral_refused:
            raise ApiError(400, self._ephemeral_refused[chat.id])
        ephemeral = _obj(params.get("ephemeral_message_parameters")) or {}
        receiver = self._receiver(chat, ephemeral.get("receiver_user_id"))
        thread_id = self._thread(chat, params)
        self._expire_due()
        now = self.timer.monotonic()
        eligible, replaces = self._tap_answered(chat, receiver, ephemeral, now)
        reply_to = self._ephemeral_reply_target(chat, receiver, params, now)
        if isinstance(reply_to, StoredEphemeral):
            eligible = True
        if not eligible and self.member_status(chat.id, BOT_ID) not in ("administrator", "creator"):
            raise ApiError(400, NOT_ADMIN)
        content = self._content(kind, params, files)
        markup = parse_markup(params.get("reply_markup"))
        self._admit_ephemeral(
            chat.id, {"text": "sendMessage", "photo": "sendPhoto"}.get(kind, "sendDocument")
        )
        message = StoredEphemeral(
            chat_id=chat.id,
            message_id=0,
            date=self._now(),
            from_bot=True,
            sender=self.bot_user.to_dict(),
            kind=kind,
            reply_markup=markup,
            message_thread_id=thread_id,
            params=params,
            files=files,
            reply_to=reply_to,
            notified=params.get("disable_notification") not in (True, "true", "True", 1),
            receiver_id=receiver.id,
            person_id=receiver.id,
            ephemeral_message_id=self._free_id(chat.id, receiver.id),
            order=next(self._message_ids),
            sent_at=now,
            delivered=receiver.id not in self._offline,
            replaces=replaces,
            **content,
        )
        message.extra = {
            "ephemeral_message_id": message.ephemeral_message_id,
            "receiver_user": receiver.to_dict(),
        }
        self._ephemeral.append(message)
        return self._message_json(message)

    def _receiver(self, chat: FakeChat, raw: Any) -> FakeUser:
        if isinstance(raw, bool) or not isinstance(raw, int | str) or not str(raw).lstrip("-").isdigit():
            raise bad(
                'can\'t parse ephemeral message parameters: Field "receiver_user_id" must be of type Integer'
            )
        receiver = self._users.get(int(raw))
        if receiver is None:
            raise ApiError(400, USER_NOT_FOUND)
        if receiver.is_bot:
            raise ApiError(400, RECEIVER_IS_BOT)
        if self.member_status(chat.id, receiver.id) in ("left", "kicked"):
            raise ApiError(400, NOT_PARTICIPANT)
        return receiver

    def _tap_answered(
        self, chat: FakeChat, receiver: FakeUser, ephemeral: JSONDict, now: float
    ) -> tuple[bool, StoredMessage | None]:
        """Whether the send answers the receiver's tap of the last 15 seconds in this chat, and
        the public message it is to be shown in place of."""
        query_id = ephemeral.get("callback_query_id")
        replace = _true(ephemeral.get("replace_callback_query_message"))
        if query_id is None:
            if replace:
                raise ApiError(400, CANT_REPLACE)
            return False, None
        record = self.answers.get(str(query_id))
        if (
            record is None
            or record.user_id != receiver.id
            or record.chat_id != chat.id
            or too_late(record.created_at, self.ephemeral_window, now)
        ):
            raise bad(QUERY_INVALID.removeprefix("Bad Request: "))
        if not replace:
            return True, None
        if str(query_id) in self._ephemeral_taps:
            raise ApiError(400, CANT_REPLACE)
        tapped = self._messages.get(chat.id, {}).get(record.message_id or 0)
        return True, tapped if tapped is not None and not tapped.deleted else None

    def _ephemeral_reply_target(
        self, chat: FakeChat, receiver: FakeUser, params: JSONDict, now: float
    ) -> StoredMessage | None:
        """What the send replies to: the receiver's ephemeral message of the last 15 seconds
        (an eligible action), or an ordinary message of the chat."""
        reply = _obj(params.get("reply_parameters")) or {}
        ephemeral_id = reply.get("ephemeral_message_id")
        if ephemeral_id is None:
            return self._reply_target(chat, params)
        target = self._find(chat.id, BOT_ID, int(ephemeral_id))
        if (
            target is None
            or target.person_id != receiver.id
            or too_late(target.sent_at, self.ephemeral_window, now)
        ):
            raise bad("message to be replied not found")
        return target

    def _content(
        self, kind: Literal["text", "photo", "document"], params: JSONDict, files: list[UploadedFile]
    ) -> JSONDict:
        """A send's text or media, checked like an ordinary send's."""
        if kind == "text":
            source = params.get("text")
            if not isinstance(source, str):
                raise bad("message text is empty")
            visible, entities = render(source, params.get("parse_mode"), params.get("entities"))
            if not visible:
                raise bad("message text is empty")
            if utf16_len(visible) > 4096:
                raise bad("message is too long")
            return {
                "text": visible,
                "source": source,
                "entities": entities,
                "parse_mode": params.get("parse_mode"),
            }
        reference = params.get(kind)
        attach = reference.removeprefix("attach://") if isinstance(reference, str) else None
        upload = next((f for f in files if f.field in (kind, attach)), None)
        if upload is None and not reference:
            raise bad(f"there is no {kind} in the request")
        file_id = (
            reference
            if upload is None and isinstance(reference, str)
            else f"{kind}-{next(self._message_ids)}"
        )
        caption = self._caption(
            params.get("caption"), params.get("parse_mode"), params.get("caption_entities")
        )
        return {"media": self._media(kind, file_id), "parse_mode": params.get("parse_mode"), **caption}

    @staticmethod
    def _caption(source: Any, parse_mode: Any, entities: Any) -> JSONDict:
        if not isinstance(source, str):
            return {"caption": None, "source": None, "entities": []}
        visible, found = render(source, parse_mode, entities)
        if utf16_len(visible) > 1024:
            raise bad("message caption is too long")
        return {"caption": visible or None, "source": source, "entities": found}

    @staticmethod
    def _media(kind: str, file_id: str) -> Any:
        unique = f"u{file_id}"
        if kind == "photo":
            return [{"file_id": file_id, "file_unique_id": unique, "width": 640, "height": 480}]
        return {"file_id": file_id, "file_unique_id": unique}

    # -- edits and deletions ---------------------------------------------------------------------------

    def _ephemeral_target(self, params: JSONDict, missing: str) -> StoredEphemeral:
        if not self.ephemeral_supported:
            raise ApiError(404, METHOD_NOT_FOUND)
        chat = self._access(params.get("chat_id"), Access.EDIT)
        try:
            receiver_id = int(params.get("receiver_user_id") or 0)
            ephemeral_id = int(params.get("ephemeral_message_id") or 0)
        except (TypeError, ValueError):
            raise bad(missing) from None
        message = self._find(chat.id, receiver_id, ephemeral_id)
        if message is None:
            raise bad(missing)
        return message

    def _edit(self, message: StoredEphemeral, method: str, changes: JSONDict) -> bool:
        """Apply an edit like Telegram: "not modified" when nothing visible changes; True."""
        if not message.from_bot:
            raise bad("message can't be edited")
        fields = ("text", "caption", "entities", "reply_markup", "media")
        before = {name: getattr(message, name) for name in fields}
        after = {**before, **{k: v for k, v in changes.items() if k in fields}}
        if before == after:
            raise bad(NOT_MODIFIED.removeprefix("Bad Request: "))
        self._admit_ephemeral(message.chat_id, method)
        now = self._now()
        message.history.append(message.revision(method, now))
        for name, value in changes.items():
            setattr(message, name, value)
        message.edit_date = now
        return True

    def _api_editEphemeralMessageText(self, params: JSONDict, files: list[UploadedFile]) -> bool:
        message = self._ephemeral_target(params, "message to edit not found")
        source, visible, entities, markup = new_text(message, params)
        return self._edit(
            message,
            "editEphemeralMessageText",
            {
                "text": visible,
                "entities": entities,
                "reply_markup": markup,
                "source": source,
                "parse_mode": params.get("parse_mode"),
            },
        )

    def _api_editEphemeralMessageCaption(self, params: JSONDict, files: list[UploadedFile]) -> bool:
        message = self._ephemeral_target(params, "message to edit not found")
        if message.kind == "text":
            raise bad("there is no caption in the message to edit")
        caption = self._caption(
            params.get("caption"), params.get("parse_mode"), params.get("caption_entities")
        )
        markup = parse_markup(params.get("reply_markup"), inline_only=True)
        return self._edit(
            message,
            "editEphemeralMessageCaption",
            {**caption, "reply_markup": markup, "parse_mode": params.get("parse_mode")},
        )

    def _api_editEphemeralMessageReplyMarkup(self, params: JSONDict, files: list[UploadedFile]) -> bool:
        message = self._ephemeral_target(params, "message to edit not found")
        markup = parse_markup(params.get("reply_markup"), inline_only=True)
        return self._edit(message, "editEphemeralMessageReplyMarkup", {"reply_markup": markup})

    def _api_editEphemeralMessageMedia(self, params: JSONDict, files: list[UploadedFile]) -> bool:
        message = self._ephemeral_target(params, "message to edit not found")
        if message.kind == "text":
            raise bad("there is no media in the message to edit")
        media = _obj(params.get("media")) or {}
        kind, reference = media.get("type"), media.get("media")
        if kind not in ("photo", "document"):
            raise bad("unsupported media type")
        if not isinstance(reference, str) or not reference:
            raise bad("there is no media in the request")
        if reference.startswith("attach://") or files:
            raise bad("a new file can't be uploaded; use a file_id or a URL")
        caption = self._caption(media.get("caption"), media.get("parse_mode"), media.get("caption_entities"))
        markup = parse_markup(params.get("reply_markup"), inline_only=True)
        return self._edit(
            message,
            "editEphemeralMessageMedia",
            {"kind": kind, "media": self._media(kind, reference), "reply_markup": markup, **caption},
        )

    def _api_deleteEphemeralMessage(self, params: JSONDict, files: list[UploadedFile]) -> bool:
        message = self._ephemeral_target(params, "message to delete not found")
        self._admit_ephemeral(message.chat_id, "deleteEphemeralMessage")
        message.history.append(message.revision("deleteEphemeralMessage", self._now()))
        self._drop(message, "deleted")
        return True
