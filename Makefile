# Two entry points: `make run` (the bot) and `make test` (the whole suite).
# Both create .venv and install the project on first use, so a fresh clone needs nothing else.
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

# The translations, compiled (.mo next to each .po; build output, not committed).
PO := $(wildcard tgbot/locales/*/LC_MESSAGES/messages.po)
MO := $(PO:.po=.mo)

.PHONY: run test lint bench i18n catalogs migrate migration

# The editable install's build compiles the catalogs in place too (setup.py, build_catalogs).
$(STAMP): pyproject.toml setup.py
	python3 -m venv $(VENV)
	$(PY) -m pip install -q -U pip
	$(PY) -m pip install -q -e '.[dev]'
	touch $(STAMP)

# Compile again each catalog whose .po changed since (an editable install does not notice).
catalogs: $(MO)
$(MO): %.mo: %.po | $(STAMP)
	$(VENV)/bin/pybabel -q compile -i $< -o $@

run: $(STAMP) $(MO)
	$(VENV)/bin/tweakbot

# Needs PostgreSQL at 127.0.0.1:5432 for its PostgreSQL tests (skipped without it, except under CI=true).
test: $(STAMP) $(MO)
	$(PY) -m pytest -q

# Upgrade the database named by DATABASE_URL (or the default SQLite file) to the newest schema.
migrate: $(STAMP)
	$(VENV)/bin/tweakbot migrate

# New migration from model changes: make migration m="add stats table"
migration: $(STAMP)
	$(PY) -m tgbot.migrations revision -m "$(m)"

lint: $(STAMP)
	$(VENV)/bin/ruff check engine tgbot tests benchmarks setup.py
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports
	PYBABEL=$(VENV)/bin/pybabel scripts/i18n.sh --check

# Refresh the translation catalogs (extract + update + compile; see DEVELOPERS.md, Translations).
i18n: $(STAMP)
	PYBABEL=$(VENV)/bin/pybabel scripts/i18n.sh

# Cold runs (fresh processes and databases), medians and spreads; needs PostgreSQL at
# 127.0.0.1:5432 (or pass --db sqlite to the last three). See BENCHMARKS.md.
bench: $(STAMP)
	$(PY) benchmarks/engine_bench.py
	$(PY) benchmarks/tap_cost.py
	$(PY) benchmarks/bot_bench.py
	$(PY) benchmarks/sweep_bench.py
