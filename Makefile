# `make run` starts the web app (http://127.0.0.1:8000/); `make test` runs the whole suite.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev,ray,research]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/hanamikoji serve

lint: $(STAMP)
	$(BIN)/ruff check src tests bench examples docs scripts
	$(BIN)/ruff format --check src tests bench examples docs scripts
	$(BIN)/mypy
	$(BIN)/lint-imports

test: $(STAMP) lint
	@# Compile the search's numba kernels once (cached on disk), before tests that time the AI.
	$(BIN)/python -c "from hanamikoji.web.ai_worker import warm_up; warm_up()"
	$(BIN)/pytest

bench: $(STAMP)
	$(BIN)/python bench/engine.py

clean:
	rm -rf $(VENV) build dist src/*.egg-info .pytest_cache .mypy_cache .ruff_cache
