# The two set-up-and-go commands: `make demo` and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
SHARED ?= ../shared
STAMP := $(VENV)/.installed

.PHONY: setup system demo test lint bench audit-sweep scheduling-sweep desk-sweep clean

system:
	bash scripts/system-deps.sh

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

setup: $(STAMP) system

demo: setup
	bash scripts/demo.sh

lint: setup
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks
	$(BIN)/mypy
	$(BIN)/lint-imports --no-cache

# Two workers, a test file per worker at a time: a file's tests share their fixtures, and the
# red team's unsandboxed attackers (one file) never meet another red-team run. Tests that
# compare latencies side by side (marked `alone`) run afterwards, with nothing beside them: on
# a two-core machine another test worker's load would be measured as the suite's unfairness.
test: lint
	$(BIN)/pytest -q -n 2 --dist loadfile -m "not alone"
	$(BIN)/pytest -q -m alone

# The answer-key audit over twenty fresh worlds (CI runs three: tests/builtin/test_audit.py).
audit-sweep: $(STAMP)
	BIN=$(BIN) bash scripts/audit-sweep.sh

# Every scheduling template over twenty more draws, each case validated (about 5 minutes a seed
# on two cores); not part of `make test`. SEEDS="1 2 3" or PER_FAMILY=5 for a shorter sweep.
scheduling-sweep: $(STAMP)
	BIN=$(BIN) bash scripts/scheduling-sweep.sh

# The example scheduling desk agent over all 300 shipped scheduling cases, scored by family
# (about ten minutes on two cores); not part of `make test`. TASKS='booking-*' for a part.
desk-sweep: $(STAMP)
	BIN=$(BIN) bash scripts/desk-sweep.sh

bench: $(STAMP)
	$(BIN)/python benchmarks/bench_scoring.py --write docs/benchmarks.md
	$(BIN)/python benchmarks/bench_runner.py --write docs/benchmarks.md
	$(BIN)/python benchmarks/bench_readback.py --write docs/benchmarks.md
	$(BIN)/python benchmarks/bench_envs.py --write docs/benchmarks.md
	$(BIN)/python benchmarks/bench_envs_load.py --write docs/benchmarks.md
	$(BIN)/python benchmarks/bench_fairness.py --write docs/benchmarks.md
	$(BIN)/python benchmarks/bench_sandbox.py --write docs/benchmarks.md
	$(BIN)/python benchmarks/bench_browser.py --write docs/benchmarks.md
	$(BIN)/python benchmarks/bench_ray.py --write docs/benchmarks.md
	@# Needs a build of the benchmark's portals and its corpus: skipped, saying so, without them.
	-$(BIN)/python benchmarks/bench_hab.py --write docs/benchmarks.md

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache
