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

__all__ = ["BENCH_FIGURES", "bench_summary", "draw_bench"]


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


def _means(rows: pd.DataFrame, by: list[str], column: str) -> list[tuple[tuple, float, float, int]]:
    """(group, mean, standard deviation, runs) of ``column`` per ``by`` group, in the rows' order."""
    out = []
    for key, part in rows.groupby(by, sort=False)[column]:
        values = part.astype(float)
        out.append((key if isinstance(key, tuple) else (key,), float(values.mean()), float(values.std()), len(values)))
    return out


def bench_summary(name: str, rows: pd.DataFrame) -> str:
    """What benchmark ``name``'s rows measured, in words, one line per group (the gallery shows it
    under the figure, as a sweep's summary): ipc the messages per second and round trips of each
    mechanism and pair, counters the increments per second of each lock, granularity and
    placement, placement each policy's throughput. "" for a benchmark without one or rows
    lacking its columns."""
    from islands.analysis.tables import human_number

    def sd(v: float) -> str:
        return f" ± {human_number(v)}" if v == v else ""

    try:
        if name == "ipc":
            lines = [
                "000 Fig 2: messages per second (both directions) and round trip (p50, p99), per mechanism and pair"
            ]
            rtt = {k: (p50, n) for k, p50, _, n in _means(rows, ["mechanism", "pair_label"], "rtt_p50_us")}
            p99 = {k: p for k, p, _, _ in _means(rows, ["mechanism", "pair_label"], "rtt_p99_us")}
            for key, rate, dev, n in _means(rows, ["mechanism", "pair_label"], "messages_per_s"):
                lines.append(
                    f"{key[0]}, {key[1]}: {human_number(rate)}{sd(dev)} messages/s, round trip "
                    f"{rtt[key][0]:.3g} µs p50, {p99[key]:.3g} µs p99 ({n} run{'s' if n > 1 else ''})"
                )
        elif name == "counters":
            lines = ["000 Fig 5 and 7: increments per second of all threads, per granularity, placement and lock"]
            for key, rate, dev, n in _means(rows, ["granularity", "placement", "lock"], "increments_per_s"):
                lines.append(f"{key[0]}, {key[1]}, {key[2]}: {human_number(rate)}{sd(dev)} increments/s ({n} runs)")
        elif name == "placement":
            lines = ["000 Fig 6: throughput per worker placement (mean ± sd over the repetitions)"]
            for key, rate, dev, n in _means(rows, ["policy"], "throughput_tps"):
                lines.append(f"{key[0]}: {human_number(rate)}{sd(dev)} txn/s ({n} runs)")
        else:
            return ""
    except KeyError as e:
        return f"no summary: the rows lack {e}"
    return "\n".join(lines) + "\n"
