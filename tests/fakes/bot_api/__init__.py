"""The fake Telegram Bot API, one module per concern; tests import it from ``tests.fakes.telegram``.

``common`` (constants, errors), ``html`` (parse mode), ``records`` (what the fake stores and hands
out), ``markup`` (keyboards), ``state`` (the world every part shares), ``chats`` (chats, people
and who is in which), ``store`` (messages and what a chat shows), ``updates`` (what people do, as
updates), ``people`` (what people do that the bot may never hear of), ``inline`` and
``inline_results`` (inline mode), ``messages`` (the bot's sends and edits), ``server`` (the
``BaseRequest`` and everything else), ``driver``, ``executor`` and ``client`` (the test client).
"""
