# Set-up is part of every target: the first run makes .venv and installs the project.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	# torch first: 2.13.0 is a CPU build on the project machines' disk; other versions download GBs.
	$(BIN)/pip install --quiet torch==2.13.0
	$(BIN)/pip install --quiet -e ".[dev]"
	touch $@

.PHONY: setup tournament test lint docs mutation play serve
setup: $(BIN)/.installed

tournament: $(BIN)/.installed  ## the main job: a tournament of the shipped agents, printing the leaderboard
	$(BIN)/newmarket tournament --overwrite

play: $(BIN)/.installed  ## you against three agents in the terminal (README, "Play it"); more options: ARGS="..."
	$(BIN)/newmarket play --variant michigan --agents greedy --seed 7 $(ARGS)

serve: $(BIN)/.installed  ## the web app on http://127.0.0.1:8000/ (README, "Play it"); more options: ARGS="..."
	$(BIN)/newmarket serve $(ARGS)

test: $(BIN)/.installed  ## the whole test suite, on 2 processes
	$(BIN)/python -m pytest -n 2

lint: $(BIN)/.installed  ## ruff (lint, then format check) and mypy, as configured in pyproject.toml
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python scripts/typecheck.py

docs: $(BIN)/.installed  ## the docs site (Sphinx, Furo, MyST) into docs/_build/html; any warning fails the build
	$(BIN)/python -m sphinx -W --keep-going -E -b html docs docs/_build/html

mutation: $(BIN)/.installed  ## mutation testing outside the engine (mutmut; slow, not in CI): docs/testing.md
	scripts/mutation.sh $(MODULES)
