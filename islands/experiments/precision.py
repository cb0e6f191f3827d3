"""Repetitions until the question is answered (issue 30): an experiment file's
``run.precision`` and ``run.budget_s``.

A sweep's question is a comparison: the points that differ only in the ``run.compare`` keys
(by default the deployment) form a group, and the group's verdict is the ratio of its best
point to the runner-up (:func:`islands.analysis.verdicts.winner`). After the file's
``repetitions`` (the minimum), :meth:`islands.experiments.sweep.Sweep.run` repeats the two
compared points of every group that is not yet conclusive, one round of one run each at a
time, groups interleaved, until each is conclusive (its :data:`STOP_CONFIDENCE` interval
excludes 1, or its 95% interval is within ±precision), a point reaches ``run.max_repetitions``,
or the next round would not fit in ``run.budget_s``. The budget counts every
session of the sweep's directory: a resumed sweep starts from the seconds its earlier
sessions spent (:func:`spent_before`), not from a fresh budget. The groups left open are the
inconclusive ones: the manifest (``precision``) and the figure's summary
(:func:`islands.analysis.verdicts.precision_words`) name them.

:func:`comparisons` is pure: grid points and stored rows in, one :class:`Comparison` per group out.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from islands.analysis.statistics import ratio
from islands.analysis.verdicts import half_width
from islands.experiments.point import Point, show_value

__all__ = ["Comparison", "comparisons", "spent_before"]

#: A comparison stops being repeated for a winner only when this interval excludes 1 (its
#: words still give the 95% one): repeating until the 95% interval excludes 1 would find a
#: winner between equal points more often than 5% of the time.
STOP_CONFIDENCE = 0.99
#: The metric compared: a run's throughput.
METRIC = "throughput_tps"


@dataclass(frozen=True)
class Comparison:
    """One group's question: its best point against the runner-up, the ratio's interval and
    whether it is answered. ``points`` are the two compared (best first)."""

    group: str
    points: tuple[Point, ...]
    names: tuple[str, ...]
    runs: tuple[int, ...]
    value: float
    low: float
    high: float
    half_width: float
    conclusive: bool

    def to_dict(self) -> dict[str, Any]:
        """For the manifest (JSON-ready; NaN stays NaN, the writer maps it to null)."""
        return {
            "group": self.group,
            "compared": list(self.names),
            "runs": list(self.runs),
            "ratio": _finite(self.value),
            "ratio_low": _finite(self.low),
            "ratio_high": _finite(self.high),
            "half_width": _finite(self.half_width),
            "conclusive": self.conclusive,
        }


def _name(point: Point, compare: Sequence[str]) -> str:
    params = dict(point.params)
    return " ".join(show_value(params[k]) for k in compare if k in params) or point.deployment.name


def comparisons(
    points: Sequence[Point], rows: pd.DataFrame, compare: Sequence[str], precision: float
) -> list[Comparison]:
    """Each group of ``points`` (equal but for the ``compare`` keys) with two or more
    members: its best point (highest geometric mean of :data:`METRIC` over the stored
    ``rows`` of its ``grid_id``) against the runner-up. A point without rows counts as
    unmeasured (the group stays open)."""
    values: dict[str, list[float]] = {}
    if not rows.empty and "grid_id" in rows.columns and METRIC in rows.columns:
        for grid_id, series in rows.groupby(rows["grid_id"].astype(str))[METRIC]:
            values[str(grid_id)] = [float(v) for v in pd.to_numeric(series, errors="coerce") if v == v]
    seen: dict[str, set[str]] = {}
    for p in points:
        for k, v in p.params:
            seen.setdefault(k, set()).add(show_value(v))
    varying = {k for k, v in seen.items() if len(v) > 1}
    groups: dict[tuple[tuple[str, Any], ...], list[Point]] = {}
    for p in points:
        key = tuple((k, v) for k, v in p.params if k not in compare)
        groups.setdefault(key, []).append(p)
    out = []
    for key, members in groups.items():
        if len(members) < 2:
            continue

        def geomean(p: Point) -> float:
            v = [x for x in values.get(p.grid_id, []) if x > 0]
            return math.exp(sum(math.log(x) for x in v) / len(v)) if v else -math.inf

        ranked = sorted(members, key=geomean, reverse=True)
        best, second = ranked[0], ranked[1]
        r = ratio(values.get(best.grid_id, []), values.get(second.grid_id, []))
        # Stopping as soon as an interval excludes 1 would call winners more often than 5% of
        # the time (optional stopping): a winner stops the rounds only at the stricter level.
        strict = ratio(values.get(best.grid_id, []), values.get(second.grid_id, []), STOP_CONFIDENCE)
        out.append(
            Comparison(
                group=" ".join(f"{k}={show_value(v)}" for k, v in key if k in varying) or "all",
                points=(best, second),
                names=(_name(best, compare), _name(second, compare)),
                runs=(len(values.get(best.grid_id, [])), len(values.get(second.grid_id, []))),
                value=r.value,
                low=r.low,
                high=r.high,
                half_width=half_width(r),
                conclusive=bool(strict.distinguishable) or half_width(r) <= precision,
            )
        )
    return out


def spent_before(previous: Mapping[str, Any], rows: pd.DataFrame, spec_hash: str) -> float:
    """The seconds earlier sessions of a sweep's directory spent, which count against
    ``run.budget_s`` when it is resumed: the larger of the ``elapsed_s`` its manifest
    ``previous`` recorded (each session adds its own, saved with the manifest) and the sum
    of the ``run_s`` of the stored ``rows`` of this spec (``spec_hash``), which also holds
    the runs a killed session stored after its last manifest save. 0 for a new directory;
    a manifest of another spec (``--force``) contributes nothing."""
    recorded = previous.get("elapsed_s") if previous.get("spec_hash") == spec_hash else None
    recorded = float(recorded) if isinstance(recorded, (int, float)) and math.isfinite(recorded) else 0.0
    stored = 0.0
    if not rows.empty and "run_s" in rows.columns:
        mine = rows[rows["spec_hash"].astype(str) == spec_hash] if "spec_hash" in rows.columns else rows
        times = pd.to_numeric(mine["run_s"], errors="coerce")
        stored = float(times[times > 0].sum())
    return max(recorded, stored)


def _finite(x: float) -> float | None:
    return x if math.isfinite(x) else None
