"""Certificate authorities on demand (tgbot/tls_trust.py, decisions.md B27): the bot leaves the CA
bundle out of OpenSSL's default trust and looks CAs up in the hashed directory, which saves the
memory of the whole bundle in each TLS context, and must not weaken a single verification.

The handshakes are real: a CA and servers made with the `openssl` command, the bot's own Bot API
client (tgbot/http_client.py) connecting to them in a fresh process, whose environment is the one
`look_up_cas_on_demand` makes."""

from __future__ import annotations

import os
import shutil
import ssl
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fakes.telegram import TEST_TOKEN
from tgbot import tls_trust

ROOT = Path(__file__).resolve().parent.parent.parent

needs_openssl = pytest.mark.skipif(shutil.which("openssl") is None, reason="no openssl command")


def _default_paths(capath: Path) -> ssl.DefaultVerifyPaths:
    return ssl.DefaultVerifyPaths(
        cafile=None,
        capath=str(capath),
        openssl_cafile_env="SSL_CERT_FILE",
        openssl_cafile="/nonexistent/cert.pem",
        openssl_capath_env="SSL_CERT_DIR",
        openssl_capath=str(capath),
    )


def _openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


def _ca(work: Path, name: str) -> None:
    """A CA `name` (name.pem, name.key) and a server certificate it signed for localhost
    (name-server.pem, name-server.key)."""
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    _openssl(
        "req", "-x509", *ec, "-keyout", f"{name}.key", "-out", f"{name}.pem", "-days", "2",
        "-subj", f"/CN=tweakbot test {name}",
        "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign",
        cwd=work,
    )  # fmt: skip
    server = ["-keyout", f"{name}-server.key", "-out", f"{name}.csr", "-subj", "/CN=localhost"]
    _openssl("req", *ec, *server, cwd=work)
    (work / "ext.cnf").write_text("subjectAltName=DNS:localhost\nbasicConstraints=CA:FALSE\n")
    _openssl(
        "x509", "-req", "-in", f"{name}.csr", "-CA", f"{name}.pem", "-CAkey", f"{name}.key",
        "-CAcreateserial", "-out", f"{name}-server.pem", "-days", "2", "-extfile", "ext.cnf",
        cwd=work,
    )  # fmt: skip


def test_the_bundle_is_left_out_and_the_hashed_directory_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "5ad8a5d6.0").write_text("")  # what `openssl rehash` names a CA
    monkeypatch.setattr(ssl, "get_default_verify_paths", lambda: _default_paths(tmp_path))
    env = {"HOME": "/home/bot"}
    assert tls_trust.look_up_cas_on_demand(env) is True
    assert env == {"HOME": "/home/bot", "SSL_CERT_FILE": os.devnull, "SSL_CERT_DIR": str(tmp_path)}


@pytest.mark.parametrize("chosen", ["SSL_CERT_FILE", "SSL_CERT_DIR"])
def test_an_operators_own_trust_is_left_as_it_is(
    chosen: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "5ad8a5d6.0").write_text("")
    monkeypatch.setattr(ssl, "get_default_verify_paths", lambda: _default_paths(tmp_path))
    env = {chosen: "/etc/corporate/ca.pem"}
    assert tls_trust.look_up_cas_on_demand(env) is False
    assert env == {chosen: "/etc/corporate/ca.pem"}


def test_a_directory_without_hashed_names_cannot_stand_in_for_the_bundle(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "ca-certificates.crt").write_text("")  # a bundle alone, nothing to look up by hash
    monkeypatch.setattr(ssl, "get_default_verify_paths", lambda: _default_paths(tmp_path))
    env: dict[str, str] = {}
    assert tls_trust.look_up_cas_on_demand(env) is False
    assert env == {}
    monkeypatch.setattr(ssl, "get_default_verify_paths", lambda: _default_paths(tmp_path / "absent"))
    assert tls_trust.look_up_cas_on_demand(env) is False
    assert env == {}


CLIENT = """
import asyncio, ssl, sys
from aiohttp import web
import aiohttp.connector
from telegram.error import NetworkError
from tgbot.http_client import AiohttpRequest

TRUST = aiohttp.connector._SSL_CONTEXT_VERIFIED  # what the bot's connections verify with

async def serve(name):
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(f"{name}-server.pem", f"{name}-server.key")
    app = web.Application()
    app.router.add_get("/", lambda request: web.Response(text="ok"))
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "localhost", 0, ssl_context=context)
    await site.start()
    return runner, runner.addresses[0][1]

async def main():
    print("CAs before", TRUST.cert_store_stats()["x509"])
    request = AiohttpRequest()
    await request.initialize()
    for name in ("known", "unknown"):
        runner, port = await serve(name)
        try:
            status, body = await request.do_request(f"https://localhost:{port}/", "GET")
            print(name, status, body.decode())
        except NetworkError as err:
            print(name, "refused", "CERTIFICATE_VERIFY_FAILED" in str(err))
        await runner.cleanup()
    await request.shutdown()
    print("CAs after", TRUST.cert_store_stats()["x509"])

asyncio.run(main())
"""


@needs_openssl
def test_verification_looks_up_the_one_ca_it_needs_and_still_refuses_an_unknown_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _ca(tmp_path, "known")
    _ca(tmp_path, "unknown")
    trusted = tmp_path / "certs"
    trusted.mkdir()
    shutil.copy(tmp_path / "known.pem", trusted / "known.pem")
    _openssl("rehash", str(trusted), cwd=tmp_path)
    monkeypatch.setattr(ssl, "get_default_verify_paths", lambda: _default_paths(trusted))
    env = {k: v for k, v in os.environ.items() if k not in ("SSL_CERT_FILE", "SSL_CERT_DIR")}
    assert tls_trust.look_up_cas_on_demand(env) is True
    out = subprocess.run(
        [sys.executable, "-c", CLIENT],
        cwd=tmp_path,
        env={**env, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.splitlines() == ["CAs before 0", "known 200 ok", "unknown refused True", "CAs after 1"]


SERVE_AND_REPORT = """
import gc, ssl, sys
from tgbot import runner

async def serve(application, settings, *, webhook):  # the bot, up to the moment it would serve
    contexts = [o for o in gc.get_objects() if isinstance(o, ssl.SSLContext)]
    print(len(contexts) > 0, sum(c.cert_store_stats()["x509"] for c in contexts))

runner.serve = serve
from tgbot.__main__ import main
sys.exit(main([]))
"""


@pytest.mark.skipif(tls_trust.hashed_ca_directory() is None, reason="no hashed CA directory here")
def test_the_bot_makes_its_tls_contexts_with_no_ca_loaded(tmp_path: Path) -> None:
    """`python -m tgbot` as deployed: the change of trust comes before aiohttp makes its contexts
    (an import of aiohttp moved ahead of it would load the whole bundle into each, and fail here)."""
    env = {k: v for k, v in os.environ.items() if k not in ("SSL_CERT_FILE", "SSL_CERT_DIR")}
    out = subprocess.run(
        [sys.executable, "-c", SERVE_AND_REPORT],
        cwd=tmp_path,
        env={
            **env,
            "PYTHONPATH": str(ROOT),
            "TELEGRAM_BOT_TOKEN": TEST_TOKEN,
            "DATABASE_URL": f"sqlite:///{tmp_path / 'bot.sqlite3'}",
        },
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.splitlines()[-1] == "True 0"
