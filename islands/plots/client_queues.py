"""The client layer's queues over time (issue 29): the length of each request queue once per
timeline interval of a run's measured window, one line per queue (per instance in a
deployment, per worker in a PLP run), so a figure shows the hot queue growing while the
others stay empty.

:func:`plot_queue_lengths` draws it from a :class:`~islands.execution.run_result.RunResult`
(its ``clients`` account, :mod:`islands.execution.client_load`, and
``config.driver.timeline_interval_s``); ``benchmarks/clients.py --plot`` draws one per PLP run
of its 002 section.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from islands.plots._common import Drawing, color_of, fit_title, new_grid, plain_ticks

__all__ = ["plot_queue_lengths", "queue_series"]


def queue_series(load: Mapping[str, Any]) -> list[tuple[str, Sequence[float]]]:
    """``(label, lengths)`` per request queue of a client account (``RunResult.clients``): its
    ``workers`` (a PLP run: one queue each) or else its ``instances``. Raises ``ValueError``
    for a run without a client layer or without a sampled interval."""
    if not load:
        raise ValueError("queue lengths: the run had no client layer (driver.clients workers or instance_wide)")
    kind, queues = ("worker", load["workers"]) if "workers" in load else ("instance", load["instances"])
    series: list[tuple[str, Sequence[float]]] = [
        (f"{kind} {i}", list(q["queue_lengths"])) for i, q in enumerate(queues)
    ]
    if not any(lengths for _, lengths in series):
        raise ValueError("queue lengths: none sampled (the measured window is shorter than a timeline step)")
    return series


def plot_queue_lengths(result: Any, title: str = "", stem: str = "client-queues") -> Drawing:
    """Queue length per request queue over the measured window of ``result`` (a
    ``RunResult`` with a client layer), one line per queue, its title ``title`` (default: the
    client mode) above the run's clients and workload. The summary gives each queue's mean and
    largest length and its share of the requests."""
    load = result.clients
    series = queue_series(load)
    interval_s = float(result.config.driver.timeline_interval_s)
    fig, axes = new_grid(1, 1, 7.5, 4.0)
    ax = axes[0][0]
    end_s = 0.0
    for i, (label, lengths) in enumerate(series):
        if not lengths:
            continue
        seconds = (np.arange(len(lengths)) + 0.5) * interval_s
        end_s = max(end_s, len(lengths) * interval_s)
        ax.plot(
            seconds, lengths, color=color_of(i), label=label, linewidth=1.2, marker="." if len(lengths) < 40 else ""
        )
    ax.set_xlim(0, end_s)
    ax.set_ylim(bottom=0)
    ax.set_xlabel("time in the measured window (s)")
    ax.set_ylabel("requests waiting (queue length)")
    plain_ticks(ax.yaxis)
    offered = (
        f"{load['clients']:,} closed-loop clients"
        if load["mode"] == "closed"
        else f"open loop at {load['offered_rate']:,.0f} txn/s"
    )
    what = f"{result.config.workload}, {result.config.engine.execution}, {offered}"
    ax.set_title(fit_title(fig, (title or "Request queue length over time") + f"\n{what}", 10), fontsize=10)
    # Outside the axes, right: the hot queue's line may run along any edge.
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)
    queues = load["workers"] if "workers" in load else load["instances"]
    lines = [
        f"{label}: mean {np.mean(lengths):.1f}, max {max(lengths)} waiting; {q['share']:.0%} of the requests"
        for (label, lengths), q in zip(series, queues, strict=True)
        if lengths
    ]
    return Drawing(fig, "\n".join(lines), stem)
