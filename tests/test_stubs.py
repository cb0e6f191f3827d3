"""The checked-in type stubs of islands._core name everything the module exports."""

from __future__ import annotations

import ast
from pathlib import Path

from islands import _core


def test_stub_covers_the_module():
    tree = ast.parse((Path(__file__).parent.parent / "islands" / "_core.pyi").read_text())
    stubbed = {node.name for node in tree.body if isinstance(node, (ast.FunctionDef, ast.ClassDef))}
    exported = {name for name in dir(_core) if not name.startswith("_")}
    missing = exported - stubbed
    assert not missing, f"regenerate islands/_core.pyi (pybind11-stubgen islands._core): {sorted(missing)}"
