"""HTML parse mode, following tdlib's ``parse_html`` (the error texts are Telegram's).

What a user sees is the visible text (tags removed, entities unescaped, surrounding whitespace
trimmed) with its entities; Markdown modes are kept verbatim and not validated.
"""

from __future__ import annotations

import re
from typing import Any

from tests.fakes.bot_api.common import ApiError, JSONDict, bad, utf16_len

_HTML_TAGS = frozenset(
    {"a", "b", "strong", "i", "em", "s", "strike", "del", "u", "ins", "tg-spoiler", "tg-emoji", "span"}
    | {"pre", "code", "blockquote"}
)
_TAG_ENTITY = {
    "b": "bold",
    "strong": "bold",
    "i": "italic",
    "em": "italic",
    "s": "strikethrough",
    "strike": "strikethrough",
    "del": "strikethrough",
    "u": "underline",
    "ins": "underline",
    "tg-spoiler": "spoiler",
    "span": "spoiler",
    "code": "code",
    "pre": "pre",
    "blockquote": "blockquote",
    "tg-emoji": "custom_emoji",
}
_SPACES = " \t\r\n"
_NAMED_ENTITIES = {"lt": "<", "gt": ">", "amp": "&", "quot": '"'}


def _decode_html_entity(text: str, pos: int) -> tuple[str, int] | None:
    """Decode the entity at ``text[pos] == '&'``; None means Telegram keeps the '&' literally."""
    end = text.find(";", pos + 1, pos + 12)
    if end == -1:
        return None
    name = text[pos + 1 : end]
    if name in _NAMED_ENTITIES:
        return _NAMED_ENTITIES[name], end + 1
    if name.startswith("#") and len(name) > 1:
        try:
            code = int(name[2:], 16) if name[1] in "xX" else int(name[1:])
        except ValueError:
            return None
        if 0 < code <= 0x10FFFF and not 0xD800 <= code <= 0xDFFF:
            return chr(code), end + 1
    return None


def parse_html(text: str) -> tuple[str, list[JSONDict]]:
    """Return (visible text, entities) for an HTML message, or raise Telegram's 400."""

    def fail(reason: str) -> ApiError:
        return bad(f"can't parse entities: {reason}")

    def byte_offset(pos: int) -> int:
        return len(text[:pos].encode("utf-8"))

    out: list[str] = []
    offset = 0  # in UTF-16 code units, like Telegram's entity offsets
    stack: list[tuple[str, str | None, int]] = []
    entities: list[JSONDict] = []
    i, n = 0, len(text)
    while i < n:
        char = text[i]
        if char == "&":
            decoded = _decode_html_entity(text, i)
            piece, i = decoded if decoded else ("&", i + 1)
            out.append(piece)
            offset += utf16_len(piece)
            continue
        if char != "<":
            out.append(char)
            offset += utf16_len(char)
            i += 1
            continue
        begin = i
        i += 1
        if i < n and text[i] == "/":
            if not stack:
                raise fail(f"Unexpected end tag at byte offset {byte_offset(begin)}")
            i += 1
            name_begin = i
            while i < n and text[i] not in _SPACES and text[i] != ">":
                i += 1
            end_name = text[name_begin:i].lower()
            while i < n and text[i] in _SPACES:
                i += 1
            if i >= n or text[i] != ">":
                raise fail(f"Unclosed end tag at byte offset {byte_offset(begin)}")
            i += 1
            open_tag, open_argument, start = stack.pop()
            if end_name and end_name != open_tag:
                raise fail(
                    f'Unmatched end tag at byte offset {byte_offset(begin)}, expected "</{open_tag}>", '
                    f'found "</{end_name}>"'
                )
            if offset > start:
                _close_entity(entities, open_tag, open_argument, start, offset - start)
            continue
        name_begin = i
        while i < n and text[i] not in _SPACES and text[i] != ">":
            i += 1
        if i >= n:
            raise fail(f"Unclosed start tag at byte offset {byte_offset(begin)}")
        tag = text[name_begin:i].lower()
        if tag not in _HTML_TAGS:
            raise fail(f'Unsupported start tag "{tag}" at byte offset {byte_offset(begin)}')
        attributes: dict[str, str] = {}
        while True:
            while i < n and text[i] in _SPACES:
                i += 1
            if i >= n:
                raise fail(f"Unclosed start tag at byte offset {byte_offset(begin)}")
            if text[i] == ">":
                i += 1
                break
            attr_begin = i
            while i < n and text[i] not in _SPACES and text[i] not in "=>":
                i += 1
            attribute = text[attr_begin:i].lower()
            if not attribute:
                raise fail(f'Empty attribute name in the tag "{tag}" at byte offset {byte_offset(begin)}')
            while i < n and text[i] in _SPACES:
                i += 1
            if i >= n:
                raise fail(f"Unclosed start tag at byte offset {byte_offset(begin)}")
            if text[i] != "=":
                attributes[attribute] = ""
                continue
            i += 1
            while i < n and text[i] in _SPACES:
                i += 1
            if i >= n:
                raise fail(f"Unclosed start tag at byte offset {byte_offset(begin)}")
            if text[i] in "'\"":
                quote = text[i]
                i += 1
                value: list[str] = []
                while i < n and text[i] != quote:
                    decoded = _decode_html_entity(text, i) if text[i] == "&" else None
                    piece, i = decoded if decoded else (text[i], i + 1)
                    value.append(piece)
                if i >= n:
                    raise fail(f"Unclosed start tag at byte offset {byte_offset(begin)}")
                i += 1
                attributes[attribute] = "".join(value)
            else:
                token_begin = i
                while i < n and ((text[i].isascii() and text[i].isalnum()) or text[i] in ".-"):
                    i += 1
                if i >= n or (text[i] not in _SPACES and text[i] != ">"):
                    raise fail(f"Unexpected end of name token at byte offset {byte_offset(token_begin)}")
                attributes[attribute] = text[token_begin:i].lower()
        argument: str | None = None
        if tag == "a":
            argument = attributes.get("href", "")
        elif tag == "span" and attributes.get("class") != "tg-spoiler":
            raise fail(f'Tag "span" must have class "tg-spoiler" at byte offset {byte_offset(begin)}')
        elif tag == "code" and attributes.get("class", "").startswith("language-"):
            argument = attributes["class"].removeprefix("language-")
        elif tag == "tg-emoji":
            argument = attributes.get("emoji-id")
            if not argument:
                raise fail(
                    f'Tag "tg-emoji" must have attribute "emoji-id" at byte offset {byte_offset(begin)}'
                )
        elif tag == "blockquote" and "expandable" in attributes:
            argument = "expandable"
        stack.append((tag, argument, offset))
    if stack:
        raise fail(f'Can\'t find end tag corresponding to start tag "{stack[-1][0]}"')
    entities.sort(key=lambda e: (e["offset"], -e["length"]))
    return "".join(out), entities


def _close_entity(entities: list[JSONDict], tag: str, argument: str | None, offset: int, length: int) -> None:
    entity: JSONDict = {"type": _TAG_ENTITY.get(tag, tag), "offset": offset, "length": length}
    if tag == "a":
        if not argument:
            return
        match = re.fullmatch(r"tg://user\?id=(\d+)", argument)
        if match:
            entity = {
                "type": "text_mention",
                "offset": offset,
                "length": length,
                "user": {"id": int(match.group(1)), "is_bot": False, "first_name": "User"},
            }
        else:
            entity = {"type": "text_link", "offset": offset, "length": length, "url": argument}
    elif tag == "code" and argument:
        entity["language"] = argument
    elif tag == "pre":
        # <pre><code class="language-x">…</code></pre> becomes one pre entity with a language.
        inner = entities[-1] if entities else None
        if inner and inner["type"] == "code" and (inner["offset"], inner["length"]) == (offset, length):
            entities.pop()
            if "language" in inner:
                entity["language"] = inner["language"]
    elif tag == "tg-emoji":
        entity["custom_emoji_id"] = argument
    elif tag == "blockquote" and argument == "expandable":
        entity["type"] = "expandable_blockquote"
    entities.append(entity)


def trim(text: str, entities: list[JSONDict]) -> tuple[str, list[JSONDict]]:
    """Telegram trims surrounding whitespace; entities shift with it (and "x\\n" equals "x")."""
    stripped = text.strip()
    if stripped == text:
        return text, entities
    lead = utf16_len(text[: len(text) - len(text.lstrip())])
    size = utf16_len(stripped)
    kept: list[JSONDict] = []
    for entity in entities:
        start = max(0, entity["offset"] - lead)
        end = min(size, entity["offset"] + entity["length"] - lead)
        if end > start:
            kept.append({**entity, "offset": start, "length": end - start})
    return stripped, kept


def render(source: str, parse_mode: Any, entities: Any) -> tuple[str, list[JSONDict]]:
    """What a message's text looks like to users: (visible text, entities), or Telegram's 400."""
    if isinstance(parse_mode, str) and parse_mode.upper() == "HTML":
        plain, found = parse_html(source)
    else:
        plain, found = source, [dict(e) for e in entities or []]
    return trim(plain, found)
