# `make run` and `make test` work on a fresh machine: they build .venv first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint typecheck bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev,ai,terminal,server,research]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/taluva demo

test: $(STAMP)
	$(BIN)/ruff check src tests bench
	$(BIN)/mypy src/taluva
	$(BIN)/pytest

bench: $(STAMP)
	$(BIN)/python bench/engine_speed.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
