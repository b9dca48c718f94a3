"""Work that falls due: the sweep, run on time for the next due game and every few seconds anyway,
and the turns the bot plays at once, right after the commit that gave them.

After each commit that sets a game's `wake_at`, the process is told when to wake
(`store.db.AfterCommit.wake_at`): a one-off job is scheduled for that moment, so a live game's
reminder or deadline comes on time to the second. A repeating job sweeps every
`sweep_interval` as the safety net (and catches up after a restart). Both run the same `sweep`.

A commit that gave the turn to a seat the bot plays (a computer, a person who left or is away)
names the game (`AfterCommit.autoplay`), and `autoplay` plays its turns on a task of this
process, one move a transaction (`services.autoplay`), until the turn is a person's. The sweep
takes over such a turn whose process stopped before playing it, and hands it here the same way.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Mapping
from datetime import datetime

from telegram.ext import Application, ContextTypes

from . import metrics
from .deps import Deps, get_deps
from .services import autoplay as autoplay_service
from .services import sweep as sweep_service
from .services.env import Env
from .store.db import DatabaseTrouble

log = logging.getLogger("tweakbot.sweep")

WAKE_JOB = "wake"


async def run_sweep(deps: Deps) -> sweep_service.SweepReport:
    """One pass over every due game, in batches of one transaction each; a batch that fails is
    swept game by game, so one broken game never holds up the others."""
    started = time.perf_counter()
    env = deps.env()
    total = sweep_service.SweepReport()
    tried: set[int] = set()
    while True:
        due = await deps.db.run(lambda s: sweep_service.due(s, env.now), background=True, read_only=True)
        fresh = [g for g in due if g not in tried]
        if not fresh:
            break
        tried.update(fresh)
        for start in range(0, len(fresh), sweep_service.BATCH):
            batch = fresh[start : start + sweep_service.BATCH]
            try:
                report = await _sweep(deps, env, batch)
            except DatabaseTrouble:
                raise
            except Exception:
                log.exception("a sweep batch failed; its games are swept one by one")
                report = await _sweep_each(deps, env, batch)
            total.merge(report)
    await deps.db.run(lambda s: sweep_service.forget_old_taps(s, env), background=True)
    # The turns it took over are played after its commits: a sweep is done when they are.
    playing = list(deps.autoplaying.tasks.values())
    if playing:
        await asyncio.wait(playing)
    elapsed = time.perf_counter() - started
    deps.stats["last_sweep_at"] = env.now
    deps.stats["last_sweep_seconds"] = elapsed
    metrics.observe_sweep(elapsed, time.time())
    if tried:
        log.info(
            "sweep due=%d examined=%d reminders=%d idle=%d taken_over=%d failed=%d ms=%.1f",
            len(tried),
            total.examined,
            total.reminders,
            total.idle_moves,
            total.taken_over,
            len(total.failed),
            elapsed * 1000,
        )
    return total


async def _sweep(deps: Deps, env: Env, game_ids: list[int]) -> sweep_service.SweepReport:
    """Some due games in one transaction, on the database's background lane."""
    return await deps.db.run(lambda s: sweep_service.sweep_batch(s, env, game_ids), background=True)


async def _sweep_each(deps: Deps, env: Env, game_ids: list[int]) -> sweep_service.SweepReport:
    """Each game in a transaction of its own (after their batch failed)."""
    report = sweep_service.SweepReport()
    for game_id in game_ids:
        try:
            report.merge(await _sweep(deps, env, [game_id]))
        except DatabaseTrouble:
            raise
        except Exception:
            log.exception("sweep of game %s failed; it is tried again on the next sweep", game_id)
            report.failed.append(game_id)
    return report


async def sweep_job(context: ContextTypes.DEFAULT_TYPE) -> None:
    """The sweep, then the next wake-up set for the next game due: a wake-up scheduled for a turn
    that ended early (the player moved first) finds nothing, and the next reminder must still
    come on time, not at the next safety-net sweep."""
    deps = get_deps(context.bot_data)
    with contextlib.suppress(DatabaseTrouble):  # logged once by the database; the next run tries again
        await run_sweep(deps)
        upcoming = await deps.db.run(sweep_service.next_wake, background=True, read_only=True)
        if upcoming is not None:
            schedule_wake(context.application, deps, upcoming)


def schedule_wake(application: Application, deps: Deps, at: datetime) -> None:  # type: ignore[type-arg]
    """Run the sweep at `at` (game time), unless a wake-up is already due sooner."""
    queue = application.job_queue
    if queue is None:
        return
    delay = max(0.0, (at - deps.clock.now()).total_seconds())  # game time to a delay
    for job in queue.get_jobs_by_name(WAKE_JOB):
        due = job.next_t
        if due is not None and due.timestamp() <= time.time() + delay:
            return  # an earlier wake-up will see to it (and set the next one)
        job.schedule_removal()
    queue.run_once(sweep_job, when=delay + 0.05, name=WAKE_JOB)


# --- the turns the bot plays at once ----------------------------------------------------------


def autoplay(application: Application, deps: Deps, due: Mapping[int, int]) -> None:  # type: ignore[type-arg]
    """Play the turns the bot plays at once in these games (game id -> the version the turn is at),
    after the commit that gave them: one task a game in this process, which plays its turns one
    after the other, each in transactions of its own (`services.autoplay`). Not while the bot
    stops: the game rows keep those turns due, and the sweep takes them over after the restart."""
    if not application.running:
        return
    playing = deps.autoplaying
    for game_id, version in due.items():
        if version > playing.wanted.get(game_id, 0):
            playing.wanted[game_id] = version
        if game_id not in playing.tasks:
            task = application.create_task(_autoplay_game(deps, game_id), name=f"autoplay:{game_id}")
            playing.tasks[game_id] = task


async def _autoplay_game(deps: Deps, game_id: int) -> None:
    """The game's turns as they are asked for: each move's commit asks for the next."""
    playing = deps.autoplaying
    try:
        while (version := playing.wanted.pop(game_id, None)) is not None:
            await _autoplay_turn(deps, game_id, version)
    finally:
        playing.tasks.pop(game_id, None)


async def _autoplay_turn(deps: Deps, game_id: int, version: int) -> None:
    """One turn: read what is due (no lock, not SQLite's writer), think outside any transaction (a
    Hard computer takes tens of milliseconds, in a thread), then play it in a short transaction
    if the game is still at `version`."""
    db = deps.db
    try:
        turn = await db.run(
            lambda s: autoplay_service.turn_due(s, game_id, version), background=True, read_only=True
        )
        if turn is None:
            return  # played already, here or by another instance, or the game stopped
        code: str | None = None
        if turn.move and turn.level is not None:
            code = await asyncio.to_thread(autoplay_service.choose, turn)
        elif turn.move:
            code = autoplay_service.choose(turn)  # the idle default: nothing to think about
        await db.run(lambda s: autoplay_service.play(s, deps.env(), turn, code), background=True)
    except DatabaseTrouble:
        return  # logged once by the database; the game's clock brings the sweep back to the turn
