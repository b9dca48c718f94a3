"""Which table a chat id is: a group, practice (a private chat), or a chat reached by inline mode."""

from __future__ import annotations

from tgbot.tables import INLINE_CHAT_IDS_FROM, TableKind, inline_chat_id

#: Telegram's ids: a person (and their private chat), a basic group, a supergroup or channel.
PERSON, GROUP, SUPERGROUP = 7_012_345_678, -4_012_345_678, -1_002_345_678_901
#: Telegram says its ids have at most 52 significant bits.
LARGEST_TELEGRAM_ID = 2**52


def test_telegrams_chats_are_groups_or_practice() -> None:
    assert TableKind.of_chat(PERSON) is TableKind.PRACTICE
    assert TableKind.of_chat(GROUP) is TableKind.GROUP
    assert TableKind.of_chat(SUPERGROUP) is TableKind.GROUP
    assert TableKind.of_chat(-LARGEST_TELEGRAM_ID) is TableKind.GROUP


def test_an_inline_game_has_a_chat_id_of_its_own_below_every_telegram_id() -> None:
    first_messages = ["AgAAAKR0AQDwzBE_aGVsbG8", "AgAAAKR0AQDwzBE_aGVsbG9", "1", "x" * 64]
    ids = [inline_chat_id(i) for i in first_messages]
    assert ids == [inline_chat_id(i) for i in first_messages]  # whichever instance computes it
    assert len(set(ids)) == len(ids)
    assert all(i <= INLINE_CHAT_IDS_FROM < -LARGEST_TELEGRAM_ID for i in ids)
    assert all(TableKind.of_chat(i) is TableKind.INLINE for i in ids)
    assert all(i >= -(2**63) for i in ids)  # a BIGINT column holds it
