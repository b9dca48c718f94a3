"""Test doubles for the outside world, so the suite never needs a network."""

from tests.fakes.flood import FloodLimits, FloodRejection, WriteLimit
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
    InlineAnswer,
    Revision,
    StoredMessage,
    TelegramTestClient,
    UploadedFile,
)
from tests.fakes.timer import VirtualTimer

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
    "FloodLimits",
    "FloodRejection",
    "InlineAnswer",
    "Revision",
    "StoredMessage",
    "TelegramTestClient",
    "UploadedFile",
    "VirtualTimer",
    "WriteLimit",
]
