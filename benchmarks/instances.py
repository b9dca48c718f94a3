"""Past one machine: 1, 2 and 4 bot instances on one PostgreSQL database, in webhook mode, behind
a load balancer, under the load bench's players.

``python benchmarks/instances.py [--instances 1 2 4] [--groups 50 200] [--seconds 75] [--runs 3]
[--seed 1] [--spread rr|hash] [--abuse-every 6] [--players 0] [--drain 60] [--json FILE]
[--bot-python PYTHON] [--send-rate share|default] [--pin BOTS:HARNESS] [--no-snapshot]
[--db postgres|sqlite] [--mode webhook|polling]``

``--db sqlite`` and ``--mode polling`` measure one instance as a small operator runs it (the
bot's defaults: a SQLite file, long polling: the players' updates are fetched with getUpdates,
which the fake holds, as Telegram does, until an update comes): its answers, correctness and
peak RSS; the PostgreSQL figures read zero there.

What runs, per cold run (this script runs itself as a child, ``--child``):

* **One fake Telegram over HTTP**: `tests/fakes/telegram.py` with Telegram's flood limits
  (``FloodLimits()``: 20 writes a minute per group, 30 a second for the whole bot, a write over
  a limit refused with 429; callback queries unanswerable after 15 s), served on 127.0.0.1 by
  `tests/ops/fake_http.py`. One bot token, one set of chats, shared by every instance.
* **k bot processes**, each ``python -m tgbot --webhook`` as an operator runs it: its own
  interpreter, engine, thread pools, senders and sweep; ``TELEGRAM_API_BASE_URL`` pointing at the
  fake, ``WEBHOOK_URL``/``WEBHOOK_SECRET``/``WEBHOOK_LISTEN``/``WEBHOOK_PORT`` set (each on its own
  port), ``DATABASE_URL`` the same new PostgreSQL database (``tests/pg.py``), migrated once before
  they start. Settings as shipped otherwise (the default pace, the sweep every 30 s, INFO logs,
  ``MALLOC_ARENA_MAX=2`` as in the Docker image and the systemd unit unless the environment sets it);
  with k > 1 instances each gets its share of the token's messages, ``TWEAKBOT_SEND_RATE`` = 25 // k,
  as docs/SCALING.md tells an operator (``--send-rate default``: each keeps 25).
  ``--bot-python`` runs them with another interpreter (the code under test is still this tree's):
  a virtualenv with ``pip install .`` and no dev extras holds what a production install holds,
  where this one's import-linter brings rich, click and pygments, which httpx imports when
  present (about 5 MB of every bot process).
* **A load balancer**: every update (a command, a tap) is POSTed to one instance's webhook with
  the secret header, chosen per request as an HTTP load balancer would: round robin (``rr``,
  the default) or by a hash of the update (``hash``). Two taps of one group, even a double tap,
  usually land on different instances. The balancer is the harness's HTTP client (aiohttp,
  keep-alive connections to each instance), not a proxy process of its own. As Telegram does,
  it makes the Bot API call an instance's response names (a tap's answer: decisions.md B26).
* **The players**: `benchmarks/load_bench.py`'s (``Load``, ``make_groups``): N groups of 3–4
  players at human speed with their abuse and double taps, reading only what the fake shows.

After the load window the players stop, the answers still due are awaited (15 s), and the
instances get up to ``--drain`` seconds to empty the outbox (the group budget lets the last
rows out); then, from the database and the fake:

* taps answered, answer p50/p99 (from the fake handing out the query to the bot's answer, both
  HTTP hops included), 429s (and how many the bot's 30 a second in all refused), the most
  writes one group had in any 60 s, writes/s in all;
* **moves applied exactly once**: every game's move log is 1..version with no gap and no
  duplicate; every move tap the bot accepted (Claim, Discard, a [T!] card; the double taps
  included) is the logged move at version + 1, of its kind, by a player; no (game, version) was
  accepted twice; player moves in the log without an accepted answer are counted (an answer
  lost or too late);
* **one live board per game**: in every group the messages showing a game's move keys are
  exactly the game's board as ``shown_messages`` records it (none once the game ended); groups
  whose outbox was not empty after the drain are counted apart, not judged;
* per instance: the updates it got, its CPU over the window (``/proc/<pid>/stat``), its peak
  RSS (``VmHWM``), ERROR lines in its log.

The parent prints per group count and instance count the median (min–max) of the runs; run
order interleaves the instance counts (1, 2, 4, 1, 2, 4, ...), each round on its own seed.
Everything shares this machine: the instances, PostgreSQL and the harness (fake Telegram,
balancer, players); ``--pin 0:1`` runs the bots on CPU 0 and the harness on CPU 1 (taskset).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import os
import re
import secrets
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import coldrun  # noqa: E402
import load_bench  # noqa: E402

Figures = dict[str, Any]
Getter = Callable[[Figures], float | None]

WEBHOOK_PATH = "/telegram"
START_TIMEOUT = 90.0
STOP_TIMEOUT = 20.0
FINAL = re.compile(r"^(?:k:(\d+):(\d+):([cd])|p:(\d+):(\d+):\w+)$")
#: What an accepted key logs first at version + 1 (engine codes: S… a sum, D… a discard; T… a
#: Thief, F a Shifter, B a Bomb, J± a Joker). A Claim with a [T!] card chosen plays that card
#: first (a Joker then its sum, at version + 2), so a claim may log either.
T_CARDS = ("T", "F", "B", "J")
KIND: dict[str, tuple[str, ...]] = {"c": ("S", *T_CARDS), "d": ("D",), "p": T_CARDS}


# --------------------------------------------------------------------------------------------------
# The child: one cold run
# --------------------------------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _proc_cpu(pid: int) -> float:
    """CPU seconds (user + system) of a process so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _proc_status(pid: int, field: str) -> float | None:
    with contextlib.suppress(OSError, ValueError, IndexError):
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    return None


def _pg_backends(engine: Any) -> dict[int, float]:
    """CPU seconds so far of each PostgreSQL backend serving this database (the instances'
    connections; the server's shared processes, the WAL writer and checkpointer, are not in it)."""
    from sqlalchemy import text

    with engine.connect() as connection:
        pids = connection.execute(
            text(
                "SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
                "AND pid <> pg_backend_pid()"
            )
        ).scalars()
        found = {}
        for pid in pids:
            with contextlib.suppress(OSError, ValueError, IndexError):
                found[int(pid)] = _proc_cpu(int(pid))
    return found


def _pg_stats(engine: Any, postgres: bool = True) -> dict[str, float]:
    """This database's counters in the server's statistics: transactions committed, sessions
    (connections) opened, and milliseconds spent running statements (zeros on SQLite, which keeps
    none)."""
    from sqlalchemy import text

    if not postgres:
        return {"commits": 0.0, "sessions": 0.0, "active_ms": 0.0}
    with engine.connect() as connection:
        connection.execute(text("SELECT pg_stat_clear_snapshot()"))
        row = connection.execute(
            text(
                "SELECT xact_commit, sessions, active_time FROM pg_stat_database "
                "WHERE datname = current_database()"
            )
        ).one()
    return {"commits": float(row[0]), "sessions": float(row[1]), "active_ms": float(row[2])}


class BackendCpu:
    """The CPU of this database's backends over a window, sampled every half second so that
    connections opened and closed meanwhile (a pool's overflow) are counted too, as far as they
    lived past a sample."""

    def __init__(self, engine: Any) -> None:
        self.engine = engine
        self.first: dict[int, float] = {}
        self.last: dict[int, float] = {}
        self.started = False

    def sample(self) -> None:
        for pid, seconds in _pg_backends(self.engine).items():
            # A backend first seen after the start began during the window: all its CPU counts.
            self.first.setdefault(pid, seconds if not self.started else 0.0)
            self.last[pid] = seconds
        self.started = True

    async def run(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            with contextlib.suppress(Exception):  # a sample is a bonus
                await asyncio.to_thread(self.sample)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), 0.5)

    def seconds(self) -> float:
        return sum(self.last[pid] - self.first[pid] for pid in self.last)


class Instance:
    """One ``python -m tgbot --webhook`` process."""

    def __init__(
        self,
        index: int,
        port: int,
        log_path: Path,
        python: str = sys.executable,
        cpus: str | None = None,
        webhook: bool = True,
    ) -> None:
        self.index = index
        self.webhook = webhook  # False: long polling, as `python -m tgbot` runs by default
        self.cpus = cpus  # taskset's CPU list for the process, or None: wherever the kernel puts it
        self.python = python
        self.port = port
        self.log_path = log_path
        self.process: asyncio.subprocess.Process | None = None
        self.updates = 0
        self.refused = 0  # webhook answers other than 200

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}{WEBHOOK_PATH}"

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    async def start(self, env: dict[str, str], cwd: Path) -> None:
        with open(self.log_path, "wb") as log:
            pin = ["taskset", "-c", self.cpus] if self.cpus else []
            self.process = await asyncio.create_subprocess_exec(
                *pin,
                self.python,
                "-m",
                "tgbot",
                *(["--webhook"] if self.webhook else []),
                cwd=cwd,
                env={**env, "WEBHOOK_PORT": str(self.port)},
                stdout=log,
                stderr=subprocess.STDOUT,
            )

    async def stop(self) -> int | None:
        if self.process is None or self.process.returncode is not None:
            return None if self.process is None else self.process.returncode
        self.process.send_signal(signal.SIGTERM)
        try:
            return await asyncio.wait_for(self.process.wait(), STOP_TIMEOUT)
        except TimeoutError:
            self.process.kill()
            await self.process.wait()
            return None


class Balancer:
    """Spreads updates over the instances' webhooks, one choice per request."""

    def __init__(self, instances: list[Instance], secret: str, spread: str, fake: Any) -> None:
        import aiohttp

        self.fake = fake  # Telegram, which makes the call a webhook response names
        self.instances = instances
        self.secret = secret
        self.spread = spread
        self.next = 0
        self.failed = 0
        self.routed: dict[str, int] = {}  # callback query id -> the instance it went to
        self.pending: set[asyncio.Task[None]] = set()
        # aiohttp, not httpx: httpx's pool scans every connection for every request (a profile of
        # this process at 200 groups put 85 % of its time there), which made the balancer, not the
        # bot, the bottleneck of the big runs.
        self.client = aiohttp.ClientSession(
            timeout=aiohttp.ClientTimeout(total=30.0), connector=aiohttp.TCPConnector(limit=100)
        )

    def pick(self, update: dict[str, Any]) -> Instance:
        if self.spread == "hash":
            return self.instances[zlib.crc32(str(update.get("update_id")).encode()) % len(self.instances)]
        instance = self.instances[self.next % len(self.instances)]
        self.next += 1
        return instance

    def deliver(self, update: dict[str, Any]) -> None:
        instance = self.pick(update)
        instance.updates += 1
        query = update.get("callback_query")
        if query is not None:
            self.routed[str(query["id"])] = instance.index
        if not instance.webhook:  # a polling bot fetches it with getUpdates
            self.fake.queue_update(update)
            return
        task = asyncio.get_running_loop().create_task(self._post(instance, update))
        self.pending.add(task)
        task.add_done_callback(self.pending.discard)

    async def _post(self, instance: Instance, update: dict[str, Any]) -> None:
        try:
            async with self.client.post(
                instance.url, json=update, headers={"X-Telegram-Bot-Api-Secret-Token": self.secret}
            ) as response:
                body = await response.read()
                if response.status != 200:
                    instance.refused += 1
            # A tap's answer may come back in the response (tgbot/delivery/webhook_replies.py).
            await self.fake.webhook_reply(response.status, response.content_type, body)
        except Exception:  # the update is lost, as Telegram would retry it later: counted
            self.failed += 1

    async def close(self) -> None:
        if self.pending:
            await asyncio.wait(self.pending, timeout=30)
        await self.client.close()


def _by_second(fake: Any, load: Any, started: float) -> list[tuple[int, int, int, int]]:
    """(second of the run, taps answered that were made in it, p50 and max of their answers in ms):
    where in a run the slow answers come, in bursts or spread out."""
    seconds: dict[int, list[float]] = {}
    for t in load.taps:
        a = fake.answers[t.query_id]
        if a.answered and not a.expired:
            seconds.setdefault(int(a.created_at - started), []).append(1000 * (a.answered_at - a.created_at))
    return [
        (second, len(ms), round(statistics.median(ms)), round(max(ms)))
        for second, ms in sorted(seconds.items())
    ]


async def _until(condition: Callable[[], Any], timeout: float, what: str) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not await condition():
        if loop.time() > deadline:
            raise RuntimeError(f"timed out waiting for {what}")
        await asyncio.sleep(0.2)


async def run_child(args: argparse.Namespace) -> Figures:
    import httpx
    from sqlalchemy import create_engine, text

    from tests.fakes.telegram import TEST_TOKEN
    from tests.ops.fake_http import FakeBotApiServer
    from tests.pg import create_database, drop_database
    from tgbot import migrations
    from tgbot.config import DEFAULT_SEND_RATE, SEND_RATE_ENV

    # The fake's HTTP server would log each 4xx it answers (e.g. "message is not modified").
    logging.getLogger("aiohttp.access").setLevel(logging.ERROR)
    work = Path(tempfile.mkdtemp(prefix="instances_"))
    postgres, webhook = args.db == "postgres", args.mode == "webhook"
    pg_name, url = create_database() if postgres else (None, f"sqlite:///{work / 'tweakbot.db'}")
    engine = create_engine(url)
    instances: list[Instance] = []
    try:
        migrations.upgrade(url)
        fake = load_bench._watched_fake(0.0)
        if not webhook:
            fake.long_poll_limit = 50.0  # Telegram's longest: a poll waits for the next update
        secret = secrets.token_urlsafe(24)
        async with FakeBotApiServer(fake, TEST_TOKEN) as api:
            env = {
                k: v
                for k, v in os.environ.items()
                if not k.startswith(("WEBHOOK_", "TWEAKBOT_", "TELEGRAM_")) and k not in ("DATABASE_URL",)
            }
            env.update(
                PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
                TELEGRAM_BOT_TOKEN=TEST_TOKEN,
                TELEGRAM_API_BASE_URL=api.base_url,
                DATABASE_URL=url,
                LOG_LEVEL="INFO",
            )
            if webhook:
                env.update(
                    WEBHOOK_URL=f"https://bench.invalid{WEBHOOK_PATH}",
                    WEBHOOK_SECRET=secret,
                    WEBHOOK_LISTEN="127.0.0.1",
                )
            # As deploy/Dockerfile and deploy/tweakbot.service run the bot (unless set here).
            env.setdefault("MALLOC_ARENA_MAX", "2")
            if args.send_rate == "share" and args.instances > 1:
                # Each instance its share of the token's budget, as docs/SCALING.md tells an operator.
                env[SEND_RATE_ENV] = str(DEFAULT_SEND_RATE // args.instances)
            instances = [
                Instance(
                    i, _free_port(), work / f"instance-{i}.log", args.bot_python, _pins(args)[0], webhook
                )
                for i in range(args.instances)
            ]
            for instance in instances:
                await instance.start(env, work)

            async with httpx.AsyncClient(timeout=2.0) as probe:

                async def healthy() -> bool:
                    for instance in instances:
                        assert instance.process is not None
                        if instance.process.returncode is not None:
                            raise RuntimeError(
                                f"instance {instance.index} exited: {instance.log_path.read_text()[-2000:]}"
                            )
                    if not webhook:  # no server to ask: polling has begun once getUpdates is called
                        return bool(fake.calls_to("getUpdates"))
                    try:
                        answers = [await probe.get(f"http://127.0.0.1:{i.port}/healthz") for i in instances]
                    except httpx.HTTPError:
                        return False
                    webhooks = len(fake.calls_to("setWebhook"))
                    return all(a.status_code == 200 for a in answers) and webhooks >= len(instances)

                await _until(healthy, START_TIMEOUT, "the instances to start")
            started_rss = {i.index: _proc_status(i.pid, "VmRSS") for i in instances}

            balancer = Balancer(instances, secret, args.spread, fake)
            args.debug = False
            started = fake.timer.monotonic()
            load = load_bench.Load(None, fake, args, started, deliver=balancer.deliver)
            groups = load_bench.make_groups(fake, args)
            cpu0 = {i.index: _proc_cpu(i.pid) for i in instances}
            stats0, backend_cpu, sampling = _pg_stats(engine, postgres), BackendCpu(engine), asyncio.Event()
            if postgres:
                backend_cpu.sample()
            sampler = asyncio.create_task(backend_cpu.run(sampling) if postgres else sampling.wait())
            own0, wall0, load0 = time.process_time(), time.perf_counter(), os.getloadavg()[0]
            tasks, learner = load.start(groups)
            await asyncio.wait(tasks, timeout=args.seconds + 70)
            for task in tasks:
                task.cancel()
            learner.cancel()
            window_end = fake.timer.monotonic()
            wall = time.perf_counter() - wall0
            own = time.process_time() - own0
            cpu = {i.index: _proc_cpu(i.pid) - cpu0[i.index] for i in instances}
            sampling.set()
            await sampler
            if postgres:
                backend_cpu.sample()
            stats1 = _pg_stats(engine, postgres)
            pg_backends = len(_pg_backends(engine)) if postgres else 0
            load1 = os.getloadavg()[0]
            pending = [f for f in fake.answered.values() if not f.done()]
            if pending:
                await asyncio.wait(pending, timeout=load_bench.DRAIN)
            await balancer.close()

            # Let the instances send what is left (within the groups' budgets), then look.
            def outbox_rows() -> int:
                with engine.connect() as connection:
                    return int(connection.execute(text("SELECT count(*) FROM outbox")).scalar_one())

            drain0 = time.perf_counter()
            left = await asyncio.to_thread(outbox_rows)
            while left and time.perf_counter() - drain0 < args.drain:
                await asyncio.sleep(1.0)
                left = await asyncio.to_thread(outbox_rows)
            drained_s = time.perf_counter() - drain0
            peak = {i.index: _proc_status(i.pid, "VmHWM") for i in instances}
            # Stopped (gracefully, as on SIGTERM), the database and the fake hold still for the checks.
            for instance in instances:
                await instance.stop()
            checks = check(engine, fake, load)
            moves_db = checks.pop("moves_db")
        figures = load_bench._figures(
            load, fake, groups, started, window_end, own, wall, [], [], left, moves_db
        )
        figures.pop("debug", None)
        figures.update(checks)
        slow = sorted(
            (
                (1000 * (a.answered_at - a.created_at), t.kind, t.data, balancer.routed.get(t.query_id))
                for t in load.taps
                if (a := fake.answers[t.query_id]).answered and not a.expired
            ),
            reverse=True,
        )
        figures["slowest_answers"] = [(round(ms), kind, data, i) for ms, kind, data, i in slow[:15]]
        figures["answers_by_second"] = _by_second(fake, load, started)
        answers = fake.calls_to("answerCallbackQuery")
        figures["answers_in_webhook_response"] = sum(c.via_webhook for c in answers) / max(1, len(answers))
        figures.update(
            instances=args.instances,
            spread=args.spread,
            loadavg_start=load0,
            loadavg_end=load1,
            outbox_left=left,
            drained_s=drained_s,
            harness_cpu_s=own,
            pg_cpu_s=backend_cpu.seconds(),
            pg_backends=pg_backends,
            pg_commits_per_s=(stats1["commits"] - stats0["commits"]) / wall,
            pg_sessions_opened=stats1["sessions"] - stats0["sessions"],
            pg_active_s=(stats1["active_ms"] - stats0["active_ms"]) / 1000,
            wall_s=wall,
            webhook_failed=balancer.failed,
            per_instance=[
                {
                    "updates": i.updates,
                    "refused": i.refused,
                    "cpu_s": cpu[i.index],
                    "cpu_percent": 100 * cpu[i.index] / wall,
                    "peak_rss_mb": peak[i.index],
                    "started_rss_mb": started_rss[i.index],
                    "exit": i.process.returncode if i.process is not None else None,
                    "errors": load_bench._count_errors(i.log_path),
                }
                for i in instances
            ],
            **bot_update_times([i.log_path for i in instances]),
            code=load_bench.code_fingerprint(),
        )
        return figures
    finally:
        for instance in instances:
            with contextlib.suppress(Exception):
                await instance.stop()
        engine.dispose()
        if pg_name is not None:
            drop_database(pg_name)


def _refusal() -> Callable[[str], bool]:
    """Whether an answer's text is one of the bot's refusals (in English, as the players get)."""
    from tgbot.render.refusals import ILLEGAL_TEXT, REFUSAL_TEXT

    patterns = [
        re.escape(str(t)).replace(r"\{", "{").replace(r"\}", "}")
        for t in (*REFUSAL_TEXT.values(), *ILLEGAL_TEXT.values())
    ]
    found = re.compile("|".join(re.sub(r"\{\w+\}", ".*?", p) for p in patterns))
    return lambda text: text == "⚠️" or found.search(text) is not None


def check(engine: Any, fake: Any, load: Any) -> Figures:
    """Exactly once and one live board, from the database and what the fake shows."""
    from sqlalchemy import text

    with engine.connect() as connection:
        games = connection.execute(text("SELECT id, chat_id, status, version, board_no FROM games")).all()
        moves = connection.execute(text("SELECT game_id, seq, code, source FROM moves")).all()
        boards = {
            (int(chat), str(surface)): int(message)
            for chat, surface, message in connection.execute(
                text("SELECT chat_id, surface, message_id FROM shown_messages WHERE surface LIKE 'board:%'")
            )
        }
        waiting = {int(chat) for (chat,) in connection.execute(text("SELECT DISTINCT chat_id FROM outbox"))}
    log: dict[int, dict[int, list[tuple[str, str]]]] = {}
    for game_id, seq, code, source in moves:
        log.setdefault(int(game_id), {}).setdefault(int(seq), []).append((str(code), str(source)))
    # The move log: 1..version, each once.
    bad_logs = 0
    for game_id, _chat, _status, version, _board in games:
        seqs = log.get(int(game_id), {})
        if sorted(seqs) != list(range(1, int(version) + 1)) or any(len(v) != 1 for v in seqs.values()):
            bad_logs += 1
    # Every accepted move tap: the logged move at version + 1, of its kind, by a player, once.
    # (A refusal is a toast or an alert with one of the services' refusal texts.)
    refused = _refusal()
    accepted: dict[tuple[int, int], list[str]] = {}
    for tap in load.taps:
        match = FINAL.match(tap.data)
        answer = fake.answers[tap.query_id]
        if match is None or not answer.answered or answer.expired or refused(answer.text or ""):
            continue
        game_id, version, op = (
            (match.group(1), match.group(2), match.group(3))
            if match.group(1)
            else (match.group(4), match.group(5), "p")
        )
        accepted.setdefault((int(game_id), int(version)), []).append(op)
    twice = sum(1 for ops in accepted.values() if len(ops) > 1)
    not_applied = 0
    for (game_id, version), ops in accepted.items():
        entry = log.get(game_id, {}).get(version + 1)
        if not entry or entry[0][1] != "player" or not entry[0][0].startswith(KIND[ops[0]]):
            not_applied += 1
    player_moves = [
        (game_id, seq) for game_id, seqs in log.items() for seq, v in seqs.items() if v[0][1] == "player"
    ]

    def joker_sum(game_id: int, seq: int) -> bool:
        """The sum a Joker's claim played right after the Joker (one tap, two moves)."""
        before = log.get(game_id, {}).get(seq - 1) or [("", "")]
        return before[0][1] == "player" and before[0][0].startswith("J")

    unconfirmed = sum(
        1
        for game_id, seq in player_moves
        if (game_id, seq - 1) not in accepted and not joker_sum(game_id, seq)
    )
    # One live board per game.
    boards_ok = boards_bad = unsettled = 0
    bad_examples: list[Any] = []
    for game_id, chat_id, status, _version, board_no in games:
        if int(chat_id) in waiting:
            unsettled += 1
            continue
        prefix = f"k:{game_id}:"
        live = [
            m.message_id
            for m in fake.messages(int(chat_id))
            if any((d or "").startswith(prefix) for _t, d in m.buttons)
        ]
        expected = []
        if status == "playing":
            shown = boards.get((int(chat_id), f"board:{game_id}:{board_no}"))
            expected = [shown] if shown is not None else []
        if live == expected and (status != "playing" or expected):
            boards_ok += 1
        else:
            boards_bad += 1
            if len(bad_examples) < 5:
                bad_examples.append((int(game_id), str(status), live, expected))
    sources: dict[str, int] = {}
    for seqs in log.values():
        for entries in seqs.values():
            sources[entries[0][1]] = sources.get(entries[0][1], 0) + 1
    statuses: dict[str, int] = {}
    for game in games:
        statuses[str(game[2])] = statuses.get(str(game[2]), 0) + 1
    return {
        "games": len(games),
        "games_by_status": statuses,
        "bad_move_logs": bad_logs,
        "accepted_move_taps": len(accepted),
        "accepted_twice": twice,
        "accepted_not_applied": not_applied,
        "player_moves_logged": len(player_moves),
        "player_moves_without_accepted_answer": unconfirmed,
        "boards_ok": boards_ok,
        "boards_bad": boards_bad,
        "boards_bad_examples": bad_examples,
        "boards_unsettled": unsettled,
        "moves_db": {f"moves_{k}": v for k, v in sources.items()},
    }


# --------------------------------------------------------------------------------------------------
# The parent: cold runs, median and spread, the table
# --------------------------------------------------------------------------------------------------


def bot_update_times(logs: list[Path]) -> dict[str, float | None]:
    """The bots' own time per update, from their log lines (``tweakbot.updates ... ms=``): from
    PTB handing the update to the handlers to its line, answer included. Beside the harness's
    answer latency it says which side a queue is on: the harness's (its event loop, the
    balancer) or the bot's."""
    times: list[float] = []
    for log in logs:
        for line in log.read_text(errors="replace").splitlines():
            if " tweakbot.updates " in line:
                found = _MS.search(line)
                if found is not None:
                    times.append(float(found.group(1)))
    return {
        "bot_update_p50_ms": load_bench._pct(times, 0.50),
        "bot_update_p99_ms": load_bench._pct(times, 0.99),
        "bot_updates_logged": float(len(times)),
    }


_MS = re.compile(r" ms=([0-9.]+)")


def _sum_instances(key: str) -> Callable[[Figures], float]:
    return lambda f: float(sum(i[key] or 0 for i in f["per_instance"]))


def _max_instances(key: str) -> Getter:
    # Memory figures only: none is ever 0, so 0 (a figure an older --json file does not have, or
    # an instance gone before it was read) shows as missing.
    return lambda f: max((i.get(key) or 0 for i in f["per_instance"]), default=None) or None


def _exactly_once(f: Figures) -> float:
    return float(f["bad_move_logs"] + f["accepted_twice"] + f["accepted_not_applied"])


ROWS: list[tuple[str, Getter, str]] = [
    ("Players", lambda f: f["players"], "{:.0f}"),
    ("Taps sent (all kinds)", lambda f: f["taps"], "{:,.0f}"),
    ("Taps answered", lambda f: 100 * f["answered"] / max(1, f["taps"]), "{:.2f} %"),
    ("Answer latency p50", lambda f: f["latency_p50_ms"], "{:,.0f} ms"),
    ("Answer latency p99", lambda f: f["latency_p99_ms"], "{:,.0f} ms"),
    (
        "Answer latency p99, steady part (the taps after the first 25 s)",
        lambda f: f.get("latency_p99_steady_ms"),
        "{:,.0f} ms",
    ),
    ("Answer latency max", lambda f: f["latency_max_ms"], "{:,.0f} ms"),
    (
        "Taps answered in the webhook's response (decisions.md B26)",
        lambda f: None if "answers_in_webhook_response" not in f else 100 * f["answers_in_webhook_response"],
        "{:.1f} %",
    ),
    (
        "The bots' own time per update, p50 (their log lines)",
        lambda f: f.get("bot_update_p50_ms"),
        "{:,.1f} ms",
    ),
    ("The bots' own time per update, p99", lambda f: f.get("bot_update_p99_ms"), "{:,.0f} ms"),
    ("Move taps accepted", lambda f: f["accepted_move_taps"], "{:,.0f}"),
    ("Player moves in the log", lambda f: f["player_moves_logged"], "{:,.0f}"),
    ("  of which no accepted answer seen", lambda f: f["player_moves_without_accepted_answer"], "{:.0f}"),
    ("Exactly once: bad logs + accepted twice + not applied", _exactly_once, "{:.0f}"),
    ("Games with one live board (the recorded one) / not", lambda f: f["boards_ok"], "{:.0f}"),
    ("Games not judged (outbox not empty after the drain)", lambda f: f["boards_unsettled"], "{:.0f}"),
    ("429 answers", lambda f: f["count_429"], "{:.0f}"),
    ("  of which the bot's 30 a second in all", lambda f: f.get("flood_rejections_overall"), "{:.0f}"),
    ('Edits refused as "message is not modified"', lambda f: f.get("not_modified_edits"), "{:.0f}"),
    ("Most writes, one group, any 60 s", lambda f: f["max_group_writes_60s"], "{:.0f}"),
    ("Writes/s in all, mean (steady part)", lambda f: f["writes_per_s_mean"], "{:.1f}"),
    ("Writes/s in all, peak 1 s", lambda f: f["writes_per_s_peak_1s"], "{:.0f}"),
    ("Next board shown after a move, p50", lambda f: f["turn_wait_p50_s"], "{:.2f} s"),
    ("CPU of all instances (share of one core)", _sum_instances("cpu_percent"), "{:.0f} %"),
    (
        "CPU of all instances per tap answered",
        lambda f: 1000 * _sum_instances("cpu_s")(f) / max(1, f["answered"]),
        "{:.1f} ms",
    ),
    (
        "CPU of PostgreSQL's backends for this database",
        lambda f: 100 * f["pg_cpu_s"] / f["wall_s"],
        "{:.0f} %",
    ),
    ("PostgreSQL CPU per tap answered", lambda f: 1000 * f["pg_cpu_s"] / max(1, f["answered"]), "{:.1f} ms"),
    ("Transactions committed per second", lambda f: f["pg_commits_per_s"], "{:.0f}"),
    ("PostgreSQL connections (backends) at the end", lambda f: f["pg_backends"], "{:.0f}"),
    ("PostgreSQL connections opened during the window", lambda f: f.get("pg_sessions_opened"), "{:,.0f}"),
    (
        "PostgreSQL time in statements per tap answered",
        lambda f: 1000 * f["pg_active_s"] / max(1, f["answered"]) if "pg_active_s" in f else None,
        "{:.1f} ms",
    ),
    (
        "CPU of the harness (fake, balancer, players)",
        lambda f: 100 * f["harness_cpu_s"] / f["wall_s"],
        "{:.0f} %",
    ),
    ("RSS once started, before the load, largest instance", _max_instances("started_rss_mb"), "{:.1f} MB"),
    ("Peak RSS, largest instance", _max_instances("peak_rss_mb"), "{:.1f} MB"),
    (
        "Updates refused or lost at a webhook",
        lambda f: sum(i["refused"] for i in f["per_instance"]) + f["webhook_failed"],
        "{:.0f}",
    ),
    (
        "ERROR lines in the instances' logs",
        lambda f: sum(i["errors"].get("ERROR", 0) for i in f["per_instance"]),
        "{:.0f}",
    ),
    ("Outbox rows left after the drain", lambda f: f["outbox_left"], "{:.0f}"),
    ("Machine load average (1 min) at the start", lambda f: f["loadavg_start"], "{:.1f}"),
]


def _cell(runs: list[Figures], label: str, get: Getter, fmt: str) -> str:
    if label.startswith("Games with one live board"):
        return (
            f"{load_bench._cell(runs, get, fmt)} / {load_bench._cell(runs, lambda f: f['boards_bad'], fmt)}"
        )
    return load_bench._cell(runs, get, fmt)


def table(results: dict[tuple[int, int], list[Figures]], groups: list[int], counts: list[int]) -> str:
    lines = []
    for n in groups:
        cols = [k for k in counts if (n, k) in results]
        if not cols:
            continue
        lines.append(
            f"| {n} groups | " + " | ".join(f"{k} instance{'s' if k > 1 else ''}" for k in cols) + " |"
        )
        lines.append("|---|" + "---|" * len(cols))
        for label, get, fmt in ROWS:
            lines.append(
                f"| {label} | " + " | ".join(_cell(results[(n, k)], label, get, fmt) for k in cols) + " |"
            )
        lines.append("")
    return "\n".join(lines)


def verdicts(results: dict[tuple[int, int], list[Figures]]) -> str:
    lines = []
    for (n, k), runs in sorted(results.items()):
        answered = min(100 * r["answered"] / max(1, r["taps"]) for r in runs)
        once = all(_exactly_once(r) == 0 for r in runs)
        boards = all(r["boards_bad"] == 0 for r in runs)
        group = max(r["max_group_writes_60s"] for r in runs)
        c429 = max(r["count_429"] for r in runs)
        lines.append(
            f"- {n} groups, {k} instance(s), {len(runs)} run(s): answered ≥ {answered:.2f} %, "
            f"p99 {statistics.median(r['latency_p99_ms'] for r in runs):.0f} ms (median); "
            f"moves exactly once: {'yes' if once else 'NO'}; one live board per game: "
            f"{'yes' if boards else 'NO'}; group writes ≤ 20/60 s: {'yes' if group <= 20 else 'NO'} "
            f"(max {group}); 429s: {c429} at most"
        )
    return "\n".join(lines)


def _pins(args: argparse.Namespace) -> tuple[str | None, str | None]:
    """The CPUs of the bots and of the harness: `--pin BOTS:HARNESS` (taskset lists), or none."""
    if not args.pin:
        return None, None
    bots, _, harness = args.pin.partition(":")
    return bots, harness


def _child_command(args: argparse.Namespace, script: Path, k: int, n: int, seed: int, out: Path) -> list[str]:
    harness = _pins(args)[1]
    return [
        *(["taskset", "-c", harness] if harness else []),
        sys.executable,
        str(script),
        "--child",
        "--instances",
        str(k),
        "--groups",
        str(n),
        "--seconds",
        str(args.seconds),
        "--seed",
        str(seed),
        "--spread",
        args.spread,
        "--abuse-every",
        str(args.abuse_every),
        "--players",
        str(args.players),
        "--drain",
        str(args.drain),
        "--bot-python",
        args.bot_python,
        *(["--pin", args.pin] if args.pin else []),
        "--send-rate",
        args.send_rate,
        "--db",
        args.db,
        "--mode",
        args.mode,
        "--out",
        str(out),
    ]


def run_parent(args: argparse.Namespace) -> int:
    work = Path(tempfile.mkdtemp(prefix="instances_runs_"))
    script = Path(__file__).resolve()
    if not args.no_snapshot:
        bench = load_bench.snapshot(work / "code")
        # the snapshot holds load_bench.py and coldrun.py; this script runs from it too
        (bench.parent / "instances.py").write_bytes((ROOT / "benchmarks" / "instances.py").read_bytes())
        script = bench.parent / "instances.py"
    code = f"{load_bench.code_fingerprint(script.parent.parent)} (git {load_bench._git_head()})"
    print(f"code {code}; runs in {work}", flush=True)
    began = time.perf_counter()
    results: dict[tuple[int, int], list[Figures]] = {}
    for n in args.groups:
        for run in range(args.runs):
            seed = args.seed + run
            for k in args.instances:
                out = work / f"{n}-{k}-{seed}.json"
                log_path = work / f"{n}-{k}-{seed}.log"
                command = _child_command(args, script, k, n, seed, out)
                f = coldrun.logged_run(command, out, log_path, f"N={n} k={k} run {run + 1}")
                if f is None:
                    continue
                results.setdefault((n, k), []).append(f)
                print(
                    f"N={n:<4} k={k} run {run + 1}: taps {f['taps']} answered "
                    f"{100 * f['answered'] / max(1, f['taps']):.2f} % p50 {f['latency_p50_ms']:.0f} ms "
                    f"p99 {f['latency_p99_ms']:.0f} ms; once: logs {f['bad_move_logs']} twice "
                    f"{f['accepted_twice']} unapplied {f['accepted_not_applied']} (accepted "
                    f"{f['accepted_move_taps']}, logged {f['player_moves_logged']}); boards ok "
                    f"{f['boards_ok']} bad {f['boards_bad']} unsettled {f['boards_unsettled']}; 429s "
                    f"{f['count_429']} ({f.get('flood_rejections_overall')} of the 30/s); group max "
                    f"{f['max_group_writes_60s']}/60 s; writes/s "
                    f"{f['writes_per_s_mean']:.1f}; CPU "
                    f"{[round(i['cpu_percent']) for i in f['per_instance']]} %; "
                    f"RSS {[round(i['peak_rss_mb'] or 0) for i in f['per_instance']]} MB; load "
                    f"{f['loadavg_start']:.1f}; {f['run_wall_s']:.0f} s",
                    flush=True,
                )
    print(f"\nAll runs: {time.perf_counter() - began:.0f} s wall; logs and figures in {work}\n")
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {"code": code, "args": _run_args(args), **{f"{n}:{k}": r for (n, k), r in results.items()}},
                indent=1,
                default=str,
            )
        )
    report(results, code, args)
    return 0


def _run_args(args: argparse.Namespace) -> dict[str, Any]:
    """What a --json file records of the options (the tables' header)."""
    return {
        name: getattr(args, name, None)
        for name in (
            "seconds",
            "abuse_every",
            "players",
            "spread",
            "drain",
            "bot_python",
            "pin",
            "send_rate",
            "db",
            "mode",
        )
    }


def report(results: dict[tuple[int, int], list[Figures]], code: str, args: argparse.Namespace) -> None:
    runs = max((len(r) for r in results.values()), default=0)
    print(
        f"Load: load_bench's players, {args.seconds:.0f} s per run, abuse every {args.abuse_every:g} s per "
        f"group, spread {args.spread}, {runs} cold run(s) per cell, median (min–max); "
        f"{'one PostgreSQL' if args.db == 'postgres' else 'a SQLite file'}, {args.mode} mode; "
        f"machine: {coldrun.machine()}; code {code}; bots run by {args.bot_python or sys.executable}.\n"
    )
    print(table(results, sorted({n for n, _k in results}), sorted({k for _n, k in results})))
    print(verdicts(results))


def report_file(path: str, args: argparse.Namespace) -> int:
    """The tables of an earlier run's --json file."""
    data = json.loads(Path(path).read_text())
    results = {
        (int(key.split(":")[0]), int(key.split(":")[1])): runs
        for key, runs in data.items()
        if key not in ("code", "args")
    }
    vars(args).update(data.get("args", {}))
    report(results, str(data.get("code", "?")), args)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n\n")[0])
    parser.add_argument("--instances", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--groups", type=int, nargs="+", default=[50, 200])
    parser.add_argument("--seconds", type=float, default=75.0, help="length of each run's load window")
    parser.add_argument("--runs", type=int, default=3, help="cold runs per group count and instance count")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--spread", choices=("rr", "hash"), default="rr", help="how the balancer picks")
    parser.add_argument(
        "--abuse-every", type=float, default=6.0, help="mean seconds between abusive taps per group (0: none)"
    )
    parser.add_argument("--players", type=int, default=0, help="players per group (0: 3 or 4 at random)")
    parser.add_argument(
        "--drain", type=float, default=60.0, help="seconds to let the outbox empty at the end"
    )
    parser.add_argument("--json", metavar="FILE", help="also write every run's figures to FILE")
    parser.add_argument("--report", metavar="FILE", help="only print the tables of a --json file")
    parser.add_argument(
        "--bot-python",
        default=sys.executable,
        metavar="PYTHON",
        help="the interpreter of the bot processes (e.g. a production virtualenv's; default: this one)",
    )
    parser.add_argument(
        "--send-rate",
        choices=("share", "default"),
        default="share",
        help="share: with k > 1 instances each gets TWEAKBOT_SEND_RATE = 25 // k (docs/SCALING.md); "
        "default: each keeps the bot's default, 25",
    )
    parser.add_argument(
        "--pin",
        metavar="BOTS:HARNESS",
        help="CPU lists (taskset) for the bot processes and for the harness, e.g. 0:1 (PostgreSQL "
        "stays wherever the kernel puts it); default: no pinning",
    )
    parser.add_argument(
        "--no-snapshot",
        action="store_true",
        help="run the tree as it is (default: a copy taken at the start)",
    )
    parser.add_argument(
        "--db",
        choices=("postgres", "sqlite"),
        default="postgres",
        help="the database the instances share (sqlite: a new file; one instance only)",
    )
    parser.add_argument(
        "--mode",
        choices=("webhook", "polling"),
        default="webhook",
        help="how the instances get updates (polling: getUpdates, as `python -m tgbot` runs by default; "
        "one instance only)",
    )
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.db == "sqlite" and args.instances != [1]:
        parser.error("--db sqlite runs one instance (--instances 1): a SQLite file is one machine's")
    if args.mode == "polling" and args.instances != [1]:
        parser.error("--mode polling runs one instance (--instances 1): Telegram lets one poll a token")
    if args.child:
        args.instances = args.instances[0]
        args.groups = args.groups[0]
        figures = asyncio.run(run_child(args))
        Path(args.out).write_text(json.dumps(figures, default=str))
        return 0
    if args.report:
        return report_file(args.report, args)
    return run_parent(args)


if __name__ == "__main__":
    sys.exit(main())
