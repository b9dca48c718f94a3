"""A throwaway PostgreSQL server of a test's own, to stop and start under load.

The machine's shared server (``tests/pg.py``) serves other tests and people at the same time: a
test that takes the database away must never stop it. This one is a cluster in a temporary
folder (``initdb`` with trust auth, ``pg_ctl`` on a free port of 127.0.0.1, no Unix socket
outside that folder), removed afterwards::

    with throwaway_cluster() as cluster:
        engine = make_engine(cluster.url)
        cluster.stop()          # pg_ctl stop -m fast: sessions get AdminShutdown
        cluster.start()

The binaries come from ``/usr/lib/postgresql/<version>/bin`` (the newest), else ``$PATH``.
Without them the test is skipped, unless ``CI`` is set: then it fails, as ``tests/pg.py`` does
for an unreachable server. ``initdb`` refuses to run as root; as root the cluster belongs to the
``postgres`` user, whose processes are started with Python's ``subprocess`` ``user=``.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

OWNER = "postgres"


def binaries() -> Path | None:
    """The folder of `initdb` and `pg_ctl`, or None."""
    for folder in sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=_version, reverse=True):
        if (Path(folder) / "initdb").exists() and (Path(folder) / "pg_ctl").exists():
            return Path(folder)
    initdb, pg_ctl = shutil.which("initdb"), shutil.which("pg_ctl")
    if initdb and pg_ctl and Path(initdb).parent == Path(pg_ctl).parent:
        return Path(initdb).parent
    return None


def _version(folder: str) -> int:
    name = Path(folder).parent.name
    return int(name) if name.isdigit() else 0


def require_binaries() -> Path:
    """The binaries' folder; skipped (locally) or failed (under CI) without them."""
    found = binaries()
    if found is not None:
        return found
    reason = "PostgreSQL's initdb and pg_ctl are not installed"
    if os.environ.get("CI"):
        pytest.fail(f"{reason} (CI is set, so this test must run)")
    pytest.skip(reason)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@dataclass
class Cluster:
    bin: Path
    folder: Path
    port: int

    @property
    def url(self) -> str:
        return f"postgresql+psycopg://{OWNER}@127.0.0.1:{self.port}/postgres"

    @property
    def data(self) -> Path:
        return self.folder / "data"

    def _run(self, *args: str) -> None:
        as_owner: dict[str, Any] = {"user": OWNER, "group": OWNER} if os.geteuid() == 0 else {}
        done = subprocess.run(args, capture_output=True, text=True, timeout=60, check=False, **as_owner)
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(args)} failed: {done.stderr or done.stdout}")

    def init(self) -> None:
        self._run(
            str(self.bin / "initdb"),
            "-D",
            str(self.data),
            "-U",
            OWNER,
            "--auth=trust",
            "-E",
            "UTF8",
            "--no-sync",
        )

    def start(self) -> None:
        options = f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 -c fsync=off"
        log = str(self.folder / "server.log")
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-l", log, "-o", options, "-w", "start")

    def stop(self, mode: str = "fast") -> None:
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "stop")

    def running(self) -> bool:
        return (self.data / "postmaster.pid").exists()


@contextmanager
def throwaway_cluster() -> Iterator[Cluster]:
    """A new cluster, started; stopped and removed afterwards, whatever happened."""
    found = require_binaries()
    folder = Path(tempfile.mkdtemp(prefix="tweakbot-pg-"))
    if os.geteuid() == 0:
        owner = pwd.getpwnam(OWNER)
        os.chown(folder, owner.pw_uid, owner.pw_gid)
    cluster = Cluster(found, folder, free_port())
    try:
        cluster.init()
        cluster.start()
        yield cluster
    finally:
        try:
            if cluster.running():
                cluster.stop("immediate")
        finally:
            shutil.rmtree(folder, ignore_errors=True)
