"""What an outbox row asks its sender to show (`Payload`, its JSON the row's), and where it goes
(`Message`): the chat, the surface it keeps up to date, its place in the chat's queue, its game."""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import IntEnum, StrEnum
from typing import Any

from ..surfaces import Surface, surface_of, text_of

Keyboard = list[list[dict[str, str]]]


class Priority(IntEnum):
    """A chat's rows go in (priority, id) order, lower first. The last two bands are cosmetic:
    sent only while the group has budget to spare (`delivery.budget`), so nothing a player waits
    for ever queues behind them."""

    BOARD = 0  # the game's record, in order: the next board, round summaries, final standings
    TURN = 1  # replies to a person, reminders, notices of the game
    INFO = 2  # private panels, the score chart
    COSMETIC = 3  # lobby edits, draft previews in a private panel
    CLEANUP = 4  # keys taken off messages that are no longer live


_FLAGS = ("notify", "edit_only", "keys_only", "bottom", "fresh")


class MediaKind(StrEnum):
    PHOTO = "photo"
    DOCUMENT = "document"


@dataclass(frozen=True)
class Media:
    """A file a message is instead of text: its bytes (`data`, base64), or a chart's `spec` the
    sender draws just before it goes (never on a tap's path). Stored in the payload's JSON as
    ``{"kind", "filename", "data" or "chart"}``."""

    kind: MediaKind
    filename: str
    data: str | None = None
    chart: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        written: dict[str, Any] = {"kind": self.kind.value, "filename": self.filename}
        if self.data is not None:
            written["data"] = self.data
        if self.chart is not None:
            written["chart"] = self.chart
        return written

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Media:
        kind = MediaKind.PHOTO if data.get("kind") == MediaKind.PHOTO else MediaKind.DOCUMENT
        return cls(kind, str(data.get("filename", "file")), data.get("data"), data.get("chart"))


@dataclass(frozen=True)
class Payload:
    """What a row asks its sender to show, stored as JSON in `outbox.payload`. Only `text` and
    the fields that are set are written, in this order, so rows stay small and keep the form older
    versions of the bot wrote; reading ignores what it does not know, so a row written by another
    version still loads.

    `keys`: the inline keyboard. `message_id`: edit exactly this message (one a key was tapped
    on); `inline_id`: exactly this message posted via the bot in a chat it is not in (inline
    mode), the only way to show anything there. `reply_to`: a surface the new message answers (a
    reminder under the board). `media`: a file instead of text (`Media`).
    `edit_only`: change the surface's message if it is shown, never post it (taking the keys off
    an old board). `keys_only`: change only the keys (none: take them off). `bottom`: the surface
    should be the chat's last bot message, so an older one is replaced by a new post rather than
    edited out of sight (a private panel). `fresh`: post the surface anew even if it is shown (a
    reminder that should notify); the old message loses its keys. `fallback`: where to say it
    instead when the chat refuses the bot (a private reminder that becomes a group mention).
    `held`: an older game message of a chat the bot is not in, edited as it loses its keys: the
    record it shows (`render.inline_table.Record`), which the live one takes over if a person
    deleted it (the bot is not told, and learns it only from this edit).
    """

    text: str = ""
    keys: Keyboard | None = None
    thread_id: int | None = None
    message_id: int | None = None
    inline_id: str | None = None
    reply_to: Surface | None = None
    media: Media | None = None
    notify: bool = False
    edit_only: bool = False
    keys_only: bool = False
    bottom: bool = False
    fresh: bool = False
    fallback: Fallback | None = None
    held: str | None = None

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"text": self.text}
        for name in ("keys", "thread_id", "message_id", "inline_id", "reply_to", "media"):
            value = getattr(self, name)
            if isinstance(value, Media):
                data[name] = value.to_dict()
            elif value is not None:
                data[name] = text_of(value) if name == "reply_to" else value
        for flag in _FLAGS:
            if getattr(self, flag):
                data[flag] = True
        if self.fallback is not None:
            data["fallback"] = self.fallback.to_dict()
        if self.held is not None:
            data["held"] = self.held
        return data

    def to_json(self) -> str:
        """Compact JSON, emoji and every script kept as they are."""
        return json.dumps(self.to_dict(), ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Payload:
        message_id = data.get("message_id")
        fallback = data.get("fallback")
        reply_to = data.get("reply_to")
        media = data.get("media")
        return cls(
            text=str(data.get("text", "")),
            keys=data.get("keys"),
            thread_id=data.get("thread_id"),
            message_id=int(message_id) if message_id is not None else None,
            inline_id=data.get("inline_id"),
            reply_to=surface_of(reply_to) if reply_to else None,
            media=Media.from_dict(media) if media else None,
            fallback=Fallback.from_dict(fallback) if fallback else None,
            held=data.get("held"),
            **{flag: bool(data.get(flag)) for flag in _FLAGS},
        )

    @classmethod
    def from_json(cls, text: str) -> Payload:
        return cls.from_dict(json.loads(text))


@dataclass(frozen=True)
class Fallback:
    """Where a message goes instead when its chat refuses the bot (a private reminder that
    becomes a mention in the group): stored inside its row's payload."""

    chat_id: int
    surface: Surface | None
    payload: Payload

    def to_dict(self) -> dict[str, Any]:
        surface = None if self.surface is None else text_of(self.surface)
        return {"chat_id": self.chat_id, "surface": surface, **self.payload.to_dict()}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Fallback:
        surface = data.get("surface")
        return cls(int(data["chat_id"]), surface_of(surface) if surface else None, Payload.from_dict(data))


@dataclass(frozen=True)
class Message:
    """One thing to show in a chat: what (`payload`), and where it goes.

    `surface`: the message is kept up to date (edited) instead of posted anew each time; None for
    a new message. `priority`: its place in the chat's queue. `game_id`: the game it is about
    (what the senders tell the services about it concerns that game).
    """

    chat_id: int
    payload: Payload
    surface: Surface | None = None
    priority: Priority = Priority.TURN
    game_id: int | None = None

    def as_fallback(self) -> Fallback:
        """This message as where another goes instead, when that one's chat refuses the bot."""
        return Fallback(self.chat_id, self.surface, self.payload)
