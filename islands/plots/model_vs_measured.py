"""The Islands model's figures (issue 18): predicted against measured throughput of the points
measured here, and the projection of 000's Fig 11 (throughput vs % multisite, read and update
10 rows; shared-everything, per-socket and per-core) onto other machines.

Both take the model's own objects, not a sweep's rows: ``(figure, measured, predicted)``
triples from :func:`islands.model.validation.prediction_errors`, and topologies with the
parameters to predict on them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from islands.machine.topology import Topology
from islands.model.parameters import Parameters
from islands.model.predict import predict
from islands.model.workload_spec import ModelWorkload
from islands.plots._common import Drawing, color_of, marker_of, new_grid
from islands.plots.figure_rules import titled

__all__ = ["plot_predicted_vs_measured", "plot_projection"]

MULTISITE = tuple(np.linspace(0.0, 1.0, 11))


def plot_predicted_vs_measured(points: Sequence[tuple[str, float, float]]) -> Drawing:
    """Log-log scatter of predicted against measured throughput, one marker per figure, with
    the diagonal and a ±25% band. Raises ``ValueError`` for no points."""
    if not points:
        raise ValueError("predicted vs measured: no points")
    fig, axes = new_grid(1, 1, 5.0, 4.5)
    ax = axes[0][0]
    figures = sorted({f for f, _, _ in points})
    for i, figure in enumerate(figures):
        xs = [m for f, m, _ in points if f == figure]
        ys = [p for f, _, p in points if f == figure]
        ax.scatter(xs, ys, label=figure, color=color_of(i), marker=marker_of(i), s=22)
    values = [v for _, m, p in points for v in (m, p) if v > 0]
    lo, hi = min(values) / 1.5, max(values) * 1.5
    ax.plot([lo, hi], [lo, hi], color="black", linewidth=0.8)
    ax.fill_between([lo, hi], [lo * 0.75, hi * 0.75], [lo * 1.25, hi * 1.25], color="grey", alpha=0.15, label="±25%")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    ax.set_xlabel("measured (txn/s)")
    ax.set_ylabel("predicted (txn/s)")
    ax.set_title("Islands model: predicted vs measured")
    ax.legend(fontsize=8)
    errors = [abs(p / m - 1) for _, m, p in points if m > 0]
    summary = f"{len(points)} points, median relative error {float(np.median(errors)):.1%}"
    return Drawing(fig, summary, "model-predicted-vs-measured")


def plot_projection(
    machines: Mapping[str, Topology], parameters: Parameters, transport: str = "unix", rows: int = 10
) -> Drawing:
    """000 Fig 11 projected: one column per machine, read (top) and update (bottom) rows of
    ``rows`` rows, throughput vs % multisite for 1ISL, per-socket and per-core, with the
    model's interval shaded."""
    if not machines:
        raise ValueError("projection: no machines")
    fig, axes = new_grid(2, len(machines), 3.6 * len(machines), 6.0)
    lines = []
    for col, (name, topology) in enumerate(machines.items()):
        for row, kind in enumerate(("micro-read", "micro-update")):
            ax = axes[row][col]
            for i, spec in enumerate(("shared-everything", "per-socket", "per-core")):
                preds = [
                    predict(
                        topology, spec, ModelWorkload(kind, rows=rows, multisite=p), parameters, transport=transport
                    )
                    for p in MULTISITE
                ]
                label = preds[0].deployment
                xs = [100 * p for p in MULTISITE]
                ax.plot(xs, [p.throughput / 1e6 for p in preds], color=color_of(i), marker=marker_of(i), label=label)
                ax.fill_between(
                    xs, [p.low / 1e6 for p in preds], [p.high / 1e6 for p in preds], color=color_of(i), alpha=0.12
                )
                lines.append(
                    f"{name} {kind} {label}: {preds[0].throughput / 1e6:.2f} M/s at 0%, "
                    f"{preds[-1].throughput / 1e6:.3f} M/s at 100%"
                )
            ax.set_yscale("log")
            ax.set_title(f"{name}: {'read' if kind == 'micro-read' else 'update'} {rows} rows", fontsize=9)
            ax.set_xlabel("multisite transactions (%)")
            if col == 0:
                ax.set_ylabel("predicted throughput (M txn/s)")
            ax.legend(fontsize=7)
    titled(fig, f"000 Fig 11 projected by the Islands model ({transport}); shaded: interval")
    return Drawing(fig, "\n".join(lines), f"model-projection-{transport}")
