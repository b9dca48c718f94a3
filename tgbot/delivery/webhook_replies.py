"""A tap's answer carried back in the webhook request's own HTTP response.

Telegram lets a bot answer a webhook request with one Bot API call in the response's body
(`{"method": "answerCallbackQuery", ...}`), and makes that call itself. Every tap needs its
answer, and as a call of its own that answer was the largest single cost of a tap in webhook
mode: a new HTTP request, its headers, Telegram's reply read and parsed (about a seventh of a
busy bot's CPU: decisions.md B26). Carried in the response, it
costs a few bytes of JSON on a connection that is open anyway.

Telegram says nothing back about such a call, so only the callback answer goes this way: a
refused answer (a query older than about 15 s) was only ever logged at debug level, and a query
that has just arrived is fresh. The webhook handler waits for the answer at most `REPLY_WAIT`;
a tap still unanswered then gets an empty response, and its answer goes out as a call of its
own, as in polling mode.

Everything here runs on the event loop: the handler and `answer` never race.
"""

from __future__ import annotations

import asyncio
from typing import Any

#: How long the webhook response waits for the tap's answer (seconds). A tap is answered in a
#: few milliseconds unless the bot is saturated; meanwhile Telegram holds one of the webhook's
#: connections (the bot asks for 100), so the wait is kept short.
REPLY_WAIT = 0.5

ANSWER_METHOD = "answerCallbackQuery"


class WebhookReplies:
    """The callback queries whose webhook request is still waiting for their answer."""

    def __init__(self) -> None:
        self._waiting: dict[str, asyncio.Future[dict[str, Any]]] = {}

    def expect(self, query_id: str) -> asyncio.Future[dict[str, Any]]:
        """Called by the webhook handler before it hands the update on."""
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._waiting[query_id] = future
        return future

    def forget(self, query_id: str, future: asyncio.Future[dict[str, Any]]) -> None:
        """The handler stopped waiting: from now on the answer is a call of its own. Only its own
        wait: Telegram may deliver the same update again while the first request still waits."""
        if self._waiting.get(query_id) is future:
            del self._waiting[query_id]
        if not future.done():
            future.cancel()

    def offer(self, query_id: str, params: dict[str, Any]) -> bool:
        """True if the answer `params` will go back in the webhook's response."""
        future = self._waiting.pop(query_id, None)
        if future is None or future.done():
            return False
        future.set_result({"method": ANSWER_METHOD, "callback_query_id": query_id, **params})
        return True

    async def reply(self, query_id: str, future: asyncio.Future[dict[str, Any]]) -> dict[str, Any] | None:
        """The body for the webhook's response: the answer, or None if it did not come in time."""
        try:
            await asyncio.wait_for(future, REPLY_WAIT)
        except TimeoutError:
            pass
        finally:
            self.forget(query_id, future)
        return future.result() if future.done() and not future.cancelled() else None

    def __len__(self) -> int:
        return len(self._waiting)
