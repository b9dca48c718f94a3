"""The outbox: what the services want shown, and what the chats show now (DESIGN §6).

Its rooms:

* `payload`: what a row asks its sender to show (`Payload`, stored as JSON) and where it goes
  (`Message`: the chat, the surface, the priority, the game);
* `queue`: the rows themselves (`put` with its coalescing by surface, `next_row`, `delivered`);
* `shown`: which message shows each surface now (`shown_messages`);
* `chats`: each chat's delivery row, shared by every instance (the sender's lease, the budget).

The surfaces themselves are `store.surfaces`; what a transaction holds until it commits is
`store.pending`. Callers use this package's names.
"""

from __future__ import annotations

from .chats import ChatDelivery, claim, delivery_chat, release, release_all, take
from .payload import Fallback, Keyboard, Media, MediaKind, Message, Payload, Priority
from .queue import (
    chats_with_rows,
    delivered,
    discard_surface,
    drop,
    drop_chat,
    drop_keys,
    move_chat,
    next_row,
    note_attempt,
    put,
    replace_waiting,
    still_waiting,
    write_pending,
)
from .shown import Shown, forget_shown, remember_shown, shown_message

__all__ = [
    "ChatDelivery",
    "Fallback",
    "Keyboard",
    "Media",
    "MediaKind",
    "Message",
    "Payload",
    "Priority",
    "Shown",
    "chats_with_rows",
    "claim",
    "delivered",
    "delivery_chat",
    "discard_surface",
    "drop",
    "drop_chat",
    "drop_keys",
    "forget_shown",
    "move_chat",
    "next_row",
    "note_attempt",
    "put",
    "release",
    "release_all",
    "remember_shown",
    "replace_waiting",
    "shown_message",
    "still_waiting",
    "take",
    "write_pending",
]
