"""Leave-one-out of the component model on points measured here (issue 32): for each point,
the model's costs are calibrated on every other point and predict the one left out.

A point's worker time per transaction (workers / throughput, microseconds) is, as in
:mod:`islands.model.predict`::

    L[kind, logged, deployment] + rows * R[kind, logged, deployment] + q * m * D[transport, op] * (1 + b - o)

``R`` for the microbenchmark only; ``q`` (the share of transactions that leave the home
instance) and ``m`` (the instances they involve) from
:func:`~islands.model.workload_spec.participants`; ``b`` the share of the rows' holds through
two-phase commit that local transactions lose (:mod:`islands.model.hold_conflicts`) and ``o``
the share of the fragments a worker serves while it waits for its own votes
(:mod:`islands.model.fragment_overlap`), both functions of ``D``, the local time and the
workload with no unknown of their own, updated from the fit until they settle
(:data:`HOLD_ITERATIONS` rounds). The same closed form predicts
(:func:`islands.model.predict.predict`). The unknowns are shared across figures, as
the model shares them: a TPC-B point borrows ``D`` from the microbenchmark's updates, a Fig 23
point its ``L`` from Fig 22's. They are fitted by least squares on relative error; a point
whose combination of unknowns no other point pins down is not predicted (``predicted`` NaN).

Each :class:`LooRow` carries the measured value's 95% interval over its repetitions, and the
verdict (:func:`islands.analysis.verdicts.model_error_words`) says whether the prediction is
within the tolerance, or within the measurement's own interval where that is wider.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from islands.analysis.statistics import summarize
from islands.analysis.verdicts import Verdict, model_error_case, model_error_words
from islands.machine.placement import plan_deployment
from islands.machine.topology import Topology
from islands.model.fragment_overlap import overlap
from islands.model.hold_conflicts import blocking_us
from islands.model.measured_point import Point
from islands.model.workload_spec import participants

__all__ = [
    "HOLD_ITERATIONS",
    "LOO_TOLERANCE",
    "FigureLoo",
    "LooRow",
    "component_terms",
    "loo_by_figure",
    "loo_predictions",
    "loo_rows",
]

#: The relative error a leave-one-out prediction is held to (issue 32's done-when).
LOO_TOLERANCE = 0.15
#: Rounds of fitting the unknowns and updating the holds' share ``b`` from them.
HOLD_ITERATIONS = 10


def component_terms(point: Point, topology: Topology) -> dict[str, float]:
    """The unknowns of ``point``'s worker time and their coefficients (see the module's form)."""
    deployment = plan_deployment(topology, point.deployment)
    sizes = [len(c) for c in deployment.instances]
    w = point.workload
    p_dist, m = participants(w, sizes, 0)
    q = w.multisite_share * p_dist
    terms = {f"L|{w.kind}|{w.logs}|{point.deployment}": 1.0}
    if w.per_row:
        terms[f"R|{w.kind}|{w.logs}|{point.deployment}"] = float(w.rows)
    if q > 0:
        terms[f"D|{point.transport}|{w.op}"] = q * m
    return terms


def _cost(point: Point, topology: Topology, terms: dict[str, float], x: dict[str, float]) -> float:
    """Worker time per transaction of ``point`` with unknowns ``x``, holds and overlap included."""
    local = sum(v * x[k] for k, v in terms.items() if not k.startswith("D|"))
    return local + sum(v * x[k] * (1 + _d_extra(point, topology, x[k], local)) for k, v in terms.items() if k[0] == "D")


def _d_extra(point: Point, topology: Topology, d: float, local: float) -> float:
    """``b - o``: the holds' loss less the fragments' overlap, per unit of ``q * m * D``."""
    deployment = plan_deployment(topology, point.deployment)
    sizes = [len(c) for c in deployment.instances]
    w = point.workload
    p_dist, m = participants(w, sizes, 0)
    q = w.multisite_share * p_dist
    if not (d > 0 and local > 0 and q > 0):
        return 0.0
    b = float(blocking_us(w, sizes, 0, m * d, local)) / (q * m * d)
    return b - float(overlap(local, q * m * d, b))


def loo_predictions(points: Sequence[Point], topology: Topology) -> list[float]:
    """Each point's throughput predicted from the component model fitted to all the others
    (NaN where the others do not pin down its unknowns, or the fit gives a cost ≤ 0)."""
    import numpy as np

    terms = [component_terms(p, topology) for p in points]
    names = sorted({k for t in terms for k in t})
    a = np.array([[t.get(n, 0.0) for n in names] for t in terms])
    workers = [plan_deployment(topology, p.deployment).n_cpus for p in points]
    c = np.array([n / p.measured * 1e6 for n, p in zip(workers, points)])
    out = []
    for i in range(len(points)):
        keep = np.arange(len(points)) != i
        # Predictable only where the other points pin down this point's combination of
        # unknowns (its row lies in their row space).
        y, *_ = np.linalg.lstsq(a[keep].T, a[i], rcond=None)
        if float(np.linalg.norm(a[keep].T @ y - a[i])) > 1e-6 * max(float(np.linalg.norm(a[i])), 1.0):
            out.append(math.nan)
            continue
        weight = 1.0 / c[keep]  # relative error: each point weighs by its own size
        scale = np.ones_like(a)  # 1 + b - o on the D columns, from the previous round's fit
        for _ in range(HOLD_ITERATIONS):
            sol, *_ = np.linalg.lstsq((a * scale)[keep] * weight[:, None], c[keep] * weight, rcond=None)
            x = dict(zip(names, (float(v) for v in sol)))
            for j, (pt, t) in enumerate(zip(points, terms)):
                local = sum(v * x[k] for k, v in t.items() if not k.startswith("D|"))
                for k in t:
                    if k.startswith("D|"):
                        scale[j, names.index(k)] = 1 + _d_extra(pt, topology, x[k], local)
        cost = _cost(points[i], topology, terms[i], x)
        out.append(workers[i] / cost * 1e6 if cost > 0 else math.nan)
    return out


@dataclass(frozen=True)
class LooRow:
    """One point left out: its prediction, relative error, the measured mean's 95% interval
    half-width relative to the mean (NaN for one run) and the verdict on the two."""

    point: Point
    predicted: float
    error: float
    half_width: float
    verdict: Verdict

    #: :func:`~islands.analysis.verdicts.model_error_case`: ``error``, ``interval``,
    #: ``outside`` or ``not predicted``
    case: str

    @property
    def within(self) -> bool:
        """Within the tolerance by its error, or within a measured interval wider than it."""
        return self.case in ("error", "interval")


def loo_rows(points: Sequence[Point], topology: Topology, tolerance: float = LOO_TOLERANCE) -> list[LooRow]:
    """:func:`loo_predictions` of ``points``, each with its error and verdict."""
    rows = []
    for pt, predicted in zip(points, loo_predictions(points, topology)):
        error = abs(predicted - pt.measured) / pt.measured if predicted == predicted else math.nan
        stats = summarize(pt.repetitions) if pt.repetitions else None
        half = (stats.ci_high - stats.mean) / stats.mean if stats is not None and stats.n > 1 else math.nan
        verdict = model_error_words(error, tolerance, half)
        rows.append(LooRow(pt, predicted, error, half, verdict, model_error_case(error, tolerance, half)))
    return rows


@dataclass(frozen=True)
class FigureLoo:
    """A figure's leave-one-out errors: median and max over its predicted points, how many
    were predicted, skipped and within (:attr:`LooRow.within`), the fewest repetitions of a
    point and the median measured half-width."""

    figure: str
    median: float
    max: float
    n: int
    skipped: int
    within: int
    repetitions: int
    median_half_width: float


def loo_by_figure(rows: Sequence[LooRow]) -> list[FigureLoo]:
    """One :class:`FigureLoo` per figure, in the order they first appear."""
    out = []
    for fig in dict.fromkeys(r.point.figure for r in rows):
        mine = [r for r in rows if r.point.figure == fig]
        errors = [r.error for r in mine if r.error == r.error]
        halves = [r.half_width for r in mine if r.half_width == r.half_width]
        out.append(
            FigureLoo(
                fig,
                statistics.median(errors) if errors else math.nan,
                max(errors) if errors else math.nan,
                len(errors),
                len(mine) - len(errors),
                sum(r.within for r in mine),
                min((len(r.point.repetitions) or 1) for r in mine),
                statistics.median(halves) if halves else math.nan,
            )
        )
    return out
