# `make run` and `make test` work on a fresh machine: they build .venv first.
#
# Two installs, each marked by its own stamp file in .venv:
#   run:  the package with the server extra only (what `taluva serve` and its AI seats need);
#   full: every extra and the dev tools (tests, linters, benchmarks), which includes `run`.
# So `make run` after `make test` installs nothing, and `make test` after `make run` adds the
# rest to the same .venv. Editing pyproject.toml makes the next install run again.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
RUN_STAMP := $(VENV)/.installed-run
FULL_STAMP := $(VENV)/.installed-full
RUN_EXTRAS := server
FULL_EXTRAS := server,ai,terminal,png,research,train,dev
PIP := $(BIN)/pip --disable-pip-version-check
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run test system-deps demo bench clean catalogs

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(RUN_STAMP): pyproject.toml | $(BIN)/python
	$(PIP) install --quiet -e '.[$(RUN_EXTRAS)]'
	$(BIN)/python -m taluva.lang.compile
	touch $@

$(FULL_STAMP): pyproject.toml | $(BIN)/python
	$(PIP) install --quiet -e '.[$(FULL_EXTRAS)]'
	$(BIN)/python -m taluva.lang.compile
	touch $@ $(RUN_STAMP)

# The game server with SQLite embedded; open the printed address in a browser.
run: $(RUN_STAMP)
	$(BIN)/taluva serve --host $(HOST) --port $(PORT)

# Debian packages the browser and PostgreSQL tests and the PNG pictures' font need
# (installed only when missing).
system-deps:
	bash scripts/ci-system-deps.sh

test: $(FULL_STAMP) system-deps
	$(BIN)/ruff check src tests bench
	$(BIN)/mypy src/taluva
	$(BIN)/lint-imports
	$(BIN)/pytest -n auto

# The translation catalogs: the code's English messages into the templates, then into every
# language's .po (new messages empty, to translate), compiled; docs/translating.md.
catalogs: $(FULL_STAMP)
	$(BIN)/python scripts/catalogs.py extract
	$(BIN)/python scripts/catalogs.py update
	$(BIN)/python scripts/catalogs.py compile
	$(BIN)/python scripts/catalogs.py check

demo: $(RUN_STAMP)
	$(BIN)/taluva demo

bench: $(FULL_STAMP)
	$(BIN)/python bench/engine_speed.py
	$(BIN)/python bench/expansions.py
	$(BIN)/python bench/mcts_speed.py
	$(BIN)/python bench/env_speed.py
	$(BIN)/python bench/server_load.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
