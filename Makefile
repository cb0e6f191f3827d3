# The README's two commands: `make run` and `make test`. Everything else they need is here.
PYTHON ?= python3
VENV   ?= .venv
BUILD  ?= build/cmake
PY     := $(VENV)/bin/python
PYTEST_ARGS ?=

.PHONY: run test test-slow test-cpp install bench clean

# A virtual environment; Debian splits venv support into python3-venv, so fetch it if missing.
$(PY):
	$(PYTHON) -m venv $(VENV) || { rm -rf $(VENV); \
	  apt-get update -qq && apt-get install -y -qq python3-venv && $(PYTHON) -m venv $(VENV); }

$(VENV)/.build-deps: pyproject.toml | $(PY)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q scikit-build-core pybind11
	touch $@

# Editable install into the persistent build directory: a C++ edit rebuilds only what changed.
install: $(VENV)/.build-deps
	$(PY) -m pip install -q --no-build-isolation -C build-dir=$(BUILD) -e ".[test]"

run: install
	$(PY) -m islands sweep experiments/default.toml --fresh
	$(PY) -m islands plot results/default

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
