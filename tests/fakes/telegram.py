"""An in-memory Telegram Bot API for end-to-end tests of the real PTB ``Application``.

Why a fake server instead of mocking ``Bot`` methods: the bot's behaviour under Telegram's rules
(message ids, "message is not modified", callback queries answerable once, 403 for blocked users,
429 flood control, HTML that fails to parse, 64-byte callback data) is exactly what the shell has
to get right, and mocks would happily accept anything. This class plugs in where PTB would do HTTP
(``telegram.request.BaseRequest``), so every layer above it -- ``Bot``, ``ExtBot``, defaults, rate
limiter, ``Application``, handlers -- runs unchanged and sees real Telegram-shaped JSON.

The fake is made of the modules of ``tests/fakes/bot_api`` (one per concern: chats and
membership, messages, updates, inline mode, the test client...); this module gathers their public
names, and tests import them from here.

Usage::

    fake = FakeTelegram()
    app = fake.application_builder().build()
    app.add_handler(...)
    alice = fake.user(1, "Alice")
    group = fake.group("Friends")
    async with TelegramTestClient(app, fake) as tg:
        await tg.send(group, alice, "/newgame@tweak_test_bot")
        lobby = fake.last_message(group.id)
        answer = await tg.tap(alice, lobby, "Join")

Telegram's limits on virtual time (``settle`` jumps the timer whenever the bot's tasks are only
waiting for it, so a 60 s flood wait takes milliseconds)::

    timer = VirtualTimer()
    fake = FakeTelegram(flood=FloodLimits(), timer=timer)
    async with TelegramTestClient(app, fake) as tg:      # adopts fake.timer
        await tg.process_many([fake.callback_update(alice, board, "move") for _ in range(30)])
        assert fake.count_429() == 0 and fake.max_writes_in_window(group.id, 60) <= 20

Faithfulness notes (each is something real Telegram does and the bot must cope with):

* Message ids are unique across the whole fake (Telegram only promises per-chat monotonicity),
  so a message id used with the wrong chat is caught instead of silently hitting another message.
* HTML (``parse_mode="HTML"``) is parsed with Telegram's rules; the stored/returned ``text`` is what
  the user sees (tags removed, entities unescaped, surrounding whitespace trimmed) and ``source``
  is what the bot sent. Markdown modes are stored verbatim and not validated.
* Editing text or caption without ``reply_markup`` removes the inline keyboard, as Telegram does.
* "Not modified" compares visible text, entities and keyboard -- like Telegram, not the raw source.
* A private chat only accepts messages once the user has opened it (``private(user)``, any update
  from that user in it, or a deep link: ``link_updates``/``tg.open_link``); otherwise 403 "bot
  can't initiate conversation with a user".
* The bot is in its private chats and in groups until it leaves or is kicked; it is never in a
  chat between two people (``private_between``) or a group built ``with_bot=False``. There it gets
  no updates, and its calls fail as the Bot API server fails them (``bot_api/chats.py``: "chat not
  found", "bot is not a member of the (super)group chat", "bot was kicked from ..."), yet people
  can post there via the bot and the chat keeps a transcript (``transcript``, ``read_chat``).
* Forum topics must be declared (``forum(topics=...)`` / ``add_topic``); unknown threads are a 400.
* Flood limits (``FakeTelegram(flood=FloodLimits())``, off by default): per group 20 writes in any
  60 s, per private chat 1 a second, 30 a second in all; writes are ``MESSAGE_METHODS`` (edits and
  deletions count). A write over a limit is not applied and answers 429 "Too Many Requests: retry
  after N" with ``parameters.retry_after`` = whole seconds until it would pass (at least 1), and
  does not count. Validation errors (400/403, "not modified") come first and cost nothing.
  Accepted writes are recorded either way (``write_times``, ``max_writes_in_window``), 429s too
  (``count_429``, ``flood_rejections``). Windows and deadlines read ``timer`` (real monotonic time
  by default, a ``VirtualTimer`` in tests), never the wall ``clock``.
* A callback query is answerable for ``answer_timeout`` (15 s) after ``callback_update`` made it,
  and once; later or again: 400 "query is too old and response timeout expired or query ID is
  invalid", and the query stays unanswered (``CallbackAnswer.expired`` says it was too late).
  Its ``url`` may only be a ``t.me/<bot>?start=…`` link to this bot (400 URL_INVALID otherwise),
  and the tapper's app opens it only when the answer has no text (``tg.follow``).
* Inline mode (``inline_mode=True``; getMe's ``supports_inline_queries``): an inline query is
  answerable once within ``inline_answer_timeout`` (10 s), from any chat. answerInlineQuery checks
  its button and results like the Bot API server ("can't parse inline query result: ...", e.g.
  ``Can't find field "title"``, HTML errors) and then like Telegram (RESULTS_TOO_MUCH over 50,
  RESULT_ID_DUPLICATE, RESULT_ID_INVALID over 64 bytes, ARTICLE_TITLE_EMPTY, MESSAGE_EMPTY,
  MESSAGE_TOO_LONG over 4096, NEXT_OFFSET_INVALID over 64 bytes, start_parameter rules). A picked
  result is the *user's* message with ``via_bot`` (no flood budget), in the chat's transcript; the
  bot gets it in chats it is in, and a ``chosen_inline_result`` only with ``inline_feedback=True``.
  A result with a keyboard becomes an inline message: taps on it carry ``inline_message_id`` and
  the chat's ``chat_instance``, not ``message``; edits by ``inline_message_id`` return True, never
  notify, count against the chat the message is in, and answer MESSAGE_ID_INVALID once a person
  deleted it (``delete_by``). A forward keeps no callback keys (``forward_message``). The sources
  of each rule are in ``bot_api/inline.py`` and ``bot_api/people.py``.
* Ephemeral messages (Bot API 10.2/10.3, ``bot_api/ephemeral.py``): sends with
  ``ephemeral_message_parameters`` in groups only, by a bot answering the person's tap or
  ephemeral message of the last 15 s or by an administrator bot; ``message_id`` 0 and an
  ``ephemeral_message_id`` per chat and receiver, reused once free; seen by their person only
  (``read_chat(chat, viewer)``), never in the public transcript; edits and deletions by
  ``editEphemeralMessage…``/``deleteEphemeralMessage``; offline people, expiry and app restarts;
  ephemeral commands and replies; taps whose ``message`` is the ephemeral message.
"""

from __future__ import annotations

from tests.fakes.bot_api.client import TelegramTestClient
from tests.fakes.bot_api.common import (
    BLOCKED,
    BOT_FIRST_NAME,
    BOT_ID,
    BOT_USERNAME,
    CALLBACK_ANSWER_TIMEOUT,
    CANT_INITIATE,
    INLINE_ANSWER_TIMEOUT,
    MESSAGE_METHODS,
    NOT_MODIFIED,
    QUERY_INVALID,
    TEST_TOKEN,
    ChatMemberStatus,
    InlineChatType,
    JSONDict,
    Monotonic,
    SystemMonotonic,
)
from tests.fakes.bot_api.driver import SETTLE_TIMEOUT, VIRTUAL_SETTLE_LIMIT
from tests.fakes.bot_api.ephemeral import EPHEMERAL_METHODS, EPHEMERAL_WINDOW, StoredEphemeral
from tests.fakes.bot_api.html import parse_html
from tests.fakes.bot_api.records import (
    ApiCall,
    CallbackAnswer,
    FakeChat,
    FakeUser,
    InlineAnswer,
    Revision,
    StoredMessage,
    UploadedFile,
    chat_member_json,
)
from tests.fakes.bot_api.server import WEBHOOK_REPLY_URL, FakeTelegram

__all__ = [
    "BLOCKED",
    "BOT_FIRST_NAME",
    "BOT_ID",
    "BOT_USERNAME",
    "CALLBACK_ANSWER_TIMEOUT",
    "CANT_INITIATE",
    "EPHEMERAL_METHODS",
    "EPHEMERAL_WINDOW",
    "INLINE_ANSWER_TIMEOUT",
    "MESSAGE_METHODS",
    "NOT_MODIFIED",
    "QUERY_INVALID",
    "SETTLE_TIMEOUT",
    "TEST_TOKEN",
    "VIRTUAL_SETTLE_LIMIT",
    "WEBHOOK_REPLY_URL",
    "ApiCall",
    "CallbackAnswer",
    "ChatMemberStatus",
    "FakeChat",
    "FakeTelegram",
    "FakeUser",
    "InlineAnswer",
    "InlineChatType",
    "JSONDict",
    "Monotonic",
    "Revision",
    "StoredEphemeral",
    "StoredMessage",
    "SystemMonotonic",
    "TelegramTestClient",
    "UploadedFile",
    "chat_member_json",
    "parse_html",
]
