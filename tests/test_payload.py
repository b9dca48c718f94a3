"""The outbox payload: rows written by earlier versions load, and what is written keeps their form
(the JSON below is as those versions wrote it, by hand)."""

from __future__ import annotations

from tgbot.store.outbox import Fallback, Media, MediaKind, Message, Payload, Priority
from tgbot.store.surfaces import Board

OLD_ROWS = [
    '{"text":"🃏 Board","keys":[[{"text":"👀","callback_data":"h:1"}]],"thread_id":5,"bottom":true}',
    '{"text":"","keys":[],"message_id":42,"edit_only":true,"keys_only":true}',
    '{"text":"Your turn","notify":true,"fallback":{"chat_id":-100,"surface":null,"text":"@ana, your turn",'
    '"reply_to":"board:1:2","notify":true}}',
    '{"text":"Chart","media":{"kind":"photo","filename":"c.png","chart":{"game":1}},"fresh":true}',
    '{"text":"Replay","thread_id":3,"media":{"kind":"document","filename":"g.jsonl","data":"e30K"}}',
]


def test_rows_written_before_load_and_are_written_back_the_same() -> None:
    for text in OLD_ROWS:
        assert Payload.from_json(text).to_json() == text


def test_a_row_from_another_version_with_unknown_fields_still_loads() -> None:
    payload = Payload.from_json('{"text":"hi","colour":"blue","message_id":"7"}')
    assert payload == Payload(text="hi", message_id=7)


def test_a_message_with_a_fallback_keeps_it_in_its_payload() -> None:
    group = Message(-100, Payload("@ana, your turn", reply_to=Board(1, 2), notify=True))
    message = Message(
        1, Payload("Your turn", notify=True, fallback=group.as_fallback()), priority=Priority.TURN
    )
    payload = message.payload
    assert payload.fallback == Fallback(
        -100, None, Payload("@ana, your turn", reply_to=Board(1, 2), notify=True)
    )
    assert payload.to_json() == OLD_ROWS[2]


def test_a_file_is_typed_media() -> None:
    chart, replay = Payload.from_json(OLD_ROWS[3]), Payload.from_json(OLD_ROWS[4])
    assert chart.media == Media(MediaKind.PHOTO, "c.png", chart={"game": 1})
    assert replay == Payload("Replay", thread_id=3, media=Media(MediaKind.DOCUMENT, "g.jsonl", data="e30K"))
