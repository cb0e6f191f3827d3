"""Repetitions until the question is answered (issues 30 and 45): an experiment file's
``run.precision`` and ``run.budget_s``.

A sweep's question is a comparison: the points that differ only in the ``run.compare`` keys
(by default the deployment) form a group, and the group's verdict is the ratio of its best
point to the runner-up. After the file's ``repetitions`` (the minimum, the first look),
:meth:`islands.experiments.sweep.Sweep.run` repeats the two compared points of every group that
is not yet answered, one block (one run of each, their order alternating from block to block)
at a time, groups interleaved, until each is answered, a point reaches ``run.max_repetitions``
(the last look), or the next round would not fit in ``run.budget_s``. The budget counts every
session of the sweep's directory: a resumed sweep starts from the seconds its earlier sessions
spent (:func:`spent_before`), not from a fresh budget.

The rule, with its error rate known by construction (:func:`look`):

- **Blocks.** A sweep's repetition ``r`` of the two points is a block: both ran in the same
  pass, close in time. The ratio is the geometric mean of the blocks' ratios and its interval
  comes from their spread (:func:`islands.analysis.statistics.block_ratio`): a machine whose
  speed moves between windows widens the interval rather than moving it.
- **Alpha spending.** A comparison is looked at with ``repetitions`` blocks, then again after
  each round, up to ``max_repetitions`` blocks. At the look with ``n`` blocks its interval is
  taken at level ``1 - look_alpha(n)`` (:func:`islands.analysis.statistics.look_alpha`), whose
  shares add up to :data:`ALPHA` over all the looks: the intervals of every look hold at once
  with probability ≥ 95%, so whatever stopped the rounds (a winner, the precision, the budget),
  two equal points are called different in at most 5% of comparisons. Stopping as soon as the
  plain 95% interval excludes 1 (optional stopping) would do so far more often, and so would
  stopping on the plain interval's width alone (it stops when the spread happens to look
  small): ``tests/test_sweep_precision.py`` measures both on simulated comparisons.
- **Verdicts.** ``winner`` where the look's interval excludes 1; ``not distinguishable`` where
  it includes 1 and is within ±precision (the two are equal to that precision); ``not settled``
  otherwise (the budget or the repetitions ran out first). The summary prints every comparison
  with its verdict (:func:`islands.analysis.verdicts.comparison_words`).

With three or more deployments in a group, the two compared are the best two by their means
at that look; the 5% holds for each pair that could be chosen, not for the choice.

:func:`comparisons` is pure: grid points and stored rows in, one :class:`Comparison` per group out.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from islands.analysis.statistics import CONFIDENCE, Ratio, block_ratio, look_alpha
from islands.analysis.verdicts import NOT_DISTINGUISHABLE, NOT_SETTLED, STEAL_LIMIT, WINNER, half_width
from islands.experiments.point import Point, show_value

__all__ = ["ALPHA", "Comparison", "Look", "comparisons", "look", "spent_before", "stolen"]

#: The error every look of one comparison spends together: the share of comparisons between
#: two equal points that name a winner is at most this.
ALPHA = 1 - CONFIDENCE
#: The metric compared: a run's throughput.
METRIC = "throughput_tps"


@dataclass(frozen=True)
class Look:
    """One look at a comparison: the ratio and its interval at the look's ``level``, its
    relative half-width and the verdict (:data:`~islands.analysis.verdicts.WINNER`,
    :data:`~islands.analysis.verdicts.NOT_DISTINGUISHABLE` or
    :data:`~islands.analysis.verdicts.NOT_SETTLED`)."""

    ratio: Ratio
    level: float
    half_width: float
    verdict: str

    @property
    def conclusive(self) -> bool:
        """Whether the comparison is answered (no more rounds for it)."""
        return self.verdict != NOT_SETTLED


def look(
    new: Mapping[Any, float], old: Mapping[Any, float], precision: float, first: int, last: int, alpha: float = ALPHA
) -> Look:
    """The look at ``new / old`` (block → run) with as many blocks as both have, when the
    comparison is looked at with ``first`` … ``last`` blocks (see the module docstring)."""
    r0 = block_ratio(new, old)
    spend = look_alpha(r0.n_new, first, last, alpha)
    r = block_ratio(new, old, 1 - spend)
    if spend > 0 and r0.has_interval and r0.low == r0.high:  # no spread at all: the ratio is exact
        r = r0
    hw = half_width(r)
    if r.distinguishable:
        verdict = WINNER
    elif hw <= precision:
        verdict = NOT_DISTINGUISHABLE
    else:
        verdict = NOT_SETTLED
    return Look(r, 1 - spend, hw, verdict)


@dataclass(frozen=True)
class Comparison:
    """One group's question: its best point against the runner-up, the ratio's interval at the
    look's ``level`` over the ``blocks`` both ran in, and the verdict. ``points`` are the two
    compared (best first); ``params`` the group's grid values (what the compared points share)."""

    group: str
    points: tuple[Point, ...]
    names: tuple[str, ...]
    runs: tuple[int, ...]
    value: float
    low: float
    high: float
    half_width: float
    conclusive: bool
    blocks: int = 0
    level: float = CONFIDENCE
    verdict: str = NOT_SETTLED
    params: tuple[tuple[str, Any], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """For the manifest (JSON-ready; NaN stays NaN, the writer maps it to null)."""
        return {
            "group": self.group,
            "params": {k: v if isinstance(v, (bool, int, float, str)) else show_value(v) for k, v in self.params},
            "compared": list(self.names),
            "grid_ids": [p.grid_id for p in self.points],
            "runs": list(self.runs),
            "blocks": self.blocks,
            "level": self.level,
            "ratio": _finite(self.value),
            "ratio_low": _finite(self.low),
            "ratio_high": _finite(self.high),
            "half_width": _finite(self.half_width),
            "verdict": self.verdict,
            "conclusive": self.conclusive,
        }


def _name(point: Point, compare: Sequence[str]) -> str:
    params = dict(point.params)
    return " ".join(show_value(params[k]) for k in compare if k in params) or point.deployment.name


def stolen(rows: pd.DataFrame) -> pd.Series:
    """Which ``rows`` the hypervisor stole more than
    :data:`~islands.analysis.verdicts.STEAL_LIMIT` of the CPU time from (``system.steal_share``;
    False where not recorded): the comparisons leave them out."""
    if "system.steal_share" not in rows.columns:
        return pd.Series(False, index=rows.index)
    return pd.to_numeric(rows["system.steal_share"], errors="coerce").fillna(0.0) > STEAL_LIMIT


def _runs(rows: pd.DataFrame) -> dict[str, dict[Any, float]]:
    """grid_id → repetition → :data:`METRIC` (the mean where a repetition is stored twice;
    the row's order where there is no repetition column); failed runs, and runs with more
    steal than :data:`~islands.analysis.verdicts.STEAL_LIMIT` (:func:`stolen`), left out: their
    block waits for a round to make it again."""
    if rows.empty or "grid_id" not in rows.columns or METRIC not in rows.columns:
        return {}
    rows = rows[~stolen(rows)]
    values = pd.to_numeric(rows[METRIC], errors="coerce")
    reps = rows["repetition"] if "repetition" in rows.columns else pd.Series(range(len(rows)), index=rows.index)
    out: dict[str, dict[Any, list[float]]] = {}
    for grid_id, rep, v in zip(rows["grid_id"].astype(str), reps, values):
        if v == v:
            out.setdefault(grid_id, {}).setdefault(int(rep), []).append(float(v))
    return {g: {r: sum(v) / len(v) for r, v in by.items()} for g, by in out.items()}


def comparisons(
    points: Sequence[Point],
    rows: pd.DataFrame,
    compare: Sequence[str],
    precision: float,
    first: int = 2,
    last: int = 20,
) -> list[Comparison]:
    """Each group of ``points`` (equal but for the ``compare`` keys) with two or more
    members: its best point (highest geometric mean of :data:`METRIC` over the stored
    ``rows`` of its ``grid_id``) against the runner-up, looked at (:func:`look`) as one of the
    looks with ``first`` … ``last`` blocks (the sweep's ``repetitions`` and
    ``max_repetitions``). A point without rows counts as unmeasured (the group stays open)."""
    values = _runs(rows)
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
            v = [x for x in values.get(p.grid_id, {}).values() if x > 0]
            return math.exp(sum(math.log(x) for x in v) / len(v)) if v else -math.inf

        ranked = sorted(members, key=geomean, reverse=True)
        best, second = ranked[0], ranked[1]
        a, b = values.get(best.grid_id, {}), values.get(second.grid_id, {})
        seen_look = look(a, b, precision, first, last)
        r = seen_look.ratio
        out.append(
            Comparison(
                group=" ".join(f"{k}={show_value(v)}" for k, v in key if k in varying) or "all",
                points=(best, second),
                names=(_name(best, compare), _name(second, compare)),
                runs=(len(a), len(b)),
                value=r.value,
                low=r.low,
                high=r.high,
                half_width=seen_look.half_width,
                conclusive=seen_look.conclusive,
                blocks=r.n_new,
                level=seen_look.level,
                verdict=seen_look.verdict,
                params=tuple((k, v) for k, v in key if k in varying),
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
