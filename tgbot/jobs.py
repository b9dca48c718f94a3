"""Time-driven work: the sweep, run on time for the next due game and every few seconds anyway.

After each commit that sets a game's `wake_at`, the process is told when to wake
(`store.db.AfterCommit.wake_at`): a one-off job is scheduled for that moment, so a live game's
reminder or deadline comes on time to the second. A repeating job sweeps every
`sweep_interval` as the safety net (and catches up after a restart). Both run the same `sweep`.
"""

from __future__ import annotations

import contextlib
import logging
import time
from datetime import datetime

from telegram.ext import Application, ContextTypes

from . import metrics
from .deps import Deps, get_deps
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
    elapsed = time.perf_counter() - started
    deps.stats["last_sweep_at"] = env.now
    deps.stats["last_sweep_seconds"] = elapsed
    metrics.observe_sweep(elapsed, time.time())
    if tried:
        log.info(
            "sweep due=%d examined=%d reminders=%d idle=%d failed=%d ms=%.1f",
            len(tried),
            total.examined,
            total.reminders,
            total.idle_moves,
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
