"""deploy/ names exactly the settings the bot reads and the entry point it has (no Docker here)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import yaml

from tgbot.__main__ import _parser, main
from tgbot.config import ENV_SETTINGS, Settings

REPO = Path(__file__).resolve().parents[2]
DEPLOY = REPO / "deploy"
#: Read by the compose file for the bundled PostgreSQL, not by the bot.
COMPOSE_ONLY = {"POSTGRES_PASSWORD"}
SETTING_NAME = re.compile(r"\b(?:TELEGRAM|TWEAKBOT|DATABASE|LOG|WEBHOOK|METRICS)_[A-Z_]+\b")


def test_the_settings_list_is_the_settings_class() -> None:
    """ENV_SETTINGS is derived from the fields' aliases, so a new field is checked below at once."""
    aliases = [field.validation_alias for field in Settings.model_fields.values()]
    assert list(ENV_SETTINGS) == aliases and len(set(aliases)) == len(aliases)


def env_example_names() -> list[str]:
    names = []
    for line in (DEPLOY / ".env.example").read_text().splitlines():
        match = re.match(r"^([A-Z][A-Z0-9_]*)=", line)
        if match:
            names.append(match.group(1))
    return names


def test_env_example_lists_every_setting_once() -> None:
    names = env_example_names()
    assert len(names) == len(set(names))
    assert set(names) - COMPOSE_ONLY == set(ENV_SETTINGS)
    # and mentions nothing that looks like a setting the bot does not read
    mentioned = set(SETTING_NAME.findall((DEPLOY / ".env.example").read_text()))
    assert mentioned <= set(ENV_SETTINGS), mentioned - set(ENV_SETTINGS)


def test_compose_passes_exactly_the_settings_to_the_bot_and_checks_postgres_health() -> None:
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    bot, db = compose["services"]["bot"], compose["services"]["db"]
    assert set(bot["environment"]) == set(ENV_SETTINGS)
    assert bot["environment"]["DATABASE_URL"].startswith("postgresql://")
    assert "@db:5432/" in bot["environment"]["DATABASE_URL"]
    assert bot["depends_on"]["db"]["condition"] == "service_healthy"
    assert bot["build"]["dockerfile"] == "deploy/Dockerfile"
    assert db["image"].startswith("postgres:")
    assert "pg_isready" in " ".join(db["healthcheck"]["test"])
    volume = db["volumes"][0].split(":")[0]
    assert volume in compose["volumes"]
    used = set(re.findall(r"\$\{([A-Z_]+)", (DEPLOY / "compose.yaml").read_text()))
    assert used <= set(ENV_SETTINGS) | COMPOSE_ONLY


def test_dockerfile_is_slim_non_root_and_migrates_then_runs_the_bot() -> None:
    text = (DEPLOY / "Dockerfile").read_text()
    froms = re.findall(r"^FROM (\S+)", text, re.M)
    assert froms and all(f.startswith("python:3.11-slim") for f in froms)
    users = re.findall(r"^USER (\S+)", text, re.M)
    assert users and users[-1] not in ("root", "0")
    entrypoint = re.search(r"^ENTRYPOINT (.+)$", text, re.M)
    assert entrypoint is not None
    assert "tweakbot migrate && exec tweakbot" in entrypoint.group(1)
    assert re.search(r"^STOPSIGNAL SIGTERM$", text, re.M)
    assert not SETTING_NAME.findall(text) or set(SETTING_NAME.findall(text)) <= set(ENV_SETTINGS)


def test_systemd_unit_migrates_then_runs_the_bot() -> None:
    text = (DEPLOY / "tweakbot.service").read_text()
    directives = dict(
        line.split("=", 1) for line in text.splitlines() if "=" in line and not line.startswith("#")
    )
    assert directives["ExecStartPre"].endswith("/tweakbot migrate")
    assert directives["ExecStart"].endswith("/tweakbot")
    assert directives["User"] != "root"
    assert directives["KillSignal"] == "SIGTERM"
    assert directives["EnvironmentFile"]


def test_the_image_and_the_unit_give_the_threads_one_malloc_arena() -> None:
    """MALLOC_ARENA_MAX=2 in both (BENCHMARKS.md, Peak RSS); the load bench runs the bot so too."""
    dockerfile = (DEPLOY / "Dockerfile").read_text()
    assert re.search(r"^ENV (?:.*\\\n)*.*\bMALLOC_ARENA_MAX=2\b", dockerfile, re.M)
    unit = (DEPLOY / "tweakbot.service").read_text()
    assert re.search(r"^Environment=MALLOC_ARENA_MAX=2$", unit, re.M)
    assert 'env.setdefault("MALLOC_ARENA_MAX", "2")' in (REPO / "benchmarks" / "instances.py").read_text()


def test_the_image_and_the_unit_run_the_bot_without_docstrings_from_precompiled_bytecode() -> None:
    """PYTHONOPTIMIZE=2 in both (BENCHMARKS.md, Peak RSS), and the bytecode it reads compiled at
    install time: the image writes none at run time and the unit's /opt is read-only, so without
    it every start would compile every module again. tests/ops/test_optimized.py runs it."""
    dockerfile = (DEPLOY / "Dockerfile").read_text()
    assert re.search(r"^ENV (?:.*\\\n)*.*\bPYTHONOPTIMIZE=2\b", dockerfile, re.M)
    assert re.search(r"python -OO -m compileall -q /opt/tweakbot/lib$", dockerfile, re.M)
    unit = (DEPLOY / "tweakbot.service").read_text()
    assert re.search(r"^Environment=PYTHONOPTIMIZE=2$", unit, re.M)
    assert re.search(r"^#.*python -OO -m compileall -q /opt/tweakbot/lib\b", unit, re.M)


def test_the_entry_point_and_its_commands_exist() -> None:
    scripts = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts["tweakbot"] == "tgbot.__main__:main"
    assert callable(main)
    parser = _parser()
    assert parser.parse_args(["migrate"]).command == "migrate"
    assert parser.parse_args(["--webhook"]).webhook is True
    assert parser.parse_args([]).command is None and not parser.parse_args([]).webhook


def test_the_operators_guide_has_a_self_hosting_section_naming_the_deploy_files() -> None:
    guide = (REPO / "docs" / "operating.md").read_text()
    assert "## Self-hosting" in guide
    section = guide.split("## Self-hosting", 1)[1]
    for needle in (
        "deploy/compose.yaml",
        "tweakbot.service",
        "pg_dump",
        "--webhook",
        "WEBHOOK_SECRET",
        "/healthz",
    ):
        assert needle in section, needle
