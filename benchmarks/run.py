"""Lists the benchmarks of this directory and runs one by name (each is also a script of its own).

    python benchmarks/run.py                      # every benchmark and its line (docs/benchmarks.md)
    python benchmarks/run.py NAME [OPTIONS ...]   # benchmarks/NAME.py with its options
    python benchmarks/run.py NAME --help          # its options: the shared ones and its own

Every benchmark takes ``--json PATH`` (its record: options, host and build metadata, measurements,
printed text) and, where it has them, ``--rounds N``, ``--duration S`` and ``--warmup S``
(benchmarks/_runner.py).
"""

from __future__ import annotations

import difflib
import runpy
import sys

from _runner import HERE, benchmarks, listed


def main(argv: list[str]) -> int:
    names = benchmarks()
    if not argv or argv[0] in ("list", "-h", "--help"):
        lines = listed()
        width = max(map(len, names))
        for name in names:
            print(f"{name:{width}}  {lines.get(name, '(not listed in docs/benchmarks.md)')}")
        return 0
    name = argv[0].removesuffix(".py")
    if name not in names:
        close = difflib.get_close_matches(name, names, n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else "; `python benchmarks/run.py` lists them"
        print(f"benchmarks/run.py: no benchmark {name!r}{hint}", file=sys.stderr)
        return 2
    path = HERE / f"{name}.py"
    sys.argv = [str(path), *argv[1:]]
    runpy.run_path(str(path), run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
