"""docs/architecture.svg: the package's layers as :mod:`islands.layers` writes them down, and a
run's path from the command line through :func:`islands.execution.runner.plan` and
:func:`~islands.execution.runner.execute` to the engine's counters and back to the stored row and
the figure.

The picture is drawn from :func:`description`, a plain, deterministic account of what it shows
(the layers, their rows, the arrows drawn, the steps of the path and where each lives in the
code), which the SVG also carries as its metadata (``dc:description``): tests/test_architecture.py
compares that with what this module describes now, not the drawing's bytes, which vary with the
matplotlib version. ``python -m islands.plots.architecture`` (``make architecture``) draws it
again."""

from __future__ import annotations

import json
import sys
import textwrap
import xml.etree.ElementTree as ElementTree
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from islands.layers import CORE, LAYERS, Layer

__all__ = ["PICTURE_PATH", "RUN_PATH", "Step", "description", "draw", "main", "stored_description"]

_REPO = Path(__file__).resolve().parents[2]
#: Where the picture lives in a source checkout.
PICTURE_PATH = _REPO / "docs" / "architecture.svg"
#: The C++ engine, below the compiled module.
ENGINE = "csrc"


@dataclass(frozen=True)
class Step:
    """One step of a run's path: a short name, what happens there, where it lives in the code
    (``module:qualified.name``, or a path under csrc/), the layer it belongs to and its place in
    the picture (column, row from the top)."""

    key: str
    text: str
    where: str
    layer: str
    column: int
    row: int


#: The steps of a run, from the command line down to the engine and back up to the figure.
RUN_PATH: tuple[Step, ...] = (
    Step("run", "islands run: options → a run request", "islands.cli.run_command:main", "islands.cli", 0, 0),
    Step("sweep", "islands sweep FILE: a grid of points", "islands.cli.sweep_command:main", "islands.cli", 1, 0),
    Step(
        "points",
        "Sweep.run: each point, repeated until answered",
        "islands.experiments.sweep:Sweep.run",
        "islands.experiments",
        1,
        1,
    ),
    Step(
        "plan",
        "plan(): placement, CC and lock defaults, process shape, log directory",
        "islands.execution.runner:plan",
        "islands.execution",
        0,
        2,
    ),
    Step(
        "execute",
        "execute(): runs what the plan decided",
        "islands.execution.runner:execute",
        "islands.execution",
        0,
        3,
    ),
    Step(
        "in_process",
        "one instance in this process",
        "islands.execution.in_process:run",
        "islands.execution",
        0,
        4,
    ),
    Step(
        "deployment",
        "a deployment of pinned instance processes",
        "islands.execution.launcher:run_deployment",
        "islands.execution",
        1,
        4,
    ),
    Step("core", "islands._core: one coarse call, GIL released", "csrc/bindings/run.cpp", CORE, 0, 5),
    Step(
        "engine",
        "C++ workers: transactions, 2PC, per-thread counters",
        "csrc/include/islands/exec/run_stats.hpp",
        ENGINE,
        0,
        6,
    ),
    Step(
        "collect",
        "collect(): counters summed, rates → RunResult",
        "islands.execution.run_result:collect",
        "islands.execution",
        2,
        6,
    ),
    Step(
        "row",
        "the stored row: config, hash, topology, host, revision",
        "islands.analysis.store:ResultStore.append",
        "islands.analysis",
        2,
        4,
    ),
    Step(
        "figure",
        "islands plot: the figure (PNG, PDF) and its summary",
        "islands.plots:render_results",
        "islands.plots",
        2,
        2,
    ),
    Step(
        "catalog", "the catalog names each figure's drawing", "islands.figures.catalog:DRAWN", "islands.figures", 2, 0
    ),
)

#: The path's arrows: (from, to, kind); a call goes down, a result comes back up.
RUN_EDGES: tuple[tuple[str, str, str], ...] = (
    ("run", "plan", "call"),
    ("sweep", "points", "call"),
    ("points", "plan", "call"),
    ("plan", "execute", "call"),
    ("execute", "in_process", "call"),
    ("execute", "deployment", "call"),
    ("in_process", "core", "call"),
    ("deployment", "core", "call"),
    ("core", "engine", "call"),
    ("engine", "collect", "result"),
    ("collect", "row", "result"),
    ("row", "figure", "result"),
    ("catalog", "figure", "data"),
)


def _short(name: str) -> str:
    if name == "islands":
        return "islands (API)"
    return name.removeprefix("islands.")


def _targets(layer: Layer, layers: tuple[Layer, ...]) -> set[str]:
    """The layers ``layer`` may import, ``islands`` standing for every layer that does not itself
    name ``islands`` (the command line and the public API may import everything below them)."""
    top = {other.name for other in layers if "islands" in other.may_import}
    grown = True
    while grown:  # and the layers above those (the `islands` command above the command line)
        above = {other.name for other in layers if top & set(other.may_import)}
        grown = not above <= top
        top |= above
    below = {other.name for other in layers} - top
    out: set[str] = set()
    for target in layer.may_import:
        out |= below if target == "islands" else {target}
    out.discard(layer.name)
    return out


def _ranks(layers: Iterable[Layer]) -> dict[str, int]:
    """Each layer's row, bottom 0: the compiled engine at 1, a layer one above the highest it may
    import (the C++ engine at 0)."""
    layers = tuple(layers)
    names = [layer.name for layer in layers]
    graph = {layer.name: _targets(layer, layers) for layer in layers}
    graph[CORE] = set()
    rank: dict[str, int] = {CORE: 1}

    def visit(name: str, seen: tuple[str, ...] = ()) -> int:
        if name in rank:
            return rank[name]
        if name in seen:
            raise ValueError(f"the layering table has a cycle through {name}")
        below = [visit(t, (*seen, name)) for t in sorted(graph.get(name, ())) if t in graph]
        rank[name] = 1 + max(below, default=1)
        return rank[name]

    for name in names:
        visit(name)
    return rank


def _reduced_edges(layers: Iterable[Layer]) -> list[tuple[str, str]]:
    """The may-import arrows worth drawing: those no longer path implies (transitive reduction)."""
    layers = tuple(layers)
    graph = {layer.name: _targets(layer, layers) for layer in layers}
    graph[CORE] = set()

    def reaches(start: str, goal: str) -> bool:
        todo, seen = [start], set()
        while todo:
            node = todo.pop()
            if node == goal:
                return True
            if node not in seen:
                seen.add(node)
                todo += sorted(graph.get(node, ()))
        return False

    edges = []
    for source in sorted(graph):
        for target in sorted(graph[source]):
            if not any(reaches(other, target) for other in graph[source] if other != target):
                edges.append((source, target))
    return edges


def description(layers: Iterable[Layer] = LAYERS, steps: Iterable[Step] = RUN_PATH) -> dict[str, Any]:
    """What the picture shows, as plain data: the same for the same table and path, whatever
    draws it."""
    layers = tuple(layers)
    ranks = _ranks(layers)
    return {
        "layers": [
            {"name": layer.name, "role": layer.role, "may_import": list(layer.may_import), "row": ranks[layer.name]}
            for layer in layers
        ],
        "below": [{"name": CORE, "row": ranks[CORE]}, {"name": ENGINE, "row": 0}],
        "arrows": [list(edge) for edge in _reduced_edges(layers)] + [[CORE, ENGINE]],
        "run_path": [
            {"key": s.key, "text": s.text, "where": s.where, "layer": s.layer, "at": [s.column, s.row]} for s in steps
        ],
        "run_edges": [list(edge) for edge in RUN_EDGES],
    }


def _as_text(described: Mapping[str, Any]) -> str:
    return json.dumps(described, sort_keys=True, ensure_ascii=True, separators=(",", ":"))


def stored_description(path: Path = PICTURE_PATH) -> dict[str, Any]:
    """The description a drawn SVG carries in its metadata; ValueError when it carries none."""
    root = ElementTree.parse(path).getroot()
    for element in root.iter("{http://purl.org/dc/elements/1.1/}description"):
        if element.text:
            return dict(json.loads(element.text))
    raise ValueError(f"{path}: no description in its metadata (drawn by `make architecture`)")


def _colours(names: Iterable[str]) -> dict[str, Any]:
    from matplotlib import colormaps

    palette = colormaps["tab20"]
    return {name: palette(i % 20) for i, name in enumerate(names)}


def _box(ax: Any, at: tuple[float, float, float, float], colour: Any, title: str, text: str, size: float) -> None:
    """A rounded box centred at ``at`` (x, y, width, height in the axes' units): its title on top,
    ``text`` wrapped to the box's width below it."""
    from matplotlib.patches import FancyBboxPatch

    x, y, w, h = at
    ax.add_patch(
        FancyBboxPatch(
            (x - w / 2, y - h / 2),
            w,
            h,
            boxstyle="round,pad=0.003,rounding_size=0.008",
            facecolor=(*colour[:3], 0.25),
            edgecolor=colour,
            linewidth=1.2,
        )
    )
    box_inches = w * ax.get_position().width * ax.figure.get_figwidth()
    chars = max(12, int(box_inches * 72 / (0.55 * (size - 1.5))))
    ax.text(x, y + h * 0.47, title, ha="center", va="top", fontsize=size, fontweight="bold")
    if text:
        lines = [line for part in text.split("\n") for line in textwrap.wrap(part, width=chars, break_long_words=False)]
        ax.text(x, y + h * 0.06, "\n".join(lines), ha="center", va="top", fontsize=size - 1.5, color="#333333")


def _arrow(ax: Any, start: tuple[float, float], end: tuple[float, float], colour: Any, style: str = "-") -> None:
    ax.annotate(
        "",
        xy=end,
        xytext=start,
        arrowprops={
            "arrowstyle": "-|>",
            "color": colour,
            "linestyle": style,
            "linewidth": 1.0,
            "shrinkA": 0,
            "shrinkB": 0,
        },
    )


def draw(described: Mapping[str, Any]) -> Any:
    """The picture (a matplotlib Figure) of a :func:`description`."""
    from matplotlib.figure import Figure

    layers = described["layers"]
    names = [layer["name"] for layer in layers]
    colours = _colours([ENGINE, CORE, *names])
    figure = Figure(figsize=(15, 11))
    left = figure.add_axes((0.01, 0.02, 0.47, 0.9))
    right = figure.add_axes((0.5, 0.02, 0.49, 0.9))
    for ax in (left, right):
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
        ax.axis("off")
    figure.text(0.01, 0.965, "The layers (islands/layers.py): an arrow is 'may import'", fontsize=13, fontweight="bold")
    figure.text(0.01, 0.94, "arrows implied by others left out; cli and the API may import everything", fontsize=9)
    figure.text(0.5, 0.965, "A run's path: calls go down, results come back up", fontsize=13, fontweight="bold")
    figure.text(
        0.5,
        0.94,
        "boxes coloured by their layer, each naming its code; blue: calls, red: results, dotted: data",
        fontsize=9,
    )

    rows: dict[int, list[str]] = {}
    below = {b["name"]: b["row"] for b in described["below"]}
    for name, row in [*below.items(), *((layer["name"], layer["row"]) for layer in layers)]:
        rows.setdefault(row, []).append(name)
    top = max(rows)
    height = 0.92 / (top + 1)
    roles = {layer["name"]: layer["role"] for layer in layers}
    roles[CORE] = "pybind11: configure, run N seconds, return stats"
    roles[ENGINE] = "C++ engine: storage, index, cc, log, txn/2PC, transport, exec"
    where: dict[str, tuple[float, float, float, float]] = {}
    for row, members in rows.items():
        width = 1 / len(members)
        for i, name in enumerate(members):
            x, y = width * (i + 0.5), 0.04 + height * (row + 0.5)
            w, h = width * 0.95, height * 0.8
            where[name] = (x, y, w, h)
            _box(left, where[name], colours[name], _short(name), roles.get(name, ""), 8.5 if len(members) < 4 else 7.5)
    for source, target in described["arrows"]:
        sx, sy, sw, sh = where[source]
        tx, ty, tw, th = where[target]
        # from the point of each box nearest the other: straight down where they overlap
        x0 = min(max(tx, sx - sw * 0.45), sx + sw * 0.45)
        x1 = min(max(x0, tx - tw * 0.45), tx + tw * 0.45)
        _arrow(left, (x0, sy - sh / 2), (x1, ty + th / 2), (0.35, 0.35, 0.35, 0.6))

    steps = described["run_path"]
    columns = 1 + max(s["at"][0] for s in steps)
    deepest = 1 + max(s["at"][1] for s in steps)
    spot: dict[str, tuple[float, float, float, float]] = {}
    for s in steps:
        column, row = s["at"]
        x, y = (column + 0.5) / columns, 0.97 - (row + 0.5) * 0.94 / deepest
        w, h = 0.94 / columns, 0.94 / deepest * 0.74
        spot[s["key"]] = (x, y, w, h)
        _box(right, spot[s["key"]], colours[s["layer"]], _short(s["layer"]), f"{s['text']}\n{s['where']}", 9)
    styles = {"call": ("#1f3d7a", "-"), "result": ("#b03a2e", "-"), "data": ("#555555", ":")}
    for source, target, kind in described["run_edges"]:
        sx, sy, sw, sh = spot[source]
        tx, ty, tw, th = spot[target]
        if abs(sy - ty) < 1e-9:  # side by side
            start = (sx + sw / 2 * (1 if tx > sx else -1), sy)
            end = (tx - tw / 2 * (1 if tx > sx else -1), ty)
        else:
            up = ty > sy
            start = (sx, sy + sh / 2 if up else sy - sh / 2)
            end = (tx, ty - th / 2 if up else ty + th / 2)
        colour, style = styles[kind]
        _arrow(right, start, end, colour, style)
    return figure


def main(argv: list[str] | None = None) -> int:
    """Draws docs/architecture.svg (or the path given) and says where."""
    from matplotlib import rc_context

    args = sys.argv[1:] if argv is None else argv
    target = Path(args[0]) if args else PICTURE_PATH
    described = description()
    with rc_context({"svg.hashsalt": "islands-architecture", "svg.fonttype": "none", "font.family": "DejaVu Sans"}):
        draw(described).savefig(
            target,
            format="svg",
            metadata={
                "Title": "islands: the layers and a run's path",
                "Description": _as_text(described),
                "Date": None,
                "Creator": "python -m islands.plots.architecture (make architecture)",
            },
        )
    print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
