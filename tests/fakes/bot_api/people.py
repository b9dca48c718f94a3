"""What people do in their apps besides writing to the bot: follow its links, forward, delete,
talk where the bot is not listening.

* A deep link ``https://t.me/<bot>?start=<payload>`` (also ``telegram.me`` and
  ``tg://resolve?domain=<bot>&start=<payload>``) opens the person's private chat with the bot and
  sends it ``/start <payload>`` (Bot API, *Deep linking*: the payload is 1-64 characters of
  ``A-Z a-z 0-9 _ -``). Pressing Start opens a chat never started, and unblocks a bot the person
  had blocked (Telegram then also sends ``my_chat_member``). A link without a payload sends
  ``/start`` only when the chat was not open yet; otherwise the app just shows the chat.
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
from urllib.parse import parse_qs, urlsplit

from tests.fakes.bot_api.common import START_PARAMETER, JSONDict
from tests.fakes.bot_api.markup import forwarded_keyboard
from tests.fakes.bot_api.records import FakeChat, FakeUser, StoredMessage
from tests.fakes.bot_api.updates import Updates


class People(Updates):
    """People's own actions: deep links, forwards, deletions, messages the bot never gets."""

    # -- deep links --------------------------------------------------------------------------------

    def start_updates(self, user: FakeUser, payload: str | None = None) -> list[JSONDict]:
        """``user`` starts the bot, with a deep link's ``payload``: the updates Telegram sends."""
        if payload is not None and not START_PARAMETER.fullmatch(payload):
            raise AssertionError(
                f"start parameter {payload!r}: Telegram takes 1-64 characters of A-Z, a-z, 0-9, _ "
                "and -, so this link would not start the bot with it"
            )
        chat = self.private(user, started=False)
        updates: list[JSONDict] = []
        if user.id in self._blocked:
            updates.append(self.my_chat_member_update(chat, user, "member", old_status="kicked"))
        updates.append(self.command_update(chat, user, "/start" if payload is None else f"/start {payload}"))
        return updates

    def link_updates(self, user: FakeUser, url: str) -> list[JSONDict]:
        """``user`` opens a link to the bot (a URL key, a link in a message): the updates it sends."""
        payload = self.start_payload(url)
        opened = user.id in self._dm_open and user.id not in self._blocked
        if payload is None and opened:
            return []  # the app only shows the chat
        return self.start_updates(user, payload)

    def start_payload(self, url: str) -> str | None:
        """The start parameter of a link to this bot (None: a link without one); fails loudly for
        a link to anywhere else."""
        parts = urlsplit(url if "://" in url else f"https://{url}")
        query = parse_qs(parts.query, keep_blank_values=True)
        if parts.scheme == "tg" and parts.netloc == "resolve":
            username = (query.get("domain") or [""])[0]
        elif parts.scheme in ("http", "https") and parts.netloc in ("t.me", "telegram.me"):
            username = parts.path.strip("/")
        else:
            raise AssertionError(f"{url!r} is not a Telegram link to a bot")
        if username.lower() != str(self.bot_user.username).lower():
            raise AssertionError(f"{url!r} opens @{username}, not @{self.bot_user.username}")
        start = query.get("start")
        return (start[0] or None) if start else None

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
