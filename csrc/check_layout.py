#!/usr/bin/env python3
"""Check that the csrc folders form a layered graph: no cycle of includes between folders.

Each header in csrc/include/islands/<folder>/ and each source in csrc/src/<folder>/ belongs
to <folder>, where <folder> is the whole path below islands/ (or src/): a nested folder such
as exec/plp is an area of its own, not a part of exec. An `#include "islands/<other>/x.hpp"`
in it is an edge <folder> -> <other> (again the whole folder path of the included file). The
check fails (exit status 1) when the folder graph has a cycle, two folders that include each
other being the shortest one, and prints every include that takes part in it. The bindings
and the C++ tests sit above every folder and are not part of the graph.

Usage: python3 csrc/check_layout.py [--graph] [CSRC_DIR]
  --graph   also print the folder graph (one line per folder: what it includes)
Standard library only, so that ctest can run it without the virtual environment.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

INCLUDE = re.compile(r'^\s*#\s*include\s*"islands/((?:[^/"]+/)+)([^/"]+)"', re.MULTILINE)


def folder_of(path: Path, csrc: Path) -> str | None:
    """The folder a file belongs to (exec, exec/plp, ...), or None for files outside the graph."""
    rel = path.relative_to(csrc).parts
    if len(rel) >= 4 and rel[0] == "include" and rel[1] == "islands":
        return "/".join(rel[2:-1])
    if len(rel) >= 3 and rel[0] == "src":
        return "/".join(rel[1:-1])
    return None


def collect_edges(csrc: Path) -> dict[str, dict[str, list[str]]]:
    """edges[a][b] = the files of folder a (with the included file) that include folder b."""
    edges: dict[str, dict[str, list[str]]] = {}
    for path in sorted(csrc.rglob("*")):
        if path.suffix not in (".hpp", ".cpp", ".h", ".cc") or not path.is_file():
            continue
        folder = folder_of(path, csrc)
        if folder is None:
            continue
        edges.setdefault(folder, {})
        for target, name in INCLUDE.findall(path.read_text(encoding="utf-8")):
            target = target.rstrip("/")
            if target != folder:
                where = f"{path.relative_to(csrc)} -> islands/{target}/{name}"
                edges[folder].setdefault(target, []).append(where)
    return edges


def find_cycle(edges: dict[str, dict[str, list[str]]]) -> list[str] | None:
    """One cycle of the folder graph (first folder repeated at the end), or None."""
    white, grey, black = 0, 1, 2
    colour = {folder: white for folder in edges}
    stack: list[str] = []

    def visit(folder: str) -> list[str] | None:
        colour[folder] = grey
        stack.append(folder)
        for target in sorted(edges.get(folder, {})):
            state = colour.get(target, white)
            if state == grey:
                return stack[stack.index(target) :] + [target]
            if state == white:
                found = visit(target)
                if found:
                    return found
        stack.pop()
        colour[folder] = black
        return None

    for folder in sorted(edges):
        if colour[folder] == white:
            found = visit(folder)
            if found:
                return found
    return None


def print_limited(lines: list[str], limit: int = 12) -> None:
    """The first `limit` lines, then how many were left out."""
    for where in lines[:limit]:
        print(f"    {where}")
    if len(lines) > limit:
        print(f"    ... and {len(lines) - limit} more")


def main(argv: list[str]) -> int:
    show_graph = "--graph" in argv
    args = [a for a in argv if a != "--graph"]
    csrc = Path(args[0]) if args else Path(__file__).resolve().parent
    edges = collect_edges(csrc)
    if not edges:
        print(f"check_layout: no sources under {csrc}", file=sys.stderr)
        return 2
    if show_graph:
        for folder in sorted(edges):
            print(f"{folder:10s} -> {', '.join(sorted(edges[folder])) or '(nothing)'}")
    status = 0
    mutual = sorted(
        (a, b) for a in edges for b in edges[a] if a < b and a in edges.get(b, {})
    )
    for a, b in mutual:
        status = 1
        print(f"check_layout: {a} and {b} include each other:")
        # The direction with fewer includes first: most likely the one that went wrong.
        for x, y in sorted([(a, b), (b, a)], key=lambda d: len(edges[d[0]][d[1]])):
            print(f"  {x} -> {y}:")
            print_limited(edges[x][y])
    cycle = find_cycle(edges)
    if cycle and not mutual:
        status = 1
        print(f"check_layout: folder cycle {' -> '.join(cycle)}:")
        for a, b in zip(cycle, cycle[1:]):
            print_limited(edges[a][b])
    if status == 0:
        print(f"check_layout: {len(edges)} folders, no cycle")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
