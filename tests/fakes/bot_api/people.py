"""What people do in their apps besides writing to the bot: forward, delete, talk where the bot
is not listening.

* A forward is the forwarder's own message with ``forward_origin``; a message sent via the bot
  keeps ``via_bot``. Its keyboard follows ``markup.forwarded_keyboard`` (TDLib's rule): callback
  keys never come along, so a forwarded game message cannot be played from its copy, and the copy
  has no ``inline_message_id`` of its own. Where the bot is in the target chat it gets the copy if
  the chat is its private chat, or if the copy is via the bot (privacy mode lets messages via the
  bot through; that a forward counts as one is modelled, not verified). A bot must tell such a
  copy from a fresh pick by its ``forward_origin``.
* A person deleting a message tells the bot nothing; an inline message deleted that way answers
  MESSAGE_ID_INVALID to every later edit.
"""

from __future__ import annotations

import copy

from tests.fakes.bot_api.common import JSONDict
from tests.fakes.bot_api.markup import forwarded_keyboard
from tests.fakes.bot_api.records import FakeChat, FakeUser, StoredMessage
from tests.fakes.bot_api.updates import Updates


class People(Updates):
    """People's own actions: forwards, deletions, messages the bot never gets."""

    # -- messages the bot never gets ---------------------------------------------------------------

    def say(self, chat: FakeChat, user: FakeUser, text: str) -> StoredMessage:
        """``user`` writes ``text`` in ``chat`` and the bot is told nothing: a chat it is not in,
        or a group message a bot in privacy mode does not get. It shows in ``transcript``."""
        chat = self._where(user, chat)
        if chat.type == "private" and chat.between is None:
            raise AssertionError("the bot gets everything written in its private chats: use text_update")
        self._users.setdefault(user.id, user)
        return self._store(
            chat, from_bot=False, sender=user.to_dict(), kind="text", text=text, source=text, notified=True
        )

    def forward_message(
        self, user: FakeUser, message: StoredMessage, to_chat: FakeChat
    ) -> tuple[StoredMessage, list[JSONDict]]:
        """``user`` forwards ``message`` into ``to_chat``: the copy, and the updates the bot gets."""
        if message.deleted:
            raise AssertionError(f"message {message.message_id} was deleted; there is nothing to forward")
        if message.kind == "service":
            raise AssertionError("service messages can't be forwarded")
        target = self._where(user, to_chat)
        via = message.via_bot
        extra: JSONDict = {
            "forward_origin": {"type": "user", "sender_user": dict(message.sender), "date": message.date}
        }
        if via is not None:
            extra["via_bot"] = dict(via)
        self._users.setdefault(user.id, user)
        forwarded = self._store(
            target,
            from_bot=False,
            sender=user.to_dict(),
            kind=message.kind,
            text=message.text,
            caption=message.caption,
            source=message.source,
            parse_mode=message.parse_mode,
            entities=copy.deepcopy(message.entities),
            reply_markup=forwarded_keyboard(message.reply_markup, via_bot=via is not None),
            media=copy.deepcopy(message.media),
            extra=extra,
            notified=True,
        )
        delivered = self.bot_in(target) and (target.type == "private" or via is not None)
        if not delivered:
            return forwarded, []
        return forwarded, [{"update_id": next(self._update_ids), "message": self._message_json(forwarded)}]

    def delete_by(self, user: FakeUser, message: StoredMessage) -> None:
        """``user`` deletes ``message`` for everyone, as their app lets them: their own messages
        anywhere, any message of a private chat they are in, any message of a group they
        administer."""
        if message.deleted:
            raise AssertionError(f"message {message.message_id} was already deleted")
        chat = self._chats[message.chat_id]
        if chat.type == "private":
            allowed = user.id in chat.between if chat.between is not None else chat.id == user.id
        else:
            own = not message.from_bot and message.sender.get("id") == user.id
            allowed = own or self.member_status(chat.id, user.id) in ("administrator", "creator")
        if not allowed:
            raise AssertionError(
                f"{user.first_name} cannot delete message {message.message_id} in chat {chat.id}"
            )
        message.history.append(message.revision("deletedByUser", self._now()))
        message.deleted = True
