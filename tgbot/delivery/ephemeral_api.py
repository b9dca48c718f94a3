"""Telegram's ephemeral messages (Bot API 10.2/10.3) through python-telegram-bot's public hatches.

An ephemeral message is seen by one person of a group (and the bot): the bot's answer to that
person's tap or ephemeral message within 15 seconds, or an administrator bot's at any time. It has
``message_id`` 0; it is named by the chat, its receiver and its ``ephemeral_message_id``, which
Telegram reuses once the message is deleted or expires. Delivery is not guaranteed and the message
may vanish on its own, so nothing may depend on the person having seen it.

python-telegram-bot 22.8 speaks Bot API 10.0 and knows none of this. It offers two public ways
to use what it does not know, and this module is the only place that does, so the day PTB ships
the fields and methods the change is here alone:

* ``api_kwargs`` on every method: sends carry ``ephemeral_message_parameters`` (10.3) and a
  ``reply_parameters`` naming an ``ephemeral_message_id`` (PTB's ``ReplyParameters`` still
  requires a ``message_id``); a ``BotCommand`` carries ``is_ephemeral``. Fields of an update PTB
  does not know stay in the object's ``api_kwargs``, where the readers below find them.
* ``Bot.do_api_request`` for the methods PTB lacks (``editEphemeralMessage…``,
  ``deleteEphemeralMessage``). It inserts no ``Defaults``, so the edits pass the bot's HTML parse
  mode and disabled link previews themselves.

A Bot API server older than 10.2 ignores ``ephemeral_message_parameters`` and posts the message
for everyone; it answers the new methods 404. Both surface as `EphemeralUnsupported`, the first
with the public message's id so the caller can take it back.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from telegram import Bot, BotCommand, InlineKeyboardMarkup, LinkPreviewOptions, MaybeInaccessibleMessage
from telegram.constants import ParseMode
from telegram.error import BadRequest, EndPointNotFound

#: Telegram's answer to an edit that changes nothing visible: the message already shows it.
NOT_MODIFIED = "message is not modified"


class EphemeralUnsupported(Exception):
    """The Bot API server knows no ephemeral messages (older than 10.2).

    ``public_message_id``: the server posted the message for everyone instead (a send); the
    caller decides whether to delete it.
    """

    def __init__(self, detail: str, public_message_id: int | None = None) -> None:
        super().__init__(detail)
        self.public_message_id = public_message_id


@dataclass(frozen=True)
class EphemeralMessage:
    """Where an ephemeral message is and whom it is for: all an edit or a deletion needs.

    For the bot's own message ``receiver_user_id`` is the person who sees it; for a person's
    ephemeral command or reply it is the bot, and ``sender_user_id`` is that person.
    """

    chat_id: int
    receiver_user_id: int
    ephemeral_message_id: int
    sender_user_id: int | None = None

    def where(self) -> dict[str, int]:
        """The three parameters every ``editEphemeralMessage…`` method takes."""
        return {
            "chat_id": self.chat_id,
            "receiver_user_id": self.receiver_user_id,
            "ephemeral_message_id": self.ephemeral_message_id,
        }


# -- reading what PTB keeps in api_kwargs ----------------------------------------------------------


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _user_id(value: Any) -> int | None:
    """The ``id`` of a User object, as PTB leaves an unknown one: a plain mapping."""
    if isinstance(value, Mapping):
        return _int(value.get("id"))
    return _int(getattr(value, "id", None))


def read_ephemeral(message: MaybeInaccessibleMessage | None) -> EphemeralMessage | None:
    """The ephemeral message ``message`` is (a sent one, a tapped one, a person's command or
    reply), or None for an ordinary message."""
    if message is None:
        return None
    extra = message.api_kwargs
    ephemeral_id = _int(extra.get("ephemeral_message_id"))
    receiver_id = _user_id(extra.get("receiver_user"))
    if ephemeral_id is None or receiver_id is None:
        return None
    sender = getattr(message, "from_user", None)
    return EphemeralMessage(message.chat.id, receiver_id, ephemeral_id, sender.id if sender else None)


def is_ephemeral(message: MaybeInaccessibleMessage | None) -> bool:
    """Whether ``message`` is ephemeral: seen only by its sender and its receiver."""
    return read_ephemeral(message) is not None


def ephemeral_command(command: str, description: str) -> BotCommand:
    """A command for setMyCommands that a person sends ephemerally (``BotCommand.is_ephemeral``):
    nobody else in the group sees it."""
    return BotCommand(command, description, api_kwargs={"is_ephemeral": True})


def command_is_ephemeral(command: BotCommand) -> bool:
    """Whether a command (as getMyCommands returns it) is sent ephemerally."""
    return command.api_kwargs.get("is_ephemeral") is True


# -- the calls ---------------------------------------------------------------------------------------


async def send_ephemeral(
    bot: Bot,
    chat_id: int,
    receiver_user_id: int,
    text: str,
    reply_markup: InlineKeyboardMarkup | None = None,
    callback_query_id: str | None = None,
    reply_to_ephemeral_id: int | None = None,
    replace_tapped: bool = False,
    *,
    thread_id: int | None = None,
) -> EphemeralMessage:
    """Send ``text`` (HTML) to ``receiver_user_id`` alone, in a group.

    ``callback_query_id``: the person's tap this answers (15 seconds to do it, unless the bot
    is an administrator); with ``replace_tapped`` the message shows in place of the tapped one, for
    them only (never for a tap on an ephemeral message: edit that instead).
    ``reply_to_ephemeral_id``: the person's ephemeral message this answers (also 15 seconds).
    Telegram's refusals raise PTB's errors; an old server raises `EphemeralUnsupported`.
    """
    if replace_tapped and callback_query_id is None:
        raise ValueError("only a message answering a tap can replace the tapped message")
    parameters: dict[str, Any] = {"receiver_user_id": receiver_user_id}
    if callback_query_id is not None:
        parameters["callback_query_id"] = callback_query_id
        parameters["replace_callback_query_message"] = replace_tapped
    extra: dict[str, Any] = {"ephemeral_message_parameters": parameters}
    if reply_to_ephemeral_id is not None:
        extra["reply_parameters"] = {"ephemeral_message_id": reply_to_ephemeral_id}
    sent = await bot.send_message(
        chat_id,
        text,
        parse_mode=ParseMode.HTML,
        link_preview_options=LinkPreviewOptions(is_disabled=True),
        reply_markup=reply_markup,
        message_thread_id=thread_id,
        api_kwargs=extra,
    )
    found = read_ephemeral(sent)
    if found is None:
        raise EphemeralUnsupported(
            "the Bot API server ignored ephemeral_message_parameters and posted the message publicly",
            public_message_id=sent.message_id,
        )
    return found


async def _ephemeral_call(bot: Bot, method: str, parameters: dict[str, Any]) -> None:
    try:
        await bot.do_api_request(method, api_kwargs=parameters)
    except EndPointNotFound as exc:
        raise EphemeralUnsupported(f"the Bot API server does not know {method}") from exc


async def _edit(bot: Bot, method: str, parameters: dict[str, Any]) -> None:
    """An edit; "not modified" is success (the message already shows it)."""
    try:
        await _ephemeral_call(bot, method, parameters)
    except BadRequest as exc:
        if NOT_MODIFIED not in exc.message.lower():
            raise


async def edit_ephemeral_text(
    bot: Bot, message: EphemeralMessage, text: str, reply_markup: InlineKeyboardMarkup | None = None
) -> None:
    """Change the bot's ephemeral message's text (HTML); without ``reply_markup`` it loses its
    keys, as any edit of a message's text does."""
    parameters: dict[str, Any] = {
        **message.where(),
        "text": text,
        "parse_mode": ParseMode.HTML,
        "link_preview_options": LinkPreviewOptions(is_disabled=True),
    }
    if reply_markup is not None:
        parameters["reply_markup"] = reply_markup
    await _edit(bot, "editEphemeralMessageText", parameters)


async def edit_ephemeral_markup(
    bot: Bot, message: EphemeralMessage, reply_markup: InlineKeyboardMarkup | None
) -> None:
    """Change only the keys of the bot's ephemeral message (None: take them off)."""
    parameters: dict[str, Any] = message.where()
    if reply_markup is not None:
        parameters["reply_markup"] = reply_markup
    await _edit(bot, "editEphemeralMessageReplyMarkup", parameters)


async def delete_ephemeral(bot: Bot, message: EphemeralMessage) -> None:
    """Take the bot's ephemeral message away from its person."""
    await _ephemeral_call(bot, "deleteEphemeralMessage", dict(message.where()))
