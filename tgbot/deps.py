"""What a running bot shares between its handlers, kept in `application.bot_data`.

Handlers reach it through the custom context (`handlers.context.TweakContext.deps`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any, Concatenate, ParamSpec, TypeVar

from sqlmodel import Session

from .delivery.process import Delivery
from .delivery.webhook_replies import WebhookReplies
from .pacing import DEFAULT_PACE, Pace, PaceName
from .services.env import Env, random_seed
from .store.db import Database
from .time_source import Clock, SystemClock, SystemTimer, Timer
from .turn_clock import LOBBY_TTL, PAUSE_MAX

DEPS_KEY = "tweakbot.deps"

P = ParamSpec("P")
T = TypeVar("T")

#: A service: a use case run in one transaction, at one moment (`Env`), with what the update said.
Service = Callable[Concatenate[Session, Env, P], T]


@dataclass
class Autoplaying:
    """The games whose bot-played seats this process is playing now (`jobs.autoplay`): one task a
    game, and the newest version a turn was asked for at. Only a way to play each game's turns
    one after the other here: what is due lives in the game rows (`services.autoplay`)."""

    tasks: dict[int, asyncio.Task[None]] = field(default_factory=dict)
    wanted: dict[int, int] = field(default_factory=dict)


@dataclass
class Deps:
    db: Database
    delivery: Delivery
    clock: Clock = field(default_factory=SystemClock)
    timer: Timer = field(default_factory=SystemTimer)
    custom_pace: Pace | None = None
    default_pace: PaceName = DEFAULT_PACE
    lobby_ttl: timedelta = LOBBY_TTL
    pause_max: timedelta = PAUSE_MAX
    seed_source: Callable[[], int] = random_seed
    #: Learnt from getMe at start-up.
    bot_username: str = "tweakbot"
    inline: bool = False
    stats: dict[str, Any] = field(default_factory=dict)
    #: Taps whose webhook request waits for their answer (tgbot/delivery/webhook_replies.py);
    #: always empty in polling mode.
    webhook_replies: WebhookReplies = field(default_factory=WebhookReplies)
    autoplaying: Autoplaying = field(default_factory=Autoplaying)

    async def run(self, service: Service[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """`service(session, env, *args)` in one transaction, off the event loop (DatabaseTrouble
        when the database does not answer in time). The handlers' only way to the services: they
        hold no session and no transaction of their own."""
        env = self.env()
        return await self.db.run(lambda session: service(session, env, *args, **kwargs))

    def env(self) -> Env:
        """The services' view of this moment: the clock read once for a whole update."""
        return Env(
            now=self.clock.now(),
            custom_pace=self.custom_pace,
            default_pace=self.default_pace,
            lobby_ttl=self.lobby_ttl,
            pause_max=self.pause_max,
            bot_username=self.bot_username,
            inline=self.inline,
            new_seed=self.seed_source,
        )


def get_deps(bot_data: dict[str, Any]) -> Deps:
    deps = bot_data[DEPS_KEY]
    assert isinstance(deps, Deps)
    return deps
