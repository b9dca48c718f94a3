"""Test doubles for the outside world, so the suite never needs a network."""

from tests.fakes.telegram import (
    BOT_FIRST_NAME,
    BOT_ID,
    BOT_USERNAME,
    MESSAGE_METHODS,
    TEST_TOKEN,
    ApiCall,
    CallbackAnswer,
    FakeChat,
    FakeTelegram,
    FakeUser,
    Revision,
    StoredMessage,
    TelegramTestClient,
    UploadedFile,
)

__all__ = [
    "BOT_FIRST_NAME",
    "BOT_ID",
    "BOT_USERNAME",
    "MESSAGE_METHODS",
    "TEST_TOKEN",
    "ApiCall",
    "CallbackAnswer",
    "FakeChat",
    "FakeTelegram",
    "FakeUser",
    "Revision",
    "StoredMessage",
    "TelegramTestClient",
    "UploadedFile",
]
