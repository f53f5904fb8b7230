# perfalign: the two quick-start commands are `make demo` and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# llama-cpp-python builds from source, for this CPU (scripts/build-llama.sh).
PIP := $(BIN)/python -m pip

.PHONY: system venv llama install install-dev model demo test test-fast

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

install-dev: llama
	$(PIP) install -q -e '.[dev,train]'
	./scripts/bootstrap-editors.sh

model: install
	$(BIN)/perfalign models pull qwen2.5-coder-1.5b

# Set up, then suggest a verified rewrite of an example function with the default model.
demo: model
	$(BIN)/perfalign optimize examples/c/row_sums.c --function row_sums --samples 4

# Set up, then run the whole test suite (slow tests included).
test: install-dev model
	$(BIN)/python -m pytest -q -p no:cacheprovider

test-fast: install-dev
	$(BIN)/python -m pytest -q -m "not slow"
