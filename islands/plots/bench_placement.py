"""000 Fig 6: a short OLTP run with its worker threads placed four ways."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from islands.machine.topology import Topology
from islands.plots._bench_style import grouped_bars, machine_caption, new_figure, save
from islands.plots.figure_rules import titled

__all__ = ["plot_placement"]


def plot_placement(rows: pd.DataFrame, path: str | Path, topology: Topology) -> Path:
    """Throughput per placement policy: mean over repetitions with a whisker of one standard
    deviation and a dot per repetition."""
    policies = list(dict.fromkeys(rows["policy"]))
    g = rows.groupby("policy", sort=False)["throughput_tps"]
    series = "throughput"
    mean = {(str(p), series): v / 1e3 for p, v in g.mean().items()}
    sd = {(str(p), series): (v / 1e3, v / 1e3) for p, v in g.std().items()}
    points = {(str(p), series): list(v / 1e3) for p, v in g}
    fig, (ax,) = new_figure(7, 4.6)
    grouped_bars(ax, policies, [series], mean, errors=sd, points=points)
    for p in policies:
        m, s = mean[(p, series)], sd[(p, series)][0]
        if m == m:
            ax.annotate(
                f"{m:,.0f}" + (f" ± {s:,.0f}" if s == s else ""),
                (policies.index(p), m),
                ha="center",
                va="bottom",
                fontsize=8,
                xytext=(0, 6),
                textcoords="offset points",
            )
    ax.set_ylabel("thousand transactions per second (mean ± sd)")
    ax.set_xlabel("worker placement")
    ax.grid(axis="y", alpha=0.3)
    threads = int(rows["threads"].iloc[0])
    rows_per_txn = int(rows["config.rows_per_txn"].iloc[0])
    kind = "update" if bool(rows["config.update"].iloc[0]) else "read"
    notes = []
    if topology.n_sockets == 1:
        notes.append("1 socket on this machine: spread, grouped and mixed pin the same CPUs")
    elif threads >= topology.n_cores:
        notes.append("every core busy: spread, grouped and mixed differ only in the order of the CPUs")
    model = rows["metadata.cpu_model"].iloc[0] if "metadata.cpu_model" in rows else None
    titled(
        fig,
        f"{threads} workers, microbenchmark {kind} {rows_per_txn} rows, "
        f"{rows['repetition'].nunique()} repetitions (000 Fig 6)\n" + machine_caption(topology, model, notes),
    )
    return save(fig, path)
