# Two commands for a fresh machine:
#   make run    set up .venv (and missing system libraries on Debian/Ubuntu), open the studio
#   make test   set up the same, run the whole test suite
#   make check  lint, then the tests not marked slow (the edit-test loop: a few minutes)
PYTHON ?= python3
VENV := .venv
ifeq ($(OS),Windows_NT)
BIN := $(VENV)/Scripts
else
BIN := $(VENV)/bin
endif
STAMP := $(VENV)/.installed

.PHONY: run test check bench lint setup

setup: $(STAMP)

$(STAMP): pyproject.toml
	@bash packaging/linux-deps.sh
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	@# torch first, pinned: on build machines it is a local CPU wheel; a bare "torch" could pull a CUDA build
	$(BIN)/python -c "import torch" 2>/dev/null || $(BIN)/python -m pip install --quiet "torch==2.13.0" \
		|| $(BIN)/python -m pip install --quiet torch
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	@touch $(STAMP)

run: $(STAMP)
	$(BIN)/voice-studio

# pytest-xdist: whole files per worker (their module fixtures are built once), heaviest files first
# (tests/conftest.py orders them by tests/durations.tsv; --no-loadscope-reorder keeps that order). Three
# workers on two cores: while one waits for a child process (a trainer, a server, the CLI) the others compute.
WORKERS ?= 3
PARALLEL := -n $(WORKERS) --dist loadfile --no-loadscope-reorder

# Our modules compiled once, before the run: where PYTHONDONTWRITEBYTECODE is set (CI machines) every process (a
# test's CLI, trainer or server; 250 in a run) compiled those it imported again, 0.2-0.8 CPU-s each
BYTECODE := $(BIN)/python -m compileall -q engines trainer studio

test: $(STAMP)
	$(BYTECODE)
	$(BIN)/python -m pytest $(PARALLEL) $(PYTEST_ARGS)

check: lint
	$(BYTECODE)
	$(BIN)/python -m pytest $(PARALLEL) -m "not slow and not mypy" $(PYTEST_ARGS)

bench: $(STAMP)
	$(BIN)/python tests/bench/synthesis.py
	$(BIN)/python tests/bench/dataset.py

# ruff; mypy clean on engines/ and trainer/; studio/ no worse than tools/mypy_baseline.txt
lint: $(STAMP)
	$(BIN)/ruff check . && $(BIN)/ruff format --check . && $(BIN)/mypy engines trainer && $(BIN)/python tools/mypy_baseline.py
