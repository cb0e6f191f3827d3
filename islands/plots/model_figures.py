"""Paper 000's figures through the Islands model (issue 18, item 6): for one figure, what was
measured here beside what the model predicts for the same deployments (first column, when
there are measured points), the figure projected onto the papers' machines (one column per
fixture: 2x8, 4x6, 8x10), and, beneath, the shape the paper reported with the model's verdict
on each of its claims (:func:`islands.model.validation.paper_trends`).

Projected columns are the model, not a measurement, and their titles say so; a shaded band is
the prediction's interval. The figure's axes (x, panels, y) come from
:data:`islands.model.figure_axes.FIGURE_AXES`, the paper's shape from
:data:`islands.model.paper_shapes.PAPER_SHAPES`.
"""

from __future__ import annotations

import dataclasses
import statistics
import textwrap
from collections.abc import Mapping, Sequence
from typing import Any

from islands.analysis.verdicts import model_trend_words
from islands.machine.placement import plan_deployment
from islands.machine.topology import Topology
from islands.model.figure_axes import X_LABELS, FigureAxes, figure_axes
from islands.model.paper_shapes import PAPER_SHAPES
from islands.model.parameters import Parameters
from islands.model.predict import Prediction, predict
from islands.model.validation import Point, Trend, paper_trends, skew_trends
from islands.plots._common import Drawing, color_of, fmt_tps, fmt_us, marker_of
from islands.plots.figure_rules import titled
from islands.plots.inline_figure import InlineFigure

#: Parameter draws behind each drawn interval (fewer than a prediction's default: a figure
#: makes hundreds).
SAMPLES = 100

__all__ = ["figure_trends", "plot_model_figure", "projection_machines", "render_model_figures"]


def _value(axes: FigureAxes, p: Prediction, n_cpus: int) -> float:
    return n_cpus * 1e6 / p.throughput if axes.y == "time" else p.throughput


def _measured_value(axes: FigureAxes, pt: Point, n_cpus: int) -> float:
    return n_cpus * 1e6 / pt.measured if axes.y == "time" else pt.measured


def _fmt(axes: FigureAxes, v: float) -> str:
    return fmt_us(v) if axes.y == "time" else fmt_tps(v)


def figure_trends(figure: str, machines: Mapping[str, Topology], parameters: Parameters) -> list[Trend]:
    """The paper's claims about ``figure`` checked on the projected ``machines`` (closed form;
    Fig 20's skew by simulation, :func:`~islands.model.validation.skew_trends`)."""
    trends = [t for t in paper_trends(dict(machines), parameters) if t.figure == figure]
    if figure == "000-fig20":
        trends += skew_trends(dict(machines), parameters)
    return trends


def plot_model_figure(
    figure: str,
    parameters: Parameters,
    machines: Mapping[str, Topology],
    points: Sequence[Point] = (),
    here: Topology | None = None,
    parameters_from: str = "",
) -> Drawing:
    """Draws ``figure`` (a :data:`~islands.model.figure_axes.FIGURE_AXES` id) as the module
    docstring says: measured ``points`` (on ``here``, the machine they were measured on)
    against the model, and the projection onto ``machines``. Raises ``ValueError`` (one line)
    for a figure the model cannot draw, no machine and no points, or points without the
    machine they were measured on."""
    axes_def = figure_axes(figure)
    if not machines and not points:
        raise ValueError(f"model figure {figure}: no measured points and no machines to project onto")
    if points and here is None:
        raise ValueError(f"model figure {figure}: measured points need the machine they were measured on")
    columns: list[tuple[str, Topology | None]] = []
    if points:
        columns.append(("here", here))
    columns += [(name, topo) for name, topo in machines.items()]
    panels = axes_def.panels
    n_rows, n_cols = len(panels), len(columns)
    fig = InlineFigure(figsize=(3.3 * n_cols + 0.6, 2.5 * n_rows + 2.4), layout="constrained")
    upper, bottom = fig.subfigures(2, 1, height_ratios=[2.5 * n_rows, 2.0])  # type: ignore[misc]
    grid = [list(r) for r in upper.subplots(n_rows, n_cols, squeeze=False)]
    lines: list[str] = []
    mine = [pt for pt in points if axes_def.panel_of(pt.workload) is not None]
    if points and not mine:
        raise ValueError(f"model figure {figure}: none of the {len(points)} measured points is on one of its panels")
    errors: list[float] = []
    inside = 0  # measured points within the model's interval
    for col, (name, topology) in enumerate(columns):
        assert topology is not None
        for row, panel in enumerate(panels):
            ax = grid[row][col]
            xs = axes_def.xs_of(panel)
            x_plot = [axes_def.x_of(axes_def.workload_at(panel, x)) for x in xs]
            if name == "here":
                labels = sorted({pt.deployment for pt in mine}, key=lambda d: plan_deployment(topology, d).n_instances)
                transports = sorted({pt.transport for pt in mine if axes_def.panel_of(pt.workload) is panel})
                specs = [(label, t) for label in labels for t in (transports or [axes_def.transport])]
            else:
                specs = [(spec, axes_def.transport) for spec in axes_def.deployments]
            seen: set[str] = set()
            for i, (spec, transport) in enumerate(specs):
                try:
                    deployment = plan_deployment(topology, spec)
                except ValueError:
                    continue
                key = f"{deployment.label} {transport}"
                if key in seen:  # per-socket is 1ISL on one socket
                    continue
                seen.add(key)
                measured = [
                    pt
                    for pt in mine
                    if name == "here"
                    and pt.deployment == spec
                    and pt.transport == transport
                    and axes_def.panel_of(pt.workload) is panel
                ]
                # Lines for the measured runs are as they ran (logged or not).
                logged = measured[0].workload.logged if measured else panel.workload.logged
                preds = [
                    predict(
                        topology,
                        deployment,
                        dataclasses.replace(axes_def.workload_at(panel, x), logged=logged),
                        parameters,
                        transport=transport,
                        samples=SAMPLES,
                    )
                    for x in xs
                ]
                ys = [_value(axes_def, p, deployment.n_cpus) for p in preds]
                style = "--" if transport == "unix" and axes_def.transport == "shm" else "-"
                label = deployment.label if name != "here" else f"{deployment.label} {transport} predicted"
                ax.plot(x_plot, ys, color=color_of(i), linestyle=style, linewidth=1.2, label=label)
                band = (
                    [deployment.n_cpus * 1e6 / p.high for p in preds]
                    if axes_def.y == "time"
                    else [p.low for p in preds]
                )
                top = (
                    [deployment.n_cpus * 1e6 / p.low for p in preds]
                    if axes_def.y == "time"
                    else [p.high for p in preds]
                )
                ax.fill_between(x_plot, band, top, color=color_of(i), alpha=0.10)
                bound = ", log-bound" if any("log-bound" in n for n in preds[-1].notes) else ""
                lines.append(
                    f"{name} {panel.title} {deployment.label} {transport}: predicted {_fmt(axes_def, ys[0])} at "
                    f"x={x_plot[0]:g} .. {_fmt(axes_def, ys[-1])} at x={x_plot[-1]:g} (dominant cost there: "
                    f"{preds[-1].dominant_cost}{bound})"
                )
                if name == "here":
                    mx = [axes_def.x_of(pt.workload) for pt in measured]
                    my = [_measured_value(axes_def, pt, deployment.n_cpus) for pt in measured]
                    if measured:
                        ax.scatter(
                            mx,
                            my,
                            color=color_of(i),
                            marker=marker_of(i),
                            s=22,
                            zorder=3,
                            label=f"{deployment.label} {transport} measured",
                        )
                    for pt in measured:
                        at = predict(topology, deployment, pt.workload, parameters, transport=transport)
                        errors.append(abs(at.throughput / pt.measured - 1))
                        inside += int(at.low <= pt.measured <= at.high)
            ax.set_yscale("log")
            ax.set_title(
                f"{'measured here vs model' if name == 'here' else f'{name}: projected (model)'}\n{panel.title}",
                fontsize=8,
            )
            if row == n_rows - 1:
                ax.set_xlabel(X_LABELS[axes_def.x], fontsize=8)
            if col == 0:
                ax.set_ylabel("CPU-µs per transaction" if axes_def.y == "time" else "throughput (txn/s)", fontsize=8)
            ax.tick_params(labelsize=7)
            ax.legend(fontsize=6)
    shape = PAPER_SHAPES.get(figure)
    trends = figure_trends(figure, dict(machines), parameters) if machines else []
    text = [f"paper 000 ({shape.machine} machine): {shape.shape} [{shape.source}]" if shape else ""]
    # A trend the model shows on a paper's machine is reproduced only where the model is
    # trusted: within its error tolerance on the points measured here, each within its interval.
    median = statistics.median(errors) if errors else None
    text += [
        f"{t.machine}: {t.claim} -> model {t.predicted}: "
        f"{model_trend_words(t.reproduced, t.criterion, median, len(errors), inside if errors else None)}"
        for t in trends
    ]
    if parameters_from:
        text.append(f"model parameters: {parameters_from}")
    if axes_def.unmodelled:
        text.append(f"not in the model: {axes_def.unmodelled}")
    if median is not None:
        text.append(
            f"measured here vs model: median relative error {median:.1%} over {len(errors)} points, "
            f"{inside} within the model's interval"
        )
    wrapped = "\n".join(textwrap.fill(t, 36 * n_cols) for t in text if t)
    titled(
        upper,
        f"{figure} {axes_def.title}\n"
        + ("measured here vs the model, and " if points else "")
        + "projected onto the papers' machines (projections are the Islands model, not measurements; "
        "shaded: the model's interval)",
    )
    bottom.text(0.01, 0.98, wrapped, fontsize=7, va="top", ha="left")
    summary = "\n".join([*text, *lines])
    return Drawing(fig, summary, f"{figure}-model")


#: Figures drawn from the same rows as another's results directory (one experiment file
#: feeds both): Fig 17's directory holds Fig 18's update rows.
COMPANIONS = {"000-fig17": ("000-fig18",), "000-fig13": (), "000-fig15": ()}
#: The papers' machines the projections use: name -> fixture directory under
#: tests/fixtures/sysfs of the source tree.
PROJECTED = {"2x8": "xeon-e5-2640v2-2x8", "4x6": "xeon-e7530-4x6", "8x10": "xeon-e7l8867-8x10"}


def projection_machines() -> dict[str, Topology]:
    """The 2x8, 4x6 and 8x10 fixture topologies (tests/fixtures/sysfs of the source tree);
    ``ValueError`` when the tree has no fixtures (an installed package without its sources)."""
    from pathlib import Path

    from islands.machine.topology import read_topology

    root = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "sysfs"
    if not root.is_dir():
        raise ValueError(f"model figures: no fixture machines at {root} (run from a clone of the source tree)")
    return {name: read_topology(root / d) for name, d in PROJECTED.items()}


def render_model_figures(target: str, out: str | None = None, params: str | None = None) -> list[Any]:
    """Draws the model figures of ``target`` and saves each as ``<figure>-model.png``/``.pdf``
    with ``<figure>-model-summary.txt``: a sweep's results directory (its manifest's figure,
    and the companions its rows also feed, with the measured points) or a figure id
    (projection and the paper's shape only: nothing needs to have run). Writes into ``out``
    (default: the results directory, or ``results/model`` for a figure id). Returns
    :class:`islands.plots.Rendered` objects; ``ValueError`` (one line) for bad input."""
    from pathlib import Path

    from islands.model.figure_axes import FIGURE_AXES, points_from_rows
    from islands.model.parameters import chosen_parameters
    from islands.plots import Rendered, _check_writable, _draw
    from islands.plots._common import topology_of

    parameters, source = chosen_parameters(params)
    machines = projection_machines()
    directory = Path(target)
    if directory.exists():
        _, manifest, rows = _draw(directory)
        first = str(manifest["figure"])
        figures = [first, *COMPANIONS.get(first, ())]
        here = topology_of(rows)
        if here is None:
            raise ValueError(f"{directory}: the rows do not say which machine they were measured on")
        jobs = [(f, points_from_rows(rows, f)) for f in figures if f in FIGURE_AXES]
        if not jobs:
            figure_axes(first)  # raises: why the model cannot draw it
        where = Path(out) if out is not None else directory
    else:
        if target not in FIGURE_AXES:
            figure_axes(target)  # raises naming what the model draws
            raise ValueError(f"{target}: no such results directory")  # pragma: no cover
        jobs, here = [(target, [])], None
        where = Path(out) if out is not None else Path("results") / "model"
    _check_writable(where)
    done = []
    for figure, points in jobs:
        drawing = plot_model_figure(figure, parameters, machines, points, here, parameters_from=source)
        png, pdf = where / f"{drawing.stem}.png", where / f"{drawing.stem}.pdf"
        text = where / f"{drawing.stem}-summary.txt"
        try:
            drawing.figure.savefig(png, dpi=110)
            drawing.figure.savefig(pdf)
            text.write_text(drawing.summary + "\n")
        except OSError as e:
            raise ValueError(f"{where}: cannot write the figure ({e.strerror or e})") from None
        done.append(Rendered(figure_id=figure, png=png, pdf=pdf, summary=drawing.summary, summary_path=text))
    return done
