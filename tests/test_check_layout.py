"""csrc/check_layout.py: the C++ areas form a layered graph, a nested folder (exec/plp) being an
area of its own; the real tree passes, and a cycle through a nested area is refused."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SCRIPT = REPO / "csrc" / "check_layout.py"


def check(csrc: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *args, str(csrc)], capture_output=True, text=True, timeout=60)


def write(root: Path, rel: str, *includes: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#pragma once\n" + "".join(f'#include "islands/{i}"\n' for i in includes))


def test_the_tree_has_exec_plp_as_an_area_and_no_cycle():
    done = check(REPO / "csrc", "--graph")
    assert done.returncode == 0, done.stdout
    edges = [line.split(" -> ") for line in done.stdout.splitlines() if " -> " in line]
    graph = {area.strip(): targets.split(", ") for area, targets in edges}
    assert "exec" in graph["exec/plp"]
    assert "exec/plp" not in graph["exec"]
    assert "no cycle" in done.stdout


def test_a_parent_and_its_nested_area_including_each_other_fail(tmp_path):
    write(tmp_path, "include/islands/common/a.hpp")
    write(tmp_path, "include/islands/exec/driver.hpp", "exec/plp/routing.hpp", "common/a.hpp")
    write(tmp_path, "include/islands/exec/plp/routing.hpp", "exec/run_stats.hpp")
    write(tmp_path, "include/islands/exec/run_stats.hpp")
    done = check(tmp_path)
    assert done.returncode == 1
    assert "exec and exec/plp include each other" in done.stdout
    assert "include/islands/exec/driver.hpp -> islands/exec/plp/routing.hpp" in done.stdout


def test_a_longer_cycle_through_a_nested_area_fails(tmp_path):
    write(tmp_path, "include/islands/exec/plp/worker.hpp", "exec/loop.hpp")
    write(tmp_path, "include/islands/exec/loop.hpp", "instance/impl.hpp")
    write(tmp_path, "src/instance/impl.cpp", "exec/plp/worker.hpp")
    done = check(tmp_path)
    assert done.returncode == 1
    assert "folder cycle" in done.stdout
    assert "exec/plp" in done.stdout and "instance" in done.stdout
