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
  well under 2,000 characters; the move report above it is cut to
  `REPORT_BUDGET` so the two together always fit.
"""

from __future__ import annotations

import re

from ..i18n import _

MESSAGE_LIMIT = 4096
CALLBACK_LIMIT = 64
KEYS_LIMIT = 100
ROW_LIMIT = 8
POPUP_LIMIT = 200
REPORT_BUDGET = 1800  # the move report above a board (a long burst of computer moves)

_TAG = re.compile(r"<[^>]*>")
_ENTITY = re.compile(r"&(?:lt|gt|amp|quot|#\d+|#x[0-9a-fA-F]+);")


def visible_length(html: str) -> int:
    """Length of an HTML text as Telegram counts it (tags removed, entities as one character)."""
    plain = _ENTITY.sub("&", _TAG.sub("", html))
    return len(plain.encode("utf-16-le")) // 2


def fit_lines(lang: str, lines: list[str], budget: int = REPORT_BUDGET) -> list[str]:
    """Keep whole lines (each is balanced HTML) within `budget`; say how many were left out.

    The first and the last lines are the most useful (what started the burst,
    what happened just before the board), so the middle is what goes.
    """
    total = sum(visible_length(line) + 1 for line in lines)
    if total <= budget:
        return lines
    head: list[str] = []
    tail: list[str] = []
    used = 40  # room for the "… n more" line
    i, j = 0, len(lines) - 1
    while i <= j:
        take_tail = len(tail) < len(head)
        line = lines[j] if take_tail else lines[i]
        cost = visible_length(line) + 1
        if used + cost > budget:
            break
        used += cost
        if take_tail:
            tail.insert(0, line)
            j -= 1
        else:
            head.append(line)
            i += 1
    skipped = len(lines) - len(head) - len(tail)
    return [*head, _(lang, "… ({n} more) …", n=skipped), *tail]
