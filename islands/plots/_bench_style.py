"""Shared drawing helpers of the hardware-microbenchmark figures (Agg, no pyplot state)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from matplotlib.axes import Axes
from matplotlib.figure import Figure

from islands.machine.topology import Topology
from islands.plots.inline_figure import InlineFigure

#: One colour per series, stable across the figures.
COLORS = ("#4C72B0", "#DD8452", "#55A868", "#C44E52", "#8172B3", "#937860", "#DA8BC3")


def new_figure(width: float = 8.0, height: float = 4.5, ncols: int = 1) -> tuple[Figure, list[Axes]]:
    """A figure on the Agg canvas (never the interactive backend; shown inline in a notebook)
    and its axes."""
    fig = InlineFigure(figsize=(width, height), layout="constrained")
    axes = fig.subplots(1, ncols, squeeze=False)[0]
    return fig, list(axes)


def machine_caption(topology: Topology, cpu_model: str | None, notes: Sequence[str]) -> str:
    """The caption line under a title: the machine, then any note (1 socket, ...)."""
    s = "socket" if topology.n_sockets == 1 else "sockets"
    text = (
        f"{cpu_model + ': ' if cpu_model else ''}{topology.n_sockets} {s}, {topology.n_cores} cores, "
        f"{topology.n_cpus} cpus"
    )
    for note in notes:
        text += f"\n{note}"
    return text


def save(fig: Figure, path: str | Path) -> Path:
    """Writes the PNG (creating its directory) and returns its path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    return path


def grouped_bars(
    ax: Axes,
    groups: Sequence[str],
    series: Sequence[str],
    heights: Mapping[tuple[str, str], float],
    errors: Mapping[tuple[str, str], tuple[float, float]] | None = None,
    points: Mapping[tuple[str, str], Sequence[float]] | None = None,
    log: bool = False,
) -> dict[tuple[str, str], float]:
    """Bars for every (group, series) pair, series side by side within each group; missing or
    NaN heights draw "n/a". ``errors`` are (below, above) lengths; ``points`` are individual
    repetitions drawn as dots. ``log``: a log axis, on which a bar's length means nothing (it
    starts at an arbitrary floor), so each value is a marker with its whisker instead. Returns
    each bar's x position."""
    if log:
        ax.set_yscale("log")
    width = 0.8 / max(len(series), 1)
    xs: dict[tuple[str, str], float] = {}
    for j, name in enumerate(series):
        for i, group in enumerate(groups):
            x = i - 0.4 + width * (j + 0.5)
            xs[(group, name)] = x
            h = heights.get((group, name), float("nan"))
            if h != h:  # NaN: not measured here (at the axis' foot, in axes coordinates: log axes have no 0)
                ax.text(
                    x,
                    0.02,
                    "n/a",
                    ha="center",
                    va="bottom",
                    fontsize=7,
                    rotation=90,
                    color="0.4",
                    transform=ax.get_xaxis_transform(),
                )
                continue
            err = None
            if errors and (group, name) in errors:
                lo, hi = errors[(group, name)]
                err = [[lo if lo == lo else 0], [hi if hi == hi else 0]]
            if log:
                ax.errorbar(
                    [x],
                    [h],
                    yerr=err,
                    fmt="o",
                    color=COLORS[j % len(COLORS)],
                    capsize=3,
                    markersize=6,
                    elinewidth=1,
                    label=name if i == 0 else None,
                )
            else:
                ax.bar(
                    x,
                    h,
                    width * 0.95,
                    color=COLORS[j % len(COLORS)],
                    yerr=err,
                    capsize=3,
                    label=name if i == 0 else None,
                    error_kw={"elinewidth": 1},
                )
            if points and (group, name) in points:
                ps = list(points[(group, name)])
                ax.scatter([x] * len(ps), ps, s=8, color="black", zorder=3, linewidths=0)
    ax.set_xticks(range(len(groups)), groups)
    return xs
