# Two entry points: `make run` (the bot) and `make test` (the whole suite).
# Both create .venv and install the project on first use, so a fresh clone needs nothing else.
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: run test lint bench i18n migrate migration

$(STAMP): pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install -q -U pip
	$(PY) -m pip install -q -e '.[dev]'
	touch $(STAMP)

run: $(STAMP)
	$(VENV)/bin/tweakbot

# Needs PostgreSQL at 127.0.0.1:5432 for its PostgreSQL tests (skipped without it, except under CI=true).
test: $(STAMP)
	$(PY) -m pytest -q

# Upgrade the database named by DATABASE_URL (or the default SQLite file) to the newest schema.
migrate: $(STAMP)
	$(VENV)/bin/tweakbot migrate

# New migration from model changes: make migration m="add stats table"
migration: $(STAMP)
	$(PY) -m tgbot.migrations revision -m "$(m)"

lint: $(STAMP)
	$(VENV)/bin/ruff check engine tgbot tests benchmarks
	$(VENV)/bin/mypy

# Refresh the translation catalogs (extract + update; see DEVELOPERS.md, Translations).
i18n: $(STAMP)
	PYBABEL=$(VENV)/bin/pybabel scripts/i18n.sh

bench: $(STAMP)
	$(PY) benchmarks/engine_bench.py
	$(PY) benchmarks/bot_bench.py
