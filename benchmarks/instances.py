"""Bot processes as an operator runs them, under the load bench's players: 1, 2, 4 instances on one
PostgreSQL database in webhook mode behind a balancer, or one default bot (SQLite, polling).

``python benchmarks/instances.py [--instances 1 2] [--groups 50 200] [--seconds 75] [--runs 3]
[--db postgres|sqlite] [--mode webhook|polling] [--report FILE]`` (``--help``: all the options)

Per cold run, k ``python -m tgbot`` processes share one new database and one fake Telegram over
HTTP (flood limits on), ``MALLOC_ARENA_MAX=2`` as deployed, each at ``TWEAKBOT_SEND_RATE`` = 25 // k
(docs/SCALING.md; ``--send-rate default``: 25); ``--bot-python`` runs them with another
interpreter (a production virtualenv's) on this tree's code. A balancer POSTs each update to the
next instance's webhook, so a game's taps land on different instances, and makes the call a
response names, as Telegram does; a polling bot fetches them. ``--groups 0``: an idle bot.

Then the checks: every game's move log is 1..version without gap or duplicate; every move tap the
bot accepted is the logged move at version + 1, of its kind, by a player, and none twice; every
group shows exactly its game's recorded board (a group whose outbox did not empty in ``--drain``
seconds is not judged). Per instance: CPU, RSS once started and at the peak, ERROR lines. Median
(min–max) of the runs per cell, the instance counts interleaved.
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
import shlex
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import common
import load_bench
from common import ROOT, Figures, Getter, Row, pct

WEBHOOK_PATH = "/telegram"
START_TIMEOUT, STOP_TIMEOUT = 90.0, 20.0
FINAL = re.compile(r"^(?:k:(\d+):(\d+):([cd])|p:(\d+):(\d+):\w+)$")
#: What an accepted key logs first at version + 1 (S… a sum, D… a discard; T, F, B, J± [T!]
#: cards). A Claim with a [T!] card chosen plays that card first, so a claim may log either.
T_CARDS = ("T", "F", "B", "J")
KIND: dict[str, tuple[str, ...]] = {"c": ("S", *T_CARDS), "d": ("D",), "p": T_CARDS}


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _pg_backends(engine: Any) -> dict[int, float]:
    """CPU seconds so far of each PostgreSQL backend serving this database."""
    from sqlalchemy import text

    sql = "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
    with engine.connect() as connection:
        pids = list(connection.execute(text(sql)).scalars())
    found = {}
    for pid in pids:
        with contextlib.suppress(OSError, ValueError, IndexError):
            found[int(pid)] = common.proc_cpu(int(pid))
    return found


class BackendCpu:
    """The CPU of this database's backends over the window, sampled every half second so that
    connections opened and closed meanwhile count too."""

    def __init__(self, engine: Any) -> None:
        self.engine = engine
        self.first: dict[int, float] = {}
        self.last: dict[int, float] = {}
        self.started = False

    def sample(self) -> None:
        for pid, seconds in _pg_backends(self.engine).items():
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
    """One ``python -m tgbot`` process."""

    def __init__(self, index: int, log_path: Path, python: str, webhook: bool) -> None:
        self.index, self.log_path, self.python, self.webhook = index, log_path, python, webhook
        self.port = _free_port()
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
            self.process = await asyncio.create_subprocess_exec(
                *(self.python, "-m", "tgbot", *(["--webhook"] if self.webhook else [])),
                cwd=cwd,
                env={**env, "WEBHOOK_PORT": str(self.port)},
                stdout=log,
                stderr=subprocess.STDOUT,
            )

    async def stop(self) -> None:
        if self.process is None or self.process.returncode is not None:
            return
        self.process.send_signal(signal.SIGTERM)
        try:
            await asyncio.wait_for(self.process.wait(), STOP_TIMEOUT)
        except TimeoutError:
            self.process.kill()
            await self.process.wait()


class Balancer:
    """Spreads updates over the instances' webhooks, one choice per request (aiohttp: httpx's
    pool scans every connection per request, which made the balancer the bottleneck)."""

    def __init__(self, instances: list[Instance], secret: str, fake: Any) -> None:
        import aiohttp

        self.fake, self.instances, self.secret = fake, instances, secret
        self.next = self.failed = 0
        self.pending: set[asyncio.Task[None]] = set()
        self.client = aiohttp.ClientSession(
            timeout=aiohttp.ClientTimeout(total=30.0), connector=aiohttp.TCPConnector(limit=100)
        )

    def deliver(self, update: dict[str, Any]) -> None:
        instance, self.next = self.instances[self.next % len(self.instances)], self.next + 1
        instance.updates += 1
        if not instance.webhook:  # a polling bot fetches it with getUpdates
            self.fake.queue_update(update)
            return
        task = asyncio.get_running_loop().create_task(self._post(instance, update))
        self.pending.add(task)
        task.add_done_callback(self.pending.discard)

    async def _post(self, instance: Instance, update: dict[str, Any]) -> None:
        try:
            headers = {"X-Telegram-Bot-Api-Secret-Token": self.secret}
            async with self.client.post(instance.url, json=update, headers=headers) as response:
                body = await response.read()
                instance.refused += response.status != 200
            # A tap's answer may come back in the response (decisions.md B26).
            await self.fake.webhook_reply(response.status, response.content_type, body)
        except Exception:  # lost, as Telegram would retry it later: counted
            self.failed += 1

    async def close(self) -> None:
        if self.pending:
            await asyncio.wait(self.pending, timeout=30)
        await self.client.close()


async def _until(condition: Callable[[], Any], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not await condition():
        if time.monotonic() > deadline:
            raise RuntimeError(f"timed out waiting for {what}")
        await asyncio.sleep(0.2)


def _environment(args: argparse.Namespace, url: str, api: str, secret: str) -> dict[str, str]:
    from tests.fakes.telegram import TEST_TOKEN
    from tgbot.config import DEFAULT_SEND_RATE, SEND_RATE_ENV

    ours = ("WEBHOOK_", "TWEAKBOT_", "TELEGRAM_", "DATABASE_URL")
    env = {k: v for k, v in os.environ.items() if not k.startswith(ours)}
    env.update(TELEGRAM_BOT_TOKEN=TEST_TOKEN, TELEGRAM_API_BASE_URL=api, DATABASE_URL=url, LOG_LEVEL="INFO")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    if args.mode == "webhook":
        env.update(WEBHOOK_URL=f"https://bench.invalid{WEBHOOK_PATH}", WEBHOOK_SECRET=secret)
        env["WEBHOOK_LISTEN"] = "127.0.0.1"
    env.setdefault("MALLOC_ARENA_MAX", "2")  # as deploy/Dockerfile and deploy/tweakbot.service
    if args.send_rate == "share" and args.instances > 1:
        env[SEND_RATE_ENV] = str(DEFAULT_SEND_RATE // args.instances)
    return env


async def run_child(args: argparse.Namespace) -> Figures:
    import httpx
    from sqlalchemy import create_engine

    from tests.fakes.telegram import TEST_TOKEN
    from tests.ops.fake_http import FakeBotApiServer
    from tgbot import migrations
    from tgbot.store.db import outbox_waiting

    logging.getLogger("aiohttp.access").setLevel(logging.ERROR)
    work = Path(tempfile.mkdtemp(prefix="instances_"))
    postgres, webhook = args.db == "postgres", args.mode == "webhook"
    instances: list[Instance] = []
    with common.fresh_database(args.db) as url:
        engine = create_engine(url)
        try:
            migrations.upgrade(url)
            fake = load_bench.watched_fake()
            if not webhook:
                fake.long_poll_limit = 50.0  # Telegram's longest: a poll waits for the next update
            secret = secrets.token_urlsafe(24)
            async with FakeBotApiServer(fake, TEST_TOKEN) as api, httpx.AsyncClient(timeout=2.0) as probe:
                env = _environment(args, url, api.base_url, secret)
                instances = [
                    Instance(i, work / f"instance-{i}.log", args.bot_python, webhook)
                    for i in range(args.instances)
                ]
                for instance in instances:
                    await instance.start(env, work)

                async def healthy() -> bool:
                    for i in instances:
                        if i.process is not None and i.process.returncode is not None:
                            raise RuntimeError(f"instance {i.index} exited: {i.log_path.read_text()[-2000:]}")
                    if not webhook:  # polling has begun once getUpdates is called
                        return bool(fake.calls_to("getUpdates"))
                    try:
                        answers = [await probe.get(f"http://127.0.0.1:{i.port}/healthz") for i in instances]
                    except httpx.HTTPError:
                        return False
                    return all(a.status_code == 200 for a in answers) and len(
                        fake.calls_to("setWebhook")
                    ) >= len(instances)

                await _until(healthy, START_TIMEOUT, "the instances to start")
                started_rss = {i.index: common.proc_mb("VmRSS", i.pid) for i in instances}
                balancer = Balancer(instances, secret, fake)
                started = fake.timer.monotonic()
                load = load_bench.Load(None, fake, args, started, deliver=balancer.deliver)
                groups = load_bench.make_groups(fake, args)
                cpu0 = {i.index: common.proc_cpu(i.pid) for i in instances}
                backends, sampling = BackendCpu(engine), asyncio.Event()
                sampler = asyncio.create_task(backends.run(sampling) if postgres else sampling.wait())
                own0, wall0 = time.process_time(), time.perf_counter()
                await load.run(groups)
                window_end = fake.timer.monotonic()
                wall, own = time.perf_counter() - wall0, time.process_time() - own0
                cpu = {i.index: common.proc_cpu(i.pid) - cpu0[i.index] for i in instances}
                sampling.set()
                await sampler
                await load.drain()
                await balancer.close()
                drain0 = time.perf_counter()
                while (left := await asyncio.to_thread(outbox_waiting, engine)) and (
                    time.perf_counter() - drain0 < args.drain
                ):
                    await asyncio.sleep(1.0)
                peak = {i.index: common.proc_mb("VmHWM", i.pid) for i in instances}
                for instance in instances:
                    await instance.stop()
                checks = check(engine, fake, load)
        finally:
            for instance in instances:
                with contextlib.suppress(Exception):
                    await instance.stop()
            engine.dispose()
    figures = load_bench._figures(load, groups, started, window_end, own, wall, checks.pop("moves_db"))
    answers = fake.calls_to("answerCallbackQuery")
    return (
        figures
        | checks
        | bot_update_times([i.log_path for i in instances])
        | {
            "answers_in_webhook_response": sum(c.via_webhook for c in answers) / max(1, len(answers)),
            "outbox_left": left,
            "pg_cpu_s": backends.seconds(),
            "webhook_failed": balancer.failed,
            "per_instance": [
                {
                    "updates": i.updates,
                    "refused": i.refused,
                    "cpu_s": cpu[i.index],
                    "cpu_percent": 100 * cpu[i.index] / wall,
                    "peak_rss_mb": peak[i.index],
                    "started_rss_mb": started_rss[i.index],
                    "errors": load_bench.count_errors(i.log_path),
                }
                for i in instances
            ],
            "code": common.code_fingerprint(),
        }
    )


def check(engine: Any, fake: Any, load: Any) -> Figures:
    """Exactly once and one live board, from the database and what the fake shows."""
    from sqlalchemy import text

    with engine.connect() as connection:
        games = connection.execute(text("SELECT id, chat_id, status, version, board_no FROM games")).all()
        moves = connection.execute(text("SELECT game_id, seq, code, source FROM moves")).all()
        surfaces = "SELECT chat_id, surface, message_id FROM shown_messages WHERE surface LIKE 'board:%'"
        boards = {(int(c), str(s)): int(m) for c, s, m in connection.execute(text(surfaces))}
        waiting = {int(chat) for (chat,) in connection.execute(text("SELECT DISTINCT chat_id FROM outbox"))}
    log: dict[int, dict[int, list[tuple[str, str]]]] = {}
    for game_id, seq, code, source in moves:
        log.setdefault(int(game_id), {}).setdefault(int(seq), []).append((str(code), str(source)))
    bad_logs = sum(
        1
        for game_id, _chat, _status, version, _board in games
        if sorted(seqs := log.get(int(game_id), {})) != list(range(1, int(version) + 1))
        or any(len(v) != 1 for v in seqs.values())
    )
    accepted: dict[tuple[int, int], list[str]] = {}
    for tap in load.taps:
        match = FINAL.match(tap.data)
        answer = fake.answers[tap.query_id]
        if match is None or not answer.answered or answer.expired or load_bench._refused(answer.text or ""):
            continue
        game_id, version, op = match.group(1, 2, 3) if match.group(1) else (*match.group(4, 5), "p")
        accepted.setdefault((int(game_id), int(version)), []).append(op)
    not_applied = 0
    for (game_id, version), ops in accepted.items():
        entry = log.get(game_id, {}).get(version + 1)
        if not entry or entry[0][1] != "player" or not entry[0][0].startswith(KIND[ops[0]]):
            not_applied += 1
    player_moves = [(g, seq) for g, seqs in log.items() for seq, v in seqs.items() if v[0][1] == "player"]

    def joker_sum(game_id: int, seq: int) -> bool:
        """The sum a Joker's claim played right after the Joker (one tap, two moves)."""
        before = log.get(game_id, {}).get(seq - 1) or [("", "")]
        return before[0][1] == "player" and before[0][0].startswith("J")

    boards_ok = boards_bad = unsettled = 0
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
        shown = boards.get((int(chat_id), f"board:{game_id}:{board_no}")) if status == "playing" else None
        expected = [shown] if shown is not None else []
        ok = live == expected and (status != "playing" or expected)
        boards_ok, boards_bad = boards_ok + bool(ok), boards_bad + (not ok)
    sources: dict[str, int] = {}
    for seqs in log.values():
        for entries in seqs.values():
            sources[f"moves_{entries[0][1]}"] = sources.get(f"moves_{entries[0][1]}", 0) + 1
    return {
        "bad_move_logs": bad_logs,
        "accepted_move_taps": len(accepted),
        "accepted_twice": sum(1 for ops in accepted.values() if len(ops) > 1),
        "accepted_not_applied": not_applied,
        "player_moves_logged": len(player_moves),
        "player_moves_without_accepted_answer": sum(
            1 for g, seq in player_moves if (g, seq - 1) not in accepted and not joker_sum(g, seq)
        ),
        "boards_ok": boards_ok,
        "boards_bad": boards_bad,
        "boards_unsettled": unsettled,
        "moves_db": sources,
    }


def bot_update_times(logs: list[Path]) -> dict[str, float | None]:
    """The bots' own time per update, from their ``tweakbot.updates ... ms=`` log lines: beside
    the harness's answer latency it says which side a queue is on."""
    times = [
        float(found.group(1))
        for log in logs
        for line in log.read_text(errors="replace").splitlines()
        if " tweakbot.updates " in line and (found := re.search(r" ms=([0-9.]+)", line))
    ]
    return {
        "bot_update_p50_ms": pct(times, 0.50),
        "bot_update_p99_ms": pct(times, 0.99),
        "bot_updates_logged": float(len(times)),
    }


def _total(key: str) -> Callable[[Figures], float]:
    return lambda f: float(sum(i.get(key) or 0 for i in f["per_instance"]))


def _largest(key: str) -> Getter:
    """The largest instance's memory figure (none is ever 0: a figure an instance lacks)."""
    return lambda f: max((i.get(key) or 0 for i in f["per_instance"]), default=0) or None


def _exactly_once(f: Figures) -> float:
    return float(f["bad_move_logs"] + f["accepted_twice"] + f["accepted_not_applied"])


def _per_tap(f: Figures, cpu: float) -> float:
    return float(1000 * cpu / f["answered"])


ROWS: list[Row] = [
    *load_bench.ROWS[1:6],  # taps sent, answered; answer latency p50, p99, p99 after the first 25 s
    ("The bots' own time per update, p99 (their log lines)", lambda f: f["bot_update_p99_ms"], "{:,.0f} ms"),
    ("Taps answered in the webhook's response", lambda f: 100 * f["answers_in_webhook_response"], "{:.1f} %"),
    ("**Exactly once**: bad logs + accepted twice + not applied", _exactly_once, "{:.0f}"),
    ("  player moves with no accepted answer", lambda f: f["player_moves_without_accepted_answer"], "{:.0f}"),
    ("**Games with one live board**", lambda f: f["boards_ok"], "{:.0f}"),
    ("  games with more or fewer live boards", lambda f: f["boards_bad"], "{:.0f}"),
    ("  games not judged (outbox not empty after the drain)", lambda f: f["boards_unsettled"], "{:.0f}"),
    *load_bench.ROWS[18:22],  # 429s, "not modified", most writes of a group in 60 s, writes/s
    load_bench.ROWS[16],  # the next board after a move, p50
    ("CPU of all instances (share of one core)", _total("cpu_percent"), "{:.1f} %"),
    ("CPU of all instances, seconds a minute", lambda f: 60 * _total("cpu_s")(f) / f["wall_s"], "{:.3f}"),
    ("**CPU of all instances per tap answered**", lambda f: _per_tap(f, _total("cpu_s")(f)), "{:.1f} ms"),
    ("PostgreSQL backends' CPU per tap answered", lambda f: _per_tap(f, f["pg_cpu_s"]), "{:.1f} ms"),
    ("RSS once started, largest instance", _largest("started_rss_mb"), "{:.1f} MB"),
    ("**Peak RSS, largest instance**", _largest("peak_rss_mb"), "{:.1f} MB"),
    ("Updates refused or lost at a webhook", lambda f: f["webhook_failed"] + _total("refused")(f), "{:.0f}"),
    (
        "ERROR lines in the instances' logs",
        lambda f: sum(i["errors"].get("ERROR", 0) for i in f["per_instance"]),
        "{:.0f}",
    ),
    ("Outbox rows left after the drain", lambda f: f["outbox_left"], "{:.0f}"),
    ("Load average (1 min) at the start", lambda f: f.get("_load", [f.get("loadavg_start")])[0], "{:.1f}"),
]


def report(results: dict[str, list[Figures]], code: str, machine: str, args: argparse.Namespace) -> None:
    print(
        f"\nInstances: load_bench's players, {args.seconds:.0f} s per run, median (min–max) of cold runs; "
        f"{'PostgreSQL' if args.db == 'postgres' else 'SQLite'}, {args.mode} mode; bots run by "
        f"{args.bot_python}; {code}; {machine}.\n"
    )
    for n in sorted({int(key.split(":")[0]) for key in results}):
        cells = {
            f"{k} instance{'s' if k > 1 else ''}": results[f"{n}:{k}"]
            for k in range(1, 65)
            if f"{n}:{k}" in results
        }
        print(common.table(f"{n} groups", cells, ROWS) + "\n")


def run_parent(args: argparse.Namespace) -> int:
    shared = f"--drain {args.drain} --bot-python {shlex.quote(args.bot_python)} --send-rate {args.send_rate}"
    shared += f" --db {args.db} --mode {args.mode}"
    cells = [
        (f"{n}:{k}", f"--groups {n} --instances {k} {shared}") for n in args.groups for k in args.instances
    ]
    code, results = load_bench.run_cells(args, Path(__file__).resolve(), cells)
    run_args = {name: getattr(args, name) for name in ("seconds", "bot_python", "db", "mode")}
    machine = common.machine([r for rs in results.values() for r in rs])
    common.write_json(args.json, {"code": code, "machine": machine, "args": run_args, **results})
    report(results, code, machine, args)
    return 0


def main(argv: list[str] | None = None) -> int:
    options = load_bench.parser(__doc__, [50, 200], 75.0, db=False)
    options.add_argument("--instances", type=int, nargs="+", default=[1, 2])
    options.add_argument("--db", choices=("postgres", "sqlite"), default="postgres")
    options.add_argument("--mode", choices=("webhook", "polling"), default="webhook")
    options.add_argument("--bot-python", default=sys.executable, metavar="PYTHON", help="the bots' Python")
    options.add_argument("--send-rate", choices=("share", "default"), default="share", help="share: 25 // k")
    options.add_argument("--drain", type=float, default=60.0, help="seconds to let the outbox empty")
    options.add_argument("--report", metavar="FILE", help="only print the tables of a --json file")
    args = options.parse_args(argv)
    if args.db == "sqlite" and args.instances != [1]:
        options.error("--db sqlite runs one instance (--instances 1): a SQLite file is one machine's")
    if args.mode == "polling" and args.instances != [1]:
        options.error("--mode polling runs one instance (--instances 1): Telegram lets one poll a token")
    if args.report:
        data = json.loads(Path(args.report).read_text())
        vars(args).update(data.get("args", {}))
        results = {k: v for k, v in data.items() if re.fullmatch(r"\d+:\d+", k)}
        report(results, str(data.get("code", "?")), data.get("machine", "machine not recorded"), args)
        return 0
    if args.child:
        args.instances, args.groups = args.instances[0], args.groups[0]
        Path(args.out).write_text(json.dumps(asyncio.run(run_child(args)), default=str))
        return 0
    return run_parent(args)


if __name__ == "__main__":
    sys.exit(main())
