"""Dependencies point one way: the package and its pure layers import without the compiled
engine, pandas or matplotlib. Each check runs in a fresh interpreter, since this one has
long loaded everything."""

from __future__ import annotations

import subprocess
import sys
import textwrap


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
