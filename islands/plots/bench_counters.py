"""000 Fig 5 and Fig 7 (001 Table 1): lock-protected counters by placement and by number."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from islands.analysis.verdicts import ratio_label
from islands.machine.topology import Topology
from islands.plots._bench_style import grouped_bars, machine_caption, new_figure, save
from islands.plots.figure_rules import titled

__all__ = ["plot_counter_granularity", "plot_counter_placement"]

_GRANULARITY_LABEL = {"machine": "1 counter", "socket": "1 per socket", "core": "1 per core"}


def _stats(rows: pd.DataFrame, group: str) -> tuple[list[str], list[str], dict, dict, dict]:
    groups = list(dict.fromkeys(rows[group]))
    locks = list(dict.fromkeys(rows["lock"]))
    g = rows.groupby([group, "lock"], sort=False)["increments_per_s"]
    mean = {k: v / 1e6 for k, v in g.mean().items()}
    sd = {k: (v / 1e6, v / 1e6) for k, v in g.std().items()}
    points = {k: list(v / 1e6) for k, v in g}
    return groups, locks, mean, sd, points


def _model(rows: pd.DataFrame) -> str | None:
    return rows["metadata.cpu_model"].iloc[0] if "metadata.cpu_model" in rows else None


def plot_counter_placement(rows: pd.DataFrame, path: str | Path, topology: Topology) -> Path | None:
    """Fig 5: total increments per second by thread placement, one bar per lock kind, mean
    with a whisker of one standard deviation and a dot per repetition; for one counter per
    socket (the paper's setting) when measured, else the first granularity measured. None
    when only one placement was measured."""
    granularity = "socket" if "socket" in set(rows["granularity"]) else rows["granularity"].iloc[0]
    sub = rows[rows["granularity"] == granularity]
    if sub["placement"].nunique() < 2:
        return None
    placements, locks, mean, sd, points = _stats(sub, "placement")
    fig, (ax,) = new_figure(8, 4.8)
    grouped_bars(ax, placements, locks, mean, errors=sd, points=points)
    ax.set_ylabel("million increments per second (all threads)")
    ax.set_xlabel("thread placement")
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=8, title="lock", title_fontsize=8)
    threads, counters = int(sub["threads"].iloc[0]), int(sub["counters"].iloc[0])
    notes = [] if topology.n_sockets > 1 else ["1 socket on this machine: spread and grouped pin the same CPUs"]
    titled(
        fig,
        f"{threads} threads, {counters} counter{'s' if counters > 1 else ''} "
        f"({_GRANULARITY_LABEL[granularity]}), each behind a lock (000 Fig 5)\n"
        + machine_caption(topology, _model(rows), notes),
    )
    return save(fig, path)


def plot_counter_granularity(rows: pd.DataFrame, path: str | Path, topology: Topology) -> Path | None:
    """Fig 7: total increments per second with 1 counter, 1 per socket and 1 per core (log
    scale), one marker per lock kind, for grouped threads when measured (else the first placement
    measured), the legend giving each lock's finest over coarsest ratio. None when only one
    granularity was measured."""
    placement = "grouped" if "grouped" in set(rows["placement"]) else rows["placement"].iloc[0]
    sub = rows[rows["placement"] == placement]
    if sub["granularity"].nunique() < 2:
        return None
    granularities, locks, mean, sd, points = _stats(sub, "granularity")
    labels = [_GRANULARITY_LABEL[g] for g in granularities]
    relabel = lambda d: {(_GRANULARITY_LABEL[g], k): v for (g, k), v in d.items()}  # noqa: E731
    fig, (ax,) = new_figure(8, 4.8)
    # a log axis: markers with their whiskers, not bars (a bar's length means nothing there)
    grouped_bars(ax, labels, locks, relabel(mean), errors=relabel(sd), points=relabel(points), log=True)
    first, last = granularities[0], granularities[-1]
    ratios = {}  # in the legend, one line per lock: labels beside close markers would collide
    for lock in locks:
        lo, hi = mean.get((first, lock)), mean.get((last, lock))
        if lo and hi and lo == lo and hi == hi:
            ratios[lock] = ratio_label(points.get((last, lock), [hi]), points.get((first, lock), [lo]))
    ax.set_ylabel("million increments per second (all threads, log)")
    ax.set_xlabel("number of counters")
    ax.grid(axis="y", alpha=0.3, which="both")
    handles, names = ax.get_legend_handles_labels()
    names = [f"{name}: {ratios[name]}" if name in ratios else name for name in names]
    over = f"{_GRANULARITY_LABEL[last]} / {_GRANULARITY_LABEL[first]}"
    ax.legend(handles, names, fontsize=8, title=f"lock: {over}" if ratios else "lock", title_fontsize=8, loc="best")
    threads = int(sub["threads"].iloc[0])
    notes = [f"ratios: {_GRANULARITY_LABEL[last]} over {_GRANULARITY_LABEL[first]} (paper: 516.8× on 80 cores)"]
    if topology.n_sockets == 1:
        notes.append("1 socket on this machine: 1 per socket = 1 counter")
    titled(
        fig,
        f"{threads} threads ({placement}), counters each behind a lock (000 Fig 7)\n"
        + machine_caption(topology, _model(rows), notes),
    )
    return save(fig, path)
