"""The bot's HTTP client for the Bot API: python-telegram-bot's `BaseRequest` over aiohttp.

PTB's own client (HTTPXRequest) spent 0.75–0.85 ms of CPU on each call to a local server, against
0.2 ms for aiohttp's (whose HTTP parser is in C), and every tap costs at least one call (its
answer): with the bot alone in its process (webhook mode, PostgreSQL) httpx, httpcore and anyio
were about a third of its profile, and this client took its CPU per tap from 10.2 to about 7.9 ms
(decisions.md B20). aiohttp is the client aiogram builds on.

It behaves as PTB's client does where the bot relies on it: the same four timeouts with the same
defaults (a call that names one overrides it; a file upload gets the longer media write
timeout), a bounded pool of connections, errors as PTB's `TimedOut` and `NetworkError`, so that
the callers' handling (retries, the outbox's "unsent" path, getUpdates' backoff) is unchanged.
The status and body go back to PTB, which turns Telegram's answers (429 with retry_after, "message
is not modified", migrated chats) into its exceptions as before.
"""

from __future__ import annotations

import functools
from urllib.request import getproxies, proxy_bypass

import aiohttp
from telegram.error import NetworkError, TimedOut
from telegram.request import BaseRequest, RequestData
from yarl import URL

#: PTB's defaults for its own client, kept so that a call's budget is what PTB's documentation says.
READ_TIMEOUT = 5.0
WRITE_TIMEOUT = 5.0
CONNECT_TIMEOUT = 5.0
POOL_TIMEOUT = 1.0
MEDIA_WRITE_TIMEOUT = 20.0


class AiohttpRequest(BaseRequest):
    """Calls to the Bot API over one aiohttp session with at most `connection_pool_size`
    connections, kept alive between calls."""

    def __init__(
        self,
        connection_pool_size: int = 1,
        *,
        read_timeout: float | None = READ_TIMEOUT,
        write_timeout: float | None = WRITE_TIMEOUT,
        connect_timeout: float | None = CONNECT_TIMEOUT,
        pool_timeout: float | None = POOL_TIMEOUT,
        media_write_timeout: float | None = MEDIA_WRITE_TIMEOUT,
    ) -> None:
        self.connection_pool_size = connection_pool_size
        self._read = read_timeout
        self._write = write_timeout
        self._connect = connect_timeout
        self._pool = pool_timeout
        self._media_write = media_write_timeout
        self._session: aiohttp.ClientSession | None = None
        self._proxies: dict[str, URL | None] = {}

    @property
    def read_timeout(self) -> float | None:
        return self._read

    async def initialize(self) -> None:
        """Open the session (it belongs to the running event loop, so it is made here, not in
        __init__); a second call keeps the open one."""
        if self._session is None or self._session.closed:
            self._session = aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(limit=self.connection_pool_size),
                headers={"User-Agent": self.USER_AGENT},
                # The Bot API answers JSON of its own; its cookies, if any, mean nothing to a bot.
                cookie_jar=aiohttp.DummyCookieJar(),
            )

    async def shutdown(self) -> None:
        if self._session is not None and not self._session.closed:
            await self._session.close()
        self._session = None

    async def do_request(
        self,
        url: str,
        method: str,
        request_data: RequestData | None = None,
        # PTB passes a number, None (no limit) or BaseRequest.DEFAULT_NONE (the client's own).
        read_timeout: object = BaseRequest.DEFAULT_NONE,
        write_timeout: object = BaseRequest.DEFAULT_NONE,
        connect_timeout: object = BaseRequest.DEFAULT_NONE,
        pool_timeout: object = BaseRequest.DEFAULT_NONE,
    ) -> tuple[int, bytes]:
        session = self._session
        if session is None or session.closed:
            raise RuntimeError("This AiohttpRequest is not initialized!")
        files = request_data.multipart_data if request_data is not None else None
        fields = request_data.json_parameters if request_data is not None else None
        read = _given(read_timeout, self._read)
        write = _given(write_timeout, self._media_write if files else self._write)
        connect = _given(connect_timeout, self._connect)
        pool = _given(pool_timeout, self._pool)
        timeout = _timeout(pool, connect, write, read)
        body: aiohttp.FormData | dict[str, str] | None = fields
        if files:
            form = aiohttp.FormData()
            for name, value in (fields or {}).items():
                form.add_field(name, value)
            for name, (filename, content, mimetype) in files.items():
                form.add_field(name, content, filename=filename, content_type=mimetype)
            body = form
        try:
            async with session.request(
                method, url, data=body, timeout=timeout, proxy=self._proxy(url)
            ) as response:
                return response.status, await response.read()
        except (TimeoutError, aiohttp.ServerTimeoutError) as err:
            raise TimedOut from err
        except aiohttp.ClientError as err:
            # The class name tells a refused connection from a dropped one when the text is empty.
            raise NetworkError(f"aiohttp.{err.__class__.__name__}: {err}") from err

    def _proxy(self, url: str) -> URL | None:
        """The proxy the environment names for this server; looked up once per server, since
        aiohttp's own `trust_env` reads the whole environment (and ~/.netrc) on every call."""
        key = "/".join(url.split("/", 3)[:3])
        if key not in self._proxies:
            self._proxies[key] = env_proxy(URL(key))
        return self._proxies[key]


def env_proxy(origin: URL) -> URL | None:
    """The proxy for a server as httpx read it from the environment: HTTPS_PROXY or HTTP_PROXY by
    the server's scheme, none for a host NO_PROXY names (Python's `urllib.request` reads the
    variables). A user and password in the proxy's URL are its credentials: aiohttp sends them
    to the proxy."""
    proxy = getproxies().get(origin.scheme)
    if not proxy or (origin.host is not None and proxy_bypass(origin.host)):
        return None
    return URL(proxy)


@functools.lru_cache(maxsize=64)
def _timeout(
    pool: float | None, connect: float | None, write: float | None, read: float | None
) -> aiohttp.ClientTimeout:
    """aiohttp's timeouts for PTB's four, made once per combination (nearly every call uses the
    defaults)."""
    return aiohttp.ClientTimeout(
        # Waiting for a free connection and opening one; aiohttp counts both in `connect`.
        connect=_plus(pool, connect),
        sock_connect=connect,
        sock_read=read,
        # aiohttp has no write timeout of its own: the whole call is bounded instead, so a server
        # that stops reading an upload cannot hold the call for ever.
        total=_plus(_plus(_plus(pool, connect), write), read),
    )


def _given(value: object, default: float | None) -> float | None:
    """A call's own timeout, or the client's when the call names none (PTB's DEFAULT_NONE, which
    its documentation says to test by identity)."""
    if value is BaseRequest.DEFAULT_NONE:
        return default
    if value is None or isinstance(value, int | float):
        return value
    raise TypeError(f"a timeout must be a number of seconds or None, not {value!r}")


def _plus(a: float | None, b: float | None) -> float | None:
    """Two timeouts one after the other; None (no limit) if either has none."""
    return None if a is None or b is None else a + b
