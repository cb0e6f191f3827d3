"""The deployment map (:mod:`islands.model.deployment_map`) as a figure: a coloured cell per
(local cost, round trip) for the deployment the model predicts fastest, hatched where the model
cannot tell it from the runner-up, and today's engines over each mechanism marked.
"""

from __future__ import annotations

import textwrap

import numpy as np
from matplotlib.colors import ListedColormap
from matplotlib.patches import Patch, Rectangle

from islands.analysis.verdicts import NOT_DISTINGUISHABLE
from islands.model.deployment_map import DeploymentMap
from islands.plots._common import Drawing, color_of
from islands.plots.inline_figure import InlineFigure

__all__ = ["plot_map"]

#: Marker per mark, in order.
MARK_SHAPES = ("*", "P", "X", "D", "v", "^", "s", "o")


def plot_map(m: DeploymentMap) -> Drawing:
    """Draws ``m`` (module docstring); the summary is :meth:`DeploymentMap.lines`."""
    order = [d for d in m.deployments if any(c.best == d for row in m.cells for c in row)]
    index = {d: i for i, d in enumerate(order)}
    grid = np.array([[index[c.best] for c in row] for row in m.cells], dtype=float)
    unclear = np.array([[not c.distinguishable for c in row] for row in m.cells])
    fig = InlineFigure(figsize=(8.4, 6.4), layout="constrained")
    ax = fig.subplots()
    xs, ys = _edges(m.local_us), _edges(m.round_trip_us)
    cmap = ListedColormap([color_of(i) for i in range(len(order))])
    ax.pcolormesh(xs, ys, grid, cmap=cmap, vmin=-0.5, vmax=len(order) - 0.5, shading="flat", alpha=0.75)
    for i, j in zip(*np.nonzero(unclear)):
        ax.add_patch(
            Rectangle((xs[j], ys[i]), xs[j + 1] - xs[j], ys[i + 1] - ys[i], fill=False, hatch="///", lw=0, ec="#333333")
        )
    for i, mark in enumerate(m.marks):
        ax.plot(
            [mark.local_us],
            [mark.round_trip_us],
            marker=MARK_SHAPES[i % len(MARK_SHAPES)],
            ms=10,
            color="black",
            markerfacecolor="white",
            linestyle="none",
            label=mark.label,
        )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(xs[0], xs[-1])
    ax.set_ylim(ys[0], ys[-1])
    ax.set_xlabel(f"local cost of one {m.workload.kind} transaction, single-threaded (µs; engine speed)", fontsize=8)
    ax.set_ylabel(f"round trip over {m.transport} (µs)", fontsize=8)
    ax.tick_params(labelsize=7)
    handles = [Patch(color=color_of(i), alpha=0.75, label=f"{d} predicted fastest") for i, d in enumerate(order)]
    handles.append(
        Patch(facecolor="white", hatch="///", edgecolor="black", label=f"{NOT_DISTINGUISHABLE} from the runner-up")
    )
    legend = ax.legend(handles=handles, fontsize=6.5, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    ax.add_artist(legend)
    if m.marks:
        ax.legend(fontsize=6.5, loc="lower left", bbox_to_anchor=(1.01, 0.0), title="today", title_fontsize=7)
    ax.set_title(
        f"Which deployment the model predicts fastest: {m.workload.describe()} on {m.machine}\n"
        f"the Islands model, not a measurement; the engine keeps {m.engine}'s proportions\n"
        "hatched: the 10-90% interval of best over runner-up includes 1",
        fontsize=8,
    )
    lines = m.lines()
    fig.supxlabel("\n".join(textwrap.fill(t, 140) for t in lines[2:]), fontsize=6)
    stem = f"deployment-map-{m.workload.kind}-{m.transport}"
    return Drawing(fig, "\n".join(lines) + "\n", stem)


def _edges(centres: tuple[float, ...]) -> np.ndarray:
    """Cell edges on a log axis around ``centres`` (one-cell axes get a decade's width)."""
    logs = np.log10(np.array(centres))
    if len(logs) == 1:
        return 10 ** np.array([logs[0] - 0.5, logs[0] + 0.5])
    mids = (logs[1:] + logs[:-1]) / 2
    first, last = logs[0] - (mids[0] - logs[0]), logs[-1] + (logs[-1] - mids[-1])
    return 10 ** np.concatenate([[first], mids, [last]])
