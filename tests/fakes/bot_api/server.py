"""The fake Bot API as PTB sees it: a ``BaseRequest`` that answers every call in memory."""

from __future__ import annotations

import asyncio
import contextlib
import copy
import inspect
import json
import re
from collections.abc import Collection
from typing import Any, cast

from telegram.ext import ApplicationBuilder
from telegram.request import BaseRequest, RequestData

from tests.fakes.bot_api.common import TEST_TOKEN, ApiError, JSONDict, bad
from tests.fakes.bot_api.ephemeral import Ephemeral
from tests.fakes.bot_api.inline import Inline
from tests.fakes.bot_api.messages import Messages
from tests.fakes.bot_api.records import DEFAULT_FAULT_TEXT, ApiCall, Fault, UploadedFile
from tests.fakes.flood import FloodLimits, FloodRejection, max_in_window

#: The pseudo-URL of a call Telegram makes from a webhook response (`FakeTelegram.webhook_reply`).
WEBHOOK_REPLY_URL = "webhook-reply/"


class _WebhookParams:
    """A webhook response's fields in the shape `FakeTelegram._decode` reads (PTB's RequestData)."""

    contains_files = False

    def __init__(self, parameters: JSONDict) -> None:
        self.parameters = parameters


class FakeTelegram(Ephemeral, Inline, Messages, BaseRequest):
    """Telegram's Bot API in memory; pass it to ``ApplicationBuilder.request``/``get_updates_request``.

    Built with the arguments of ``FakeState`` (clock, timer, flood limits, inline mode...) and of
    ``Ephemeral`` (ephemeral messages' budget and lifetime).
    """

    # -- BaseRequest -------------------------------------------------------------------------------

    @property
    def read_timeout(self) -> float | None:
        return 5.0

    async def initialize(self) -> None:
        # PTB initialises both of a Bot's request objects; with one fake for both this runs twice.
        self.initialize_count += 1

    async def shutdown(self) -> None:
        self.shutdown_count += 1

    async def do_request(
        self,
        url: str,
        method: str,
        request_data: RequestData | None = None,
        read_timeout: object = BaseRequest.DEFAULT_NONE,
        write_timeout: object = BaseRequest.DEFAULT_NONE,
        connect_timeout: object = BaseRequest.DEFAULT_NONE,
        pool_timeout: object = BaseRequest.DEFAULT_NONE,
    ) -> tuple[int, bytes]:
        api_method = url.rstrip("/").rsplit("/", 1)[-1]
        params, files = self._decode(request_data)
        call = ApiCall(api_method, params, files, via_webhook=url.startswith(WEBHOOK_REPLY_URL))
        self.calls.append(call)
        try:
            fault = self._take_fault(api_method, call)
            if fault is not None:
                if fault.exception is not None:
                    call.response = {"exception": repr(fault.exception)}
                    raise fault.exception
                raise fault.error()
            handler = getattr(self, f"_api_{api_method}", None)
            if handler is None:
                self.unsupported.append(api_method)
                # No "Bad Request: " prefix: PTB would lower-case the method name after it.
                raise ApiError(400, f"FakeTelegram does not implement the Bot API method {api_method}")
            result = handler(params, files)
            if inspect.isawaitable(result):
                result = await result
            status, body = 200, {"ok": True, "result": result}
        except ApiError as error:
            status, body = error.code, error.body()
        call.status, call.response = status, body
        return status, json.dumps(body).encode("utf-8")

    async def webhook_reply(self, status: int, content_type: str | None, body: bytes) -> ApiCall | None:
        """What Telegram does with the bot's response to a webhook request.

        A 200 whose JSON body names a Bot API `method` is that method called with the body's other
        fields, as if the bot had made the call (Bot API: "Making requests when getting
        updates"); its result or error is told nobody. Any other response only acknowledges the
        update. Returns the call made, if any (it is also in `calls`, marked `via_webhook`).
        """
        if status != 200 or not body or not (content_type or "").startswith("application/json"):
            return None
        try:
            params = json.loads(body)
        except ValueError:
            return None
        if not isinstance(params, dict) or not isinstance(params.get("method"), str):
            return None
        api_method = params.pop("method")
        before = len(self.calls)
        await self.do_request(f"{WEBHOOK_REPLY_URL}{api_method}", "POST", cast(Any, _WebhookParams(params)))
        return next((c for c in self.calls[before:] if c.via_webhook and c.method == api_method), None)

    @staticmethod
    def _decode(request_data: RequestData | None) -> tuple[JSONDict, list[UploadedFile]]:
        if request_data is None:
            return {}, []
        # A JSON round trip is what the wire does: it detaches the record from PTB's objects.
        params: JSONDict = json.loads(json.dumps(request_data.parameters))
        files: list[UploadedFile] = []
        if request_data.contains_files:
            for name, field_tuple in request_data.multipart_data.items():
                filename, content, mimetype = field_tuple
                if isinstance(content, bytes | bytearray):
                    data = bytes(content)
                else:
                    start = content.tell() if content.seekable() else None
                    data = content.read()
                    if start is not None:
                        content.seek(start)
                files.append(UploadedFile(name, filename, data, mimetype))
        return params, files

    def _take_fault(self, method: str, call: ApiCall) -> Fault | None:
        for fault in self._faults:
            if fault.matches(method, call):
                fault.times -= 1
                if fault.times <= 0:
                    self._faults.remove(fault)
                return fault
        return None

    # -- building the world ------------------------------------------------------------------------

    def application_builder(
        self, token: str = TEST_TOKEN
    ) -> ApplicationBuilder[Any, Any, Any, Any, Any, Any]:
        """An ApplicationBuilder already wired to this fake; add handlers/options, then build()."""
        return ApplicationBuilder().token(token).request(self).get_updates_request(self)

    # -- fault injection -----------------------------------------------------------------------------

    def fail_next(
        self,
        method: str,
        error_code: int = 400,
        description: str | None = None,
        retry_after: int | None = None,
        times: int = 1,
        chat_id: int | None = None,
        *,
        exception: BaseException | None = None,
    ) -> None:
        """Make the next ``times`` calls of ``method`` ("*" = any) fail, optionally only for one chat.

        ``exception`` raises inside the transport instead (e.g. ``telegram.error.TimedOut()``; any
        other exception becomes PTB's NetworkError), for failures that never reach Telegram.
        """
        if description is None:
            if error_code == 429:
                retry_after = 3 if retry_after is None else retry_after
                description = f"Too Many Requests: retry after {retry_after}"
            else:
                description = DEFAULT_FAULT_TEXT.get(error_code, f"Error {error_code}")
        self._faults.append(Fault(method, error_code, description, retry_after, times, chat_id, exception))

    def clear_faults(self) -> None:
        """Forget every fault `fail_next` still had in store."""
        self._faults.clear()

    # -- inspection ----------------------------------------------------------------------------------

    def calls_to(self, method: str) -> list[ApiCall]:
        return [call for call in self.calls if call.method == method]

    # -- flood accounting --------------------------------------------------------------------------

    @property
    def flood_limits(self) -> FloodLimits | None:
        """The enforced limits (``None``: none); assignable, e.g. to switch them on after setup."""
        return self.flood_ledger.limits

    @flood_limits.setter
    def flood_limits(self, limits: FloodLimits | None) -> None:
        self.flood_ledger.limits = limits

    @property
    def flood_rejections(self) -> list[FloodRejection]:
        """Every write the flood limits refused with 429, oldest first."""
        return self.flood_ledger.rejections

    def write_times(self, chat_id: int | None = None) -> list[float]:
        """Timer readings of the accepted writes (``MESSAGE_METHODS``) to a chat, or to all chats.

        Recorded whether or not limits are enforced, so a test can check pacing either way.
        """
        if chat_id is None:
            return list(self.flood_ledger.all_writes)
        return list(self.flood_ledger.writes.get(chat_id, []))

    def max_writes_in_window(self, chat_id: int | None = None, seconds: float = 60.0) -> int:
        """The most accepted writes to ``chat_id`` (``None``: all chats) in any ``seconds`` window."""
        return max_in_window(self.write_times(chat_id), seconds)

    def count_429(self, chat_id: int | None = None) -> int:
        """429 answers so far (flood limits and injected ones), overall or for one chat."""
        return sum(
            1
            for call in self.calls
            if call.status == 429 and (chat_id is None or self.chat_of_call(call) == chat_id)
        )

    def chat_of_call(self, call: ApiCall) -> int | None:
        """The chat a call wrote to: its ``chat_id``, or for an edit by ``inline_message_id`` the
        chat its message is in (``call.chat_id`` is None there: the bot never learns that chat)."""
        if call.chat_id is not None:
            return call.chat_id
        inline = self._inline_messages.get(str(call.params.get("inline_message_id")))
        return inline.chat_id if inline is not None else None

    def count_calls(
        self,
        chat_id: int | None = None,
        methods: Collection[str] | None = None,
        *,
        only_ok: bool = False,
    ) -> int:
        """Calls since the last ``reset_counts()``, filtered by chat and method (budget checks); an
        edit by ``inline_message_id`` is a call in the chat its message is in."""
        return sum(
            1
            for call in self.calls[self._count_from :]
            if (chat_id is None or self.chat_of_call(call) == chat_id)
            and (methods is None or call.method in methods)
            and (call.ok or not only_ok)
        )

    def reset_counts(self) -> None:
        self._count_from = len(self.calls)

    def commands(self, scope: JSONDict | None = None, language_code: str | None = None) -> list[JSONDict]:
        return list(self._commands.get(self._commands_key(scope, language_code), []))

    @property
    def commands_by_scope(self) -> dict[tuple[str, str], list[JSONDict]]:
        return dict(self._commands)

    # -- API methods about the bot itself --------------------------------------------------------------

    def _api_getMe(self, params: JSONDict, files: list[UploadedFile]) -> JSONDict:
        me = self.bot_user.to_dict()
        me.update(
            can_join_groups=True,
            can_read_all_group_messages=False,
            supports_inline_queries=self.inline_mode,
            can_connect_to_business=False,
            has_main_web_app=False,
        )
        return me

    @staticmethod
    def _commands_key(scope: Any, language_code: Any) -> tuple[str, str]:
        if isinstance(scope, str):
            scope = json.loads(scope)
        scope_key = json.dumps(scope or {"type": "default"}, sort_keys=True)
        return scope_key, str(language_code or "")

    def _api_setMyCommands(self, params: JSONDict, files: list[UploadedFile]) -> bool:
        commands = params.get("commands", [])
        if isinstance(commands, str):
            commands = json.loads(commands)
        for command in commands:
            name = command.get("command", "")
            if not re.fullmatch(r"[a-z0-9_]{1,32}", name):
                raise bad("BOT_COMMAND_INVALID")
            if not 1 <= len(command.get("description", "")) <= 256:
                raise bad("BOT_COMMAND_DESCRIPTION_INVALID")
        self._commands[self._commands_key(params.get("scope"), params.get("language_code"))] = commands
        return True

    def _api_getMyCommands(self, params: JSONDict, files: list[UploadedFile]) -> list[JSONDict]:
        return self.commands(params.get("scope"), params.get("language_code"))

    def _api_deleteMyCommands(self, params: JSONDict, files: list[UploadedFile]) -> bool:
        self._commands.pop(self._commands_key(params.get("scope"), params.get("language_code")), None)
        return True

    def _api_setChatMenuButton(self, params: JSONDict, files: list[UploadedFile]) -> bool:
        chat_id = params.get("chat_id")
        key = None if chat_id is None else self._resolve_chat_id(chat_id)
        self.menu_buttons[key] = params.get("menu_button") or {"type": "default"}
        return True

    def _api_getChatMenuButton(self, params: JSONDict, files: list[UploadedFile]) -> JSONDict:
        chat_id = params.get("chat_id")
        key = None if chat_id is None else self._resolve_chat_id(chat_id)
        return self.menu_buttons.get(key) or self.menu_buttons.get(None) or {"type": "commands"}

    def _api_setWebhook(self, params: JSONDict, files: list[UploadedFile]) -> bool:
        connections = params.get("max_connections", 40)
        if not isinstance(connections, int) or not 1 <= connections <= 100:
            raise bad("invalid max_connections specified")
        self.webhook = dict(params)
        return True

    def _api_deleteWebhook(self, params: JSONDict, files: list[UploadedFile]) -> bool:
        self.webhook = None
        if params.get("drop_pending_updates"):
            self._pending_updates.clear()
        return True

    def _api_getWebhookInfo(self, params: JSONDict, files: list[UploadedFile]) -> JSONDict:
        return {
            "url": (self.webhook or {}).get("url", ""),
            "has_custom_certificate": False,
            "pending_update_count": len(self._pending_updates),
        }

    async def _api_getUpdates(self, params: JSONDict, files: list[UploadedFile]) -> list[JSONDict]:
        offset = int(params.get("offset") or 0)
        self._pending_updates = [u for u in self._pending_updates if u["update_id"] >= offset]
        if not self._pending_updates:
            self._update_queued = queued = asyncio.Event()
            with contextlib.suppress(TimeoutError):
                wait = min(float(params.get("timeout") or 0), self.long_poll_limit)
                await asyncio.wait_for(queued.wait(), wait)
        limit = int(params.get("limit") or 100)
        return copy.deepcopy(self._pending_updates[:limit])

    def _api_close(self, params: JSONDict, files: list[UploadedFile]) -> bool:
        return True

    def _api_logOut(self, params: JSONDict, files: list[UploadedFile]) -> bool:
        return True
