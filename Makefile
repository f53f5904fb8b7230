# perfalign: the two quick-start commands are `make demo` and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# llama-cpp-python builds from source, for this CPU (scripts/build-llama.sh).
PIP := $(BIN)/python -m pip

.PHONY: system venv llama install install-test install-dev build-deps model demo test test-fast

system:
	./scripts/bootstrap-system.sh

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip wheel

venv: $(BIN)/python

llama: system venv
	./scripts/build-llama.sh $(BIN)/python

install: llama
	$(PIP) install -q -e .

# The test tools only: what `make test-fast` needs (tests of the train extra are skipped without it).
install-test: llama
	$(PIP) install -q -e '.[dev]'

# What tests/test_wheel.py builds the wheel with, offline: the [build-system] requirements.
build-deps: venv
	$(PIP) install -q $$($(BIN)/python -c 'import tomllib; print(*tomllib.load(open("pyproject.toml", "rb"))["build-system"]["requires"])')

install-dev: llama
	$(PIP) install -q -e '.[dev,train]'
	./scripts/bootstrap-editors.sh

model: install
	$(BIN)/perfalign models pull qwen2.5-coder-1.5b-perf

# Set up, then suggest a verified rewrite of an example function with the default model. The fixed seed
# makes the model write the same four candidates every time (one of them, a loop interchange, verified
# about 4.4x faster at -O3).
demo: model
	$(BIN)/perfalign optimize examples/c/row_sums.c --function row_sums --samples 4 --seed 1

# Tests run in parallel, one worker per core (at most 4); the tests marked slow or alone run with the
# machine to themselves (tests/conftest.py). PYTEST_WORKERS=0 runs them one after another.
PYTEST_WORKERS ?= auto
PYTEST_PARALLEL := --numprocesses=$(PYTEST_WORKERS) --maxprocesses=4 --dist=worksteal

# Set up, then run the whole test suite (slow tests included). Every test must run: a skip that
# hides a missing install step (the train extra, gcc, bubblewrap, Archer) is an error here. The 40
# slowest tests are listed at the end of every run, so that what makes the suite slower is seen.
test: install-dev build-deps model
	PERFALIGN_REQUIRE_ALL=1 $(BIN)/python -m pytest -q -p no:cacheprovider $(PYTEST_PARALLEL) --durations=40

# Every test but the slow ones, without installing the train extra (its tests run where it is installed).
test-fast: install-test build-deps
	$(BIN)/python -m pytest -q -p no:cacheprovider $(PYTEST_PARALLEL) -m "not slow"
