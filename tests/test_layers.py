"""Dependencies point one way, and every import counts: those inside functions and under
``TYPE_CHECKING`` as much as those at the top of a module. The directions are written once, in
:data:`MAY_IMPORT`; a reading of the source (``ast``, nothing imported) checks them, finds
import cycles and module names used twice. The import-time checks at the end run in a fresh
interpreter, since this one has long loaded everything.

The table is :data:`islands.layers.MAY_IMPORT`, whole packages only; docs/architecture.svg draws
it."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
import textwrap
from collections import defaultdict
from pathlib import Path

import pytest

from islands.layers import MAY_IMPORT

PACKAGE = Path(__file__).resolve().parent.parent / "islands"


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: Path, name: str) -> set[str]:
    """Every ``islands`` module ``path`` imports, wherever the import statement stands."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target != "islands":  # "from islands import _core" imports _core, not the API
                found.add(target)
            found.update(f"{target}.{a.name}" for a in node.names)
    return {m for m in found if m == "islands" or m.startswith("islands.")}


def read_tree(root: Path) -> tuple[dict[str, Path], dict[str, set[str]]]:
    """The package's modules and, for each, the modules of the package it imports."""
    modules = {module_name(p, root): p for p in root.rglob("*.py")}
    known = set(modules) | {"islands._core"}
    graph = {}
    for name, path in modules.items():
        targets = set()
        for target in imports_of(path, name):
            # "from islands.x import f" names islands.x.f: keep the longest known module
            while target not in known and "." in target:
                target = target.rpartition(".")[0]
            if target != name:
                targets.add(target)
        graph[name] = targets
    return modules, graph


def layer_of(module: str) -> str:
    candidates = [layer for layer in MAY_IMPORT if module == layer or module.startswith(layer + ".")]
    return max(candidates, key=len) if candidates else module


def allowed(importer: str, target: str) -> bool:
    if target == "islands" and importer != "islands":
        return False  # the package's lazy API is for users; our modules import what they use
    own = layer_of(importer)
    if layer_of(target) == own or layer_of(target).startswith(own + "."):
        return True  # a layer's own modules, and the layers nested in it
    may = MAY_IMPORT.get(own, ())
    return any(target == m or target.startswith(m + ".") for m in may)


def violations(root: Path) -> list[str]:
    _, graph = read_tree(root)
    return sorted(
        f"{importer} imports {target} ({layer_of(importer)} may not)"
        for importer, targets in graph.items()
        for target in targets
        if not allowed(importer, target)
    )


def cycles(root: Path) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan), the package's own
    ``__init__`` left out: a package importing its children is no cycle."""
    _, graph = read_tree(root)
    graph = {m: {t for t in ts if t in graph and not _is_parent(t, m)} for m, ts in graph.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    # Raised for the walk only: a limit left at 10,000 let later tests' deeply nested input
    # (test_hardening's 3,000 nested tables) parse instead of raising RecursionError.
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10_000))
    try:
        for v in sorted(graph):
            if v not in index:
                visit(v)
    finally:
        sys.setrecursionlimit(limit)
    return out


def _is_parent(package: str, module: str) -> bool:
    return module.startswith(package + ".")


def test_every_import_points_down_the_layers():
    assert violations(PACKAGE) == []


def test_no_import_cycles():
    assert cycles(PACKAGE) == []


def test_no_two_modules_share_a_name():
    names: dict[str, list[str]] = defaultdict(list)
    for path in PACKAGE.rglob("*.py"):
        stem = path.parent.name if path.name == "__init__.py" else path.stem
        if stem not in ("__main__", "_core") and path.parent != PACKAGE.parent:
            names[stem].append(str(path.relative_to(PACKAGE.parent)))
    names.pop("islands", None)
    assert {n: p for n, p in names.items() if len(p) > 1} == {}


def test_the_table_names_whole_packages_only():
    def whole(name: str) -> bool:
        if name in ("islands", "islands._core"):
            return True
        path = PACKAGE.parent.joinpath(*name.split("."))
        top_level_module = name.count(".") == 1 and path.with_suffix(".py").is_file()
        return (path / "__init__.py").is_file() or top_level_module

    names = set(MAY_IMPORT) | {m for targets in MAY_IMPORT.values() for m in targets}
    assert sorted(n for n in names if not whole(n)) == []


def test_every_module_belongs_to_a_layer():
    modules, _ = read_tree(PACKAGE)
    assert sorted(m for m in modules if layer_of(m) == m and m not in MAY_IMPORT) == []


@pytest.mark.parametrize(
    ("module", "planted"),
    [
        ("plots/multisite.py", "def _planted():\n    from islands.execution.launcher import run_deployment\n"),
        ("machine/placement.py", "if False:\n    import islands.measure.pmu\n"),
        ("model/predict.py", "def _planted():\n    from islands import _core\n"),
        ("measure/pmu.py", "def _planted():\n    import islands.plots.multisite\n"),
        ("figures/designs.py", "def _planted():\n    import islands.plots.design_comparison\n"),
    ],
)
def test_the_reading_finds_a_planted_violation(tmp_path, module, planted):
    tree = tmp_path / "islands"
    shutil.copytree(PACKAGE, tree, ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    with (tree / module).open("a") as f:
        f.write("\n" + planted)
    found = violations(tree)
    assert len(found) == 1 and found[0].startswith(module_name(tree / module, tree)), found


def test_the_reading_finds_a_planted_cycle(tmp_path):
    tree = tmp_path / "islands"
    shutil.copytree(PACKAGE, tree, ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    with (tree / "machine" / "topology.py").open("a") as f:
        f.write("\ndef _planted():\n    from islands.machine.placement import plan_deployment\n")
    assert ["islands.machine.placement", "islands.machine.topology"] in cycles(tree)


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
        # a name loads its module on first use
        assert islands.RunConfig.__module__ == "islands.config.settings"
        import islands.execution.launcher
        assert callable(islands.run) and islands.run.__module__ == "islands.execution.in_process", islands.run
        assert islands.execution.launcher.run_deployment is islands.run_deployment
        from islands import Sweep, run
        assert run is islands.run and Sweep.__module__ == "islands.experiments.sweep"
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
    "islands.machine.topology",
    "islands.machine.placement",
    "islands.analysis.store",
    "islands.config.settings",
    "islands.experiments.spec",
    "islands.model",
    "islands.figures.catalog",
    "islands.figures.designs",
    "islands.layers",
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


@pytest.mark.parametrize("module", ["islands.plots._common", "islands.execution.launcher"])
def test_the_blocker_stops_what_needs_the_heavy_modules(module):
    # Without this the check above could pass because the finder let everything through.
    done = python(BLOCKER + f"importlib.import_module({module!r})\n")
    assert done.returncode != 0 and "is blocked in this test" in done.stderr, done.stderr
