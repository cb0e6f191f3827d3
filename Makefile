# The README's two commands: `make run` and `make test`. Everything else they need is here.
PYTHON ?= python3
VENV   ?= .venv
BUILD  ?= build/cmake
PY     := $(VENV)/bin/python
PYTEST_ARGS ?=

.PHONY: run test test-slow test-cpp install lint bench clean

# A virtual environment; Debian splits venv support into python3-venv, so fetch it if missing.
$(PY):
	$(PYTHON) -m venv $(VENV) || { rm -rf $(VENV); \
	  apt-get update -qq && apt-get install -y -qq python3-venv && $(PYTHON) -m venv $(VENV); }

$(VENV)/.build-deps: pyproject.toml | $(PY)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q scikit-build-core pybind11
	touch $@

# System tools the characterization needs: perf (software counters checked against perf
# stat, perf record for code-module profiles) and valgrind (simulated counters). Debian
# packages, installed once when missing.
$(VENV)/.system-tools: | $(PY)
	@command -v perf >/dev/null && perf version >/dev/null 2>&1 || { apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq linux-perf; }
	@command -v valgrind >/dev/null || { apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq valgrind; }
	touch $@

# Editable install into the persistent build directory: a C++ edit rebuilds only what changed.
install: $(VENV)/.build-deps $(VENV)/.system-tools
	$(PY) -m pip install -q --no-build-isolation -C build-dir=$(BUILD) -e ".[test]"

run: install
	$(PY) -m islands sweep experiments/default.toml --fresh
	$(PY) -m islands plot results/default

# Lint, format and type checks; settings live in pyproject.toml ([tool.ruff], [tool.mypy]).
lint: install
	$(VENV)/bin/ruff check islands tests benchmarks
	$(VENV)/bin/ruff format --check islands tests benchmarks
	$(VENV)/bin/mypy islands

test: install
	$(PY) -m pytest -q -m "not slow" $(PYTEST_ARGS)
	ctest --test-dir $(BUILD) --output-on-failure

test-slow: install
	$(PY) -m pytest -q -m slow $(PYTEST_ARGS)

test-cpp: install
	ctest --test-dir $(BUILD) --output-on-failure

bench: install
	$(PY) benchmarks/engine_overhead.py

clean:
	rm -rf build $(VENV)
