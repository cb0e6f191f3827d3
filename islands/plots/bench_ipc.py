"""000 Fig 2 (001 Fig 6): messaging mechanisms between two pinned processes."""

from __future__ import annotations

from pathlib import Path
from typing import cast

import pandas as pd

from islands.machine.topology import Topology
from islands.plots._bench_style import grouped_bars, machine_caption, new_figure, save
from islands.plots.figure_rules import titled

__all__ = ["plot_ipc"]


def _by_pair(values: pd.Series) -> dict[tuple[str, str], float]:
    """A column indexed by (mechanism, pair label) as a dict; pandas types MultiIndex keys
    only as Hashable."""
    return {cast(tuple[str, str], k): float(v) for k, v in values.items()}


def plot_ipc(rows: pd.DataFrame, path: str | Path, topology: Topology) -> Path:
    """Messages per second (left) and round-trip latency, median with a whisker to p99
    (right, log scale), per mechanism, one bar per CPU pair; averaged over repetitions.
    Mechanisms this machine could not run show "n/a"."""
    mechanisms = list(dict.fromkeys(rows["mechanism"]))
    pairs = list(dict.fromkeys(rows["pair_label"]))
    mean = rows.groupby(["mechanism", "pair_label"], sort=False)[["messages_per_s", "rtt_p50_us", "rtt_p99_us"]].mean()
    rate = {k: v / 1e3 for k, v in _by_pair(mean["messages_per_s"]).items()}
    p50 = _by_pair(mean["rtt_p50_us"])
    p99 = _by_pair(mean["rtt_p99_us"])
    to_p99 = {k: (0.0, p99[k] - v) for k, v in p50.items()}
    fig, (left, right) = new_figure(12, 4.8, ncols=2)
    xs = grouped_bars(left, mechanisms, pairs, rate, log=True)
    for key, x in xs.items():
        if key in rate and rate[key] == rate[key]:
            left.annotate(
                f"{rate[key]:,.0f}",
                (x, rate[key]),
                ha="center",
                va="bottom",
                fontsize=7,
                xytext=(0, 2),
                textcoords="offset points",
            )
    left.set_ylabel("thousand messages per second (both directions, log)")
    left.set_title("throughput")
    grouped_bars(right, mechanisms, pairs, p50, errors=to_p99, log=True)
    right.set_ylabel("round trip (µs): median, whisker to p99")
    right.set_title("round-trip latency")
    for ax in (left, right):
        ax.tick_params(axis="x", labelrotation=30)
        ax.grid(axis="y", alpha=0.3)
    left.legend(fontsize=8, loc="best")  # a fixed corner hid the fastest mechanism's marker
    size = int(rows["message_bytes"].iloc[0])
    notes = [] if topology.n_sockets > 1 else ["1 socket on this machine: no cross-socket pair"]
    model = rows["metadata.cpu_model"].iloc[0] if "metadata.cpu_model" in rows else None
    titled(
        fig,
        f"{size}-byte messages, ping-pong between two pinned processes (000 Fig 2)\n"
        + machine_caption(topology, model, notes),
    )
    return save(fig, path)
