"""`tweakbot`: run the bot (long polling by default, ``--webhook`` for webhook mode).

    tweakbot              # upgrade the database, then run with long polling
    tweakbot --webhook    # upgrade the database, then serve Telegram's webhook (WEBHOOK_URL ...)
    tweakbot migrate      # only upgrade the database to the newest schema, then exit

Settings come from the environment or a ``.env`` file (see deploy/.env.example). ``migrate``
needs no TELEGRAM_BOT_TOKEN: a deploy step may run it where the token is not handed out. Exit
codes: 0 after a clean stop (SIGTERM/SIGINT, also while still waiting for Telegram), 1 when the
database cannot be migrated, 2 for a configuration error.
"""

from __future__ import annotations

import argparse
import logging
import os
import subprocess
import sys

from . import command_menu
from .config import ConfigError, Settings, load_settings

log = logging.getLogger("tweakbot")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tweakbot",
        description="Play TWEAK! in Telegram groups. Settings come from the environment or .env.",
    )
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument(
        "--webhook",
        action="store_true",
        help="receive updates on a webhook (needs WEBHOOK_URL and WEBHOOK_SECRET)",
    )
    mode.add_argument("--polling", action="store_true", help="use long polling (the default)")
    sub = parser.add_subparsers(dest="command")
    sub.add_parser("migrate", help="upgrade the database to the newest schema and exit")
    return parser


def migrate(settings: Settings) -> bool:
    """Upgrade the database; False (after logging why) when that is impossible."""
    from sqlalchemy.exc import SQLAlchemyError

    from . import migrations

    try:
        migrations.upgrade(settings.database_url)
        revision = migrations.current(settings.database_url)
    except SQLAlchemyError as exc:
        log.error(
            "cannot migrate the database at %s: %s",
            settings.safe_database_url,
            str(getattr(exc, "orig", None) or exc).splitlines()[0],
        )
        return False
    log.info("database at %s is at schema revision %s", settings.safe_database_url, revision)
    return True


def migrate_apart() -> bool:
    """`tweakbot migrate` in a child process, before the bot starts: Alembic costs a process
    about 9 MB it would keep for as long as it serves. The child reads the same settings and
    logs to the same stderr; its exit code says whether the schema is ready."""
    return subprocess.run([sys.executable, "-m", "tgbot", "migrate"], check=False).returncode == 0


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command != "migrate":
        command_menu.menu_texts()  # before the big imports reuse the catalogs' memory
    try:
        settings = load_settings(require_token=args.command != "migrate")
    except ConfigError as exc:
        print(f"tweakbot: {exc}", file=sys.stderr)
        return 2
    from .logs import setup_logging

    setup_logging(settings.log_level, settings.secret_values())
    if args.command == "migrate":
        return 0 if migrate(settings) else 1

    from . import event_loop
    from .runner import check_webhook_settings, serve

    try:
        event_loop.loop_factory(settings.event_loop)  # uvloop asked for and missing: say so now
        if args.webhook:
            check_webhook_settings(settings)
    except ConfigError as exc:
        print(f"tweakbot: {exc}", file=sys.stderr)
        return 2
    if not args.webhook and settings.webhook_url is not None:
        log.warning("WEBHOOK_URL is set but --webhook was not given: using long polling")
    if not migrate_apart():
        return 1
    from .app import build_application
    from .deps import get_deps

    application = build_application(settings, create_tables=False, webhook=args.webhook)
    deps = get_deps(application.bot_data)
    event_loop.take_turns_often()
    try:
        event_loop.run(serve(application, settings, webhook=args.webhook), settings.event_loop)
    except ConfigError as exc:  # Telegram rejected the token
        log.error("%s", exc)
        return 2
    finally:
        deps.db.close()
    if deps.db.busy():
        # A transaction hangs in a worker thread (the database stopped answering): Python would
        # wait for it at exit, forever. Its transaction ends with the connection.
        log.warning("a database call is still hanging; exiting without waiting for it")
        logging.shutdown()
        os._exit(0)
    return 0


if __name__ == "__main__":
    sys.exit(main())
