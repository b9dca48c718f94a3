"""Developer commands for migrations (operators only need ``tweakbot migrate``).

    python -m tgbot.migrations revision -m "add stats table"   # new revision from model changes
    python -m tgbot.migrations check                          # exit 1 if the models need one
    python -m tgbot.migrations history

Both compare the models with a scratch SQLite database upgraded to the current head, so no
server is needed. Read the generated file before committing it: autogenerate cannot see
renames (it writes a drop and an add) and knows nothing about data that needs converting.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from alembic import command
from alembic.script import ScriptDirectory

from . import alembic_config, head, schema_diff, upgrade


def _next_id() -> str:
    ids = [script.revision for script in ScriptDirectory.from_config(alembic_config()).walk_revisions()]
    numbers = [int(i) for i in ids if i.isdigit()]
    return f"{max(numbers, default=0) + 1:04d}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tgbot.migrations", description=(__doc__ or "").partition("\n")[0]
    )
    sub = parser.add_subparsers(dest="command", required=True)
    revision = sub.add_parser("revision", help="write a new revision from the model changes")
    revision.add_argument("-m", "--message", required=True)
    revision.add_argument("--empty", action="store_true", help="an empty revision (data migrations)")
    sub.add_parser("check", help="fail when the models differ from the migrations")
    sub.add_parser("history", help="list the revisions")
    args = parser.parse_args(argv)

    if args.command == "history":
        command.history(alembic_config())
        return 0
    with tempfile.TemporaryDirectory() as scratch:
        url = f"sqlite:///{Path(scratch) / 'scratch.sqlite3'}"
        upgrade(url)
        if args.command == "check":
            diff = schema_diff(url)
            for change in diff:
                print(change)
            print(f"head {head()}: " + ("models and migrations differ" if diff else "no difference"))
            return 1 if diff else 0
        script = command.revision(
            alembic_config(url),
            message=args.message,
            autogenerate=not args.empty,
            rev_id=_next_id(),
        )
    scripts = script if isinstance(script, list) else [script]
    for item in scripts:
        if item is not None:
            print(f"wrote {item.path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
