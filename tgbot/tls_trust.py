"""Certificate authorities looked up when a connection needs one, not all loaded at start.

OpenSSL's default trust is a bundle file and a directory of the same certificates named by
subject hash. Each TLS context reads the whole bundle when it is made: aiohttp makes two when it is
imported (one never used by the bot), and each then holds the system's CAs (144 on Debian), about
1 MB a context for the process's life (decisions.md B27).
The directory gives the same trust lazily: a handshake with api.telegram.org loads the one CA
that signed it. So when the operator has set neither of OpenSSL's variables and the directory is
hashed, the bundle is pointed at an empty file before any context exists, and the directory is
named outright, so that the lookups use the very directory found hashed (decisions.md B27).
"""

from __future__ import annotations

import os
import re
import ssl
from collections.abc import MutableMapping
from pathlib import Path

#: What `openssl rehash` (Debian's update-ca-certificates) names a CA in the directory: the
#: subject's hash and a counter.
_HASHED = re.compile(r"[0-9a-f]{8}\.[0-9]+")


def hashed_ca_directory() -> Path | None:
    """OpenSSL's default CA directory when it holds certificates OpenSSL can look up by hash."""
    paths = ssl.get_default_verify_paths()
    for candidate in (paths.capath, paths.openssl_capath):
        if candidate and os.path.isdir(candidate):
            with os.scandir(candidate) as entries:
                if any(_HASHED.fullmatch(entry.name) for entry in entries):
                    return Path(candidate)
    return None


def look_up_cas_on_demand(environ: MutableMapping[str, str] | None = None) -> bool:
    """Leave the bundle out of OpenSSL's default trust (True), unless the operator chose the
    trust (SSL_CERT_FILE or SSL_CERT_DIR set) or the directory cannot stand in for it. Must run
    before any TLS context is made: a context reads the bundle once, when it is created."""
    env = os.environ if environ is None else environ
    if "SSL_CERT_FILE" in env or "SSL_CERT_DIR" in env:
        return False
    directory = hashed_ca_directory()
    if directory is None:
        return False
    env["SSL_CERT_FILE"] = os.devnull
    env["SSL_CERT_DIR"] = str(directory)
    return True
