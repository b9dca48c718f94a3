"""Telegram's size limits, and keeping long content inside them.

Limits (Bot API): a message has at most 4,096 characters after entity parsing,
callback data at most 64 bytes, an inline keyboard at most 100 keys and 8 keys
per row, a callback answer (popup or toast) at most 200 characters. Lengths are
counted in UTF-16 code units, so a colour emoji such as 🟥 counts twice.

Worst cases of this bot, checked by tests/bot/test_group_changes.py:

* table keys: at most 54 number cards exist, so at most 54 table keys in rows of
  8 (7 rows), plus 3 hand keys, 4 [T!] keys, 3 actions and 2 utility keys: 66
  keys, far below 100 — no paging is needed;
* callback data: `c:<game>:<version>:<hand>:<mask>` with a 54-bit mask (14 hex
  digits) and 12-digit ids is 44 bytes;
* a board with six 64-character names (shortened to 24) and a full table is
  well under 2,000 characters; the move report above it is told in runs of at
  most `REPORT_BUDGET` (`chunks`), so the two together always fit.
"""

from __future__ import annotations

import re

MESSAGE_LIMIT = 4096
CALLBACK_LIMIT = 64
KEYS_LIMIT = 100
ROW_LIMIT = 8
POPUP_LIMIT = 200
REPORT_BUDGET = 1800  # the move report above a board (a long burst of computer moves)

_TAG = re.compile(r"<[^>]*>")
_ENTITY = re.compile(r"&(?:lt|gt|amp|quot|#\d+|#x[0-9a-fA-F]+);")


def utf16_length(text: str) -> int:
    """Length of a plain text (a popup) as Telegram counts it: in UTF-16 code units."""
    return len(text.encode("utf-16-le")) // 2


def visible_length(html: str) -> int:
    """Length of an HTML text as Telegram counts it (tags removed, entities as one character)."""
    return utf16_length(_ENTITY.sub("&", _TAG.sub("", html)))


def chunks(lines: list[str], budget: int = REPORT_BUDGET) -> list[list[str]]:
    """Whole lines (each is balanced HTML) in runs of at most `budget` characters: a long report
    is told in several messages rather than cut (never empty: at least one run)."""
    runs: list[list[str]] = [[]]
    used = 0
    for line in lines:
        cost = visible_length(line) + 1
        if runs[-1] and used + cost > budget:
            runs.append([])
            used = 0
        runs[-1].append(line)
        used += cost
    return runs
