"""The one seam (`services.call`): what every kind of update gets the same way — a refusal undoes
what the use case began, is worded in the right language and answered as that kind answers, and a
refusal a group admin may escape first asks whether the person is one."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace
from datetime import datetime
from pathlib import Path

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from tgbot.errors import Refusal, ServiceError
from tgbot.services.call import (
    Answer,
    CommandCall,
    EventCall,
    InlineAnswer,
    InlineCall,
    KeyCall,
    Noted,
    Replied,
    command_service,
    event_service,
    inline_service,
)
from tgbot.services.env import Env
from tgbot.services.origins import ChatEvent, Command, InlineQuery, Tap
from tgbot.services.people import Person
from tgbot.store.db import create_all, make_engine, session_scope
from tgbot.store.models import Chat, OutboxRow, User

NOW = datetime(2026, 1, 1, 12, 0)
GROUP = -500
ANA = Person(1, "Ana", language_code="es")


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Engine]:
    engine_ = make_engine(f"sqlite:///{tmp_path / 'call.sqlite3'}")
    create_all(engine_)
    yield engine_
    engine_.dispose()


def env() -> Env:
    return Env(now=NOW)


def replies(session: Session) -> list[str]:
    return [row.payload for row in session.exec(select(OutboxRow).order_by(OutboxRow.id)).all()]


@command_service
def titled_then_refused(call: CommandCall) -> Replied:
    """Writes (the chat's title), then refuses: the write must not survive."""
    chat = call.session.get(Chat, call.command.chat_id)
    assert chat is not None
    chat.title = "written before the refusal"
    call.session.add(chat)
    call.session.flush()
    raise ServiceError(Refusal.NOT_PAUSED)


def test_a_refused_command_undoes_its_writes_and_replies_once_in_the_groups_language(db: Engine) -> None:
    with session_scope(db) as session:
        session.add(Chat(id=GROUP, title="Amigos", language="ja", created_at=NOW))
    with session_scope(db) as session:
        replied = titled_then_refused(session, env(), Command(ANA, GROUP))
    assert replied.outcome == "not_paused" and not replied.need_admin
    with session_scope(db) as session:
        chat = session.get(Chat, GROUP)
        assert chat is not None and chat.title == "Amigos"  # the savepoint undid the change
        (payload,) = replies(session)
    assert "ゲームは一時停止していません。" in payload  # the group's language (Japanese), not Ana's


@command_service
def managers_only(call: CommandCall) -> Replied:
    if not call.command.admin:
        raise ServiceError(Refusal.NOT_CREATOR)
    call.reply("done")
    return Replied()


def test_a_managers_refusal_first_asks_for_admin_rights_and_says_nothing(db: Engine) -> None:
    with session_scope(db) as session:
        asked = managers_only(session, env(), Command(ANA, GROUP))
    assert asked.need_admin
    with session_scope(db) as session:
        assert replies(session) == []  # nothing said before Telegram is asked
        refused = managers_only(session, env(), Command(ANA, GROUP, admin=False))
    assert not refused.need_admin and refused.outcome == "not_creator"
    with session_scope(db) as session:
        assert len(replies(session)) == 1  # said once, now that Telegram answered
        allowed = managers_only(session, env(), Command(ANA, GROUP, admin=True))
    assert allowed.outcome == "ok"


def test_an_update_is_applied_once_and_the_run_that_asked_for_admin_rights_does_not_count(
    db: Engine,
) -> None:
    """The first run of an update only asks whether the person is an admin: the run with the
    answer is the one recorded, and the update delivered again (its first run asking again, then
    with the answer) changes nothing, even a refusal's reply."""
    update = Command(ANA, GROUP, update_id=77)
    with session_scope(db) as session:
        assert managers_only(session, env(), update).need_admin
    with session_scope(db) as session:
        assert managers_only(session, env(), replace(update, admin=True)).outcome == "ok"
    with session_scope(db) as session:
        assert len(replies(session)) == 1
    for again in (update, replace(update, admin=True), replace(update, admin=False)):
        with session_scope(db) as session:
            assert managers_only(session, env(), again).outcome == "duplicate"
    with session_scope(db) as session:
        assert len(replies(session)) == 1
    # A refused update is recorded with its reply: delivered again, it says nothing more.
    refused = Command(ANA, GROUP, update_id=78, admin=False)
    for _ in range(2):
        with session_scope(db) as session:
            managers_only(session, env(), refused)
    with session_scope(db) as session:
        assert len(replies(session)) == 2


def refusing(reason: Refusal, **details: object) -> Callable[[], Answer]:
    def use_case() -> Answer:
        raise ServiceError(reason, **details)

    return use_case


def test_a_key_refusal_is_a_popup_in_the_tappers_own_language(db: Engine) -> None:
    with session_scope(db) as session:
        session.add(User(id=ANA.id, first_name="Ana", language="vi", created_at=NOW))
    with session_scope(db) as session:
        call = KeyCall(session, env(), Tap(ANA, GROUP, 7, private=False))
        answer = call.attempt(refusing(Refusal.LOBBY_FULL))
    assert answer.outcome == "lobby_full" and not answer.alert
    assert answer.text == "Đã đủ người (6 người chơi)."  # her /language choice, not Telegram's
    with session_scope(db) as session:
        call = KeyCall(session, env(), Tap(ANA, GROUP, 7, private=False))
        illegal = call.attempt(refusing(Refusal.ILLEGAL, rule="no_victims"))
    assert illegal.alert and illegal.outcome == "illegal"


@inline_service
def refused_inline(call: InlineCall) -> InlineAnswer:
    raise ServiceError(Refusal.NO_GAME)


@event_service
def refused_event(call: EventCall) -> Noted:
    raise ServiceError(Refusal.NOT_IN_GAME)


def test_an_inline_refusal_is_the_button_above_an_empty_list_and_an_events_is_its_outcome(
    db: Engine,
) -> None:
    """A line of the list would post the refusal as the person's own message wherever they typed;
    the button above the list posts nothing."""
    with session_scope(db) as session:
        listed = refused_inline(session, env(), InlineQuery(ANA, ""))
        noted = refused_event(session, env(), ChatEvent(GROUP))
    assert listed.outcome == "no_game" and listed.results == []
    assert listed.button is not None and listed.button.text != ""
    assert noted == Noted("not_in_game")
