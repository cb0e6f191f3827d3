"""The figures of each hardware microbenchmark (``islands bench``), drawn from its stored rows
into its result directory. The runners (:mod:`islands.bench.suite`) only measure and store."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pandas as pd

from islands.machine.topology import Topology
from islands.plots.bench_counters import plot_counter_granularity, plot_counter_placement
from islands.plots.bench_ipc import plot_ipc
from islands.plots.bench_placement import plot_placement

__all__ = ["BENCH_FIGURES", "draw_bench"]


def _ipc(rows: pd.DataFrame, directory: Path, topology: Topology) -> list[Path | None]:
    return [plot_ipc(rows, directory / "fig2-ipc.png", topology)]


def _counters(rows: pd.DataFrame, directory: Path, topology: Topology) -> list[Path | None]:
    return [
        plot_counter_placement(rows, directory / "fig5-counters-placement.png", topology),
        plot_counter_granularity(rows, directory / "fig7-counters-granularity.png", topology),
    ]


def _placement(rows: pd.DataFrame, directory: Path, topology: Topology) -> list[Path | None]:
    return [plot_placement(rows, directory / "fig6-placement.png", topology)]


#: Benchmark name → what draws its figures (None: the rows cannot show that one).
BENCH_FIGURES: dict[str, Callable[[pd.DataFrame, Path, Topology], list[Path | None]]] = {
    "ipc": _ipc,  # 000 Fig 2
    "counters": _counters,  # 000 Fig 5 and 7
    "placement": _placement,  # 000 Fig 6
}


def draw_bench(name: str, rows: pd.DataFrame, directory: str | Path, topology: Topology) -> list[Path]:
    """Draws benchmark ``name``'s figures from its ``rows`` into ``directory``; returns the
    files written (a figure the rows cannot show, such as Fig 5 with one placement, is left out)."""
    return [path for path in BENCH_FIGURES[name](rows, Path(directory), topology) if path is not None]
