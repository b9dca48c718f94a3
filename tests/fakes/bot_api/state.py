"""The world every part of the fake shares: people, chats, messages, queries, time and budgets.

Each concern of the fake (``chats``, ``store``, ``updates``, ``inline``, ``messages``, ``server``)
is a mixin over this state, so ``FakeTelegram`` is one object as the tests see it while each
module only holds what its concern needs.
"""

from __future__ import annotations

import asyncio
import datetime as dtm
import itertools
from collections.abc import Callable

from tests.fakes.bot_api.common import (
    BOT_FIRST_NAME,
    BOT_ID,
    BOT_USERNAME,
    CALLBACK_ANSWER_TIMEOUT,
    INLINE_ANSWER_TIMEOUT,
    ApiError,
    JSONDict,
    Monotonic,
    SystemMonotonic,
)
from tests.fakes.bot_api.records import (
    ApiCall,
    CallbackAnswer,
    FakeChat,
    FakeUser,
    Fault,
    InlineAnswer,
    StoredMessage,
)
from tests.fakes.flood import FloodLedger, FloodLimits

#: Telegram never gives one bot's update id twice, and the bot applies each update once by its
#: id (`tgbot.store.once`): every fake of a test run counts from where the last one stopped, so
#: a test that starts a new fake over an old database (a restart) sends new updates.
UPDATE_IDS = itertools.count(1)


class FakeState:
    """The state of the fake Bot API, and the two things every part needs: now, and the budget."""

    def __init__(
        self,
        *,
        clock: Callable[[], dtm.datetime] | None = None,
        timer: Monotonic | None = None,
        flood: FloodLimits | None = None,
        answer_timeout: float | None = CALLBACK_ANSWER_TIMEOUT,
        inline_mode: bool = False,
        inline_feedback: bool = False,
        inline_answer_timeout: float | None = INLINE_ANSWER_TIMEOUT,
    ) -> None:
        """``clock`` dates messages (wall clock); ``timer`` measures flood windows and answer
        deadlines (monotonic; pass a ``VirtualTimer`` to run them on virtual time).

        ``flood`` enforces Telegram's write limits (off by default: many tests fire lots of
        messages at one instant). ``answer_timeout``/``inline_answer_timeout`` are how long a
        callback/inline query stays answerable (``None``: forever). ``inline_mode`` is BotFather's
        /setinline (getMe's ``supports_inline_queries``), ``inline_feedback`` its /setinlinefeedback
        (a picked result also produces a ``chosen_inline_result`` update).
        """
        #: Replace to move message dates with a test clock.
        self.clock: Callable[[], dtm.datetime] = clock or (lambda: dtm.datetime.now(dtm.UTC))
        #: Monotonic time for flood windows and answer deadlines.
        self.timer: Monotonic = timer or SystemMonotonic()
        #: Accepted writes per chat (always recorded) and the refusals of the flood limits.
        self.flood_ledger = FloodLedger(flood)
        self.answer_timeout = answer_timeout
        self.inline_mode = inline_mode
        self.inline_feedback = inline_feedback
        self.inline_answer_timeout = inline_answer_timeout
        self.bot_user = FakeUser(BOT_ID, BOT_FIRST_NAME, None, BOT_USERNAME, is_bot=True)
        self.calls: list[ApiCall] = []
        self.answers: dict[str, CallbackAnswer] = {}
        self.inline_answers: dict[str, InlineAnswer] = {}
        self._inline_messages: dict[str, StoredMessage] = {}
        self.unsupported: list[str] = []
        self.menu_buttons: dict[int | None, JSONDict] = {}
        self.webhook: JSONDict | None = None
        self.pinned: dict[int, list[int]] = {}
        self.initialize_count = 0
        self.shutdown_count = 0
        self._chats: dict[int, FakeChat] = {}
        self._users: dict[int, FakeUser] = {BOT_ID: self.bot_user}
        self._topics: dict[int, dict[int, str]] = {}
        self._messages: dict[int, dict[int, StoredMessage]] = {}
        self._dm_open: set[int] = set()
        self._blocked: set[int] = set()
        self._members: dict[int, dict[int, str]] = {}
        self._migrated: dict[int, int] = {}
        #: Groups the bot was never in (``group(with_bot=False)``) until it is added.
        self._unseen: set[int] = set()
        #: Private chats between two people, by the pair of their user ids.
        self._between: dict[frozenset[int], FakeChat] = {}
        self._commands: dict[tuple[str, str], list[JSONDict]] = {}
        self._faults: list[Fault] = []
        self._pending_updates: list[JSONDict] = []
        #: getUpdates with nothing to give waits this long at most (and its own `timeout`) before it
        #: answers empty. Telegram holds the request until an update comes or the timeout runs out;
        #: a test's polling Updater is better served by a quick empty answer (a stopped Updater
        #: waits for its poll to end). A benchmark of a polling bot sets Telegram's behaviour.
        self.long_poll_limit = 0.05
        self._update_queued: asyncio.Event | None = None  # a waiting getUpdates' (made in its loop)
        self._count_from = 0
        self._message_ids = itertools.count(1)
        self._update_ids = UPDATE_IDS
        self._query_ids = itertools.count(4_000_000_000_000_000_001)
        self._chat_ids = itertools.count(1)

    def _now(self) -> int:
        return int(self.clock().timestamp())

    def _admit(self, chat_id: int, private: bool, method: str) -> None:
        """Count a write against Telegram's budget, or refuse it with 429 before it is applied."""
        rejection = self.flood_ledger.admit(chat_id, private, method, self.timer.monotonic())
        if rejection is not None:
            wait = rejection.retry_after
            raise ApiError(429, f"Too Many Requests: retry after {wait}", {"retry_after": wait})
