"""Dependencies point one way: the package and its pure layers import without the compiled
engine, pandas or matplotlib. Each check runs in a fresh interpreter, since this one has
long loaded everything."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest


def python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=120)


def test_importing_the_package_loads_neither_the_engine_nor_pandas():
    done = python(
        """
        import sys
        import islands
        heavy = sorted({"islands._core", "pandas", "matplotlib"} & set(sys.modules))
        assert heavy == [], heavy
        assert set(islands.__all__) <= set(dir(islands))
        # a name loads its module on first use; islands.run stays the function
        assert islands.RunConfig.__module__ == "islands.config"
        import islands.launch
        assert callable(islands.run) and islands.run.__module__ == "islands.run", islands.run
        assert islands.launch.run_deployment is islands.run_deployment
        from islands import Sweep, run
        assert run is islands.run and Sweep.__module__ == "islands.sweep"
        try:
            islands.no_such_name
        except AttributeError as error:
            assert "no_such_name" in str(error)
        else:
            raise AssertionError("islands.no_such_name did not raise")
        """
    )
    assert done.returncode == 0, done.stderr


#: Layers that compute from their inputs alone: no compiled engine, no tables, no figures.
PURE = [
    "islands.topology",
    "islands.placement",
    "islands.results",
    "islands.config",
    "islands.experiment",
    "islands.model",
]

#: Makes importing the compiled engine, pandas or matplotlib (or anything under them) fail.
BLOCKER = """
import importlib, sys

BLOCKED = ("islands._core", "pandas", "matplotlib")


def blocked(name):
    return any(name == b or name.startswith(b + ".") for b in BLOCKED)


class Block:
    def find_spec(self, name, path=None, target=None):
        if blocked(name):
            raise ImportError(f"{name} is blocked in this test")
        return None


sys.meta_path.insert(0, Block())
"""


@pytest.mark.parametrize("module", PURE)
def test_a_pure_layer_imports_without_the_engine_pandas_or_matplotlib(module):
    done = python(
        BLOCKER
        + f"""
importlib.import_module({module!r})
loaded = sorted(m for m in sys.modules if blocked(m))
assert loaded == [], loaded
"""
    )
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("module", ["islands.plots._common", "islands.launch"])
def test_the_blocker_stops_what_needs_the_heavy_modules(module):
    # Without this the check above could pass because the finder let everything through.
    done = python(BLOCKER + f"importlib.import_module({module!r})\n")
    assert done.returncode != 0 and "is blocked in this test" in done.stderr, done.stderr
