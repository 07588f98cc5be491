# `make run` and `make test` work on a fresh machine: they build .venv first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run test system-deps demo bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev,ai,terminal,server,research]'
	touch $(STAMP)

# The game server with SQLite embedded; open the printed address in a browser.
run: $(STAMP)
	$(BIN)/taluva serve --host $(HOST) --port $(PORT)

# Debian packages the browser and PostgreSQL tests need (installed only when missing).
system-deps:
	bash scripts/ci-system-deps.sh

test: $(STAMP) system-deps
	$(BIN)/ruff check src tests bench
	$(BIN)/mypy src/taluva
	$(BIN)/lint-imports
	$(BIN)/pytest

demo: $(STAMP)
	$(BIN)/taluva demo

bench: $(STAMP)
	$(BIN)/python bench/engine_speed.py
	$(BIN)/python bench/expansions.py
	$(BIN)/python bench/mcts_speed.py
	$(BIN)/python bench/env_speed.py
	$(BIN)/python bench/server_load.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
